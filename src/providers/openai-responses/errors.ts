/**
 * Responses API error bodies → {@link LlmError.ErrorInfo}: the tables the kit's `ErrorBody` reads
 * them with. The same mapping serves HTTP error responses, the in-band `error` event in both its
 * shapes (flat `{type:"error", code, message}` as the SDK types it, nested `{type:"error", error:{…}}`
 * as OpenAI streams it) and `response.failed`'s `response.error` (passed as `{ error }`).
 *
 * @since 0.1.0
 */
import * as ErrorBody from "../../internal/kit/ErrorBody.js"
import * as LlmError from "../../LlmError.js"

const tables: ErrorBody.Mapper = ErrorBody.make({
  // Codes more precise than any HTTP status (a 429 `insufficient_quota` is not worth retrying).
  precise: new Map<string, LlmError.ErrorCode>([
    ["insufficient_quota", "quota"],
    ["context_length_exceeded", "context_length"],
    ["rate_limit_exceeded", "rate_limit"],
    ["slow_down", "rate_limit"],
    ["server_is_overloaded", "overloaded"],
    ["vector_store_timeout", "timeout"],
    ["invalid_api_key", "authentication"],
    ["model_not_found", "not_found"],
    ["data_residency_mismatch", "permission"],
    ["invalid_prompt", "invalid_request"],
    ["bio_policy", "invalid_request"],
    // `response.error.code`'s image errors: the request's image, never worth retrying.
    ["invalid_image", "invalid_request"],
    ["invalid_image_format", "invalid_request"],
    ["invalid_base64_image", "invalid_request"],
    ["invalid_image_url", "invalid_request"],
    ["image_too_large", "invalid_request"],
    ["image_too_small", "invalid_request"],
    ["image_parse_error", "invalid_request"],
    ["image_content_policy_violation", "invalid_request"],
    ["invalid_image_mode", "invalid_request"],
    ["image_file_too_large", "invalid_request"],
    ["unsupported_image_media_type", "invalid_request"],
    ["empty_image_file", "invalid_request"],
    ["failed_to_download_image", "invalid_request"],
    ["image_file_not_found", "invalid_request"]
  ]),
  // Open-responses servers (LM Studio, vLLM) say it only in words.
  phrases: [
    ["maximum context length", "context_length"],
    ["context window", "context_length"],
    ["context length exceeded", "context_length"]
  ],
  // Generic classes: they decide only when no status does (in-band errors).
  fallback: new Map<string, LlmError.ErrorCode>([
    ["server_error", "server"],
    ["invalid_request_error", "invalid_request"]
  ])
})

/**
 * Maps a Responses API error body (HTTP or in-band) to error data. An in-band error with no code
 * (OpenAI streams `code: null` with "An error occurred while processing your request…", and a proxy's
 * plain-text `event: error` has none) and no status is the server's failure: `server`, retryable.
 */
export const fromBody: ErrorBody.Mapper = (status, body, provider, extras) => {
  const info = tables(status, body, provider, extras)
  if (info.code !== "unknown" || info.status !== undefined || hasCode(body)) return info
  return LlmError.info({ ...info, code: "server", retryable: undefined })
}

/** Whether an error body names a code (a non-empty `code`, on the error object or nested). */
const hasCode = (body: unknown): boolean => {
  const parsed = typeof body === "string" ? ErrorBody.parse(body) : body
  const error = ErrorBody.errorObject(parsed)
  const code = error?.code
  return code !== undefined && code !== null && code !== ""
}
