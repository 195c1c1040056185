/**
 * AWS event-stream framing (`application/vnd.amazon.eventstream`, Amazon Bedrock's streaming
 * responses), decoding one network read at a time. Each binary message is
 * `[total length][headers length][prelude CRC][headers][payload][message CRC]`; the maintained codec
 * (`@smithy/eventstream-codec`) checks both CRCs and reads the headers of a complete message, and
 * this framer only buffers the reads until a message is complete. It yields the headers the
 * decoders dispatch on and the payload as text; parsing the payload is the provider decoder's job.
 *
 * @since 0.1.0
 */
import { EventStreamCodec } from "@smithy/eventstream-codec"
import { fromUtf8, toUtf8 } from "@smithy/util-utf8"
import * as LlmError from "../../LlmError.js"
import * as Redact from "../redact.js"
import { containerCost, defaultMaxEventBytes } from "./TextFraming.js"

export {
  /** The default cap on one message, in bytes: 16 MiB. */
  defaultMaxEventBytes
} from "./TextFraming.js"

/** One event-stream message, by the headers that say what it is. */
export interface Frame {
  /** `:message-type`: `event`, `exception` or `error`. */
  readonly messageType: string
  /** `:event-type` of an `event` (`contentBlockDelta`, `messageStop` …). */
  readonly eventType: string | undefined
  /** `:exception-type` of an `exception` (`throttlingException` …). */
  readonly exceptionType: string | undefined
  /** `:error-code` of an `error` message. */
  readonly errorCode: string | undefined
  /** `:error-message` of an `error` message (credentials masked). */
  readonly errorMessage: string | undefined
  /** The payload as UTF-8 text (a JSON document for events and exceptions), credentials masked. */
  readonly payload: string
}

/** Options of a {@link Framer}. */
export interface FramerOptions {
  /**
   * The largest message accepted, in bytes (default 16 MiB); a payload whose JSON would cost more
   * once parsed (each `{` / `[` counts extra) fails the same way.
   */
  readonly maxEventBytes?: number | undefined
  /** Credentials masked by value in the payload text and the header values, before any decoder reads them. */
  readonly secrets?: ReadonlyArray<string> | undefined
  /** The masker of those credentials, when the caller has one already; wins over `secrets`. */
  readonly mask?: Redact.Masker | undefined
}

/** The prelude: total length, headers length, prelude CRC (4 bytes each). */
const preludeBytes = 12
/** A message with no headers and no payload: the prelude and the message CRC. */
const minimumMessageBytes = 16

const empty = new Uint8Array(0)

/** A header's value when it is a string (the only type these headers have). */
const stringHeader = (
  headers: Readonly<Record<string, { readonly type: string; readonly value: unknown }>>,
  name: string
) => {
  const h = headers[name]
  return h !== undefined && h.type === "string" && typeof h.value === "string" ? h.value : undefined
}

const uint32 = (bytes: Uint8Array, at: number): number =>
  ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0

/**
 * An incremental, synchronous event-stream framer: `push` each network read, `end` at the end of
 * the body. Several messages in one read and one message over many reads both work; reads are
 * joined only once a message is complete, so the cost stays linear. It never throws: a bad length,
 * a CRC mismatch or an unreadable header sets {@link Framer.error} (code `protocol`), as does a
 * message over the cap; a body that ends inside a message sets it with code `truncated`. Nothing
 * is framed after an error.
 */
export class Framer {
  private readonly codec: EventStreamCodec = new EventStreamCodec(toUtf8, fromUtf8)
  private readonly utf8 = new TextDecoder("utf-8")
  private readonly maxEventBytes: number
  private readonly mask: Redact.Masker | undefined
  /** Reads holding the start of the next message, not yet complete. */
  private pending: Array<Uint8Array> = []
  private pendingBytes = 0
  /** How many bytes the pending message needs before it can be framed (its prelude, then its length). */
  private needed = preludeBytes
  private failure: LlmError.ErrorInfo | undefined = undefined
  private ended = false

  /** Set once a payload held a JSON `\u` escape (looked for only when masking: see `Transport.Framer`). */
  escaped = false

  constructor(options?: FramerOptions) {
    this.maxEventBytes = options?.maxEventBytes ?? defaultMaxEventBytes
    this.mask = options?.mask ?? (options?.secrets === undefined ? undefined : Redact.make(options.secrets))
  }

  /** Set once the body broke the framing; from then on nothing more is framed. */
  get error(): LlmError.ErrorInfo | undefined {
    return this.failure
  }

  /** Frames one network read, returning the messages it completed, in order. */
  push(bytes: Uint8Array): Array<Frame> {
    const out: Array<Frame> = []
    if (this.failure !== undefined || this.ended || bytes.length === 0) return out
    let data: Uint8Array
    if (this.pendingBytes === 0) {
      data = bytes
    } else if (this.pendingBytes + bytes.length < this.needed) {
      this.pending.push(bytes)
      this.pendingBytes += bytes.length
      return out
    } else {
      data = join(this.pending, this.pendingBytes, bytes)
      this.pending = []
      this.pendingBytes = 0
    }
    let at = 0
    while (data.length - at >= preludeBytes) {
      const total = uint32(data, at)
      const headersLength = uint32(data, at + 4)
      if (total < minimumMessageBytes || headersLength > total - minimumMessageBytes) {
        this.fail(
          "protocol",
          `An event-stream message has impossible lengths (total ${total}, headers ${headersLength})`
        )
        return out
      }
      if (total > this.maxEventBytes) {
        this.fail(
          "protocol",
          `An event-stream message exceeded the ${this.maxEventBytes} bytes limit (${total} bytes)`,
          {
            limit: this.maxEventBytes
          }
        )
        return out
      }
      if (data.length - at < total) {
        this.needed = total
        break
      }
      const frame = this.decode(data.subarray(at, at + total))
      if (frame === undefined) return out
      out.push(frame)
      at += total
      this.needed = preludeBytes
    }
    if (at < data.length) {
      // A copy, so a large read is not kept alive by the few bytes of the next message.
      const rest = data.slice(at)
      this.pending.push(rest)
      this.pendingBytes = rest.length
      if (rest.length < preludeBytes) this.needed = preludeBytes
    }
    return out
  }

  /** The body ended: a message left incomplete is a `truncated` error; nothing else is owed. */
  end(): Array<Frame> {
    if (this.failure !== undefined || this.ended) return []
    this.ended = true
    if (this.pendingBytes > 0) {
      this.fail(
        "truncated",
        `The stream ended inside an event-stream message (${this.pendingBytes} of ${
          this.pendingBytes >= preludeBytes ? this.needed : "at least " + minimumMessageBytes
        } bytes)`
      )
    }
    return []
  }

  /** Checks and reads one complete message; `undefined` (with the error set) when it is corrupt. */
  private decode(message: Uint8Array): Frame | undefined {
    let decoded: ReturnType<EventStreamCodec["decode"]>
    try {
      decoded = this.codec.decode(message)
    } catch (e) {
      this.fail("protocol", `A corrupt event-stream message: ${e instanceof Error ? e.message : String(e)}`)
      return undefined
    }
    const headers = decoded.headers
    let payload = decoded.body.length === 0 ? "" : this.utf8.decode(decoded.body)
    if (payload.length * (1 + containerCost / 2) > this.maxEventBytes && tooCostly(payload, this.maxEventBytes)) {
      this.fail("protocol", `An event-stream message exceeded the ${this.maxEventBytes} bytes limit once parsed`, {
        limit: this.maxEventBytes
      })
      return undefined
    }
    let errorMessage = stringHeader(headers, ":error-message")
    if (this.mask !== undefined) {
      if (!this.escaped) this.escaped = payload.includes("\\u")
      payload = this.mask.text(payload)
      if (errorMessage !== undefined) errorMessage = this.mask.text(errorMessage)
    }
    return {
      messageType: stringHeader(headers, ":message-type") ?? "",
      eventType: stringHeader(headers, ":event-type"),
      exceptionType: stringHeader(headers, ":exception-type"),
      errorCode: stringHeader(headers, ":error-code"),
      errorMessage,
      payload
    }
  }

  private fail(code: "protocol" | "truncated", message: string, details?: { readonly limit: number }): void {
    this.failure = LlmError.info({ code, message, details })
    this.pending = []
    this.pendingBytes = 0
  }
}

/** Whether parsing a payload would cost more than the cap: its text plus {@link containerCost} per `{` / `[`. */
const tooCostly = (text: string, limit: number): boolean => {
  let containers = 0
  for (let i = text.indexOf("{"); i !== -1; i = text.indexOf("{", i + 1)) containers++
  for (let i = text.indexOf("["); i !== -1; i = text.indexOf("[", i + 1)) containers++
  return text.length + containers * containerCost > limit
}

/** The pending reads and the new one, as one array. */
const join = (parts: ReadonlyArray<Uint8Array>, size: number, last: Uint8Array): Uint8Array => {
  if (parts.length === 0) return last
  const out = new Uint8Array(size + last.length)
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  out.set(last, at)
  return out.length === 0 ? empty : out
}
