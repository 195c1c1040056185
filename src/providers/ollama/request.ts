/**
 * `ChatRequest` → Ollama's native chat body (`POST /api/chat`, `stream: true`).
 *
 * - Messages keep their roles. A user message's text parts are joined with a blank line (Ollama's
 *   `content` is one string) and its images go in `images` as base64 (a data URL's prefix dropped).
 *   Ollama cannot fetch an image by URL nor take other files: such a part is refused before any
 *   request, with a message saying so.
 * - An assistant message sends its reasoning text back as `thinking` (its own or untagged parts: another
 *   provider's are left out) and its calls as
 *   `tool_calls: [{function: {name, arguments}}]`, arguments as an object (arguments that did not
 *   parse go back as `{raw}`).
 * - A tool result is `{role: "tool", tool_name, content}`: Ollama matches results by the tool's
 *   name, taken from the message's `name` or else looked up by `toolCallId` among the earlier calls.
 * - `think`: the request's `reasoning` (an effort is sent as its level, `minimal` as `low`; a budget
 *   alone as `true`), else the layer's `think` option.
 * - `format`: `"json"` for `responseFormat: {type: "json"}`, the schema itself for `json_schema`.
 * - `options`: the layer's `options`, then `temperature`, `top_p`, `num_predict` (from
 *   `maxTokens`) and `stop` from the request, then `providerOptions.options`, merged key by key.
 * - `keep_alive` from the layer; every other `providerOptions` key is merged last into the body.
 * - Ollama has no `tool_choice`: `toolChoice: "none"` leaves the tools out; the other choices
 *   cannot be expressed and are not sent.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import type * as ChatRequest from "../../ChatRequest.js"
import * as Bytes from "../../internal/kit/Bytes.js"
import * as Guards from "../../internal/kit/guards.js"

type Json = Record<string, unknown>

/** Ollama's `think` values: on or off, or a level for models that take one (gpt-oss). */
export type Think = boolean | "low" | "medium" | "high"

/** How the body is built beyond the request itself. */
export interface EncodeOptions {
  /** The model name (`qwen3:8b`). */
  readonly model: string
  /** `think` when the request sets no `reasoning`. */
  readonly think?: Think | undefined
  /** `keep_alive`: how long the model stays loaded after the request (`"10m"`, seconds, `-1`, `0`). */
  readonly keepAlive?: string | number | undefined
  /** The Ollama model options (`num_ctx`, `seed`, `top_k` …), below the request's own fields. */
  readonly options?: Readonly<Record<string, unknown>> | undefined
  /** The provider name this model reports: reasoning parts tagged with another are not sent back. */
  readonly provider?: string | undefined
}

/** Builds the exact `/api/chat` body for a request, or says why the request cannot be sent. */
export const encode = (request: ChatRequest.ChatRequest, options: EncodeOptions): Either.Either<Json, string> => {
  const { options: extraOptions, ...extra } = request.providerOptions ?? {}
  if (extraOptions !== undefined && !isRecord(extraOptions)) {
    return Either.left("providerOptions.options must be an object (the Ollama model options)")
  }
  const names = new Map<string, string>()
  const messages: Array<Json> = []
  for (const m of request.messages) {
    switch (m.role) {
      case "system":
        messages.push({ role: "system", content: m.content })
        break
      case "user": {
        const user = userMessage(m.content)
        if (typeof user === "string") return Either.left(user)
        messages.push(user)
        break
      }
      case "assistant":
        for (const call of m.toolCalls ?? []) names.set(call.id, call.name)
        messages.push(assistant(m, options.provider))
        break
      case "tool": {
        const out: Json = { role: "tool" }
        const name = m.name ?? names.get(m.toolCallId)
        if (name !== undefined) out.tool_name = name
        out.content = typeof m.content === "string" ? m.content : m.content.map((p) => p.text).join("")
        messages.push(out)
        break
      }
    }
  }

  const body: Json = { model: options.model, messages }
  if (request.tools !== undefined && request.toolChoice !== "none") body.tools = request.tools.map(tool)
  const think = request.reasoning === undefined ? options.think : thinkOf(request.reasoning)
  if (think !== undefined) body.think = think
  if (request.responseFormat?.type === "json") body.format = "json"
  else if (request.responseFormat?.type === "json_schema") body.format = request.responseFormat.schema
  const modelOptions: Json = { ...options.options }
  if (request.temperature !== undefined) modelOptions.temperature = request.temperature
  if (request.topP !== undefined) modelOptions.top_p = request.topP
  if (request.maxTokens !== undefined) modelOptions.num_predict = request.maxTokens
  if (request.stop !== undefined) modelOptions.stop = request.stop
  Object.assign(modelOptions, extraOptions)
  if (Object.keys(modelOptions).length > 0) body.options = modelOptions
  if (options.keepAlive !== undefined) body.keep_alive = options.keepAlive
  body.stream = true
  return Either.right({ ...body, ...extra })
}

/** `reasoning` → `think`: a level when an effort is given (Ollama's lowest is `low`), else on. */
const thinkOf = (reasoning: typeof ChatRequest.ReasoningOptions.Type): Think => {
  switch (reasoning.effort) {
    case undefined:
      return true
    case "minimal":
      return "low"
    default:
      return reasoning.effort
  }
}

const isRecord = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

// ---------------------------------------------------------------------------------------------
// Messages
// ---------------------------------------------------------------------------------------------

/** A user message, or why it cannot be sent. */
const userMessage = (content: string | ReadonlyArray<ChatRequest.UserPart>): Json | string => {
  if (typeof content === "string") return { role: "user", content }
  const texts: Array<string> = []
  const images: Array<string> = []
  for (const part of content) {
    switch (part.type) {
      case "text":
        texts.push(part.text)
        break
      case "image":
      case "file": {
        const mediaType = part.mediaType ?? "image/png"
        if (!mediaType.toLowerCase().startsWith("image/")) {
          return `Ollama takes images only, not ${mediaType} files`
        }
        if (part.data === undefined) {
          return "Ollama cannot fetch an image by URL: pass its bytes (data) instead"
        }
        images.push(base64(part.data))
        break
      }
    }
  }
  const out: Json = { role: "user", content: texts.join("\n\n") }
  if (images.length > 0) out.images = images
  return out
}

const assistant = (m: ChatRequest.AssistantMessage, provider: string | undefined): Json => {
  const out: Json = { role: "assistant", content: m.content }
  // Another provider's thinking (after a fallback or a switch of model) is not this model's own.
  const thinking = (m.reasoning ?? [])
    .filter((r) => provider === undefined || r.provider === undefined || r.provider === provider)
    .map((r) => r.text)
    .join("")
  if (thinking !== "") out.thinking = thinking
  const calls = m.toolCalls ?? []
  if (calls.length > 0) {
    out.tool_calls = calls.map((call) => ({
      function: { name: call.name, arguments: Guards.argumentsObject(call) }
    }))
  }
  return out
}

/** Base64 text for bytes; base64 text is used as is, a data URL loses its prefix. */
const base64 = Bytes.base64Of

const tool = (t: ChatRequest.Tool): Json => {
  const fn: Json = { name: t.name }
  if (t.description !== undefined) fn.description = t.description
  fn.parameters = t.parameters
  return { type: "function", function: fn }
}
