/**
 * Ollama's native chat stream as it arrives on the wire (`POST /api/chat`, `application/x-ndjson`):
 * one JSON object per line, every line the same shape. Lines with `done: false` carry a piece of the
 * message; the last line has `done: true`, the `done_reason` and the metrics. An error, before or
 * during the stream, is a line `{"error":"…"}` (the HTTP status stays 200 once the stream started).
 * See `reference/wire-formats.md` §5.
 *
 * The decoder does not trust these types: it reads a parsed line as the kit's `Guards.Unchecked`
 * object, whose field names are typed but whose values must pass a guard before use, so the hot
 * path stays at one `JSON.parse` per line, with no Schema decoding.
 *
 * @since 0.1.0
 */

/** One line of the stream. */
export interface ChatLine {
  /** The model that answers (the name the request used, e.g. `qwen3:8b`). */
  readonly model: string
  /** When the line was made (RFC 3339); Ollama gives no response id. */
  readonly created_at: string
  readonly message: MessageFields
  /** `true` on the last line only. */
  readonly done: boolean
  /** On the last line: `stop | length`, or `load` / `unload` for a request that only loaded or unloaded the model. */
  readonly done_reason: string
  /** Prompt tokens evaluated (input); left out when zero. */
  readonly prompt_eval_count: number
  /** Tokens generated (output, thinking included); left out when zero. */
  readonly eval_count: number
  /** Nanoseconds, on the last line; each left out when zero. */
  readonly total_duration: number
  readonly load_duration: number
  readonly prompt_eval_duration: number
  readonly eval_duration: number
  /** An error line: the message, as text (`{"error":"model 'x' not found"}`). */
  readonly error: unknown
}

/** `message`: a piece of the assistant's message. */
export interface MessageFields {
  /** Always `assistant`. */
  readonly role: string
  /** A piece of the answer (often empty beside thinking or tool calls). */
  readonly content: string
  /** A piece of the reasoning trace, streamed before the content when `think` is on. */
  readonly thinking: string
  /** Whole calls, arguments as an object, in a `done: false` line. */
  readonly tool_calls: ReadonlyArray<unknown>
  /** Images the model generated, base64 (image-generation models). */
  readonly images: ReadonlyArray<unknown>
}

/** One entry of `message.tool_calls`. */
export interface ToolCallFields {
  /** Recent servers send `call_` + 8 characters; older ones none. */
  readonly id: string
  readonly function: FunctionFields
}

/** `tool_calls[].function`. */
export interface FunctionFields {
  /** The call's position as the server counts it (recent servers only). */
  readonly index: number
  readonly name: string
  /** An object (a proxy may send it as JSON text). */
  readonly arguments: unknown
}

/** The metrics of the last line, kept in `usage.raw` (counts and nanosecond durations). */
export const metricFields = [
  "prompt_eval_count",
  "eval_count",
  "total_duration",
  "load_duration",
  "prompt_eval_duration",
  "eval_duration"
] as const
