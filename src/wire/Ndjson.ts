/**
 * Newline-delimited JSON framing, decoding one network read at a time. It yields raw lines;
 * parsing them is the provider decoder's job.
 *
 * @since 0.1.0
 */
import * as LlmError from "../LlmError.js"

/** The default cap on one line, in characters: 16 MiB. */
export const defaultMaxEventBytes = 16 * 1024 * 1024

/** Options of a {@link Decoder}. */
export interface DecoderOptions {
  /** The largest line (one event), in characters, before the stream fails; default 16 MiB. */
  readonly maxEventBytes?: number
}

const CR = 13

const formatLimit = (limit: number): string =>
  limit >= 1024 * 1024 && limit % (1024 * 1024) === 0
    ? `${limit / (1024 * 1024)} MiB`
    : limit >= 1024 && limit % 1024 === 0
      ? `${limit / 1024} KiB`
      : `${limit} bytes`

/**
 * An incremental, synchronous NDJSON line splitter: `push` each network read, `end` at the end of
 * the body. It never throws; a line longer than the cap sets {@link Decoder.error} and stops all output.
 */
export class Decoder {
  private readonly maxEventBytes: number
  // Streaming mode keeps split multi-byte characters and a split BOM across reads; invalid bytes
  // become U+FFFD rather than an exception.
  private readonly utf8 = new TextDecoder("utf-8")
  /** The incomplete last line of the previous read. */
  private tail = ""
  private ended = false
  private failure: LlmError.ErrorInfo | undefined = undefined

  constructor(options?: DecoderOptions) {
    this.maxEventBytes = options?.maxEventBytes ?? defaultMaxEventBytes
  }

  /** Set once a line grew past the cap (code `protocol`); from then on nothing more is decoded. */
  get error(): LlmError.ErrorInfo | undefined {
    return this.failure
  }

  /** Decodes one network read, returning the non-blank lines it completed, in order. */
  push(bytes: Uint8Array): Array<string> {
    const out: Array<string> = []
    if (this.failure !== undefined || this.ended) return out
    this.feed(this.utf8.decode(bytes, { stream: true }), out)
    return out
  }

  /** The body ended: returns a last line that had no newline, if it is not blank. */
  end(): Array<string> {
    const out: Array<string> = []
    if (this.failure !== undefined || this.ended) return out
    this.ended = true
    this.feed(this.utf8.decode(), out)
    if (this.failure !== undefined || this.tail === "") return out
    const line = this.tail
    this.tail = ""
    emit(line, 0, line.length, out)
    return out
  }

  private feed(text: string, out: Array<string>): void {
    if (text.length === 0) return
    let nl = text.indexOf("\n")
    if (nl === -1) {
      this.tail += text
      this.checkSize(this.tail.length)
      return
    }
    let pos = 0
    if (this.tail !== "") {
      const line = this.tail + text.slice(0, nl)
      this.tail = ""
      if (!this.checkSize(line.length)) return
      emit(line, 0, line.length, out)
      pos = nl + 1
      nl = text.indexOf("\n", pos)
    }
    while (nl !== -1) {
      if (!this.checkSize(nl - pos)) return
      emit(text, pos, nl, out)
      pos = nl + 1
      nl = text.indexOf("\n", pos)
    }
    this.tail = text.slice(pos)
    this.checkSize(this.tail.length)
  }

  /** Fails when a line, complete or not, passes the cap (so the outcome ignores read boundaries). */
  private checkSize(lineLength: number): boolean {
    if (lineLength <= this.maxEventBytes) return true
    this.failure = LlmError.info({
      code: "protocol",
      message: `An NDJSON line exceeded the ${formatLimit(this.maxEventBytes)} limit`,
      details: { limit: this.maxEventBytes }
    })
    this.tail = ""
    return false
  }
}

/** Appends `s[start, end)` without a trailing CR, unless it is blank. */
const emit = (s: string, start: number, end: number, out: Array<string>): void => {
  if (end > start && s.charCodeAt(end - 1) === CR) end--
  if (end === start) return
  const c = s.charCodeAt(start)
  // Printable ASCII first is the usual case ("{"); only then can trimming be skipped.
  if (c > 32 && c < 127) {
    out.push(s.slice(start, end))
    return
  }
  const line = s.slice(start, end)
  if (line.trim() !== "") out.push(line)
}
