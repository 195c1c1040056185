/**
 * `ChatRequest` → the Gemini `generateContent` body (`POST …/models/{model}:streamGenerateContent?alt=sse`).
 *
 * - System messages, wherever they stand, become `systemInstruction` (one text part each).
 * - User messages are `user` contents: text, images and files as `inlineData` (bytes, base64 text or
 *   a data URL) or `fileData` (a URL: a Files API URI, a `gs://` path on Vertex, a public URL).
 * - An assistant message is a `model` content: its signed reasoning first (`{text, thought: true,
 *   thoughtSignature}`; a signature that came on a text part goes back on the text part), then its
 *   text, then its calls as `functionCall` parts (`{name, args}`, with the call's `signature` as
 *   `thoughtSignature` on the same part). Reasoning another provider signed is left out, as is
 *   unsigned reasoning (Gemini does not need its thought summaries back).
 * - Consecutive tool messages become one `user` content of `functionResponse` parts, whose `name` is
 *   the message's, else that of the earlier call with the same `toolCallId` (Gemini matches results
 *   by name and order, not by id, so no ids are sent). `response` must be an object, and Gemini reads
 *   its `output` key as the function's output and its `error` key as a failure: a result that is a
 *   JSON object is sent as it is (a whole object is the output), anything else as `{output: …}`, and
 *   a failure (`isError`) always as `{error: …}` (its JSON value, or its text).
 * - Tools become `functionDeclarations`. Their JSON Schema is cut to what Gemini's schema accepts:
 *   `$schema`, `$id`, `$comment` and `additionalProperties` are removed at every level, and an
 *   object schema with no properties is left out (a tool without parameters).
 * - `toolChoice` → `toolConfig.functionCallingConfig`: `auto` → `AUTO`, `none` → `NONE`,
 *   `required` → `ANY`, a named tool → `ANY` with `allowedFunctionNames`.
 * - `generationConfig`: `maxOutputTokens`, `temperature`, `topP`, `stopSequences`;
 *   `responseFormat` json → `responseMimeType: "application/json"`; json_schema adds the schema as
 *   `responseJsonSchema`, which takes JSON Schema itself (`$ref` / `$defs`, `anyOf`,
 *   `additionalProperties` … as `JSONSchema.make` writes them), not the cut-down OpenAPI subset of
 *   `responseSchema`: only `$schema` and `$comment` (annotations, not constraints) are removed, at
 *   every level; `reasoning` → `thinkingConfig: {includeThoughts: true}` with `thinkingBudget`
 *   (from `budgetTokens`, which wins when both are given) or `thinkingLevel` (from `effort`).
 * - `providerOptions` are merged last into the body (`safetySettings`, `cachedContent`, `labels` …);
 *   a `generationConfig` or `toolConfig` object in them is merged into ours, key by key, so
 *   `providerOptions: { generationConfig: { seed: 7 } }` keeps the request's own settings.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import type * as ChatRequest from "../../ChatRequest.js"
import * as Bytes from "../../internal/kit/Bytes.js"
import * as Guards from "../../internal/kit/guards.js"

type Json = Record<string, unknown>

/** How the body is built beyond the request itself. */
export interface EncodeOptions {
  /** The provider name this model reports: reasoning signed by another is not sent back. */
  readonly provider: string
  /** Vertex only: ask for `partialArgs` argument streaming (`streamFunctionCallArguments`). */
  readonly streamFunctionCallArguments?: boolean | undefined
}

/** Builds the exact body for a request, or says why the request cannot be sent. */
export const encode = (request: ChatRequest.ChatRequest, options: EncodeOptions): Either.Either<Json, string> => {
  const system: Array<Json> = []
  const contents: Array<Json> = []
  /** Tool names by call id, from the assistant messages so far. */
  const names = new Map<string, string>()
  let results: Array<Json> | undefined
  for (const m of request.messages) {
    if (m.role !== "tool") results = undefined
    switch (m.role) {
      case "system":
        system.push({ text: m.content })
        break
      case "user":
        contents.push({
          role: "user",
          parts: typeof m.content === "string" ? [{ text: m.content }] : m.content.map(userPart)
        })
        break
      case "assistant": {
        for (const call of m.toolCalls ?? []) names.set(call.id, call.name)
        const parts = assistant(m, options.provider)
        if (parts.length > 0) contents.push({ role: "model", parts })
        break
      }
      case "tool": {
        const name = m.name ?? names.get(m.toolCallId)
        if (name === undefined) {
          return Either.left(
            `The tool result for ${JSON.stringify(m.toolCallId)} answers no earlier tool call and names no tool: ` +
              "Gemini needs the function's name (set the tool message's name)"
          )
        }
        const part = { functionResponse: { name, response: toolResponse(m) } }
        if (results !== undefined) {
          results.push(part)
        } else {
          results = [part]
          contents.push({ role: "user", parts: results })
        }
        break
      }
    }
  }

  const body: Json = {}
  if (system.length > 0) body.systemInstruction = { parts: system }
  body.contents = contents
  if (request.tools !== undefined && request.tools.length > 0) {
    body.tools = [{ functionDeclarations: request.tools.map(declaration) }]
  }
  const functionCallingConfig: Json = {}
  if (request.toolChoice !== undefined) Object.assign(functionCallingConfig, toolChoice(request.toolChoice))
  if (options.streamFunctionCallArguments === true) functionCallingConfig.streamFunctionCallArguments = true
  if (Object.keys(functionCallingConfig).length > 0) body.toolConfig = { functionCallingConfig }

  const generationConfig: Json = {}
  if (request.maxTokens !== undefined) generationConfig.maxOutputTokens = request.maxTokens
  if (request.temperature !== undefined) generationConfig.temperature = request.temperature
  if (request.topP !== undefined) generationConfig.topP = request.topP
  if (request.stop !== undefined && request.stop.length > 0) generationConfig.stopSequences = request.stop
  const format = request.responseFormat
  if (format !== undefined && format.type !== "text") {
    generationConfig.responseMimeType = "application/json"
    if (format.type === "json_schema") generationConfig.responseJsonSchema = schema(format.schema, annotations)
  }
  const reasoning = request.reasoning
  if (reasoning !== undefined && (reasoning.budgetTokens !== undefined || reasoning.effort !== undefined)) {
    generationConfig.thinkingConfig = reasoning.budgetTokens !== undefined
      ? { includeThoughts: true, thinkingBudget: reasoning.budgetTokens }
      : { includeThoughts: true, thinkingLevel: reasoning.effort }
  }
  if (Object.keys(generationConfig).length > 0) body.generationConfig = generationConfig
  return Either.right(merge(body, request.providerOptions))
}

/** `providerOptions` last; their `generationConfig` / `toolConfig` merged into ours one level deep. */
const merge = (body: Json, extra: { readonly [key: string]: unknown } | undefined): Json => {
  if (extra === undefined) return body
  const out: Json = { ...body, ...extra }
  for (const key of ["generationConfig", "toolConfig"]) {
    const ours = body[key]
    const theirs = extra[key]
    if (isJson(ours) && isJson(theirs)) out[key] = { ...ours, ...theirs }
  }
  return out
}

const isJson = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

// ---------------------------------------------------------------------------------------------
// Content
// ---------------------------------------------------------------------------------------------

const assistant = (m: ChatRequest.AssistantMessage, provider: string): Array<Json> => {
  const parts: Array<Json> = []
  /** A signature that came on a text part (a reasoning block with no text) goes back on one. */
  let textSignature: string | undefined
  for (const r of m.reasoning ?? []) {
    if (r.signature === undefined || (r.provider !== undefined && r.provider !== provider)) continue
    if (r.text === "") textSignature = r.signature
    else parts.push({ text: r.text, thought: true, thoughtSignature: r.signature })
  }
  if (m.content !== "" || textSignature !== undefined) {
    parts.push(textSignature === undefined ? { text: m.content } : { text: m.content, thoughtSignature: textSignature })
  }
  for (const call of m.toolCalls ?? []) {
    const part: Json = { functionCall: { name: call.name, args: Guards.argumentsObject(call) } }
    if (call.signature !== undefined) part.thoughtSignature = call.signature
    parts.push(part)
  }
  return parts
}

/** A tool result as the `response` object Gemini requires. */
const toolResponse = (m: typeof ChatRequest.ToolMessage.Type): Json => {
  const text = typeof m.content === "string" ? m.content : m.content.map((p) => p.text).join("")
  let value: unknown = text
  try {
    value = JSON.parse(text)
  } catch {
    // plain text stays text
  }
  if (m.isError === true) return { error: value }
  return isJson(value) ? value : { output: value }
}

const userPart = (part: ChatRequest.UserPart): Json => {
  switch (part.type) {
    case "text":
      return { text: part.text }
    case "image":
      return media(part.url, part.data, part.mediaType ?? "image/png")
    case "file":
      return media(part.url, part.data, part.mediaType)
  }
}

/** `inlineData` for bytes (a data URL's own media type wins), `fileData` for a URL. */
const media = (url: string | undefined, data: string | Uint8Array | undefined, mimeType: string): Json => {
  if (data === undefined) return { fileData: { mimeType, fileUri: url ?? "" } }
  if (typeof data === "string" && data.startsWith("data:")) {
    const comma = data.indexOf(",")
    const declared = data.slice(5, comma === -1 ? 5 : comma).split(";")[0]
    return {
      inlineData: {
        mimeType: declared !== undefined && declared !== "" ? declared : mimeType,
        data: comma === -1 ? "" : data.slice(comma + 1)
      }
    }
  }
  return { inlineData: { mimeType, data: typeof data === "string" ? data : Bytes.toBase64(data) } }
}

// ---------------------------------------------------------------------------------------------
// Tools and schemas
// ---------------------------------------------------------------------------------------------

const declaration = (t: ChatRequest.Tool): Json => {
  const out: Json = { name: t.name }
  if (t.description !== undefined) out.description = t.description
  const parameters = schema(t.parameters)
  const properties = parameters.properties
  const empty = parameters.type === "object" && (!isJson(properties) || Object.keys(properties).length === 0)
  if (!empty) out.parameters = parameters
  return out
}

/** Schema keywords Gemini's `Schema` (function declarations' `parameters`) refuses. */
const refused: ReadonlySet<string> = new Set(["$schema", "$id", "$comment", "additionalProperties"])

/** Keywords left out of a `responseJsonSchema`: annotations for schema tools, which constrain nothing. */
const annotations: ReadonlySet<string> = new Set(["$schema", "$comment"])

/**
 * A JSON Schema without the `dropped` keywords (by default those Gemini's `Schema` refuses), at every
 * level (a copy; iterative, any depth). The names inside `properties` are field names, never
 * keywords: a field may be called `$id`.
 */
export const schema = (input: object, dropped: ReadonlySet<string> = refused): Json => {
  const root: Json = {}
  const work: Array<readonly [source: unknown, target: Json | Array<unknown>, names: boolean]> = [[input, root, false]]
  while (work.length > 0) {
    const [source, target, names] = work.pop()!
    const entries: Array<readonly [string | number, unknown]> = Array.isArray(source)
      ? source.map((v, i) => [i, v] as const)
      : Object.entries(source as Json)
    for (const [key, value] of entries) {
      if (!names && typeof key === "string" && dropped.has(key)) continue
      let copy: unknown = value
      if (Array.isArray(value)) copy = []
      else if (isJson(value)) copy = {}
      if (copy !== value) {
        work.push([value, copy as Json | Array<unknown>, !names && !Array.isArray(source) && key === "properties"])
      }
      Object.defineProperty(target, key, { value: copy, enumerable: true, writable: true, configurable: true })
    }
  }
  return root
}

const toolChoice = (choice: ChatRequest.ToolChoice): Json => {
  if (typeof choice !== "string") return { mode: "ANY", allowedFunctionNames: [choice.name] }
  return { mode: choice === "auto" ? "AUTO" : choice === "none" ? "NONE" : "ANY" }
}
