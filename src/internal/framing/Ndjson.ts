/**
 * Newline-delimited JSON framing, decoding one network read at a time. It yields raw lines;
 * parsing them is the provider decoder's job.
 *
 * @since 0.1.0
 */
import { type FramerOptions, TextFraming } from "./TextFraming.js"

export {
  /** The default cap on one line, in characters: 16 MiB. */
  defaultMaxEventBytes,
  /** Options of a {@link Framer}: `maxEventBytes` caps one line. */
  type FramerOptions
} from "./TextFraming.js"

const CR = 13

/**
 * An incremental, synchronous NDJSON framer (a line splitter): `push` each network read, `end` at the end of
 * the body. It never throws; a line longer than the cap sets {@link Framer.error} and stops all output.
 */
export class Framer extends TextFraming<string> {
  constructor(options?: FramerOptions) {
    super(options, "An NDJSON line")
  }

  /** Emits a last line that had no newline, if it is not blank. */
  protected flush(out: Array<string>): void {
    if (this.tail === "") return
    const line = this.tail
    this.tail = ""
    this.emit(line, 0, line.length, out)
  }

  protected feed(text: string, out: Array<string>): void {
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
      this.emit(line, 0, line.length, out)
      if (this.error !== undefined) return
      pos = nl + 1
      nl = text.indexOf("\n", pos)
    }
    while (nl !== -1) {
      if (!this.checkSize(nl - pos)) return
      this.emit(text, pos, nl, out)
      if (this.error !== undefined) return
      pos = nl + 1
      nl = text.indexOf("\n", pos)
    }
    this.tail = text.slice(pos)
    this.checkSize(this.tail.length)
  }

  /** Emits a complete line, unless parsing it would cost more than the cap allows. */
  private emit(s: string, start: number, end: number, out: Array<string>): void {
    if (end - start > 1024 && this.tooCostlyParsed(s.slice(start, end), end - start)) {
      this.tail = ""
      this.overflow()
      return
    }
    emit(s, start, end, out)
  }

  /** Fails when a line, complete or not, passes the cap (so the outcome ignores read boundaries). */
  private checkSize(lineLength: number): boolean {
    return lineLength <= this.maxEventBytes || this.overflow()
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
