/**
 * `ChatRequest` → the Chat Completions request body (`POST /chat/completions`, `stream: true`).
 * Fields the request leaves out are left out of the body, so each host applies its own defaults;
 * `providerOptions` are spread last and can override anything.
 *
 * @since 0.1.0
 */
import type * as ChatRequest from "../../ChatRequest.js"
import * as Bytes from "../../internal/kit/Bytes.js"

/** How the body is built beyond the request itself (presets set these per host). */
export interface EncodeOptions {
  /** The host's model id. */
  readonly model: string
  /** The field that caps the answer: OpenAI wants `max_completion_tokens` (the default), most hosts `max_tokens`. */
  readonly maxTokensField?: "max_tokens" | "max_completion_tokens" | undefined
  /** Whether to ask for the usage chunk with `stream_options.include_usage` (default `true`). */
  readonly includeUsage?: boolean | undefined
  /** The provider name this model reports: reasoning parts tagged with another are not sent back. */
  readonly provider?: string | undefined
}

type Json = Record<string, unknown>

/** Builds the exact Chat Completions body for a request. */
export const encode = (request: ChatRequest.ChatRequest, options: EncodeOptions): Json => {
  const body: Json = { model: options.model, messages: request.messages.map((m) => message(m, options.provider)) }
  if (request.tools !== undefined) body.tools = request.tools.map(tool)
  if (request.toolChoice !== undefined) body.tool_choice = toolChoice(request.toolChoice)
  if (request.maxTokens !== undefined) body[options.maxTokensField ?? "max_completion_tokens"] = request.maxTokens
  if (request.temperature !== undefined) body.temperature = request.temperature
  if (request.topP !== undefined) body.top_p = request.topP
  if (request.stop !== undefined) body.stop = request.stop
  // Chat Completions has no thinking-budget field; `budgetTokens` is for providers that do.
  if (request.reasoning?.effort !== undefined) body.reasoning_effort = request.reasoning.effort
  if (request.responseFormat !== undefined) body.response_format = responseFormat(request.responseFormat)
  body.stream = true
  if (options.includeUsage !== false) body.stream_options = { include_usage: true }
  return request.providerOptions === undefined ? body : { ...body, ...request.providerOptions }
}

// ---------------------------------------------------------------------------------------------
// Messages
// ---------------------------------------------------------------------------------------------

const message = (m: ChatRequest.Message, provider: string | undefined): Json => {
  switch (m.role) {
    case "system":
      return { role: "system", content: m.content }
    case "user":
      return { role: "user", content: typeof m.content === "string" ? m.content : m.content.map(userPart) }
    case "assistant":
      return assistant(m, provider)
    case "tool":
      return {
        role: "tool",
        tool_call_id: m.toolCallId,
        content: typeof m.content === "string" ? m.content : m.content.map((p) => p.text).join("")
      }
  }
}

const assistant = (m: ChatRequest.AssistantMessage, provider: string | undefined): Json => {
  const calls = m.toolCalls ?? []
  // The API wants `null`, not "", beside tool calls.
  const out: Json = { role: "assistant", content: m.content === "" && calls.length > 0 ? null : m.content }
  if (calls.length > 0) {
    out.tool_calls = calls.map((call) => ({
      id: call.id,
      type: "function",
      // A call without arguments streams "" but must be sent back as JSON: several hosts parse it.
      function: { name: call.name, arguments: call.rawArguments.trim() === "" ? "{}" : call.rawArguments }
    }))
  }
  // DeepSeek (and hosts copying it) want the reasoning of an earlier turn back in this field; another
  // provider's thinking (after a fallback or a switch of model) is not this model's own, and stays out.
  const reasoning = (m.reasoning ?? [])
    .filter((r) => provider === undefined || r.provider === undefined || r.provider === provider)
    .map((r) => r.text)
    .join("")
  if (reasoning !== "") out.reasoning_content = reasoning
  if (m.refusal !== undefined) out.refusal = m.refusal
  return out
}

const userPart = (part: ChatRequest.UserPart): Json => {
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text }
    case "image":
      return image(part.url ?? dataUrl(part.data, part.mediaType ?? "image/png") ?? "", part.detail)
    case "file":
      return file(part)
  }
}

const image = (url: string, detail: string | undefined): Json => ({
  type: "image_url",
  image_url: detail === undefined ? { url } : { url, detail }
})

/** Audio formats `input_audio` accepts, by media type. */
const audioFormats: ReadonlyMap<string, string> = new Map([
  ["audio/wav", "wav"],
  ["audio/x-wav", "wav"],
  ["audio/wave", "wav"],
  ["audio/mpeg", "mp3"],
  ["audio/mp3", "mp3"]
])

const file = (part: typeof ChatRequest.FilePart.Type): Json => {
  const named = (fields: Json): Json => ({
    type: "file",
    file: part.filename === undefined ? fields : { filename: part.filename, ...fields }
  })
  if (part.data !== undefined) {
    const format = audioFormats.get(part.mediaType.toLowerCase())
    if (format !== undefined) return { type: "input_audio", input_audio: { data: base64(part.data), format } }
    if (part.mediaType.startsWith("image/")) return image(dataUrl(part.data, part.mediaType) ?? "", undefined)
    return named({ file_data: dataUrl(part.data, part.mediaType) })
  }
  const url = part.url ?? ""
  if (part.mediaType.startsWith("image/")) return image(url, undefined)
  // Chat Completions has no field for a file by URL: OpenAI documents `file_data` (base64 data URL)
  // and `file_id` only, and `file_url` exists only in the Responses API. OpenRouter documents a plain
  // URL in `file_data`, so that is where it goes; OpenAI answers 400 with a clear message (upload the
  // file, or pass its bytes), which beats inventing a field that every host would silently ignore.
  return named({ file_data: url })
}

/** A `data:` URL for bytes; base64 text is used as is, and a string that is already a data URL passes. */
const dataUrl = (data: string | Uint8Array | undefined, mediaType: string): string | undefined =>
  data === undefined ? undefined : Bytes.dataUrl(data, mediaType)

const base64 = Bytes.base64Of

// ---------------------------------------------------------------------------------------------
// Tools and options
// ---------------------------------------------------------------------------------------------

const tool = (t: ChatRequest.Tool): Json => {
  const fn: Json = { name: t.name }
  if (t.description !== undefined) fn.description = t.description
  fn.parameters = t.parameters
  if (t.strict !== undefined) fn.strict = t.strict
  return { type: "function", function: fn }
}

const toolChoice = (choice: ChatRequest.ToolChoice): unknown =>
  typeof choice === "string" ? choice : { type: "function", function: { name: choice.name } }

const responseFormat = (format: ChatRequest.ResponseFormat): Json => {
  switch (format.type) {
    case "text":
      return { type: "text" }
    case "json":
      return { type: "json_object" }
    case "json_schema": {
      const schema: Json = { name: format.name }
      if (format.description !== undefined) schema.description = format.description
      schema.schema = format.schema
      if (format.strict !== undefined) schema.strict = format.strict
      return { type: "json_schema", json_schema: schema }
    }
  }
}
