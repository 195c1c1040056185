/**
 * Anthropic error bodies → {@link LlmError.ErrorInfo}, for HTTP error responses and for the
 * `event: error` of a 200 stream: the tables the kit's `ErrorBody` reads them with. The body is
 * `{"type":"error","error":{"type","message"},"request_id"}`; `error.type` decides, then the words
 * of the message, then the status. Bodies from proxies (plain text, other shapes) fall back to the status.
 *
 * @since 0.1.0
 */
import * as ErrorBody from "../../internal/kit/ErrorBody.js"
import * as Guards from "../../internal/kit/guards.js"
import type * as LlmError from "../../LlmError.js"

const mapper = ErrorBody.make({
  codeFields: ["type"],
  // Anthropic's `error.type` values (wire-formats §3): each names its case better than the status.
  precise: new Map<string, LlmError.ErrorCode>([
    ["authentication_error", "authentication"],
    ["billing_error", "quota"],
    ["permission_error", "permission"],
    ["not_found_error", "not_found"],
    // A 413 is the request's bytes (32 MB), not its tokens: "prompt is too long" says that.
    ["request_too_large", "invalid_request"],
    ["rate_limit_error", "rate_limit"],
    ["api_error", "server"],
    ["timeout_error", "timeout"],
    ["overloaded_error", "overloaded"]
  ]),
  // An over-long prompt is an invalid_request_error in words only.
  phrases: [
    ["prompt is too long", "context_length"],
    ["exceed context limit", "context_length"],
    ["context window", "context_length"]
  ],
  // Below the phrases, so "prompt is too long: 208310 tokens > 200000 maximum" is context_length.
  fallback: new Map<string, LlmError.ErrorCode>([["invalid_request_error", "invalid_request"]])
})

/**
 * Maps an Anthropic error body (parsed, or as text) to error data. `status` is undefined for an
 * error inside a 200 stream: an in-band `overloaded_error` is then `overloaded`, retryable, so the
 * transport retries it while no content went out. The body's `request_id` stands in for a missing
 * `request-id` header.
 */
export const fromBody: ErrorBody.Mapper = (status, body, provider, extras) => {
  const parsed = typeof body === "string" ? ErrorBody.parse(body) : body
  const bodyRequestId = Guards.isObject<{ request_id: string }>(parsed) && Guards.isNonEmptyString(parsed.request_id)
    ? parsed.request_id
    : undefined
  return mapper(status, parsed, provider, { ...extras, requestId: extras?.requestId ?? bodyRequestId })
}
