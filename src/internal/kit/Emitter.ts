/**
 * The decoder kit's output side: every chunk a decoder emits goes through an {@link Emitter}, which
 * puts the `metadata` chunk first and remembers when a terminal chunk went out, so a decoder cannot
 * break either rule by forgetting a flag. Plain synchronous code: decoders are the hot path.
 *
 * @since 0.1.0
 */
import * as LlmError from "../../LlmError.js"
import * as StreamChunk from "../../StreamChunk.js"

/** The chunks one event yields, appended in order. */
export type Out = Array<StreamChunk.StreamChunk>

/** Emits a response's chunks with `metadata` first and nothing after the terminal chunk. */
export class Emitter {
  /** A terminal chunk went out: the decoder must emit nothing more (check it first in `push`). */
  ended = false
  /** The `metadata` chunk went out. */
  announced = false

  constructor(
    /** The provider named in chunks and errors. */
    readonly provider: string
  ) {}

  /**
   * Emits the `metadata` chunk now, naming the model and response id when known; a no-op once it
   * went out. Call it as soon as the provider names them, before any other chunk.
   */
  announce(out: Out, model?: string | undefined, responseId?: string | undefined): void {
    if (this.announced) return
    this.announced = true
    out.push(StreamChunk.metadata(this.provider, model, responseId))
  }

  /** Emits a chunk, preceded by a bare `metadata` chunk when none went out yet. */
  emit(out: Out, chunk: StreamChunk.StreamChunk): void {
    if (!this.announced) {
      this.announced = true
      out.push(StreamChunk.metadata(this.provider))
    }
    out.push(chunk)
  }

  /** Ends the response with an `error` chunk. */
  fail(out: Out, error: LlmError.ErrorInfo): void {
    this.emit(out, StreamChunk.error(error))
    this.ended = true
  }

  /** Ends the response with a `finish` chunk. */
  finish(out: Out, reason: StreamChunk.FinishReason, rawReason?: string | undefined): void {
    this.emit(out, StreamChunk.finish(reason, rawReason))
    this.ended = true
  }
}

/** Longest excerpt of a malformed event quoted in a `protocol` error. */
export const maxQuoted = 200

/** A malformed event as a JSON string literal, cut at {@link maxQuoted} characters. */
export const excerpt = (data: string): string =>
  JSON.stringify(data.length > maxQuoted ? data.slice(0, maxQuoted) + "…" : data)

/**
 * The `protocol` error for an event the decoder cannot read, quoting (a capped excerpt of) it:
 * `what` says what was wrong, by default that it is not a JSON object.
 */
export const protocolError = (
  provider: string,
  data: string,
  what = "The stream sent an event that is not a JSON object"
): LlmError.ErrorInfo => LlmError.info({ code: "protocol", message: `${what}: ${excerpt(data)}`, provider })
