/**
 * Server-sent events framing (WHATWG rules), decoding one network read at a time.
 *
 * @since 0.1.0
 */

/** One dispatched server-sent event. */
export interface Event {
  /** The `event:` field; `"message"` when the event named none. */
  readonly event: string
  /** The `data:` lines joined with `\n`. */
  readonly data: string
  /** The last `id:` field seen, if any. */
  readonly id: string | undefined
  /** The value of a non-standard `error:` field (old llama.cpp builds send errors that way). */
  readonly error?: string | undefined
}
