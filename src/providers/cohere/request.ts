/**
 * `ChatRequest` → the Cohere v2 chat body (`POST /v2/chat`, `stream: true`).
 *
 * - Messages keep their roles (`system`, `user`, `assistant`, `tool`); a user message of parts is a
 *   list of `text` and `image_url` items (an image by URL, or its bytes as a data URL). Files other
 *   than images are refused: Cohere reads documents from the top-level `documents` field, which
 *   `providerOptions: { documents: [...] }` sends as it is.
 * - An assistant turn with tool calls sends its text as `tool_plan` (Cohere's plan before the
 *   calls, which the decoder streams as text) and its calls as `tool_calls` with their arguments
 *   as a JSON string; without calls its text is `content`. Its reasoning goes back first, as
 *   `{type: "thinking"}` content items: Cohere's own (untagged) parts; another provider's signed or
 *   redacted blobs are left out.
 * - A tool result is a `tool` message with `tool_call_id` (Cohere has no error flag: `isError` is
 *   not sent).
 * - `toolChoice`: `required` → `REQUIRED`, `none` → `NONE`, `auto` → nothing (the default). Cohere
 *   cannot name one tool: `{type: "tool", name}` sends only that tool, with `REQUIRED`, which forces
 *   exactly it; a name that is not among the tools is refused before any request.
 * - `topP` → `p`, `stop` → `stop_sequences`, `responseFormat` json / json_schema →
 *   `response_format: {type: "json_object", json_schema?}`, `reasoning` → `thinking: {type:
 *   "enabled", token_budget?}` (Cohere has no effort levels, so every effort turns thinking on), a tool
 *   marked `strict` → `strict_tools: true` (Cohere's switch is for all tools at once).
 * - `providerOptions` is merged last into the body (`documents`, `k`, `seed`, `safety_mode`,
 *   `citation_options` …), so any field passes through unchanged.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import type * as ChatRequest from "../../ChatRequest.js"
import * as Bytes from "../../internal/kit/Bytes.js"

type Json = Record<string, unknown>

/** How the body is built beyond the request itself. */
export interface EncodeOptions {
  /** The model id. */
  readonly model: string
  /** The provider name this model reports: reasoning parts tagged with another are not sent back. */
  readonly provider?: string | undefined
}

/** Builds the exact v2 chat body for a request, or says why the request cannot be sent. */
export const encode = (request: ChatRequest.ChatRequest, options: EncodeOptions): Either.Either<Json, string> => {
  const messages: Array<Json> = []
  for (const m of request.messages) {
    switch (m.role) {
      case "system":
        messages.push({ role: "system", content: m.content })
        break
      case "user": {
        if (typeof m.content === "string") {
          messages.push({ role: "user", content: m.content })
          break
        }
        const content: Array<Json> = []
        for (const part of m.content) {
          const item = userPart(part)
          if (typeof item === "string") return Either.left(item)
          content.push(item)
        }
        messages.push({ role: "user", content })
        break
      }
      case "assistant":
        messages.push(assistant(m, options.provider ?? "cohere"))
        break
      case "tool":
        messages.push({
          role: "tool",
          tool_call_id: m.toolCallId,
          content: typeof m.content === "string" ? m.content : m.content.map((p) => ({ type: "text", text: p.text }))
        })
        break
    }
  }

  let tools = request.tools
  let toolChoice: string | undefined
  const choice = request.toolChoice
  if (choice === "required") toolChoice = "REQUIRED"
  else if (choice === "none") toolChoice = "NONE"
  else if (typeof choice === "object") {
    const named = tools?.filter((t) => t.name === choice.name) ?? []
    if (named.length === 0) {
      return Either.left(`toolChoice names the tool "${choice.name}", which is not among the request's tools`)
    }
    tools = named
    toolChoice = "REQUIRED"
  }

  const body: Json = { model: options.model, messages }
  if (tools !== undefined) body.tools = tools.map(tool)
  if (toolChoice !== undefined) body.tool_choice = toolChoice
  if (tools?.some((t) => t.strict === true) === true) body.strict_tools = true
  if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens
  if (request.temperature !== undefined) body.temperature = request.temperature
  if (request.topP !== undefined) body.p = request.topP
  if (request.stop !== undefined) body.stop_sequences = request.stop
  const format = request.responseFormat
  if (format?.type === "json") body.response_format = { type: "json_object" }
  else if (format?.type === "json_schema") body.response_format = { type: "json_object", json_schema: format.schema }
  const reasoning = request.reasoning
  if (reasoning?.budgetTokens !== undefined) body.thinking = { type: "enabled", token_budget: reasoning.budgetTokens }
  else if (reasoning?.effort !== undefined) body.thinking = { type: "enabled" }
  body.stream = true
  return Either.right({ ...body, ...request.providerOptions })
}

const tool = (t: ChatRequest.Tool): Json => {
  const fn: Json = { name: t.name }
  if (t.description !== undefined) fn.description = t.description
  fn.parameters = t.parameters
  return { type: "function", function: fn }
}

const assistant = (m: ChatRequest.AssistantMessage, provider: string): Json => {
  // Cohere signs nothing: its reasoning comes back as plain text, untagged. A blob another
  // provider signed or redacted means nothing here, and is left out.
  const thinking: Array<Json> = []
  for (const r of m.reasoning ?? []) {
    if (r.provider !== undefined && r.provider !== provider) continue
    if (r.redacted !== undefined || r.text === "") continue
    thinking.push({ type: "thinking", thinking: r.text })
  }
  const calls = m.toolCalls ?? []
  const out: Json = { role: "assistant" }
  if (calls.length > 0) {
    if (thinking.length > 0) out.content = thinking
    if (m.content !== "") out.tool_plan = m.content
    out.tool_calls = calls.map((call) => ({
      id: call.id,
      type: "function",
      function: {
        name: call.name,
        arguments: call.parseError === undefined ? JSON.stringify(call.arguments) : call.rawArguments
      }
    }))
    return out
  }
  out.content = thinking.length === 0 ? m.content : [...thinking, { type: "text", text: m.content }]
  return out
}

/** A user part as a content item, or why it cannot be sent. */
const userPart = (part: ChatRequest.UserPart): Json | string => {
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text }
    case "image":
      return image(part.url, part.data, part.mediaType ?? "image/png", part.detail)
    case "file":
      if (part.mediaType.toLowerCase().startsWith("image/")) return image(part.url, part.data, part.mediaType)
      return `Cohere takes no ${part.mediaType} file in a message: pass documents as providerOptions.documents`
  }
}

const image = (
  url: string | undefined,
  data: string | Uint8Array | undefined,
  mediaType: string,
  detail?: "auto" | "low" | "high"
): Json => {
  const imageUrl: Json = { url: data === undefined ? url ?? "" : dataUrl(data, mediaType) }
  if (detail !== undefined) imageUrl.detail = detail
  return { type: "image_url", image_url: imageUrl }
}

/** Bytes or base64 text as a data URL (a data URL stays as it is). */
const dataUrl = Bytes.dataUrl
