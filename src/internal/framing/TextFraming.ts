/**
 * What the text framings (SSE, NDJSON) share: UTF-8 decoding across network reads, the incomplete
 * last line kept between reads, the size cap, and the push / end / error lifecycle the transport
 * drives. Subclasses only split text into their own events.
 *
 * @since 0.1.0
 */
import * as LlmError from "../../LlmError.js"
import * as Redact from "../redact.js"
import { Utf8Reads } from "./Utf8.js"

/** The default cap on one pending event, in characters: 16 MiB. */
export const defaultMaxEventBytes = 16 * 1024 * 1024

/** Options of a text framing decoder. */
export interface FramerOptions {
  /**
   * The most one pending event may cost before the stream fails; default 16 MiB. Its text counts a
   * byte a character, and each line it holds counts {@link lineCost} more, so an event made of
   * millions of empty lines is bounded as surely as one long line.
   */
  readonly maxEventBytes?: number | undefined
  /**
   * Credentials to mask by value in the text before it is framed (see `internal/redact.ts`): a
   * server that echoes the key back never gets it into an event.
   */
  readonly secrets?: ReadonlyArray<string> | undefined
  /** The masker of those credentials, when the caller has one already (building one costs ~50 µs); wins over `secrets`. */
  readonly mask?: Redact.Masker | undefined
}

/** What one held line costs beyond its characters (its slot, its string header), counted against the cap. */
export const lineCost = 32

/**
 * What one JSON object or array costs once the decoder parses the event, beyond its characters
 * (measured: 47–60 bytes): `[{},{},…]` turns 16 MiB of text into 400 MB of objects. Counted against
 * the cap for events long enough that it could matter.
 */
export const containerCost = 64

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
  // As a non-fatal, BOM-stripping `TextDecoder` in streaming mode: split characters and a split BOM
  // kept across reads, invalid bytes turned into U+FFFD instead of throwing; faster on ASCII.
  private readonly utf8 = new Utf8Reads()
  /** The incomplete last line of the previous read; never contains a line terminator. */
  protected tail = ""
  private ended = false
  private failure: LlmError.ErrorInfo | undefined = undefined
  private readonly mask: Redact.Masker | undefined
  /** The pending line's last characters (fewer than the longest credential form), for masking. */
  private recent = ""

  /** @param unit what one event is called in the overflow message ("An SSE event"). */
  constructor(options: FramerOptions | undefined, private readonly unit: string) {
    this.maxEventBytes = options?.maxEventBytes ?? defaultMaxEventBytes
    this.mask = (options?.mask ?? (options?.secrets === undefined ? undefined : Redact.make(options.secrets)))?.stream
  }

  /** Set once an event grew past the cap (code `protocol`); from then on nothing more is decoded. */
  get error(): LlmError.ErrorInfo | undefined {
    return this.failure
  }

  /** Set once the text held a JSON `\u` escape (looked for only when masking: see `Transport.Framer`). */
  escaped = false
  /** Whether the last read ended with a backslash, whose escape the next read may complete. */
  private backslash = false

  /** Decodes one network read, returning the events it completed, in order. */
  push(bytes: Uint8Array): Array<Out> {
    const out: Array<Out> = []
    if (this.failure !== undefined || this.ended) return out
    const text = this.utf8.decode(bytes)
    this.feed(this.mask === undefined ? text : this.masked(text, this.mask), out)
    return out
  }

  /**
   * Masks credentials in a read. A credential holds no line break, so one split across reads lies
   * in the pending line and this read: `recent` keeps the pending line's last characters (never
   * the whole line, which would cost a copy of a long line per read), and only a match across the
   * boundary makes the pending line be fed again, masked, from its start. Per read this costs one
   * scan of the read and a few short strings.
   */
  private masked(text: string, mask: Redact.Masker): string {
    if (!this.escaped && text !== "") {
      this.escaped = text.includes("\\u") || (this.backslash && text.charCodeAt(0) === 117)
      this.backslash = text.charCodeAt(text.length - 1) === 92
    }
    const reach = mask.longest - 1
    let out = mask.text(text)
    if (this.recent !== "") {
      const edge = this.recent + out.slice(0, reach)
      if (mask.text(edge) !== edge) {
        out = mask.text(this.tail + out)
        this.tail = ""
      }
    }
    const end = out.length > reach ? out.slice(out.length - reach) : out
    const lineEnd = Math.max(end.lastIndexOf("\n"), end.lastIndexOf("\r"))
    if (lineEnd !== -1) this.recent = end.slice(lineEnd + 1)
    else if (out.length > reach) this.recent = end
    else {
      const pending = this.recent + end
      this.recent = pending.length > reach ? pending.slice(pending.length - reach) : pending
    }
    return out
  }

  /** The body ended: returns what the end completes (an event no terminator closed). */
  end(): Array<Out> {
    const out: Array<Out> = []
    if (this.failure !== undefined || this.ended) return out
    this.ended = true
    // The body was cut inside a character, so its last event is cut too.
    if (this.utf8.end()) {
      this.failure = LlmError.info({
        code: "truncated",
        message: "The body ended inside a UTF-8 character, before the provider's end marker"
      })
      this.tail = ""
      return out
    }
    this.flush(out)
    return out
  }

  /** Splits decoded text into events, keeping an incomplete last line in `tail`. */
  protected abstract feed(text: string, out: Array<Out>): void

  /** Emits what the end of the body completes. */
  protected abstract flush(out: Array<Out>): void

  /**
   * Whether a complete event, `held` of cost so far, would pass the cap once parsed: its `{` and `[`
   * count {@link containerCost} each. Only an event long enough for that to matter is scanned.
   */
  protected tooCostlyParsed(text: string, held: number): boolean {
    if (text.length * (1 + containerCost / 2) <= this.maxEventBytes) return false
    let containers = 0
    for (let i = text.indexOf("{"); i !== -1; i = text.indexOf("{", i + 1)) containers++
    for (let i = text.indexOf("["); i !== -1; i = text.indexOf("[", i + 1)) containers++
    return held + containers * containerCost > this.maxEventBytes
  }

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
