/**
 * What the text framings (SSE, NDJSON) share: UTF-8 decoding across network reads, the incomplete
 * last line kept between reads, the size cap, and the push / end / error lifecycle the transport
 * drives. Subclasses only split text into their own events.
 *
 * @since 0.1.0
 */
import * as LlmError from "../LlmError.js"

/** The default cap on one pending event, in characters: 16 MiB. */
export const defaultMaxEventBytes = 16 * 1024 * 1024

/** Options of a text framing decoder. */
export interface DecoderOptions {
  /** The largest pending event, in characters, before the stream fails; default 16 MiB. */
  readonly maxEventBytes?: number
}

/** Renders a size limit for an error message ("16 MiB", "64 KiB", "100 bytes"). */
const formatLimit = (limit: number): string =>
  limit >= 1024 * 1024 && limit % (1024 * 1024) === 0
    ? `${limit / (1024 * 1024)} MiB`
    : limit >= 1024 && limit % 1024 === 0
    ? `${limit / 1024} KiB`
    : `${limit} bytes`

/** The base of an incremental, synchronous text framing that never throws. */
export abstract class TextFraming<Out> {
  protected readonly maxEventBytes: number
  // The default (non-fatal, BOM-stripping) decoder in streaming mode keeps split multi-byte
  // characters and a split BOM across reads, and turns invalid bytes into U+FFFD instead of throwing.
  private readonly utf8 = new TextDecoder("utf-8")
  /** The incomplete last line of the previous read; never contains a line terminator. */
  protected tail = ""
  private ended = false
  private failure: LlmError.ErrorInfo | undefined = undefined

  /** @param unit what one event is called in the overflow message ("An SSE event"). */
  constructor(options: DecoderOptions | undefined, private readonly unit: string) {
    this.maxEventBytes = options?.maxEventBytes ?? defaultMaxEventBytes
  }

  /** Set once an event grew past the cap (code `protocol`); from then on nothing more is decoded. */
  get error(): LlmError.ErrorInfo | undefined {
    return this.failure
  }

  /** Decodes one network read, returning the events it completed, in order. */
  push(bytes: Uint8Array): Array<Out> {
    const out: Array<Out> = []
    if (this.failure !== undefined || this.ended) return out
    this.feed(this.utf8.decode(bytes, { stream: true }), out)
    return out
  }

  /** The body ended: returns what the end completes (an event no terminator closed). */
  end(): Array<Out> {
    const out: Array<Out> = []
    if (this.failure !== undefined || this.ended) return out
    this.ended = true
    this.feed(this.utf8.decode(), out)
    if (this.failure === undefined) this.flush(out)
    return out
  }

  /** Splits decoded text into events, keeping an incomplete last line in `tail`. */
  protected abstract feed(text: string, out: Array<Out>): void

  /** Emits what the end of the body completes. */
  protected abstract flush(out: Array<Out>): void

  /** Records the size-cap failure and drops buffered text; always returns `false`. */
  protected overflow(): false {
    this.failure = LlmError.info({
      code: "protocol",
      message: `${this.unit} exceeded the ${formatLimit(this.maxEventBytes)} limit`,
      details: { limit: this.maxEventBytes }
    })
    this.tail = ""
    return false
  }
}
