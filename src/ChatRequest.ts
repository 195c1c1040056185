/**
 * What a caller asks for: messages, tools and options, the same for every provider. Each provider's
 * `request.ts` turns it into that provider's body. A bare string is a request too.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ChatRequest } from "effect-llm-stream"
 *
 * const request: ChatRequest.ChatRequest = {
 *   messages: [ChatRequest.system("Answer in one word."), ChatRequest.user("Capital of France?")],
 *   tools: [ChatRequest.tool({ name: "lookup", parameters: Schema.Struct({ query: Schema.String }) })],
 *   maxTokens: 50
 * }
 * ```
 *
 * @since 0.1.0
 */
import * as JSONSchema from "effect/JSONSchema"
import * as Schema from "effect/Schema"
import * as Json from "./internal/json.js"
import * as ToolCall from "./ToolCall.js"

/** Bytes given as base64 text or raw bytes. */
const Bytes = Schema.Union(Schema.String, Schema.Uint8ArrayFromSelf)

/**
 * A piece of text in a message.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TextPart = Schema.Struct({ type: Schema.Literal("text"), text: Schema.String })

/**
 * An image, by URL or by bytes (base64 text or `Uint8Array`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ImagePart = Schema.Struct({
  type: Schema.Literal("image"),
  url: Schema.optional(Schema.String),
  data: Schema.optional(Bytes),
  mediaType: Schema.optional(Schema.String),
  detail: Schema.optional(Schema.Literal("auto", "low", "high"))
}).pipe(Schema.filter((p) => p.url !== undefined || p.data !== undefined || "an image needs a url or data"))

/**
 * A file (PDF, audio …), by URL or by bytes.
 *
 * @since 0.1.0
 * @category schemas
 */
export const FilePart = Schema.Struct({
  type: Schema.Literal("file"),
  url: Schema.optional(Schema.String),
  data: Schema.optional(Bytes),
  mediaType: Schema.String,
  filename: Schema.optional(Schema.String)
}).pipe(Schema.filter((p) => p.url !== undefined || p.data !== undefined || "a file needs a url or data"))

/**
 * Any part of a user message.
 *
 * @since 0.1.0
 * @category schemas
 */
export const UserPart = Schema.Union(TextPart, ImagePart, FilePart)
/**
 * Any part of a user message.
 *
 * @since 0.1.0
 * @category models
 */
export type UserPart = typeof UserPart.Type

/**
 * A reasoning block to send back on the next turn, as a `reasoning` chunk delivered it.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ReasoningPart = Schema.Struct({
  text: Schema.String,
  signature: Schema.optional(Schema.String),
  redacted: Schema.optional(Schema.String),
  /**
   * The provider whose signature or opaque data this is (`Response` fills it in from the stream's
   * metadata). A provider sends back only its own, or untagged, parts: another provider's blob would
   * be refused (after a fallback or a switch of model mid-conversation).
   */
  provider: Schema.optional(Schema.String)
})
/**
 * A reasoning block to send back on the next turn.
 *
 * @since 0.1.0
 * @category models
 */
export type ReasoningPart = typeof ReasoningPart.Type

/**
 * Instructions for the model.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SystemMessage = Schema.Struct({ role: Schema.Literal("system"), content: Schema.String })

/**
 * What the user says: text, or parts mixing text, images and files.
 *
 * @since 0.1.0
 * @category schemas
 */
export const UserMessage = Schema.Struct({
  role: Schema.Literal("user"),
  content: Schema.Union(Schema.String, Schema.Array(UserPart))
})

/**
 * What the model said earlier, with its tool calls and reasoning blocks kept for the next turn.
 *
 * @since 0.1.0
 * @category schemas
 */
export const AssistantMessage = Schema.Struct({
  role: Schema.Literal("assistant"),
  content: Schema.String,
  toolCalls: Schema.optional(Schema.Array(ToolCall.ToolCall)),
  reasoning: Schema.optional(Schema.Array(ReasoningPart)),
  refusal: Schema.optional(Schema.String)
})
/**
 * What the model said earlier.
 *
 * @since 0.1.0
 * @category models
 */
export type AssistantMessage = typeof AssistantMessage.Type

/**
 * The result of running a tool the model called.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolMessage = Schema.Struct({
  role: Schema.Literal("tool"),
  toolCallId: Schema.String,
  name: Schema.optional(Schema.String),
  content: Schema.Union(Schema.String, Schema.Array(TextPart)),
  isError: Schema.optional(Schema.Boolean)
})

/**
 * Any message.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Message = Schema.Union(SystemMessage, UserMessage, AssistantMessage, ToolMessage)
/**
 * Any message, discriminated on `role`.
 *
 * @since 0.1.0
 * @category models
 */
export type Message = typeof Message.Type

/**
 * A tool the model may call; `parameters` is a JSON Schema object.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Tool = Schema.Struct({
  name: Schema.String,
  description: Schema.optional(Schema.String),
  parameters: Json.JsonObject,
  strict: Schema.optional(Schema.Boolean)
})
/**
 * A tool the model may call.
 *
 * @since 0.1.0
 * @category models
 */
export type Tool = typeof Tool.Type

/**
 * Which tool the model may or must call.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolChoice = Schema.Union(
  Schema.Literal("auto", "none", "required"),
  Schema.Struct({ type: Schema.Literal("tool"), name: Schema.String })
)
/**
 * Which tool the model may or must call.
 *
 * @since 0.1.0
 * @category models
 */
export type ToolChoice = typeof ToolChoice.Type

/** What `JSONSchema.make` returns (its interfaces have no index signature, so a JSON object type refuses them). */
const JsonSchemaRoot: Schema.Schema<JSONSchema.JsonSchema7Root> = Schema.declare(
  (u: unknown): u is JSONSchema.JsonSchema7Root => typeof u === "object" && u !== null && !Array.isArray(u),
  { identifier: "JsonSchema7Root", description: "a JSON Schema", jsonSchema: { type: "object" } }
)

/**
 * The shape of the answer: free text, any JSON object, or JSON matching a schema.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ResponseFormat = Schema.Union(
  Schema.Struct({ type: Schema.Literal("text") }),
  Schema.Struct({ type: Schema.Literal("json") }),
  Schema.Struct({
    type: Schema.Literal("json_schema"),
    name: Schema.String,
    /** A JSON Schema object: `JSONSchema.make(aSchema)` as it is, or any JSON object. */
    schema: Schema.Union(Json.JsonObject, JsonSchemaRoot),
    description: Schema.optional(Schema.String),
    strict: Schema.optional(Schema.Boolean)
  })
)
/**
 * The shape of the answer.
 *
 * @since 0.1.0
 * @category models
 */
export type ResponseFormat = typeof ResponseFormat.Type

/**
 * How hard the model should think: an effort level, a token budget, or both.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ReasoningOptions = Schema.Struct({
  effort: Schema.optional(Schema.Literal("minimal", "low", "medium", "high")),
  budgetTokens: Schema.optional(Schema.Number)
})

/**
 * A chat request.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ChatRequest = Schema.Struct({
  messages: Schema.Array(Message),
  tools: Schema.optional(Schema.Array(Tool)),
  toolChoice: Schema.optional(ToolChoice),
  maxTokens: Schema.optional(Schema.Number),
  temperature: Schema.optional(Schema.Number),
  topP: Schema.optional(Schema.Number),
  stop: Schema.optional(Schema.Array(Schema.String)),
  reasoning: Schema.optional(ReasoningOptions),
  responseFormat: Schema.optional(ResponseFormat),
  headers: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  /** Extra body fields for the provider, merged last into its request body. */
  providerOptions: Schema.optional(Json.JsonObject)
})

/**
 * A chat request.
 *
 * @since 0.1.0
 * @category models
 */
export type ChatRequest = typeof ChatRequest.Type

/**
 * What request-taking functions accept: a full request or a bare user prompt.
 *
 * @since 0.1.0
 * @category models
 */
export type Input = ChatRequest | string

/**
 * Turns a bare string into a one-message request; a request is returned as is.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (input: Input): ChatRequest => {
  if (typeof input === "string") return { messages: [{ role: "user", content: input }] }
  // A typed tool (or a toolkit of them) goes to the provider as its plain definition: no handler or
  // Schema object reaches a request body, a span or a log.
  if (input.tools !== undefined && input.tools.some(isTyped)) return { ...input, tools: input.tools.map(plainTool) }
  return input
}

/** The mark `Tool.make` puts on a typed tool (the same symbol as `Tool.TypeId`, read without importing it). */
const typedToolMark = Symbol.for("effect-llm-stream/Tool")

const isTyped = (tool: Tool): boolean => typedToolMark in tool

const plainTool = (tool: Tool): Tool => {
  if (!isTyped(tool)) return tool
  const out: { -readonly [K in keyof Tool]: Tool[K] } = { name: tool.name, parameters: tool.parameters }
  if (tool.description !== undefined) out.description = tool.description
  if (tool.strict !== undefined) out.strict = tool.strict
  return out
}

/**
 * A `responseFormat` asking for JSON matching an Effect Schema (through `JSONSchema.make`), e.g.
 * `{ ...request, responseFormat: ChatRequest.jsonSchema("person", Person) }`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const jsonSchema = <A, I, R>(
  name: string,
  schema: Schema.Schema<A, I, R>,
  options?: { readonly description?: string; readonly strict?: boolean }
): ResponseFormat => {
  const json = JSONSchema.make(schema) as unknown as { readonly [key: string]: unknown }
  const { $schema: _drop, ...rest } = json
  const out: {
    type: "json_schema"
    name: string
    schema: { readonly [key: string]: unknown }
    description?: string
    strict?: boolean
  } = { type: "json_schema", name, schema: rest }
  if (options?.description !== undefined) out.description = options.description
  if (options?.strict !== undefined) out.strict = options.strict
  return out
}

/**
 * A user message.
 *
 * @since 0.1.0
 * @category constructors
 */
export const user = (content: string | ReadonlyArray<UserPart>): Message => ({ role: "user", content })

/**
 * A system message.
 *
 * @since 0.1.0
 * @category constructors
 */
export const system = (content: string): Message => ({ role: "system", content })

/**
 * A tool-result message answering the call with `toolCallId`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const toolResult = (
  toolCallId: string,
  content: string,
  options?: { readonly name?: string; readonly isError?: boolean }
): Message => ({ role: "tool", toolCallId, content, ...options })

/**
 * Builds a tool whose parameters come from an Effect Schema (through `JSONSchema.make`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const tool = <A, I, R>(options: {
  readonly name: string
  readonly description?: string
  readonly parameters: Schema.Schema<A, I, R>
  readonly strict?: boolean
}): Tool => {
  const json = JSONSchema.make(options.parameters) as unknown as Record<string, unknown>
  const { $schema: _drop, ...parameters } = json
  return {
    name: options.name,
    parameters,
    ...(options.description !== undefined ? { description: options.description } : {}),
    ...(options.strict !== undefined ? { strict: options.strict } : {})
  }
}
