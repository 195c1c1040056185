/**
 * Anthropic error bodies → {@link LlmError.ErrorInfo}, for HTTP error responses and for the
 * `event: error` of a 200 stream. The body is `{"type":"error","error":{"type","message"},"request_id"}`;
 * its `error.type` is more precise than the status and decides first, then the status, then a
 * generic fallback. Bodies from proxies (plain text, other JSON shapes) fall back to the status.
 *
 * @since 0.1.0
 */
import * as HttpStatus from "../../internal/transport/HttpStatus.js"
import * as LlmError from "../../LlmError.js"
import * as Events from "./events.js"

/** Anthropic's `error.type` values (wire-formats §3), each with the code it means. */
const byType: ReadonlyMap<string, LlmError.ErrorCode> = new Map<string, LlmError.ErrorCode>([
  ["invalid_request_error", "invalid_request"],
  ["authentication_error", "authentication"],
  ["billing_error", "quota"],
  ["permission_error", "permission"],
  ["not_found_error", "not_found"],
  // A 413 here is the request's bytes (32 MB), not its tokens: "prompt is too long" says that.
  ["request_too_large", "invalid_request"],
  ["rate_limit_error", "rate_limit"],
  ["api_error", "server"],
  ["timeout_error", "timeout"],
  ["overloaded_error", "overloaded"]
])

/** The longest provider message kept: bodies from proxies can be whole HTML pages. */
const maxMessageChars = 1_000

/**
 * Maps an Anthropic error body (parsed or as text) to error data. `status` is undefined for an
 * error that came inside a 200 stream; an in-band `overloaded_error` is then `overloaded`, which
 * is retryable, so the transport retries it when no content went out yet.
 */
export const fromBody = (
  status: number | undefined,
  body: unknown,
  provider: string,
  extras?: { readonly requestId?: string | undefined; readonly retryAfterMs?: number | undefined }
): LlmError.ErrorInfo => {
  const parsed = typeof body === "string" ? parseText(body) : body
  const error = innerError(parsed)
  const message = messageOf(error, parsed, status)
  const type = typeof error?.type === "string" ? error.type.toLowerCase() : undefined
  const code = refine(type, message) ??
    (status !== undefined ? HttpStatus.codeForStatus(status) : undefined) ??
    "unknown"
  const bodyRequestId = Events.isObject<{ request_id: string }>(parsed) && Events.isNonEmptyString(parsed.request_id)
    ? parsed.request_id
    : undefined
  return LlmError.info({
    code,
    message,
    status,
    provider,
    requestId: extras?.requestId ?? bodyRequestId,
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

/** The object holding `type` and `message`: nested under `error`, or the body itself. */
const innerError = (body: unknown): Events.Unchecked<Events.ErrorObject> | undefined => {
  if (!Events.isObject<{ error: unknown }>(body)) return undefined
  if (Events.isObject<Events.ErrorObject>(body.error)) return body.error
  if (typeof body.error === "string") return { message: body.error }
  return body as Events.Unchecked<Events.ErrorObject>
}

const messageOf = (
  error: Events.Unchecked<Events.ErrorObject> | undefined,
  body: unknown,
  status: number | undefined
): string => {
  const raw = Events.isNonEmptyString(error?.message)
    ? error.message
    : Events.isNonEmptyString(body) && error === undefined
    ? body.trim()
    : status !== undefined
    ? `The provider answered with HTTP ${status}`
    : "The provider reported an error"
  return raw.length > maxMessageChars ? raw.slice(0, maxMessageChars) + "…" : raw
}

/** The code the body's own words give. */
const refine = (type: string | undefined, message: string): LlmError.ErrorCode | undefined => {
  const code = type === undefined ? undefined : byType.get(type)
  // An over-long prompt is an invalid_request_error in words only: "prompt is too long: 208310 tokens > 200000 maximum".
  if (code === "invalid_request" || code === undefined) {
    const text = message.toLowerCase()
    if (
      text.includes("prompt is too long") || text.includes("exceed context limit") ||
      text.includes("context window")
    ) return "context_length"
  }
  return code
}
