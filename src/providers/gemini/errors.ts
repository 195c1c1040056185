/**
 * Gemini error bodies → {@link LlmError.ErrorInfo}, for HTTP error responses and for an
 * `{"error": …}` event inside a 200 stream: the tables the kit's `ErrorBody` reads them with.
 *
 * The body is Google's `{"error":{"code":429,"message":…,"status":"RESOURCE_EXHAUSTED","details":[…]}}`
 * (or the same inside a JSON array, as the non-SSE endpoint answers). `status` decides where it is
 * precise; the words of the message come next (an invalid API key is an `INVALID_ARGUMENT` 400, an
 * over-long prompt too), then the HTTP status (or the body's `code` for an in-band error), then the
 * generic statuses. A `google.rpc.RetryInfo` detail's `retryDelay` (`"37s"`, `"1.5s"`) becomes
 * `retryAfterMs` when no `Retry-After` header gave one; a `google.rpc.QuotaFailure` whose quota is
 * per day makes a 429 `quota` (not worth retrying today) instead of `rate_limit`.
 *
 * @since 0.1.0
 */
import * as ErrorBody from "../../internal/kit/ErrorBody.js"
import * as Guards from "../../internal/kit/guards.js"
import * as LlmError from "../../LlmError.js"

const mapper = ErrorBody.make({
  codeFields: ["status"],
  precise: new Map<string, LlmError.ErrorCode>([
    ["unauthenticated", "authentication"],
    ["permission_denied", "permission"],
    ["not_found", "not_found"],
    ["resource_exhausted", "rate_limit"],
    ["unavailable", "overloaded"],
    ["deadline_exceeded", "timeout"],
    ["internal", "server"]
  ]),
  // Said only in words, under an INVALID_ARGUMENT 400.
  phrases: [
    ["api key not valid", "authentication"],
    ["api key expired", "authentication"],
    ["api_key_invalid", "authentication"],
    ["input token count", "context_length"],
    ["exceeds the maximum number of tokens", "context_length"],
    ["context window", "context_length"]
  ],
  fallback: new Map<string, LlmError.ErrorCode>([
    ["invalid_argument", "invalid_request"],
    ["failed_precondition", "invalid_request"],
    ["out_of_range", "invalid_request"],
    ["cancelled", "network"],
    ["aborted", "server"],
    ["unknown", "server"]
  ])
})

/**
 * Maps a Gemini error body (parsed, or as text) to error data. `status` is undefined for an error
 * inside a 200 stream: the body's own `code` then stands for the HTTP status.
 */
export const fromBody: ErrorBody.Mapper = (status, body, provider, extras) => {
  const parsed = unwrapArray(typeof body === "string" ? ErrorBody.parse(body) : body)
  const details = detailsOf(parsed)
  const info = mapper(status, parsed, provider, {
    ...extras,
    retryAfterMs: extras?.retryAfterMs ?? retryDelayMs(details)
  })
  return info.code === "rate_limit" && perDayQuota(details)
    ? LlmError.info({ ...info, code: "quota", retryable: false })
    : info
}

/** The non-SSE endpoint answers a JSON array of responses: its first element is the error. */
const unwrapArray = (body: unknown): unknown => (Guards.isArray(body) && body.length > 0 ? body[0] : body)

/** The `error.details` entries, or none. */
const detailsOf = (body: unknown): ReadonlyArray<unknown> => {
  const error = ErrorBody.errorObject(body)
  return Guards.isArray(error?.details) ? error.details : []
}

/** The detail entries of one `@type` (`type.googleapis.com/google.rpc.RetryInfo` …). */
const ofType = (details: ReadonlyArray<unknown>, type: string) =>
  details.filter((d): d is Guards.Unchecked<Record<string, unknown>> =>
    Guards.isObject<{ "@type": string }>(d) && typeof d["@type"] === "string" && d["@type"].endsWith(type)
  )

/**
 * `RetryInfo.retryDelay` in milliseconds: a protobuf `Duration` as JSON text (`"37s"`, `"1.5s"`),
 * or as `{seconds, nanos}`.
 */
export const retryDelayMs = (details: ReadonlyArray<unknown>): number | undefined => {
  for (const d of ofType(details, "google.rpc.RetryInfo")) {
    const delay = d.retryDelay
    if (typeof delay === "string") {
      const match = /^\s*(\d+(?:\.\d+)?)s\s*$/.exec(delay)
      if (match !== null) return Math.round(Number(match[1]) * 1000)
    } else if (Guards.isObject<{ seconds: unknown; nanos: unknown }>(delay)) {
      const seconds = Number(delay.seconds ?? 0)
      const nanos = typeof delay.nanos === "number" ? delay.nanos : 0
      if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000 + nanos / 1e6)
    }
  }
  return undefined
}

/** Whether a `QuotaFailure` names a per-day quota (`GenerateRequestsPerDayPerProjectPerModel-FreeTier`). */
const perDayQuota = (details: ReadonlyArray<unknown>): boolean =>
  ofType(details, "google.rpc.QuotaFailure").some((d) =>
    Guards.isArray(d.violations) &&
    d.violations.some((v) =>
      Guards.isObject<{ quotaId: unknown }>(v) && typeof v.quotaId === "string" && /perday/i.test(v.quotaId)
    )
  )
