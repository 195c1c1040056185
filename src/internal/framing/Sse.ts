/**
 * Server-sent events framing (WHATWG rules), decoding one network read at a time.
 *
 * @since 0.1.0
 */
import { type FramerOptions, lineCost, TextFraming } from "./TextFraming.js"

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

export {
  /** The default cap on one pending event, in characters: 16 MiB. */
  defaultMaxEventBytes,
  /** Options of a {@link Framer}: `maxEventBytes` caps the data buffer (its lines and their characters) plus the line being read; `secrets` are masked by value. */
  type FramerOptions
} from "./TextFraming.js"

const LF = 10
const SPACE = 32
const COLON = 58

// The field names, compared a character code at a time: `startsWith` is a call per line.
const isData = (s: string, at: number): boolean =>
  s.charCodeAt(at) === 100 && s.charCodeAt(at + 1) === 97 && s.charCodeAt(at + 2) === 116 &&
  s.charCodeAt(at + 3) === 97
const isEvent = (s: string, at: number): boolean =>
  s.charCodeAt(at) === 101 && s.charCodeAt(at + 1) === 118 && s.charCodeAt(at + 2) === 101 &&
  s.charCodeAt(at + 3) === 110 && s.charCodeAt(at + 4) === 116
const isError = (s: string, at: number): boolean =>
  s.charCodeAt(at) === 101 && s.charCodeAt(at + 1) === 114 && s.charCodeAt(at + 2) === 114 &&
  s.charCodeAt(at + 3) === 111 && s.charCodeAt(at + 4) === 114
const isId = (s: string, at: number): boolean => s.charCodeAt(at) === 105 && s.charCodeAt(at + 1) === 100

/**
 * The colon of a line that begins `data:`, `event:`, `error:` or `id:` (the first colon, since no
 * name holds one), found without a search; -1 for any other line.
 */
const knownColon = (s: string, start: number, end: number): number => {
  if (start + 4 < end && s.charCodeAt(start + 4) === COLON && isData(s, start)) return start + 4
  if (start + 5 < end && s.charCodeAt(start + 5) === COLON && (isEvent(s, start) || isError(s, start))) return start + 5
  if (start + 2 < end && s.charCodeAt(start + 2) === COLON && isId(s, start)) return start + 2
  return -1
}

/**
 * An incremental, synchronous SSE framer: `push` each network read, `end` at the end of the body.
 * It never throws; an event larger than the cap sets {@link Framer.error} and stops all output.
 */
export class Framer extends TextFraming<Event> {
  /** The previous read ended with CR: an LF opening the next read belongs to that line end. */
  private skipLf = false
  private data = ""
  private hasData = false
  // Lines after the first are joined once at dispatch: thousands of concatenations cost far more.
  private moreData: Array<string> | undefined = undefined
  private dataLength = 0
  private eventType = ""
  private errorField = ""
  private hasError = false
  // Per spec the last event id outlives the event that set it.
  private lastId: string | undefined = undefined

  constructor(options?: FramerOptions) {
    super(options, "An SSE event")
  }

  /** Flushes a last event that no blank line closed (proxies drop it). */
  protected flush(out: Array<Event>): void {
    if (this.tail !== "") {
      const line = this.tail
      this.tail = ""
      this.line(line, 0, line.length, line.indexOf(":"), out)
    }
    if (this.error === undefined) this.dispatch(out)
  }

  protected feed(text: string, out: Array<Event>): void {
    const n = text.length
    if (n === 0) return
    let pos = 0
    if (this.skipLf) {
      this.skipLf = false
      if (text.charCodeAt(0) === LF) pos = 1
    }
    // Next LF, CR and colon at or after `pos`; each is searched again only once `pos` passes it,
    // so a read is scanned in linear time whatever its line lengths.
    let lf = text.indexOf("\n", pos)
    let cr = text.indexOf("\r", pos)
    let colon = text.indexOf(":", pos)
    if (this.tail !== "") {
      const end = lf === -1 ? cr : cr === -1 || lf < cr ? lf : cr
      if (end === -1) {
        this.tail += text.slice(pos)
        this.checkSize(this.tail.length)
        return
      }
      const line = this.tail + text.slice(pos, end)
      this.tail = ""
      if (!this.checkSize(line.length)) return
      this.line(line, 0, line.length, line.indexOf(":"), out)
      if (this.error !== undefined) return
      pos = this.after(text, end)
    }
    while (pos < n) {
      if (text.charCodeAt(pos) === LF) {
        // A blank line ends the event: no search for its end.
        if (!this.checkSize(0)) return
        this.dispatch(out)
        if (this.error !== undefined) return
        pos++
        continue
      }
      if (lf !== -1 && lf < pos) lf = text.indexOf("\n", pos)
      if (cr !== -1 && cr < pos) cr = text.indexOf("\r", pos)
      const end = lf === -1 ? cr : cr === -1 || lf < cr ? lf : cr
      if (end === -1) {
        this.tail = text.slice(pos)
        this.checkSize(this.tail.length)
        return
      }
      if (!this.checkSize(end - pos)) return
      let at = knownColon(text, pos, end)
      if (at === -1) {
        if (colon !== -1 && colon < pos) colon = text.indexOf(":", pos)
        at = colon !== -1 && colon < end ? colon : -1
      }
      this.line(text, pos, end, at, out)
      if (this.error !== undefined) return
      pos = this.after(text, end)
    }
  }

  /** The position after the line terminator at `end`, remembering a CR that ends the read. */
  private after(text: string, end: number): number {
    if (text.charCodeAt(end) === LF) return end + 1
    if (end + 1 === text.length) {
      this.skipLf = true
      return end + 1
    }
    return text.charCodeAt(end + 1) === LF ? end + 2 : end + 1
  }

  /**
   * Fails when the pending event plus a line of `lineLength` characters passes the cap. Checking
   * every line, complete or not, makes the outcome independent of how the body was split.
   */
  private checkSize(lineLength: number): boolean {
    // The event's other fields are held too (an `event:` or `error:` line can be as long as data).
    if (this.dataLength + this.eventType.length + this.errorField.length + lineLength <= this.maxEventBytes) return true
    this.resetEvent()
    return this.overflow()
  }

  /** Interprets the line `s[start, end)`, whose first colon is at `colon` (or -1). */
  private line(s: string, start: number, end: number, colon: number, out: Array<Event>): void {
    if (start === end) {
      this.dispatch(out)
      return
    }
    // Fast path for keep-alives; an empty field name would be ignored below anyway.
    if (s.charCodeAt(start) === COLON) return
    let nameEnd = end
    let valueStart = end
    if (colon !== -1) {
      nameEnd = colon
      valueStart = colon + 1
      if (valueStart < end && s.charCodeAt(valueStart) === SPACE) valueStart++
    }
    switch (nameEnd - start) {
      case 4:
        if (isData(s, start)) {
          const value = s.slice(valueStart, end)
          if (this.hasData) {
            ;(this.moreData ??= [this.data]).push(value)
            this.dataLength += 1 + value.length + lineCost
          } else {
            this.data = value
            this.dataLength = value.length + lineCost
            this.hasData = true
          }
        }
        return
      case 5:
        if (isEvent(s, start)) {
          this.eventType = s.slice(valueStart, end)
        } else if (isError(s, start)) {
          this.errorField = s.slice(valueStart, end)
          this.hasError = true
        }
        return
      case 2:
        if (isId(s, start)) {
          const value = s.slice(valueStart, end)
          if (!value.includes("\0")) this.lastId = value
        }
        return
    }
  }

  private dispatch(out: Array<Event>): void {
    if (this.hasData || this.hasError) {
      const event = this.eventType === "" ? "message" : this.eventType
      const data = this.moreData === undefined ? this.data : this.moreData.join("\n")
      if (this.tooCostlyParsed(data, this.dataLength + this.eventType.length + this.errorField.length)) {
        this.resetEvent()
        this.overflow()
        return
      }
      out.push(
        this.hasError
          ? { event, data, id: this.lastId, error: this.errorField }
          : { event, data, id: this.lastId }
      )
    }
    this.resetEvent()
  }

  private resetEvent(): void {
    this.data = ""
    this.hasData = false
    this.moreData = undefined
    this.dataLength = 0
    this.eventType = ""
    this.errorField = ""
    this.hasError = false
  }
}
