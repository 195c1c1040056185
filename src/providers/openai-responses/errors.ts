/**
 * Responses API error bodies → {@link LlmError.ErrorInfo}: HTTP error responses, the in-band `error`
 * event in both its shapes (flat `{type:"error", code, message}` and nested `{type:"error", error:{…}}`)
 * and `response.failed`'s `response.error`. The bodies are OpenAI's, so the Chat Completions mapping
 * does the work; the codes only the Responses API sends are refined here.
 *
 * @since 0.1.0
 */
import * as LlmError from "../../LlmError.js"
import * as ChatErrors from "../openai-chat/errors.js"
import * as Events from "./events.js"

/** Codes of the Responses API (`response.error.code`, streamed `error` events) the shared mapping does not know. */
const responsesTable: ReadonlyMap<string, LlmError.ErrorCode> = new Map<string, LlmError.ErrorCode>([
  ["server_is_overloaded", "overloaded"],
  ["slow_down", "rate_limit"],
  ["vector_store_timeout", "timeout"],
  ["invalid_prompt", "invalid_request"],
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
  ["image_file_not_found", "invalid_request"],
  ["data_residency_mismatch", "permission"],
  ["bio_policy", "invalid_request"]
])

/** Maps an OpenAI-style error body (HTTP or in-band) to error data. */
export const fromBody = (
  status: number | undefined,
  body: unknown,
  provider: string,
  extras?: { readonly requestId?: string | undefined; readonly retryAfterMs?: number | undefined }
): LlmError.ErrorInfo => {
  const info = ChatErrors.fromBody(status, body, provider, extras)
  const inner = innerError(body)
  const refined = typeof inner?.code === "string" ? responsesTable.get(inner.code.toLowerCase()) : undefined
  if (refined === undefined || refined === info.code) return info
  const { retryable: _retryable, ...rest } = info
  return LlmError.info({ ...rest, code: refined })
}

const innerError = (body: unknown): Events.Unchecked<{ code: string }> | undefined => {
  if (!Events.isObject<{ error: unknown }>(body)) return undefined
  return Events.isObject<{ code: string }>(body.error) ? body.error : (body as Events.Unchecked<{ code: string }>)
}
