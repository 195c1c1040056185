/**
 * Non-text output of a response: images, files, sources/citations, refusals and blocks of tools the
 * provider ran itself. Carried by `content-part` chunks and kept in `Response.contentParts`.
 *
 * @example
 * ```ts
 * import { ContentPart, Response, StreamChunk } from "effect-llm-stream"
 *
 * const source: ContentPart.ContentPart = { type: "source", sourceType: "url", url: "https://effect.website" }
 * const response = Response.fromChunks([StreamChunk.contentPart(source), StreamChunk.finish("stop")])
 * // response.contentParts: [source]
 * ```
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as Json from "./internal/json.js"

// A JSON object kept as it is: `Schema.Record` would let a `"__proto__"` key choose the prototype.
const providerMetadata = Schema.optional(Json.JsonObject)

/**
 * A generated image, by URL or base64 data.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Image = Schema.Struct({
  type: Schema.Literal("image"),
  mediaType: Schema.optional(Schema.String),
  url: Schema.optional(Schema.String),
  data: Schema.optional(Schema.String),
  providerMetadata
})

/**
 * A generated file, by URL or base64 data.
 *
 * @since 0.1.0
 * @category schemas
 */
export const File = Schema.Struct({
  type: Schema.Literal("file"),
  mediaType: Schema.optional(Schema.String),
  url: Schema.optional(Schema.String),
  data: Schema.optional(Schema.String),
  filename: Schema.optional(Schema.String),
  providerMetadata
})

/**
 * A citation or source the answer relied on.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Source = Schema.Struct({
  type: Schema.Literal("source"),
  sourceType: Schema.Literal("url", "document"),
  id: Schema.optional(Schema.String),
  url: Schema.optional(Schema.String),
  title: Schema.optional(Schema.String),
  mediaType: Schema.optional(Schema.String),
  providerMetadata
})

/**
 * The model declined to answer; `text` is its stated refusal (kept apart from the answer text).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Refusal = Schema.Struct({
  type: Schema.Literal("refusal"),
  text: Schema.String,
  providerMetadata
})

/**
 * A tool the provider executed itself (web search, code execution …): its call or its result.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ProviderTool = Schema.Struct({
  type: Schema.Literal("provider-tool"),
  kind: Schema.Literal("call", "result"),
  id: Schema.String,
  name: Schema.String,
  input: Schema.optional(Schema.Unknown),
  output: Schema.optional(Schema.Unknown),
  isError: Schema.optional(Schema.Boolean),
  providerMetadata
})

/**
 * Schema of any output content part.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ContentPart = Schema.Union(Image, File, Source, Refusal, ProviderTool)

/**
 * Any output content part, discriminated on `type`.
 *
 * @since 0.1.0
 * @category models
 */
export type ContentPart = typeof ContentPart.Type
