/**
 * HTTP status → error code, shared by every provider (each provider's `errors.ts` refines it from
 * its own error body).
 *
 * @since 0.1.0
 */
import type * as LlmError from "../../LlmError.js"

/** The error code an HTTP status means, before looking at the body. */
export const codeForStatus = (status: number): LlmError.ErrorCode => {
  switch (status) {
    case 400:
    case 422:
      return "invalid_request"
    case 401:
      return "authentication"
    case 402:
      return "quota"
    case 403:
      return "permission"
    case 404:
      return "not_found"
    case 408:
      return "timeout"
    case 409:
      return "server"
    case 413:
      return "context_length"
    case 429:
      return "rate_limit"
    case 503:
    case 529:
      return "overloaded"
    default:
      return status >= 500 ? "server" : "unknown"
  }
}

/** Statuses retried by default (before any output): 408, 409, 429 and every 5xx (529 included). */
export const isRetryableStatus = (status: number): boolean =>
  status === 408 || status === 409 || status === 429 || status >= 500
