/**
 * OpenAI-style error bodies → {@link LlmError.ErrorInfo}, for HTTP error responses and for errors
 * that arrive inside a 200 stream. One mapping for OpenAI and every compatible host, whose bodies
 * differ only in detail: `{"error":{message,type,param,code}}`, a bare `{message,type,code}`
 * (llama.cpp's SSE `error:` field), `{"error":"text"}`, or plain text from a proxy.
 *
 * @since 0.1.0
 */
import * as HttpStatus from "../../internal/transport/HttpStatus.js"
import * as LlmError from "../../LlmError.js"
import * as Events from "./events.js"

/** Provider `code` / `type` strings more precise than any HTTP status: they override it. */
const preciseTable: ReadonlyMap<string, LlmError.ErrorCode> = new Map<string, LlmError.ErrorCode>([
  // OpenAI sends quota exhaustion as a 429: without this it would look retryable.
  ["insufficient_quota", "quota"],
  ["context_length_exceeded", "context_length"],
  ["exceed_context_size_error", "context_length"],
  ["rate_limit_exceeded", "rate_limit"],
  ["rate_limit_error", "rate_limit"],
  ["invalid_api_key", "authentication"],
  ["authentication_error", "authentication"],
  ["permission_error", "permission"],
  ["model_not_found", "not_found"]
])

/**
 * Generic classes that only decide when no status does (in-band errors): with a status, a 503
 * `server_error` is better read as `overloaded`, as the status says.
 */
const fallbackTable: ReadonlyMap<string, LlmError.ErrorCode> = new Map<string, LlmError.ErrorCode>([
  ["server_error", "server"],
  ["internalservererror", "server"],
  ["overloaded_error", "overloaded"],
  ["badrequesterror", "invalid_request"],
  ["invalid_request_error", "invalid_request"],
  ["not_found_error", "not_found"]
])

/** The longest provider message kept: bodies from proxies can be whole HTML pages. */
const maxMessageChars = 1_000

/**
 * Maps an OpenAI-style error body to error data: the HTTP status decides first, the body's
 * `code`/`type`/message refine it, and a numeric body `code` stands in for a missing status.
 */
export const fromBody = (
  status: number | undefined,
  body: unknown,
  provider: string,
  extras?: { readonly requestId?: string | undefined; readonly retryAfterMs?: number | undefined }
): LlmError.ErrorInfo => {
  const parsed = typeof body === "string" ? parseText(body) : body
  const error = innerError(parsed)
  const numericCode = httpLike(error?.code) ?? httpLike(error?.status_code) ?? httpLike(error?.status)
  const effectiveStatus = status ?? numericCode
  const message = messageOf(error, parsed, effectiveStatus)
  const code = refine(error, message) ??
    (effectiveStatus !== undefined ? HttpStatus.codeForStatus(effectiveStatus) : undefined) ??
    fallback(error) ??
    "unknown"
  return LlmError.info({
    code,
    message,
    status: effectiveStatus,
    provider,
    requestId: extras?.requestId,
    retryAfterMs: extras?.retryAfterMs,
    details: parsed
  })
}

/** A body given as text may still be JSON (the transport hands over what it read). */
const parseText = (text: string): unknown => {
  const trimmed = text.trim()
  if (!trimmed.startsWith("{")) return text
  try {
    return JSON.parse(trimmed) as unknown
  } catch {
    return text
  }
}

interface ErrorFields extends Events.ErrorObject {
  readonly status?: number
  readonly status_code?: number
  /** RFC 9457 problem details (`application/problem+json`), which proxies and gateways send. */
  readonly detail?: string
  readonly title?: string
}

/** The object holding `message`/`type`/`code`: nested under `error`, or the body itself. */
const innerError = (body: unknown): Events.Unchecked<ErrorFields> | undefined => {
  if (!Events.isObject<{ error: unknown }>(body)) return undefined
  if (Events.isObject<ErrorFields>(body.error)) return body.error
  if (typeof body.error === "string") return { message: body.error }
  return body as Events.Unchecked<ErrorFields>
}

/** A number that can be read as an HTTP status. */
const httpLike = (u: unknown): number | undefined => {
  const n = typeof u === "string" && u.length === 3 ? Number(u) : u
  return typeof n === "number" && Number.isInteger(n) && n >= 400 && n <= 599 ? n : undefined
}

const messageOf = (
  error: Events.Unchecked<ErrorFields> | undefined,
  body: unknown,
  status: number | undefined
): string => {
  const raw = Events.isNonEmptyString(error?.message)
    ? error.message
    : Events.isNonEmptyString(error?.detail)
    ? error.detail
    : Events.isNonEmptyString(error?.title)
    ? error.title
    : Events.isNonEmptyString(body) && error === undefined
    ? body.trim()
    : status !== undefined
    ? `The provider answered with HTTP ${status}`
    : "The provider reported an error"
  return (raw.length > maxMessageChars ? raw.slice(0, maxMessageChars) + "…" : raw)
}

const lower = (u: unknown): string | undefined => (typeof u === "string" ? u.toLowerCase() : undefined)

/** The code the body's own words give, when they are more precise than the status. */
const refine = (
  error: Events.Unchecked<ErrorFields> | undefined,
  message: string
): LlmError.ErrorCode | undefined => {
  const byCode = preciseTable.get(lower(error?.code) ?? "") ?? preciseTable.get(lower(error?.type) ?? "")
  if (byCode !== undefined) return byCode
  const text = message.toLowerCase()
  // Hosts without a dedicated code still say it in words (vLLM, LM Studio, Together …).
  if (
    text.includes("maximum context length") || text.includes("context window") ||
    text.includes("context size") || text.includes("context length exceeded")
  ) return "context_length"
  return undefined
}

const fallback = (error: Events.Unchecked<ErrorFields> | undefined): LlmError.ErrorCode | undefined =>
  fallbackTable.get(lower(error?.code) ?? "") ?? fallbackTable.get(lower(error?.type) ?? "")
