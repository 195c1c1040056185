/**
 * Ollama error bodies → {@link LlmError.ErrorInfo}, for HTTP error responses and for the error line
 * of a 200 stream: the tables the kit's `ErrorBody` reads them with. Ollama's body is always
 * `{"error":"<text>"}` with no code, so the status decides (404 `model 'x' not found`, 400 invalid
 * request, 429, 500, 502, 503 `server busy`), and the words decide where the status says nothing or
 * less (an in-band error, a 400 about the context length). An in-band error the words do not name
 * is `server`, retryable: Ollama sends one when running the model failed (`docs/api/errors.mdx`),
 * and the transport retries it only while no content went out.
 *
 * @since 0.1.0
 */
import * as ErrorBody from "../../internal/kit/ErrorBody.js"
import * as LlmError from "../../LlmError.js"

const mapper = ErrorBody.make({
  // Ollama's bodies have no code field: its errors are named in words only.
  phrases: [
    // `model "x" not found, try pulling it first` (404, or in-band from older servers).
    ["not found", "not_found"],
    ["try pulling it first", "not_found"],
    ["context length", "context_length"],
    ["context window", "context_length"],
    ["exceeds the maximum context", "context_length"],
    // 503 `server busy, please try again.  maximum pending requests exceeded` (OLLAMA_MAX_QUEUE).
    ["server busy", "overloaded"],
    ["unauthorized", "authentication"]
  ]
})

/**
 * Maps an Ollama error body (parsed, or as text) to error data. `status` is undefined for the error
 * line of a 200 stream.
 */
export const fromBody: ErrorBody.Mapper = (status, body, provider, extras) => {
  const info = mapper(status, body, provider, extras)
  if (status !== undefined || info.code !== "unknown") return info
  // Running the model failed mid-stream ("an error was encountered while running the model").
  return { ...info, code: "server", retryable: LlmError.isRetryableCode("server") }
}
