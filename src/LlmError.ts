/**
 * The error taxonomy. Every failure of a provider stream ends as one terminal `error` chunk
 * carrying an {@link ErrorInfo}; `LanguageModel.chat` fails with the {@link LlmError} built from it.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { LanguageModel, LlmError } from "effect-llm-stream"
 *
 * const answer = LanguageModel.chat("Hello").pipe(
 *   Effect.map((response) => response.text),
 *   Effect.catchTag("LlmError", (error: LlmError.LlmError) =>
 *     error.code === "rate_limit" ? Effect.succeed("busy, try later") : Effect.fail(error))
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as Json from "./internal/json.js"
import type * as Response from "./Response.js"

/**
 * Every error code, each with a fixed meaning across providers.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ErrorCode = Schema.Literal(
  "authentication",
  "permission",
  "not_found",
  "invalid_request",
  "context_length",
  "rate_limit",
  "quota",
  "overloaded",
  "server",
  "timeout",
  "network",
  "protocol",
  "truncated",
  "invalid_output",
  "unknown"
)

/**
 * One of the {@link ErrorCode} literals.
 *
 * @since 0.1.0
 * @category models
 */
export type ErrorCode = typeof ErrorCode.Type

/**
 * The plain data of an error, as carried by the terminal `error` chunk (JSON-safe).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ErrorInfo = Schema.Struct({
  code: ErrorCode,
  message: Schema.String,
  status: Schema.optional(Schema.Number),
  retryable: Schema.Boolean,
  retryAfterMs: Schema.optional(Schema.Number),
  provider: Schema.optional(Schema.String),
  requestId: Schema.optional(Schema.String),
  details: Schema.optional(Schema.Unknown)
})

/**
 * The plain data of an error.
 *
 * @since 0.1.0
 * @category models
 */
export type ErrorInfo = typeof ErrorInfo.Type

const PartialResponse = Schema.declare(
  (u: unknown): u is Response.Response => typeof u === "object" && u !== null && "text" in u,
  { identifier: "Response" }
)

/**
 * A typed, taggable error (`Effect.catchTag("LlmError", …)`), optionally carrying the partial Response.
 *
 * @since 0.1.0
 * @category errors
 */
export class LlmError extends Schema.TaggedError<LlmError>("effect-llm-stream/LlmError")("LlmError", {
  ...ErrorInfo.fields,
  response: Schema.optional(PartialResponse)
}) {}

/** Codes that are worth retrying by default (before any output). */
const retryableCodes: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "rate_limit",
  "overloaded",
  "server",
  "timeout",
  "network"
])

/**
 * Whether an error code is transient by nature.
 *
 * @since 0.1.0
 * @category guards
 */
export const isRetryableCode = (code: ErrorCode): boolean => retryableCodes.has(code)

/**
 * The largest `details` kept, in characters of its JSON form: provider bodies can be huge.
 *
 * @since 0.1.0
 * @category constants
 */
export const maxDetailsChars = 8_192

/** What each shape {@link scrub} masks begins with (case-insensitively a superset of each). */
const mayHoldCredential = /(?:sk|rk|pk|xai)[-_]|AIza|bearer\s/i

/**
 * Masks anything shaped like a credential (OpenAI/Anthropic/Groq/xAI-style keys, Google API keys,
 * bearer tokens). We never put keys into errors, but providers and proxies echo them back
 * ("Incorrect API key provided: sk-…"), so every error message and body passes through here.
 *
 * @since 0.1.0
 * @category utils
 */
export const scrub = (text: string): string =>
  // One pass for the common case: a text with none of the three shapes' fixed parts.
  !mayHoldCredential.test(text)
    ? text
    : text
      // Not after a letter or digit, rather than at a word boundary: "_sk-…" and "SK-…" are keys too.
      .replace(/(?<![A-Za-z0-9])(sk|rk|pk|gsk|xai|csk)([-_])[A-Za-z0-9_*.-]{8,}/gi, "$1$2[redacted]")
      .replace(/(?<![A-Za-z0-9])AIza[0-9A-Za-z_-]{20,}/g, "AIza[redacted]")
      .replace(/\bBearer\s+[^\s"',]+/gi, "Bearer [redacted]")

/** What stands in for a part of a body nested deeper than `Json.maxDepth`. */
const tooDeep = "[nested too deeply]"

/**
 * A copy of a body that `JSON.stringify` can write and that reads back the same: containers past
 * `Json.maxDepth` levels (or a cycle) replaced by a marker, non-finite numbers by `null`. Recursion
 * is bounded by that depth.
 */
const serializable = (value: unknown, depth: number): unknown => {
  if (typeof value === "number") return Number.isFinite(value) ? value : null
  if (typeof value !== "object" || value === null) return value
  if (depth >= Json.maxDepth) return tooDeep
  if (Array.isArray(value)) return value.map((v) => serializable(v, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) {
    // Defined, not assigned: a "__proto__" key stays a key.
    Object.defineProperty(out, k, {
      value: serializable(v, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true
    })
  }
  return out
}

/**
 * Caps and scrubs an error body so a huge provider response cannot bloat an error chunk and an
 * echoed key cannot leak; a body over the cap is kept as a truncated JSON string. A body too deep
 * for `JSON.stringify` (or holding `Infinity`) is cut to `Json.maxDepth` levels first, so every
 * error chunk stays serializable.
 *
 * @since 0.1.0
 * @category utils
 */
export const capDetails = (details: unknown): unknown => {
  if (details === undefined) return undefined
  if (typeof details === "string") {
    const clean = scrub(details)
    return clean.length > maxDetailsChars ? clean.slice(0, maxDetailsChars) + "…[truncated]" : clean
  }
  // The strings are scrubbed where they stand: scrubbing the JSON text could break its syntax.
  const value = scrubLeaves(Json.check(details) === undefined ? details : serializable(details, 0), 0)
  let json: string | undefined
  try {
    json = JSON.stringify(value)
  } catch {
    return scrub(String(value)).slice(0, maxDetailsChars)
  }
  if (json === undefined) return value
  return json.length > maxDetailsChars ? json.slice(0, maxDetailsChars) + "…[truncated]" : value
}

/** Plain data with every string scrubbed (keys too), copied only where something changed; bounded by `Json.maxDepth`. */
const scrubLeaves = (value: unknown, depth: number): unknown => {
  if (typeof value === "string") return scrub(value)
  if (typeof value !== "object" || value === null) return value
  if (depth >= Json.maxDepth) return tooDeep
  if (Array.isArray(value)) {
    const items = value.map((v) => scrubLeaves(v, depth + 1))
    return items.every((v, i) => v === value[i]) ? value : items
  }
  // Only plain objects and arrays are data; anything else is described, never walked.
  const proto: unknown = Object.getPrototypeOf(value)
  if (proto !== Object.prototype && proto !== null) return scrub(String(value))
  const entries = Object.entries(value)
  const scrubbed = entries.map(([k, v]) => [scrub(k), scrubLeaves(v, depth + 1)] as const)
  if (scrubbed.every(([k, v], i) => k === entries[i]?.[0] && v === entries[i]?.[1])) return value
  const out: Record<string, unknown> = {}
  for (const [k, v] of scrubbed) {
    Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true })
  }
  return out
}

/**
 * Builds an {@link ErrorInfo}; `retryable` defaults from the code; message and details are scrubbed, details capped.
 *
 * @since 0.1.0
 * @category constructors
 */
export const info = (fields: {
  readonly code: ErrorCode
  readonly message: string
  readonly status?: number | undefined
  readonly retryable?: boolean | undefined
  readonly retryAfterMs?: number | undefined
  readonly provider?: string | undefined
  readonly requestId?: string | undefined
  readonly details?: unknown
}): ErrorInfo => {
  const out: {
    code: ErrorCode
    message: string
    retryable: boolean
    status?: number
    retryAfterMs?: number
    provider?: string
    requestId?: string
    details?: unknown
  } = {
    code: fields.code,
    message: scrub(fields.message),
    retryable: fields.retryable ?? isRetryableCode(fields.code)
  }
  if (fields.status !== undefined) out.status = fields.status
  if (fields.retryAfterMs !== undefined) out.retryAfterMs = fields.retryAfterMs
  if (fields.provider !== undefined) out.provider = fields.provider
  if (fields.requestId !== undefined) out.requestId = fields.requestId
  const details = capDetails(fields.details)
  if (details !== undefined) out.details = details
  return out
}

/**
 * Builds an {@link LlmError} from error data, optionally attaching the partial response.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromInfo = (error: ErrorInfo, response?: Response.Response): LlmError =>
  new LlmError(response === undefined ? error : { ...error, response })

/**
 * The plain data of an {@link LlmError} (drops the attached response).
 *
 * @since 0.1.0
 * @category utils
 */
export const toInfo = (error: LlmError): ErrorInfo =>
  info({
    code: error.code,
    message: error.message,
    status: error.status,
    retryable: error.retryable,
    retryAfterMs: error.retryAfterMs,
    provider: error.provider,
    requestId: error.requestId,
    details: error.details
  })

/**
 * Builds an {@link LlmError} directly.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (fields: Parameters<typeof info>[0]): LlmError => new LlmError(info(fields))

/**
 * Whether a value is an {@link LlmError}.
 *
 * @since 0.1.0
 * @category guards
 */
export const isLlmError = (u: unknown): u is LlmError => u instanceof LlmError
