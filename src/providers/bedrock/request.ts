/**
 * `ChatRequest` → the Bedrock ConverseStream body (`POST /model/{modelId}/converse-stream`; the
 * endpoint streams, there is no stream flag).
 *
 * - System messages, wherever they stand, become the top-level `system: [{text}]`.
 * - User content: `{text}`; images and documents as bytes (`{image: {format, source: {bytes}}}`,
 *   `{document: {format, name, source: {bytes}}}`, base64 in JSON) or from an `s3://` URL
 *   (`source: {s3Location: {uri}}`). Bedrock fetches no http(s) URL: such a part is refused before
 *   any request.
 * - An assistant message sends its reasoning first (`reasoningContent: {reasoningText: {text,
 *   signature}}`, or `{redactedContent}`), then its text, then `toolUse {toolUseId, name, input}`.
 *   Reasoning with neither a signature nor redacted data, or tagged with another provider, is left
 *   out: Bedrock refuses unsigned reasoning and another provider's blobs.
 * - Tool messages become `toolResult {toolUseId, content: [{text}]}` in a user message, with
 *   `status: "error"` when `isError` (a success has no status: that is its meaning). Bedrock takes
 *   `status` from Claude and Nova models only (the Converse API reference), so for a model id that
 *   names neither (Llama, Mistral, an application inference profile ARN …) it is left out and the
 *   error is said by the result's text alone.
 * - Bedrock wants user and assistant turns to alternate: consecutive messages of one role (tool
 *   results and the user's next words, two user messages) are merged into one.
 * - `inferenceConfig {maxTokens, temperature, topP, stopSequences}`; `toolConfig {tools: [{toolSpec:
 *   {name, description, inputSchema: {json}}}], toolChoice}` with `auto → {auto: {}}`, `required →
 *   {any: {}}`, a named tool → `{tool: {name}}`. Bedrock has no "none": `toolChoice: "none"` leaves
 *   the tools out, unless the conversation holds tool calls or results, which Bedrock accepts only
 *   with a `toolConfig`: the tools are then sent without a `toolChoice`.
 * - `reasoning.budgetTokens` → `additionalModelRequestFields.thinking {type: "enabled",
 *   budget_tokens}` (Claude on Bedrock), with `maxTokens` defaulting to {@link EncodeOptions.maxTokens}
 *   plus the budget (Claude wants it above the budget). `reasoning.effort` alone is not sent: the
 *   Converse API has no portable effort (send the model's own field in `providerOptions`).
 * - `responseFormat` `json` / `json_schema`: Converse has no JSON mode, so the answer comes through
 *   a tool, `json_response` ({@link Events.jsonToolName}), whose input schema is the requested one
 *   (`{type: "object"}` for `json`). It is forced (`toolChoice {tool: {name: "json_response"}}`)
 *   when no tool of the caller's is offered; beside the caller's tools the choice is `{any: {}}`
 *   (call a tool or answer), and a named `toolChoice` stays as named. The decoder streams that
 *   tool's input as the answer's text and reports a plain `stop`. A request may not name a tool of
 *   its own `json_response`. Claude with thinking on (a `reasoning` budget, or a `thinking` in
 *   `providerOptions.additionalModelRequestFields`) refuses any forced tool (`tool` or `any`: a
 *   `ValidationException`), so the choice is then `{auto: {}}`, as the Anthropic provider does.
 * - Tool call ids go back fitted to Bedrock's pattern (`[a-zA-Z0-9_-]`, at most 64 characters):
 *   other characters become `_` (ids of another provider, or a model's `functions.name:1`), the
 *   same way in `toolUse` and `toolResult`.
 * - Document names keep to the characters Bedrock allows (letters, digits, single spaces, hyphens,
 *   parentheses, brackets), without the file's extension, unique within the request (` (2)` …).
 * - `providerOptions` is merged last into the body (`guardrailConfig`, `performanceConfig`,
 *   `additionalModelResponseFieldPaths` …); its `additionalModelRequestFields` and `inferenceConfig`
 *   are merged into ours field by field rather than replacing them.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import type * as ChatRequest from "../../ChatRequest.js"
import * as Bytes from "../../internal/kit/Bytes.js"
import * as Guards from "../../internal/kit/guards.js"
import * as Events from "./events.js"

type Json = Record<string, unknown>

/** How the body is built beyond the request itself. */
export interface EncodeOptions {
  /** `maxTokens` when reasoning has a budget and the request sets none (the budget is added to it). */
  readonly maxTokens: number
  /** The provider name this model reports: reasoning parts tagged with another are not sent back. */
  readonly provider: string
  /** The model id (or profile, or ARN): whether a tool result may carry a `status` depends on it. */
  readonly model?: string | undefined
}

/** Model ids whose tool results may carry a `status` (the Converse API: Claude and Nova only). */
const statusModels = /anthropic|claude|nova/i

/** A part that cannot be sent, with why. */
class Refused {
  constructor(readonly reason: string) {}
}

/** Builds the exact ConverseStream body for a request, or says why the request cannot be sent. */
export const encode = (request: ChatRequest.ChatRequest, options: EncodeOptions): Either.Either<Json, string> => {
  const { additionalModelRequestFields: extraFields, inferenceConfig: extraInference, ...extra } =
    request.providerOptions ?? {}
  if (request.tools?.some((t) => t.name === Events.jsonToolName) === true) {
    return Either.left(
      `The tool name "${Events.jsonToolName}" is reserved: Bedrock's responseFormat answers through a tool of that name`
    )
  }
  const system: Array<Json> = []
  const status = options.model === undefined || statusModels.test(options.model)
  const documentNames = new Set<string>()
  const messages: Array<{ role: "user" | "assistant"; content: Array<Json> }> = []
  let toolBlocks = false
  const append = (role: "user" | "assistant", content: Array<Json>): void => {
    if (content.length === 0) return
    const previous = messages[messages.length - 1]
    if (previous?.role === role) { for (const block of content) previous.content.push(block) }
    else messages.push({ role, content })
  }
  for (const m of request.messages) {
    switch (m.role) {
      case "system":
        system.push({ text: m.content })
        break
      case "user": {
        if (typeof m.content === "string") {
          append("user", [{ text: m.content }])
          break
        }
        const content: Array<Json> = []
        for (const part of m.content) {
          const block = userPart(part, documentNames)
          if (block instanceof Refused) return Either.left(block.reason)
          content.push(block)
        }
        append("user", content)
        break
      }
      case "assistant": {
        const content = assistant(m, options.provider)
        if (m.toolCalls !== undefined && m.toolCalls.length > 0) toolBlocks = true
        append("assistant", content)
        break
      }
      case "tool": {
        toolBlocks = true
        const result: Json = {
          toolUseId: toolUseId(m.toolCallId),
          content: typeof m.content === "string" ? [{ text: m.content }] : m.content.map((p) => ({ text: p.text }))
        }
        if (m.isError === true && status) result.status = "error"
        append("user", [{ toolResult: result }])
        break
      }
    }
  }

  const body: Json = { messages }
  if (system.length > 0) body.system = system
  const budget = request.reasoning?.budgetTokens
  const inference: Json = {}
  const maxTokens = request.maxTokens ?? (budget !== undefined ? options.maxTokens + budget : undefined)
  if (maxTokens !== undefined) inference.maxTokens = maxTokens
  if (request.temperature !== undefined) inference.temperature = request.temperature
  if (request.topP !== undefined) inference.topP = request.topP
  if (request.stop !== undefined) inference.stopSequences = request.stop
  const inferenceConfig = { ...inference, ...asObject(extraInference) }
  if (Object.keys(inferenceConfig).length > 0) body.inferenceConfig = inferenceConfig
  const thinking = budget !== undefined || thinkingOn(asObject(extraFields).thinking)
  const toolConfig = tools(request, toolBlocks, thinking)
  if (toolConfig !== undefined) body.toolConfig = toolConfig
  const fields: Json = budget !== undefined ? { thinking: { type: "enabled", budget_tokens: budget } } : {}
  const additional = { ...fields, ...asObject(extraFields) }
  if (Object.keys(additional).length > 0) body.additionalModelRequestFields = additional
  return Either.right({ ...body, ...extra })
}

const asObject = (u: unknown): Json => typeof u === "object" && u !== null && !Array.isArray(u) ? u as Json : {}

/** Whether a Claude `thinking` field turns thinking on (anything but `disabled`). */
const thinkingOn = (u: unknown): boolean =>
  typeof u === "object" && u !== null && (u as { type?: unknown }).type !== "disabled"

// ---------------------------------------------------------------------------------------------
// Content
// ---------------------------------------------------------------------------------------------

const assistant = (m: ChatRequest.AssistantMessage, provider: string): Array<Json> => {
  const blocks: Array<Json> = []
  for (const r of m.reasoning ?? []) {
    if (r.provider !== undefined && r.provider !== provider) continue
    if (r.redacted !== undefined) blocks.push({ reasoningContent: { redactedContent: r.redacted } })
    else if (r.signature !== undefined) {
      blocks.push({ reasoningContent: { reasoningText: { text: r.text, signature: r.signature } } })
    }
  }
  // Bedrock refuses an empty text block.
  if (m.content !== "") blocks.push({ text: m.content })
  for (const call of m.toolCalls ?? []) {
    blocks.push({
      toolUse: { toolUseId: toolUseId(call.id), name: call.name, input: Guards.argumentsObject(call) }
    })
  }
  return blocks
}

/** A tool call id fitted to Bedrock's pattern: `[a-zA-Z0-9_-]{1,64}`. */
const toolUseId = (id: string): string => id.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64) || "call"

const imageFormats: ReadonlySet<string> = new Set(["png", "jpeg", "gif", "webp"])
const documentFormats: ReadonlyMap<string, string> = new Map([
  ["application/pdf", "pdf"],
  ["text/csv", "csv"],
  ["application/msword", "doc"],
  ["application/vnd.openxmlformats-officedocument.wordprocessingml.document", "docx"],
  ["application/vnd.ms-excel", "xls"],
  ["application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "xlsx"],
  ["text/html", "html"],
  ["text/plain", "txt"],
  ["text/markdown", "md"]
])

const userPart = (part: ChatRequest.UserPart, documentNames: Set<string>): Json | Refused => {
  switch (part.type) {
    case "text":
      return { text: part.text }
    case "image":
      return image(part.url, part.data, part.mediaType ?? "image/png")
    case "file": {
      const mediaType = part.mediaType.toLowerCase()
      if (mediaType.startsWith("image/")) return image(part.url, part.data, mediaType)
      const format = documentFormats.get(mediaType)
      if (format === undefined) return new Refused(`Bedrock does not take ${part.mediaType} documents`)
      const src = source(part.url, part.data)
      if (src instanceof Refused) return src
      return {
        document: { format, name: uniqueName(documentName(part.filename ?? "document"), documentNames), source: src }
      }
    }
  }
}

const image = (url: string | undefined, data: string | Uint8Array | undefined, mediaType: string): Json | Refused => {
  const declared = typeof data === "string" && data.startsWith("data:") ? data.slice(5, data.indexOf(";")) : mediaType
  const format = declared.toLowerCase().replace(/^image\//, "").replace("jpg", "jpeg")
  if (!imageFormats.has(format)) return new Refused(`Bedrock takes png, jpeg, gif or webp images, not ${declared}`)
  const src = source(url, data)
  return src instanceof Refused ? src : { image: { format, source: src } }
}

/** Bytes as base64 (a data URL's payload as it is), or an `s3://` location. */
const source = (url: string | undefined, data: string | Uint8Array | undefined): Json | Refused => {
  if (data !== undefined) return { bytes: Bytes.base64Of(data) }
  if (url !== undefined && url.startsWith("s3://")) return { s3Location: { uri: url } }
  return new Refused(`Bedrock fetches no URL but s3:// ones: send the bytes of ${url ?? "the part"}`)
}

/**
 * Bedrock allows letters, digits, whitespace (never two in a row), hyphens, parentheses and brackets
 * in a document name; a name with no letter or digit left is `document`.
 */
const documentName = (filename: string): string => {
  const name = filename.replace(/\.[^.]*$/, "").replace(/[^A-Za-z0-9\s\-()[\]]/g, "-").replace(/\s+/g, " ").trim()
  return /[A-Za-z0-9]/.test(name) ? name : "document"
}

/** Two documents of one request may not share a name: later ones get ` (2)`, ` (3)` … */
const uniqueName = (name: string, taken: Set<string>): string => {
  let unique = name
  for (let n = 2; taken.has(unique); n++) unique = `${name} (${n})`
  taken.add(unique)
  return unique
}

// ---------------------------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------------------------

const toolSpec = (name: string, description: string | undefined, schema: unknown): Json => ({
  toolSpec: { name, ...(description !== undefined ? { description } : {}), inputSchema: { json: schema } }
})

/** The tool that carries a JSON answer, for `responseFormat` `json` / `json_schema`. */
const jsonTool = (format: ChatRequest.ResponseFormat | undefined): Json | undefined => {
  if (format?.type === "json") {
    return toolSpec(
      Events.jsonToolName,
      "Respond with a JSON object: call this tool once, with the whole answer.",
      { type: "object" }
    )
  }
  if (format?.type !== "json_schema") return undefined
  return toolSpec(
    Events.jsonToolName,
    format.description ??
      "Respond with a JSON object matching this schema: call this tool once, with the whole answer.",
    format.schema
  )
}

const tools = (request: ChatRequest.ChatRequest, toolBlocks: boolean, thinking: boolean): Json | undefined => {
  const choice = request.toolChoice
  const own = request.tools ?? []
  // Bedrock has no "none": the tools are left out, unless the history holds tool blocks.
  const sendOwn = own.length > 0 && (choice !== "none" || toolBlocks)
  const json = jsonTool(request.responseFormat)
  if (!sendOwn && json === undefined) return undefined
  const specs = sendOwn ? own.map((t) => toolSpec(t.name, t.description, t.parameters)) : []
  if (json !== undefined) specs.push(json)
  const config: Json = { tools: specs }
  if (typeof choice === "object") config.toolChoice = { tool: { name: choice.name } }
  else if (json !== undefined) {
    // Claude thinking refuses every forced choice: the tool's description asks for the answer instead.
    if (thinking) config.toolChoice = { auto: {} }
    else config.toolChoice = !sendOwn || choice === "none" ? { tool: { name: Events.jsonToolName } } : { any: {} }
  } else if (choice === "required") config.toolChoice = { any: {} }
  else if (choice === "auto") config.toolChoice = { auto: {} }
  return config
}
