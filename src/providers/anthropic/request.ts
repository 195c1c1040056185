/**
 * `ChatRequest` → the Anthropic Messages body (`POST /v1/messages`, `stream: true`).
 *
 * - System messages, wherever they stand, become the top-level `system` (a string when there is
 *   one and it carries no cache marker, else text blocks).
 * - Consecutive tool messages become one user message of `tool_result` blocks (`is_error: true`
 *   for failures), as the API wants them right after the assistant's `tool_use` blocks.
 * - An assistant message sends its reasoning first (`thinking` with `signature`, `redacted_thinking`
 *   with `data`), then its text, then its `tool_use` blocks. Reasoning with neither a signature nor
 *   redacted data (another provider's) is left out: the API refuses unsigned thinking.
 * - `max_tokens` is required: the request's `maxTokens`, else the default plus the thinking budget.
 * - `responseFormat` `json` / `json_schema`: the answer comes through a tool, `json_response`
 *   ({@link Events.jsonToolName}), whose `input_schema` is the requested schema (`{type: "object"}`
 *   for `json`), added after the caller's tools; the decoder streams its input as the answer's text
 *   and reports a plain `stop`, as Bedrock's does. The tool is forced (`tool_choice: {type: "tool",
 *   name: "json_response"}`) when no tool of the caller's may be called; beside the caller's tools
 *   the choice is `{type: "any"}` (call a tool or answer), and a named `toolChoice` stays as named.
 *   With thinking on (a `reasoning` budget or effort, or a `thinking` in `providerOptions`) Anthropic
 *   refuses any forced tool use, so the choice is then `{type: "auto"}`: the tool's description
 *   asks for the answer through it. A request may not name a tool of its own `json_response`.
 * - Cache breakpoints: `providerOptions.cacheBreakpoints` (see {@link CacheBreakpoint}) is read here
 *   and never sent; every other `providerOptions` key is merged last into the body, so a top-level
 *   `cache_control` (automatic caching) or any newer field passes through unchanged.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import type * as ChatRequest from "../../ChatRequest.js"
import * as Bytes from "../../internal/kit/Bytes.js"
import * as Guards from "../../internal/kit/guards.js"
import * as Events from "./events.js"

type Json = Record<string, unknown>

/**
 * Where a prompt-cache breakpoint goes: `"tools"` (the last tool definition), `"system"` (the last
 * system block), or a message's position in `request.messages` (negative counts from the end, `-1`
 * is the last), marking that message's last content block. The object form sets the TTL.
 */
export type CacheBreakpoint =
  | "tools"
  | "system"
  | number
  | { readonly at: "tools" | "system" | number; readonly ttl?: "5m" | "1h" }

/** The `providerOptions` key read by this encoder and never sent. */
export const cacheBreakpointsKey = "cacheBreakpoints"

/** How the body is built beyond the request itself. */
export interface EncodeOptions {
  /** The model id. */
  readonly model: string
  /** `max_tokens` when the request sets none (the thinking budget is added to it). */
  readonly maxTokens: number
  /** The provider name this model reports: reasoning parts tagged with another are not sent back. */
  readonly provider?: string | undefined
}

/** Builds the exact Messages body for a request, or says why the request cannot be sent. */
export const encode = (request: ChatRequest.ChatRequest, options: EncodeOptions): Either.Either<Json, string> => {
  const { [cacheBreakpointsKey]: marks, ...extra } = request.providerOptions ?? {}
  if (request.tools?.some((t) => t.name === Events.jsonToolName) === true) {
    return Either.left(
      `The tool name "${Events.jsonToolName}" is reserved: Anthropic's responseFormat answers through a tool of that name`
    )
  }
  const system: Array<Json> = []
  const messages: Array<Json> = []
  /** Per request message, the block a cache breakpoint on it marks. */
  const lastBlocks: Array<Json | undefined> = []
  let systemIndex: number | undefined
  for (let i = 0; i < request.messages.length; i++) {
    const m = request.messages[i]!
    switch (m.role) {
      case "system": {
        const block: Json = { type: "text", text: m.content }
        system.push(block)
        lastBlocks.push(block)
        systemIndex = i
        break
      }
      case "user": {
        const content = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content.map(userPart)
        messages.push({ role: "user", content, fromString: typeof m.content === "string" })
        lastBlocks.push(content[content.length - 1])
        break
      }
      case "assistant": {
        const content = assistant(m, options.provider ?? "anthropic")
        if (content.length > 0) messages.push({ role: "assistant", content })
        lastBlocks.push(content[content.length - 1])
        break
      }
      case "tool": {
        const block: Json = {
          type: "tool_result",
          tool_use_id: m.toolCallId,
          content: typeof m.content === "string" ? m.content : m.content.map((p) => ({ type: "text", text: p.text }))
        }
        if (m.isError === true) block.is_error = true
        const previous = messages[messages.length - 1]
        if (previous?.toolResults === true) (previous.content as Array<Json>).push(block)
        else messages.push({ role: "user", content: [block], toolResults: true })
        lastBlocks.push(block)
        break
      }
    }
  }
  const tools = request.tools?.map(tool)

  if (marks !== undefined) {
    if (!Array.isArray(marks)) return Either.left(`providerOptions.${cacheBreakpointsKey} must be an array`)
    for (const mark of marks as ReadonlyArray<unknown>) {
      const problem = applyBreakpoint(mark, { tools, lastBlocks, systemIndex })
      if (problem !== undefined) return Either.left(`providerOptions.${cacheBreakpointsKey}: ${problem}`)
    }
  }

  const body: Json = { model: options.model }
  if (system.length === 1 && system[0]!.cache_control === undefined) body.system = system[0]!.text
  else if (system.length > 0) body.system = system
  body.messages = messages.map(finishMessage)
  const budget = request.reasoning?.budgetTokens
  body.max_tokens = request.maxTokens ?? options.maxTokens + (budget ?? 0)
  const effort = request.reasoning?.effort
  const thinking = budget !== undefined || effort !== undefined || thinkingOn(extra.thinking)
  // The JSON tool comes after the caller's tools, so a cache breakpoint on their last one stays put.
  const json = jsonTool(request.responseFormat)
  const allTools = json === undefined ? tools : [...(tools ?? []), json]
  if (allTools !== undefined) body.tools = allTools
  const choice = json === undefined
    ? request.toolChoice === undefined ? undefined : toolChoice(request.toolChoice)
    : jsonToolChoice(request.toolChoice, (tools ?? []).length > 0, thinking)
  if (choice !== undefined) body.tool_choice = choice
  if (request.temperature !== undefined) body.temperature = request.temperature
  if (request.topP !== undefined) body.top_p = request.topP
  if (request.stop !== undefined) body.stop_sequences = request.stop
  if (budget !== undefined) body.thinking = { type: "enabled", budget_tokens: budget }
  else if (effort !== undefined) body.thinking = { type: "adaptive" }
  // Anthropic's levels are low | medium | high (| max): "minimal" is its lowest.
  if (effort !== undefined) body.output_config = { effort: effort === "minimal" ? "low" : effort }
  body.stream = true
  return Either.right({ ...body, ...extra })
}

/** Drops the encoder's bookkeeping; a plain user string without a marker goes back to a string. */
const finishMessage = (m: Json): Json => {
  const content = m.content as Array<Json>
  const only = content.length === 1 ? content[0]! : undefined
  if (m.fromString === true && only !== undefined && only.cache_control === undefined) {
    return { role: m.role, content: only.text }
  }
  return { role: m.role, content }
}

const applyBreakpoint = (
  mark: unknown,
  targets: {
    readonly tools: ReadonlyArray<Json> | undefined
    readonly lastBlocks: ReadonlyArray<Json | undefined>
    readonly systemIndex: number | undefined
  }
): string | undefined => {
  const at = typeof mark === "object" && mark !== null && !Array.isArray(mark) ? (mark as { at?: unknown }).at : mark
  const ttl = typeof mark === "object" && mark !== null ? (mark as { ttl?: unknown }).ttl : undefined
  if (ttl !== undefined && ttl !== "5m" && ttl !== "1h") return `ttl must be "5m" or "1h", got ${JSON.stringify(ttl)}`
  const cacheControl: Json = ttl === undefined ? { type: "ephemeral" } : { type: "ephemeral", ttl }
  let block: Json | undefined
  if (at === "tools") {
    block = targets.tools?.[targets.tools.length - 1]
    if (block === undefined) return "\"tools\" marks the last tool, and the request has none"
  } else if (at === "system") {
    block = targets.systemIndex === undefined ? undefined : targets.lastBlocks[targets.systemIndex]
    if (block === undefined) return "\"system\" marks the last system message, and the request has none"
  } else if (typeof at === "number" && Number.isSafeInteger(at)) {
    const n = targets.lastBlocks.length
    const index = at < 0 ? n + at : at
    if (index < 0 || index >= n) return `message ${at} does not exist (the request has ${n})`
    block = targets.lastBlocks[index]
    if (block === undefined) return `message ${at} has no content to mark`
  } else {
    return `a breakpoint is "tools", "system", a message index or { at, ttl }, got ${JSON.stringify(mark)}`
  }
  block.cache_control = cacheControl
  return undefined
}

// ---------------------------------------------------------------------------------------------
// Content
// ---------------------------------------------------------------------------------------------

const assistant = (m: ChatRequest.AssistantMessage, provider: string): Array<Json> => {
  const blocks: Array<Json> = []
  // Thinking first, signed or redacted exactly as it came: the API checks both. Another provider's
  // blob (after a fallback or a switch of model) would be refused: it is left out.
  for (const r of m.reasoning ?? []) {
    if (r.provider !== undefined && r.provider !== provider) continue
    if (r.redacted !== undefined) blocks.push({ type: "redacted_thinking", data: r.redacted })
    else if (r.signature !== undefined) blocks.push({ type: "thinking", thinking: r.text, signature: r.signature })
  }
  if (m.content !== "") blocks.push({ type: "text", text: m.content })
  for (const call of m.toolCalls ?? []) {
    blocks.push({ type: "tool_use", id: call.id, name: call.name, input: Guards.argumentsObject(call) })
  }
  return blocks
}

const userPart = (part: ChatRequest.UserPart): Json => {
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text }
    case "image":
      return { type: "image", source: source(part.url, part.data, part.mediaType ?? "image/png") }
    case "file":
      return file(part)
  }
}

const file = (part: typeof ChatRequest.FilePart.Type): Json => {
  const mediaType = part.mediaType.toLowerCase()
  if (mediaType.startsWith("image/")) return { type: "image", source: source(part.url, part.data, part.mediaType) }
  const block: Json = { type: "document" }
  if (part.data !== undefined && mediaType.startsWith("text/")) {
    // A plain-text document is sent as its text, not as base64.
    block.source = { type: "text", media_type: "text/plain", data: text(part.data) }
  } else {
    block.source = source(part.url, part.data, part.mediaType)
  }
  if (part.filename !== undefined) block.title = part.filename
  return block
}

/** A `url` source, or a `base64` one (a data URL's own media type wins). */
const source = (url: string | undefined, data: string | Uint8Array | undefined, mediaType: string): Json => {
  if (data === undefined) return { type: "url", url: url ?? "" }
  if (typeof data === "string" && data.startsWith("data:")) {
    const comma = data.indexOf(",")
    const declared = data.slice(5, comma === -1 ? 5 : comma).split(";")[0]
    return {
      type: "base64",
      media_type: declared !== undefined && declared !== "" ? declared : mediaType,
      data: comma === -1 ? "" : data.slice(comma + 1)
    }
  }
  return { type: "base64", media_type: mediaType, data: base64(data) }
}

const base64 = (data: string | Uint8Array): string => typeof data === "string" ? data : Bytes.toBase64(data)

/** The text of a document given as bytes, base64 text or a data URL. */
const text = Bytes.utf8Of

// ---------------------------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------------------------

const tool = (t: ChatRequest.Tool): Json => {
  const out: Json = { name: t.name }
  if (t.description !== undefined) out.description = t.description
  out.input_schema = t.parameters
  if (t.strict !== undefined) out.strict = t.strict
  return out
}

const toolChoice = (choice: ChatRequest.ToolChoice): Json => {
  if (typeof choice !== "string") return { type: "tool", name: choice.name }
  // Anthropic calls "must call some tool" `any`.
  return { type: choice === "required" ? "any" : choice }
}

/** Whether a `thinking` given in `providerOptions` turns thinking on (anything but `disabled`). */
const thinkingOn = (u: unknown): boolean =>
  typeof u === "object" && u !== null && (u as { type?: unknown }).type !== "disabled"

/** The tool that carries a JSON answer, for `responseFormat` `json` / `json_schema`. */
const jsonTool = (format: ChatRequest.ResponseFormat | undefined): Json | undefined => {
  if (format?.type === "json") {
    return {
      name: Events.jsonToolName,
      description: "Respond with a JSON object: call this tool once, with the whole answer.",
      input_schema: { type: "object" }
    }
  }
  if (format?.type !== "json_schema") return undefined
  const out: Json = {
    name: Events.jsonToolName,
    description: format.description ??
      "Respond with a JSON object matching this schema: call this tool once, with the whole answer.",
    input_schema: format.schema
  }
  if (format.strict !== undefined) out.strict = format.strict
  return out
}

/**
 * The tool choice beside the JSON tool. Forced when no tool of the caller's may be called; with the
 * caller's tools, `any` (one of them or the answer). With thinking on, Anthropic accepts only `auto`
 * and `none` (`any` and a named tool are errors), so thinking gets `auto`. A named choice is the caller's.
 */
const jsonToolChoice = (choice: ChatRequest.ToolChoice | undefined, own: boolean, thinking: boolean): Json => {
  if (typeof choice === "object") return { type: "tool", name: choice.name }
  if (thinking) return { type: "auto" }
  return own && choice !== "none" ? { type: "any" } : { type: "tool", name: Events.jsonToolName }
}
