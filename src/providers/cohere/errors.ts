/**
 * Cohere error bodies → {@link LlmError.ErrorInfo}, for HTTP error responses and for errors inside a
 * 200 stream: the tables the kit's `ErrorBody` reads them with. The body is
 * `{"id": "<request id>", "message": "…"}`, with no code of its own, so the HTTP status decides,
 * after the words of the message (an over-long prompt is a 400 that says "too many tokens").
 *
 * Cohere's own statuses beside the common ones: 498 (invalid token) is `authentication`, 501 (a
 * feature the model does not offer) `invalid_request`, 504 `timeout`; 499 (the request was
 * cancelled) stays `unknown`, not retried.
 *
 * @since 0.1.0
 */
import * as ErrorBody from "../../internal/kit/ErrorBody.js"
import * as Guards from "../../internal/kit/guards.js"
import * as HttpStatus from "../../internal/transport/HttpStatus.js"
import * as LlmError from "../../LlmError.js"

const mapper = ErrorBody.make({
  // Cohere says an over-long prompt only in words (HTTP 400).
  phrases: [
    ["too many tokens", "context_length"],
    ["context length", "context_length"],
    ["context window", "context_length"],
    ["maximum context", "context_length"]
  ]
})

/** Statuses Cohere gives a meaning the common table does not. */
const statuses: ReadonlyMap<number, LlmError.ErrorCode> = new Map<number, LlmError.ErrorCode>([
  [498, "authentication"],
  [501, "invalid_request"],
  [504, "timeout"]
])

/**
 * Maps a Cohere error body (parsed, or as text) to error data. `status` is undefined for an error
 * inside a 200 stream, whose code then comes from its words alone (else `unknown`). The body's `id`
 * stands in for a missing request-id header.
 */
export const fromBody: ErrorBody.Mapper = (status, body, provider, extras) => {
  const parsed = typeof body === "string" ? ErrorBody.parse(body) : body
  const bodyId = Guards.isObject<{ id: string }>(parsed) && Guards.isNonEmptyString(parsed.id) ? parsed.id : undefined
  const info = mapper(status, parsed, provider, { ...extras, requestId: extras?.requestId ?? bodyId })
  const own = status === undefined ? undefined : statuses.get(status)
  // Only where the status decided: a phrase that matched (say, "too many tokens") wins.
  if (own === undefined || status === undefined || info.code !== HttpStatus.codeForStatus(status)) return info
  return LlmError.info({ ...info, code: own, retryable: undefined })
}
