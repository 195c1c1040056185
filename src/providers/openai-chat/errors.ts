/**
 * OpenAI-style error bodies → {@link LlmError.ErrorInfo}, for HTTP error responses and for errors
 * that arrive inside a 200 stream: the tables the kit's `ErrorBody` reads them with. One mapping for
 * OpenAI and every compatible host, whose bodies differ only in detail: `{"error":{message,type,param,code}}`,
 * a bare `{message,type,code}` (llama.cpp's SSE `error:` field), `{"error":"text"}`, or plain text from a proxy.
 *
 * @since 0.1.0
 */
import * as ErrorBody from "../../internal/kit/ErrorBody.js"
import type * as LlmError from "../../LlmError.js"

/**
 * Maps an OpenAI-style error body to error data: the body's `code`/`type` (or its words) when more
 * precise than the HTTP status, then the status (a numeric body `code` stands in for a missing one),
 * then the generic classes.
 */
export const fromBody: ErrorBody.Mapper = ErrorBody.make({
  // Provider `code` / `type` strings more precise than any HTTP status: they override it.
  precise: new Map<string, LlmError.ErrorCode>([
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
  ]),
  // Hosts without a dedicated code still say it in words (vLLM, LM Studio, Together …).
  phrases: [
    ["maximum context length", "context_length"],
    ["context window", "context_length"],
    ["context size", "context_length"],
    ["context length exceeded", "context_length"]
  ],
  // Generic classes that only decide when no status does (in-band errors).
  fallback: new Map<string, LlmError.ErrorCode>([
    ["server_error", "server"],
    ["internalservererror", "server"],
    ["overloaded_error", "overloaded"],
    ["badrequesterror", "invalid_request"],
    ["invalid_request_error", "invalid_request"],
    ["not_found_error", "not_found"]
  ])
})
