/**
 * `ChatRequest` → the Responses API request body (`POST /responses`, `stream: true`).
 *
 * System messages become `instructions`; every other message becomes `input` items: user messages,
 * assistant text, `function_call`s (with the `call_id` the decoder reported as the tool-call id),
 * `function_call_output`s, and reasoning items carrying the `encrypted_content` the decoder put in a
 * `reasoning` chunk's `redacted` (with the item id in `signature`), so a stateless client
 * (`store: false`, the default) sends the model's reasoning back on the next turn. A custom
 * (freeform) tool call (`kind: "custom"`) goes back as a `custom_tool_call` item with its raw
 * `input`, and the tool message answering it — found by its id among the earlier calls — as a
 * `custom_tool_call_output`. `providerOptions` are spread last and can override anything.
 *
 * @since 0.1.0
 */
import type * as ChatRequest from "../../ChatRequest.js"
import * as Bytes from "../../internal/kit/Bytes.js"

/** How the body is built beyond the request itself. */
export interface EncodeOptions {
  /** The host's model id. */
  readonly model: string
  /** Whether the host may keep the response (default `false`: the client sends the whole history). */
  readonly store?: boolean | undefined
  /**
   * Whether to ask for `reasoning.encrypted_content` when not storing. Default: when the request sets
   * `reasoning` or the model id names a reasoning family (`o1`, `o3`, `o4-mini`, `gpt-5…`, `codex…`);
   * other models answer 400 ("Encrypted content is not supported with this model") when asked.
   */
  readonly encryptedReasoning?: boolean | undefined
  /** The provider name this model reports: reasoning parts tagged with another are not sent back. */
  readonly provider?: string | undefined
}

type Json = Record<string, unknown>

/** Model ids of OpenAI's reasoning families, optionally behind a `vendor/` prefix. */
const reasoningModel = /(^|\/)(o\d|gpt-5|codex)/i

/** Builds the exact Responses body for a request. */
export const encode = (request: ChatRequest.ChatRequest, options: EncodeOptions): Json => {
  const instructions: Array<string> = []
  const input: Array<Json> = []
  /** The ids of the custom tool calls so far: their results go back as `custom_tool_call_output`. */
  const customCalls = new Set<string>()
  for (const m of request.messages) {
    switch (m.role) {
      case "system":
        instructions.push(m.content)
        break
      case "user":
        input.push({ role: "user", content: typeof m.content === "string" ? m.content : m.content.map(userPart) })
        break
      case "assistant":
        assistant(m, input, options.provider ?? "openai", customCalls)
        break
      case "tool":
        input.push({
          type: customCalls.has(m.toolCallId) ? "custom_tool_call_output" : "function_call_output",
          call_id: m.toolCallId,
          output: typeof m.content === "string" ? m.content : m.content.map((p) => p.text).join("")
        })
        break
    }
  }
  const body: Json = { model: options.model }
  if (instructions.length > 0) body.instructions = instructions.join("\n\n")
  body.input = input
  if (request.tools !== undefined) body.tools = request.tools.map(tool)
  if (request.toolChoice !== undefined) body.tool_choice = toolChoice(request.toolChoice)
  if (request.maxTokens !== undefined) body.max_output_tokens = request.maxTokens
  if (request.temperature !== undefined) body.temperature = request.temperature
  if (request.topP !== undefined) body.top_p = request.topP
  // The Responses API has no stop sequences; `request.stop` is left out rather than sent to a 400.
  if (request.reasoning !== undefined) {
    body.reasoning = request.reasoning.effort === undefined
      ? { summary: "auto" }
      : { effort: request.reasoning.effort, summary: "auto" }
  }
  if (request.responseFormat !== undefined) body.text = { format: responseFormat(request.responseFormat) }
  const store = options.store ?? false
  body.store = store
  const encrypted = options.encryptedReasoning ??
    (request.reasoning !== undefined || reasoningModel.test(options.model))
  if (!store && encrypted) body.include = ["reasoning.encrypted_content"]
  body.stream = true
  return request.providerOptions === undefined ? body : { ...body, ...request.providerOptions }
}

// ---------------------------------------------------------------------------------------------
// Messages
// ---------------------------------------------------------------------------------------------

/** An earlier answer, in the order the API produced it: reasoning, then text, then calls. */
const assistant = (
  m: ChatRequest.AssistantMessage,
  input: Array<Json>,
  provider: string,
  customCalls: Set<string>
): void => {
  const calls = m.toolCalls ?? []
  // A reasoning item must be followed by the item it led to: alone it is rejected.
  if (m.content !== "" || calls.length > 0) {
    for (const part of m.reasoning ?? []) {
      // Another provider's blob (after a fallback or a switch of model) would be refused.
      if (part.provider !== undefined && part.provider !== provider) continue
      const item = reasoningItem(part)
      if (item !== undefined) input.push(item)
    }
  }
  if (m.content !== "") input.push({ role: "assistant", content: m.content })
  for (const call of calls) {
    if (call.kind === "custom") {
      customCalls.add(call.id)
      // Freeform input goes back as the model wrote it: it was never JSON.
      input.push({ type: "custom_tool_call", call_id: call.id, name: call.name, input: call.rawArguments })
      continue
    }
    input.push({
      type: "function_call",
      call_id: call.id,
      name: call.name,
      // A call without arguments streams "" but must go back as JSON.
      arguments: call.rawArguments.trim() === "" ? "{}" : call.rawArguments
    })
  }
}

/**
 * A reasoning block goes back only with its encrypted content: without it (a plain summary, another
 * provider's thinking) the item would name an id the host did not store, which `store: false` rejects.
 */
const reasoningItem = (part: ChatRequest.ReasoningPart): Json | undefined => {
  if (part.redacted === undefined || part.redacted === "") return undefined
  const item: Json = { type: "reasoning" }
  if (part.signature !== undefined && part.signature !== "") item.id = part.signature
  item.summary = part.text === "" ? [] : [{ type: "summary_text", text: part.text }]
  item.encrypted_content = part.redacted
  return item
}

const userPart = (part: ChatRequest.UserPart): Json => {
  switch (part.type) {
    case "text":
      return { type: "input_text", text: part.text }
    case "image":
      return {
        type: "input_image",
        image_url: part.url ?? dataUrl(part.data, part.mediaType ?? "image/png"),
        detail: part.detail ?? "auto"
      }
    case "file": {
      if (part.mediaType.startsWith("image/")) {
        return { type: "input_image", image_url: part.url ?? dataUrl(part.data, part.mediaType), detail: "auto" }
      }
      if (part.data === undefined) return { type: "input_file", file_url: part.url ?? "" }
      return {
        type: "input_file",
        filename: part.filename ?? `file.${part.mediaType.split("/")[1] ?? "bin"}`,
        file_data: dataUrl(part.data, part.mediaType)
      }
    }
  }
}

/** A `data:` URL for bytes; base64 text is used as is, and a string that is already a data URL passes. */
const dataUrl = (data: string | Uint8Array | undefined, mediaType: string): string =>
  data === undefined ? "" : Bytes.dataUrl(data, mediaType)

// ---------------------------------------------------------------------------------------------
// Tools and options
// ---------------------------------------------------------------------------------------------

const tool = (t: ChatRequest.Tool): Json => {
  const out: Json = { type: "function", name: t.name }
  if (t.description !== undefined) out.description = t.description
  out.parameters = t.parameters
  // The Responses API makes functions strict unless told otherwise, and strict mode rejects schemas
  // with optional properties (most Effect schemas): strict only when the tool asks for it.
  out.strict = t.strict ?? false
  return out
}

const toolChoice = (choice: ChatRequest.ToolChoice): unknown =>
  typeof choice === "string" ? choice : { type: "function", name: choice.name }

const responseFormat = (format: ChatRequest.ResponseFormat): Json => {
  switch (format.type) {
    case "text":
      return { type: "text" }
    case "json":
      return { type: "json_object" }
    case "json_schema": {
      const out: Json = { type: "json_schema", name: format.name }
      if (format.description !== undefined) out.description = format.description
      out.schema = format.schema
      if (format.strict !== undefined) out.strict = format.strict
      return out
    }
  }
}
