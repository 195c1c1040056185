/**
 * The HTTP transport every provider shares: post the request, map HTTP errors, frame the body a
 * network read at a time, run the provider's pure decoder, retry before the first content chunk,
 * and enforce the header / idle / total timeouts.
 *
 * An attempt sends its request (and, for an error status or a body that is not a stream, reads the
 * error) in a fiber of its own; once a stream's headers are in, the consumer reads the body itself,
 * a network read per pull, framed and decoded synchronously. Each wait is watched by the attempt's
 * watchdog (see `internal/watch.ts`), which ends it with the header or idle timeout: no fiber per
 * read, no race per read, nothing between a network read and its chunks.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import * as Schedule from "effect/Schedule"
import * as Scheduler from "effect/Scheduler"
import type * as Stream from "effect/Stream"
import * as LlmError from "../../LlmError.js"
import type * as ProviderOptions from "../../ProviderOptions.js"
import * as StreamChunk from "../../StreamChunk.js"
import type * as Telemetry from "../../Telemetry.js"
import type * as ChunkDecoder from "../ChunkDecoder.js"
import * as QuickError from "../llmError.js"
import * as Redact from "../redact.js"
import * as Lite from "../scope.js"
import * as Source from "../source.js"
import * as Raw from "../telemetry/raw.js"
import * as Watch from "../watch.js"
import * as Http from "./Http.js"
import * as HttpStatus from "./HttpStatus.js"
import * as Retry from "./Retry.js"

/** Turns network reads into framed events (SSE events, NDJSON lines, event-stream frames). */
export interface Framer<Ev> {
  /** Frames one network read. */
  readonly push: (bytes: Uint8Array) => Array<Ev>
  /** Flushes what the end of the body completes. */
  readonly end: () => Array<Ev>
  /** Set when the body broke the framing (e.g. an event over the size cap); nothing is framed after. */
  readonly error: LlmError.ErrorInfo | undefined
  /**
   * Set once the body held a JSON `\u` escape, which decoding can turn into a credential that the
   * masking of the text could not see: from then on the chunks themselves are masked.
   */
  readonly escaped?: boolean | undefined
}

/** The `timeouts` option every provider takes (its public home is `ProviderOptions`). */
export type TimeoutOptions = ProviderOptions.TimeoutOptions

/** Default time allowed until response headers. */
export const defaultHeadersTimeout: Duration.Duration = Duration.seconds(60)
/** Default longest silence between body reads. */
export const defaultIdleTimeout: Duration.Duration = Duration.seconds(300)
/**
 * Default longest time for a whole response: 30 minutes. Keep-alives rightly hold the idle limit
 * off, so without a total a server that sends nothing else would hold a stream open forever.
 * `Duration.infinity` turns it off.
 */
export const defaultTotalTimeout: Duration.Duration = Duration.minutes(30)

/**
 * The most of a body kept when it is not a stream (an error status, a JSON document, an HTML page):
 * 1 MiB. The rest is not read; the connection is closed and the error says the body was cut.
 */
export const maxDocumentBytes = 1024 * 1024

/** How a provider's stream is recognized, whatever content type the server put on it. */
export interface StreamType {
  /** The content type it comes with (lower case, no parameters): `text/event-stream`. */
  readonly contentType: string
  /**
   * The characters a body of this type can begin with (after whitespace and a BOM): `"deir:"` for
   * SSE (`data:`, `event:`, `id:`, `retry:`, a comment), `"{"` for NDJSON.
   */
  readonly starts: string
  /**
   * A binary stream (AWS event-stream: its first byte is a length, often 0x00): the first raw byte
   * decides, nothing skipped. `{` or `[` is a JSON document (an error), `<` an HTML page, anything
   * else the stream; `starts` is not read.
   */
  readonly binary?: boolean | undefined
}

/** Server-sent events. */
export const sse: StreamType = { contentType: "text/event-stream", starts: "deir:" }

/** Newline-delimited JSON. */
export const ndjson: StreamType = { contentType: "application/x-ndjson", starts: "{" }

/** AWS event-stream binary frames (Amazon Bedrock). */
export const eventStream: StreamType = { contentType: "application/vnd.amazon.eventstream", starts: "", binary: true }

/** What the transport needs from a provider for one request. */
export interface Request<Ev> {
  readonly provider: string
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: unknown
  /**
   * The credentials sent with the request, masked by value in everything the server sends back.
   * The values of the key headers (`authorization`, `api-key`, `x-api-key`, `x-goog-api-key`) are
   * added on their own.
   */
  readonly secrets?: ReadonlyArray<string> | undefined
  /**
   * A fresh framer per attempt, masking the credentials in the text it frames with `mask` (built
   * once per provider from `secrets` and the key headers).
   */
  readonly framer: (mask: Redact.Masker | undefined) => Framer<Ev>
  /** A fresh decoder per attempt. */
  readonly decoder: () => ChunkDecoder.ChunkDecoder<Ev>
  /**
   * Maps an error response to error data; the transport adds retry facts. `status` is undefined when
   * the error came as the JSON body of a successful response (see {@link Request.streamType}).
   */
  readonly errorFromResponse: (
    status: number | undefined,
    body: string,
    extras: {
      readonly requestId?: string | undefined
      readonly retryAfterMs?: number | undefined
      /**
       * The response headers (lower-case names, credentials masked), for hosts that name the error
       * in a header (Bedrock's `x-amzn-errortype`); undefined for an error inside a stream.
       */
      readonly headers?: Readonly<Record<string, string>> | undefined
    }
  ) => LlmError.ErrorInfo
  readonly retry?: Retry.Options | undefined
  readonly timeouts?: TimeoutOptions | undefined
  /**
   * How the stream is recognized. A 2xx body that is not one — a JSON document (a proxy's error, a
   * host that ignored `stream: true`), an HTML page, text — is read as a document (at most
   * {@link maxDocumentBytes}): a JSON error becomes that error, anything else a `protocol` error,
   * never an empty answer. Without it every 2xx body is framed as a stream.
   */
  readonly streamType?: StreamType | undefined
  /** Signs every request sent (AWS SigV4): each attempt and each followed redirect is signed anew. */
  readonly sign?: Http.Signer | undefined
  /**
   * The `debug` option: what each framed event reads as. When set, every event is passed through as
   * a raw event (to the stream's `RawObserver`, else the Debug log) just before its read's chunks.
   */
  readonly raw?: ((event: Ev) => Raw.Raw) | undefined
}

const requestIdHeaders = ["x-request-id", "request-id", "x-amzn-requestid", "x-goog-request-id", "x-generation-id"]

/** The longest request id kept: a header is the server's to fill. */
const maxRequestIdChars = 256

/** The provider's request id, from whichever header it uses. */
export const requestIdOf = (headers: Readonly<Record<string, string>>): string | undefined => {
  for (const name of requestIdHeaders) {
    const v = headers[name]
    if (v !== undefined && v !== "") return v.length > maxRequestIdChars ? v.slice(0, maxRequestIdChars) + "…" : v
  }
  return undefined
}

/** A timeout error whose message ends with the limit: "Idle timeout: no data from the server for 10s". */
const timeoutError = (provider: string, what: string, d: Duration.DurationInput): LlmError.LlmError =>
  QuickError.make({ code: "timeout", message: `${what} ${Duration.format(Duration.decode(d))}`, provider })

/**
 * The total limit of one response, across its attempts: when it passes (epoch ms on the Effect
 * clock; `Infinity` for none) and the error it ends with. No attempt starts after it has passed.
 */
interface Total {
  readonly at: number
  readonly error: () => LlmError.LlmError
}

/** The watchdog of one attempt (the header, idle and total limits). */
type Watchdog = Watch.Watch<LlmError.LlmError>

/** Masks the credentials in an error's every field (see `internal/redact.ts`). */
const maskInfo = (mask: Redact.Masker, info: LlmError.ErrorInfo): LlmError.ErrorInfo =>
  mask.deep(info) as LlmError.ErrorInfo

/**
 * A chunk with the credentials masked in its every string: for a body whose JSON escapes could hide
 * a key from the masking of its text. A reasoning trace is searched only near its end until a key
 * turns up in it (its `accumulated` text is rebuilt from the unmasked trace by the decoder).
 */
const maskChunk = (
  c: StreamChunk.StreamChunk,
  mask: Redact.Masker,
  taint: { reasoning: boolean }
): StreamChunk.StreamChunk => {
  switch (c.type) {
    case "text-delta": {
      const delta = mask.cut(c.delta)
      return delta === c.delta ? c : StreamChunk.textDelta(delta)
    }
    case "reasoning-delta": {
      const delta = mask.cut(c.delta)
      if (!taint.reasoning) {
        const near = c.accumulated.slice(Math.max(0, c.accumulated.length - c.delta.length - mask.longest))
        taint.reasoning = mask.cut(near) !== near
      }
      const accumulated = taint.reasoning ? mask.cut(c.accumulated) : c.accumulated
      return delta === c.delta && accumulated === c.accumulated ? c : StreamChunk.reasoningDelta(delta, accumulated)
    }
    case "tool-call-delta": {
      const argumentsDelta = mask.cut(c.argumentsDelta)
      return argumentsDelta === c.argumentsDelta ? c : { ...c, argumentsDelta }
    }
    case "error":
      return StreamChunk.error(maskInfo(mask, c.error))
    default:
      return mask.deep(c) as StreamChunk.StreamChunk
  }
}

/** The raw events of the chunk batches a `debug` attempt hands over, by batch. */
const rawEventsOf = new WeakMap<Chunk.Chunk<StreamChunk.StreamChunk>, ReadonlyArray<Telemetry.RawEvent>>()

/**
 * Frames and decodes a body one network read at a time (no Effect per event); a class for the
 * reason decoders are ({@link ChunkDecoder.ChunkDecoder}).
 */
class BodyDecoder<Ev> {
  private readonly framer: Framer<Ev>
  private readonly decoder: ChunkDecoder.ChunkDecoder<Ev>
  private readonly taint = { reasoning: false }
  private raws: Array<Telemetry.RawEvent> = []
  /** Set once the framing broke: the error chunk has been emitted and nothing more will be. */
  private isBroken = false
  // The first content chunk is handed over as soon as it is decoded, not after the rest of its
  // network read (often a hundred events): the events after it wait here for the next call, and so
  // do the bytes of its read not yet framed (see `pushRead`).
  private shown = false
  private rest: Array<Ev> | undefined = undefined
  private unframed: Uint8Array | undefined = undefined

  constructor(
    private readonly req: Request<Ev>,
    private readonly mask: Redact.Masker | undefined,
    private readonly attempt: number
  ) {
    this.framer = req.framer(mask)
    this.decoder = req.decoder()
  }

  /** Set once the framing broke: the error chunk has been emitted and nothing more will be. */
  broken(): boolean {
    return this.isBroken
  }

  /** Whether events of the last read wait to be decoded (call `read([])` before reading on). */
  pending(): boolean {
    return this.rest !== undefined || this.unframed !== undefined
  }

  /** The raw events framed since the last call (`debug` only), as the batch to hand over. */
  batch(out: Array<StreamChunk.StreamChunk>): Chunk.Chunk<StreamChunk.StreamChunk> | undefined {
    if (this.raws.length === 0) return out.length > 0 ? Chunk.unsafeFromArray(out) : undefined
    const batch = Chunk.unsafeFromArray(out)
    rawEventsOf.set(batch, this.raws)
    this.raws = []
    return batch
  }

  /** Frames and decodes reads, after what the last read held back. */
  read(reads: Iterable<Uint8Array>): Array<StreamChunk.StreamChunk> {
    const out: Array<StreamChunk.StreamChunk> = []
    this.flush(out)
    for (const bytes of reads) {
      if (this.isBroken) break
      this.pushRead(bytes, out)
    }
    return out
  }

  /** The body ended: what is still held, then what the framer and the decoder still owe. */
  end(): Array<StreamChunk.StreamChunk> {
    const out: Array<StreamChunk.StreamChunk> = []
    this.flush(out)
    if (this.isBroken) return out
    this.frame(this.framer.end(), out)
    this.flush(out)
    if (!this.isBroken) this.decoder.end(out)
    return out
  }

  private frame(events: Array<Ev>, out: Array<StreamChunk.StreamChunk>): void {
    const from = out.length
    const decoder = this.decoder
    const raw = this.req.raw
    let i = 0
    while (i < events.length) {
      const event = events[i++]!
      const before = out.length
      decoder.push(event, out)
      if (raw !== undefined) {
        const { data, name } = raw(event)
        this.raws.push({
          type: "raw",
          provider: this.req.provider,
          attempt: this.attempt,
          name,
          data,
          chunks: out.slice(before)
        })
      }
      if (!this.shown && hasContent(out, before)) {
        this.shown = true
        break
      }
    }
    const framer = this.framer
    if (i < events.length) this.rest = events.slice(i)
    else if (framer.error !== undefined && !this.isBroken) {
      this.isBroken = true
      out.push(StreamChunk.error({ ...framer.error, provider: this.req.provider }))
    }
    // The text was masked before framing; an error may still quote what only JSON decoding revealed,
    // and so may every chunk of a body that holds escapes.
    const mask = this.mask
    if (mask !== undefined) {
      const escaped = framer.escaped === true
      for (let i = from; i < out.length; i++) {
        const c = out[i]!
        if (escaped || c.type === "error") out[i] = maskChunk(c, mask, this.taint)
      }
    }
  }

  /** Frames a read whole once the first content chunk was shown, its events after any held back. */
  private pushWhole(bytes: Uint8Array, out: Array<StreamChunk.StreamChunk>): void {
    const events = this.framer.push(bytes)
    if (this.rest !== undefined) this.rest = this.rest.concat(events)
    else this.frame(events, out)
  }

  /** Frames what the read of the first content chunk held back, if anything. */
  private pushUnframed(out: Array<StreamChunk.StreamChunk>): void {
    const bytes = this.unframed
    this.unframed = undefined
    if (bytes !== undefined && !this.isBroken) this.pushWhole(bytes, out)
  }

  /**
   * Frames and decodes a read. Until the first content chunk was shown, a read is framed a piece at
   * a time ({@link firstPiece} bytes, then twice as many each time) and each piece decoded before
   * the next is framed: the first content event usually lies in a read's first few hundred bytes,
   * and framing the whole read (16 KiB: a hundred events and more) before decoding any of it held
   * the first chunk back. What is left of the read once content showed waits in `unframed`. Every
   * framer takes a read split anywhere (characters, lines, events and credentials across pieces).
   */
  private pushRead(bytes: Uint8Array, out: Array<StreamChunk.StreamChunk>): void {
    this.pushUnframed(out)
    if (this.shown) return this.pushWhole(bytes, out)
    let at = 0
    for (let size = firstPiece; at < bytes.length && !this.shown && !this.isBroken; size *= 2) {
      const end = Math.min(bytes.length, at + size)
      const piece = at === 0 && end === bytes.length ? bytes : bytes.subarray(at, end)
      at = end
      this.frame(this.framer.push(piece), out)
    }
    if (at < bytes.length && !this.isBroken) this.unframed = bytes.subarray(at)
  }

  /** Decodes the events held back after the first content chunk, then frames what its read held back. */
  private flush(out: Array<StreamChunk.StreamChunk>): void {
    const held = this.rest
    this.rest = undefined
    if (held !== undefined) this.frame(held, out)
    this.pushUnframed(out)
  }
}

/** The first piece of a read framed before the first content chunk was shown, in bytes (see `pushRead`). */
const firstPiece = 1024

/** Whether `out` holds a content chunk from index `from` on. */
const hasContent = (out: ReadonlyArray<StreamChunk.StreamChunk>, from: number): boolean => {
  for (let i = from; i < out.length; i++) if (StreamChunk.isContent(out[i]!)) return true
  return false
}

/** Takes the body's next read: `undefined` once it ended. */
type Pull = Http.Body["read"]

/** A body read whole but bounded: its text (at most {@link maxDocumentBytes}, masked) and whether it was cut. */
interface Document {
  readonly text: string
  readonly cut: boolean
}

/**
 * Reads a body that is not a stream, keeping at most {@link maxDocumentBytes}: past that nothing more
 * is read (closing the attempt closes the connection). A connection that fails midway keeps what
 * arrived. Every read restarts the idle limit.
 */
const readDocument = (
  pull: Pull,
  watch: Watchdog,
  held: Array<Uint8Array>,
  ended: boolean,
  mask: Redact.Masker | undefined
): Effect.Effect<Document> =>
  Effect.gen(function*() {
    let size = 0
    for (const b of held) size += b.length
    while (!ended && size <= maxDocumentBytes) {
      const next = yield* Effect.either(pull)
      watch.touch()
      if (Either.isLeft(next) || next.right === undefined) break
      held.push(next.right)
      size += next.right.length
    }
    const bytes = new Uint8Array(Math.min(size, maxDocumentBytes))
    let at = 0
    for (const b of held) {
      if (at >= bytes.length) break
      const part = b.subarray(0, bytes.length - at)
      bytes.set(part, at)
      at += part.length
    }
    // Streaming mode leaves out a character cut in half at the limit.
    const text = new TextDecoder().decode(bytes, { stream: size > maxDocumentBytes })
    return { text: mask === undefined ? text : mask.text(text), cut: size > maxDocumentBytes }
  })

/** What an error says about a body it quotes that was cut. */
const cutNote = (
  document: Document
): string => (document.cut ? ` (the response body was cut at ${maxDocumentBytes} bytes)` : "")

/** Maps a non-2xx response to its error, with the retry facts the transport adds. */
const statusError = <Ev>(
  req: Request<Ev>,
  status: number,
  headers: Readonly<Record<string, string>>,
  document: Document
): Effect.Effect<never, LlmError.LlmError> =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => {
    const retryAfterMs = Retry.retryAfterMs(headers, now)
    // A proxy's HTML error page says nothing a message should quote: the status speaks, the page is kept as details.
    const html = isHtml(document.text)
    const info = req.errorFromResponse(status, html ? "" : document.text, {
      requestId: requestIdOf(headers),
      retryAfterMs,
      headers
    })
    const retryable = Retry.shouldRetryHeader(headers) ??
      (info.code !== "quota" && HttpStatus.isRetryableStatus(status))
    return Effect.fail(LlmError.fromInfo({
      ...info,
      message: info.message + (html ? " (an HTML page)" : "") + cutNote(document),
      status,
      retryable,
      ...(html ? { details: LlmError.capDetails(document.text) } : {})
    }))
  })

/** Whether a body is an HTML page (its first character, after whitespace and a BOM, is `<`). */
const isHtml = (text: string): boolean => /^[\s\uFEFF]*</.test(text)

/**
 * The error a parsed body reads as, if any: `{"error": …}`, `{"type": "error"}`, an RFC 9457 problem
 * or `{"code": 503, "message": …}` (a 4xx/5xx `status` or `code`), alone or as the first element of
 * an array (Gemini wraps its errors so).
 */
const errorDocument = (parsed: unknown): unknown => {
  const candidate = Array.isArray(parsed) && parsed.length > 0 ? parsed[0] : parsed
  if (typeof candidate !== "object" || candidate === null || Array.isArray(candidate)) return undefined
  const o = candidate as {
    readonly error?: unknown
    readonly type?: unknown
    readonly status?: unknown
    readonly code?: unknown
  }
  const httpLike = (u: unknown): boolean => typeof u === "number" && u >= 400 && u <= 599
  const isError = (o.error !== undefined && o.error !== null && o.error !== false) || o.type === "error" ||
    httpLike(o.status) || httpLike(o.code)
  return isError ? candidate : undefined
}

/** What a 2xx body that is not a stream is: a JSON error becomes that error, anything else a protocol error. */
const documentError = <Ev>(
  req: Request<Ev>,
  status: number,
  headers: Readonly<Record<string, string>>,
  kind: "document" | "html",
  document: Document
): Effect.Effect<never, LlmError.LlmError> => {
  let parsed: unknown = undefined
  if (kind === "document") {
    try {
      parsed = JSON.parse(document.text)
    } catch {
      // not JSON: a protocol error below, quoting the text
    }
  }
  const requestId = requestIdOf(headers)
  const expected = req.streamType?.contentType ?? "a stream"
  const label = headers["content-type"]
  const got = kind === "html"
    ? "an HTML page"
    : label !== undefined && mediaType(label) === req.streamType?.contentType
    ? "a body that does not begin as one"
    : `a ${label ?? "untyped"} document`
  const error = errorDocument(parsed)
  const info = error !== undefined
    ? req.errorFromResponse(undefined, error === parsed ? document.text : JSON.stringify(error), {
      requestId,
      retryAfterMs: undefined,
      headers
    })
    : LlmError.info({
      code: "protocol",
      message: `Expected a stream (${expected}), got ${got}`,
      provider: req.provider,
      requestId,
      retryable: false,
      details: document.text
    })
  return Effect.fail(LlmError.fromInfo({ ...info, message: info.message + cutNote(document), status }))
}

/** A 2xx body by its label alone: an HTML page, or one to tell by its first characters. */
const labelled = (type: StreamType | undefined, contentType: string | undefined): "stream" | "html" | "sniff" => {
  if (type === undefined) return "stream"
  const label = mediaType(contentType ?? "")
  return label === "text/html" || label === "application/xhtml+xml" ? "html" : "sniff"
}

/** A content type's media type: lower case, without parameters. */
const mediaType = (contentType: string): string => (contentType.split(";")[0] ?? "").trim().toLowerCase()

/** The first byte that is not a space, a control character or a BOM, if any. */
const firstSignificant = (reads: ReadonlyArray<Uint8Array>): number | undefined => {
  let bom = 0
  for (const bytes of reads) {
    for (const b of bytes) {
      if (bom < 3 && b === [0xef, 0xbb, 0xbf][bom]) {
        bom++
        continue
      }
      bom = 3
      if (b > 0x20 && b !== 0x7f) return b
    }
  }
  return undefined
}

/** Leading blank bytes read while looking for a body's first character, at most. */
const maxSniffBytes = 64 * 1024

/**
 * What a 2xx body is, by its first character, whatever its label: a body that begins as the stream
 * does is one; an HTML page (`<`) never passes for a stream, whatever SSE-looking text it quotes;
 * anything else — a JSON document, text, or no character within {@link maxSniffBytes} — is read
 * as a document. A body that ended blank is framed (and ends `truncated`). A binary stream is told
 * by its first raw byte instead (see {@link StreamType.binary}).
 */
const sniffed = (type: StreamType, first: number | undefined, ended: boolean): "stream" | "document" | "html" => {
  if (first === undefined) return ended ? "stream" : "document"
  const c = String.fromCharCode(first)
  if (c === "<") return "html"
  if (type.binary === true) return c === "{" || c === "[" ? "document" : "stream"
  return type.starts.includes(c) ? "stream" : "document"
}

/** The first byte of a binary body, whatever it is. */
const firstRaw = (reads: ReadonlyArray<Uint8Array>): number | undefined => {
  for (const bytes of reads) if (bytes.length > 0) return bytes[0]
  return undefined
}

/** Response headers with the credentials masked: a server may echo the key in any of them. */
const maskHeaders = (headers: Readonly<Record<string, string>>, mask: Redact.Masker | undefined) => {
  if (mask === undefined) return headers
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(headers)) out[k] = mask.text(v)
  return out
}

/** What the header phase of an attempt leaves to its consumer: a stream's body, and what sniffing it read. */
interface Opened {
  readonly body: Http.Body
  readonly held: ReadonlyArray<Uint8Array>
  /** The body ended while it was sniffed. */
  readonly ended: boolean
}

/**
 * The header phase of one attempt, run in a fiber of its own so the watchdog can end the wait for
 * it: the request, its HTTP error mapping (an error body read here), and the first reads of a body
 * until it shows it is a stream.
 */
const open = <Ev>(
  client: Http.Client,
  req: Request<Ev>,
  mask: Redact.Masker | undefined,
  watch: Watchdog,
  scope: Lite.Lite
): Effect.Effect<Opened, LlmError.LlmError> =>
  Effect.gen(function*() {
    const response = yield* Http.postJson(client, {
      url: req.url,
      headers: req.headers,
      body: req.body,
      provider: req.provider,
      mask,
      sign: req.sign,
      scope
    })
    watch.startIdle()
    const body = yield* response.open(scope)
    const pull: Pull = body.read
    // The headers with the credentials masked, for an error to quote; a stream reads only its media type.
    if (response.status < 200 || response.status >= 300) {
      const headers = maskHeaders(response.headers, mask)
      return yield* statusError(req, response.status, headers, yield* readDocument(pull, watch, [], false, mask))
    }
    // Until the first character shows what the body is, its reads are held.
    const held: Array<Uint8Array> = []
    let ended = false
    let kind: "stream" | "document" | "html" | "sniff" = labelled(req.streamType, response.headers["content-type"])
    if (kind === "sniff" && req.streamType !== undefined) {
      let first: number | undefined = undefined
      let size = 0
      while (first === undefined && !ended && size < maxSniffBytes) {
        const next = yield* pull
        watch.touch()
        if (next === undefined) ended = true
        else {
          held.push(next)
          size += next.length
          first = req.streamType.binary === true ? firstRaw(held) : firstSignificant(held)
        }
      }
      kind = sniffed(req.streamType, first, ended)
    }
    if (kind === "document" || kind === "html") {
      return yield* documentError(
        req,
        response.status,
        maskHeaders(response.headers, mask),
        kind,
        yield* readDocument(pull, watch, held, ended, mask)
      )
    }
    return { body, held, ended }
  })

/** Takes an attempt's next chunks: `undefined` once it ended. */
type Take = Source.Take<StreamChunk.StreamChunk, LlmError.LlmError>

/**
 * Reads an opened stream in the consumer's fiber: each take frames and decodes what is held, else
 * waits (watched) for the next network read; a read that decodes to nothing (a keep-alive) is
 * followed by the next one. Once a batch ends in the terminal chunk, the rest of the body only keeps
 * the connection for reuse.
 */
const reader = <Ev>(decode: BodyDecoder<Ev>, watch: Watchdog, opened: Opened): Take => {
  const { body } = opened
  let phase: "held" | "read" | "end" | "done" = "held"
  /** The batch of `chunks`, if they make one. */
  const batch = (chunks: Array<StreamChunk.StreamChunk>): Chunk.Chunk<StreamChunk.StreamChunk> | undefined => {
    const out = decode.batch(chunks)
    if (chunks.length > 0 && StreamChunk.isTerminal(chunks[chunks.length - 1]!)) body.complete()
    return out
  }
  const afterRead = (bytes: Uint8Array | undefined): Take => {
    if (bytes === undefined) {
      phase = "end"
      return take
    }
    const out = batch(decode.read([bytes]))
    return out === undefined ? take : Effect.succeed(out)
  }
  const waitRead = watch.wait(body.request)
  const take: Take = Effect.suspend(() => {
    while (true) {
      let chunks: Array<StreamChunk.StreamChunk>
      if (phase === "done" || decode.broken()) {
        phase = "done"
        watch.end()
        return Effect.succeed(undefined)
      } else if (decode.pending()) {
        // What the last read held after its first content chunk, before waiting for the next read.
        chunks = decode.read([])
      } else if (phase === "held") {
        chunks = decode.read(opened.held)
        phase = opened.ended ? "end" : "read"
      } else if (phase === "end") {
        chunks = decode.end()
        phase = "done"
      } else {
        return Effect.flatMap(waitRead, afterRead)
      }
      const out = batch(chunks)
      if (out !== undefined) return Effect.succeed(out)
    }
  })
  return Source.markContextFree(take)
}

/** The chunks an attempt held back, then (once it has produced content) the rest of its chunks. */
interface Started {
  readonly held: ReadonlyArray<StreamChunk.StreamChunk>
  /** Takes the attempt's next chunks; undefined when it already ended. */
  readonly rest: Take | undefined
}

/**
 * The header fiber's scheduler: a fiber resumed from outside any running fiber (a promise's
 * callback: the response's headers, a body read) runs at once, where the default scheduler would
 * run it a microtask later; resumed from inside a running fiber (its own `Effect.async` resuming
 * at once, a yield, another fiber's interruption) it waits for the default scheduler, so no fiber
 * ever runs inside a step of its own. Fibers the header fiber starts inherit it.
 */
const resumeAtOnce: Scheduler.Scheduler = Scheduler.make(
  (task, priority) => {
    if (Option.isNone(Fiber.getCurrentFiber())) task()
    else Scheduler.defaultScheduler.scheduleTask(task, priority)
  },
  (fiber) => Scheduler.defaultScheduler.shouldYield(fiber)
)

/**
 * Runs the header phase in a fiber of its own, interrupted if `scope` closes while it runs, and
 * gives the watch's way to wait for it. Like `Effect.forkDaemon` (the parent's fiber refs, context
 * and flags), but made in the request's context and with its fiber refs ({@link Http.requestContext},
 * {@link Http.requestFiberRefs}), started at once in this step, and resumed at once when its
 * response arrives ({@link resumeAtOnce}). The fiber is let go once it is done (a stream holds
 * nothing of it while it is read).
 */
const headerPhase = (
  phase: Effect.Effect<Opened, LlmError.LlmError>,
  scope: Lite.Lite
): Effect.Effect<(done: (exit: Exit.Exit<Opened, LlmError.LlmError>) => void) => void> =>
  Effect.withFiberRuntime((parent, status) => {
    const runtime = Runtime.make({
      context: Http.requestContext(parent.currentContext),
      fiberRefs: parent.getFiberRefs(),
      runtimeFlags: status.runtimeFlags
    })
    const fiber = Runtime.runFork(runtime)(phase, { scheduler: resumeAtOnce, updateRefs: Http.requestFiberRefs })
    // The only long-lived reference to the fiber (no closure captures `fiber`), dropped with its end.
    let running: Fiber.RuntimeFiber<Opened, LlmError.LlmError> | undefined = undefined
    let ended: Exit.Exit<Opened, LlmError.LlmError> | null = fiber.unsafePoll()
    if (ended === null) {
      running = fiber
      fiber.addObserver((exit) => {
        running = undefined
        ended = exit
      })
    }
    return Lite.addThen(
      scope,
      () => (running === undefined ? undefined : Effect.asVoid(Fiber.interrupt(running))),
      Effect.succeed((done) => (running === undefined ? done(ended!) : running.addObserver(done)))
    )
  })

/** Runs `f` once the event loop has turned: after the I/O a turn began (a request's writes) is done. */
const later: (f: () => void) => void = typeof setImmediate === "function"
  ? (f) => void setImmediate(f)
  : (f) => void setTimeout(f, 0)

/**
 * A value made as soon as the event loop is idle (see {@link later}), or when asked for, whichever
 * comes first. An attempt's framer and decoder are made so while its request is in flight: after
 * its headers, making them held a cold request's first chunk back by 60–90 µs. A `make` that
 * throws there is left to throw again when the value is asked for, inside the consumer's fiber.
 */
const soon = <A>(make: () => A): () => A => {
  let made: { readonly value: A } | undefined = undefined
  const get = (): A => (made ??= { value: make() }).value
  later(() => {
    try {
      get()
    } catch {
      // Thrown again, as a defect of the fiber that asks for it.
    }
  })
  return get
}

/**
 * Starts an attempt (its header phase, and the watchdog enforcing the header and idle timeouts) and
 * takes its chunks until the first content chunk, holding back metadata/usage/cache chunks so a
 * retried attempt never shows the consumer two beginnings. A retryable failure or in-band error
 * before that point fails (and closes this attempt's connection) so the caller can retry.
 */
const start = <Ev>(
  outer: Lite.Lite,
  client: Http.Client,
  req: Request<Ev>,
  mask: Redact.Masker | undefined,
  total: Total,
  attempt: () => number,
  observer: Raw.Observer | undefined,
  clock: Clock.Clock
): Effect.Effect<Started, LlmError.LlmError> =>
  Effect.gen(function*() {
    if (total.at !== Infinity && clock.unsafeCurrentTimeMillis() >= total.at) return yield* Effect.fail(total.error())
    const scope = outer.child()
    const headers = Duration.decode(req.timeouts?.headers ?? defaultHeadersTimeout)
    const idle = Duration.decode(req.timeouts?.idle ?? defaultIdleTimeout)
    const watch: Watchdog = new Watch.Watch(clock, {
      first: headers,
      onFirst: () => timeoutError(req.provider, "Headers timeout: no response headers within", headers),
      idle,
      onIdle: () => timeoutError(req.provider, "Idle timeout: no data from the server for", idle),
      totalAt: total.at,
      onTotal: total.error
    })
    const watching = watch.watchIn(scope)
    if (watching !== undefined) yield* watching
    const n = attempt()
    // Closes this attempt's connection before a retry opens the next one, whole: an interruption
    // of the consumer meanwhile must not leave the rest of its finalizers unrun.
    const giveUp = (error: LlmError.LlmError) =>
      Effect.zipRight(Effect.uninterruptible(scope.close(Exit.void)), Effect.fail(error))
    const phase = yield* headerPhase(open(client, req, mask, watch, scope), scope)
    const decode = soon(() => new BodyDecoder(req, mask, n))
    const opened = yield* Effect.either(watch.wait<Opened>(phase))
    if (Either.isLeft(opened)) return yield* giveUp(opened.left)
    const own = reader(decode(), watch, opened.right)
    const take = req.raw === undefined ? own : passRaw(own, observer)
    const held: Array<StreamChunk.StreamChunk> = []
    while (true) {
      const next = yield* Effect.either(take)
      if (Either.isLeft(next)) return yield* giveUp(next.left)
      if (next.right === undefined) return { held, rest: undefined }
      const chunks = Chunk.toReadonlyArray(next.right)
      for (let i = 0; i < chunks.length; i++) {
        const c = chunks[i]!
        if (StreamChunk.isContent(c)) return { held: held.concat(chunks.slice(i)), rest: take }
        if (c.type === "error" && c.error.retryable) return yield* giveUp(LlmError.fromInfo(c.error))
        held.push(c)
        if (StreamChunk.isTerminal(c)) return { held, rest: undefined }
      }
    }
  })

/**
 * Takes a `debug` attempt's batches, passing each one's raw events on as it is taken (so they come
 * just before its chunks): to the observer, else to the Debug log.
 */
const passRaw = (take: Take, observer: Raw.Observer | undefined): Take => {
  const passed: Take = Effect.flatMap(take, (batch) => {
    const raws = batch === undefined ? undefined : rawEventsOf.get(batch)
    if (raws === undefined) return Effect.succeed(batch)
    if (observer !== undefined) {
      observer(raws)
      return Effect.succeed(batch)
    }
    return Effect.as(
      Effect.forEach(raws, (r) =>
        Effect.logDebug(r.data).pipe(
          Effect.annotateLogs({ provider: r.provider, attempt: r.attempt, event: r.name ?? "" })
        ), { discard: true }),
      batch
    )
  })
  // Logged in the context of the consumer (the span a log is exported with).
  return observer === undefined ? passed : Source.derive(take, passed)
}

/** The started attempt's take: what it held back, then its own takes until it ends. */
const takeOf = ({ held, rest }: Started): Source.Take<StreamChunk.StreamChunk, LlmError.LlmError> =>
  Source.prepend(Chunk.unsafeFromArray(held as Array<StreamChunk.StreamChunk>), rest)

/**
 * The masker of the last request made with a provider's `secrets` list (a provider builds that list
 * once): building one (its patterns and windows) cost about 50 µs, paid again on every request
 * though the credentials rarely change. Kept per list, so it goes when the provider does.
 */
const maskers = new WeakMap<ReadonlyArray<string>, { readonly key: string; readonly mask: Redact.Masker | undefined }>()

const maskerOf = (
  list: ReadonlyArray<string> | undefined,
  secrets: ReadonlyArray<string>
): Redact.Masker | undefined => {
  if (list === undefined) return Redact.make(secrets)
  const key = secrets.join("\u0000")
  const known = maskers.get(list)
  if (known !== undefined && known.key === key) return known.mask
  const mask = Redact.make(secrets)
  maskers.set(list, { key, mask })
  return mask
}

/**
 * The masker of frozen headers (a provider's fixed ones, sent with every request that adds none)
 * and the `secrets` list it was made with: such headers cannot change, so their credentials are
 * read once, not on every request.
 */
const headerMaskers = new WeakMap<
  Readonly<Record<string, string>>,
  { readonly list: ReadonlyArray<string> | undefined; readonly mask: Redact.Masker | undefined }
>()

/** The masker of a request's credentials: its `secrets` and those its headers carry. */
const maskOfRequest = (req: Pick<Request<unknown>, "headers" | "secrets">): Redact.Masker | undefined => {
  const known = headerMaskers.get(req.headers)
  if (known !== undefined && known.list === req.secrets) return known.mask
  const mask = maskerOf(req.secrets, [...(req.secrets ?? []), ...Http.secretsOf(req.headers)])
  if (Object.isFrozen(req.headers)) headerMaskers.set(req.headers, { list: req.secrets, mask })
  return mask
}

/**
 * Streams one response with the given client: retried (per {@link Retry.policy}) only while no
 * content chunk has been emitted, with the header, idle and total timeouts applied. Failures arrive
 * as the stream's error; `StreamChunk.ensureTerminal` (applied by `LanguageModel.make`) turns them
 * into the terminal chunk. The client is passed in rather than provided with `Stream.provideService`,
 * which would wrap the taking of every network read in a change of context.
 */
export const streamWith = <Ev>(
  client: Http.Client,
  req: Request<Ev>
): Stream.Stream<StreamChunk.StreamChunk, LlmError.LlmError> => Source.toStream(sourceWith(client, req))

/**
 * The fiber's clock and raw-event observer, read in one step (`Effect.zip` of the two took a dozen:
 * its batching check and its loop).
 */
const clockAndObserver: Effect.Effect<{ readonly clock: Clock.Clock; readonly observer: Raw.Observer | undefined }> =
  Effect.withFiberRuntime((fiber) =>
    Effect.succeed({
      clock: Context.get(fiber.currentDefaultServices, Clock.Clock),
      observer: Context.get(fiber.currentContext, Raw.RawObserver)
    })
  )

/** {@link streamWith}'s source: opening it starts the first attempt (and retries it). */
const sourceWith = <Ev>(
  client: Http.Client,
  req: Request<Ev>
): Source.Source<StreamChunk.StreamChunk, LlmError.LlmError> => {
  const mask = maskOfRequest(req)
  const limit = Duration.decode(req.timeouts?.total ?? defaultTotalTimeout)
  const open = (scope: Lite.Lite) =>
    Effect.flatMap(clockAndObserver, ({ clock, observer }) => {
      let attempts = 0
      const total: Total = {
        at: Duration.isFinite(limit) ? clock.unsafeCurrentTimeMillis() + Duration.toMillis(limit) : Infinity,
        error: () =>
          QuickError.make({
            code: "timeout",
            message: `Total timeout: the stream took longer than ${Duration.format(limit)}`,
            provider: req.provider
          })
      }
      const attempt = start(scope, client, req, mask, total, () => ++attempts, observer, clock)
      const retryWhile = (e: LlmError.LlmError) => e.retryable && clock.unsafeCurrentTimeMillis() < total.at
      // The retry schedule starts only once the first attempt has failed (its machinery costs about 35
      // Effect steps per request): that failure is its first input, so it decides as it always would.
      return Effect.map(
        Effect.catchAll(attempt, (failure) => {
          // A wait between attempts never runs past the total limit; the attempt after it then fails.
          const schedule = Schedule.modifyDelay(
            Retry.policy(req.retry),
            (_, delay) => Duration.min(delay, Duration.millis(Math.max(0, total.at - clock.unsafeCurrentTimeMillis())))
          )
          let replayed = false
          const again = Effect.suspend(() => {
            if (replayed) return attempt
            replayed = true
            return Effect.fail(failure)
          })
          return Effect.retry(again, { schedule, while: retryWhile })
        }),
        takeOf
      )
    })
  if (mask === undefined) return open
  // Every ending but an interruption is masked here, a defect too (its message may quote what it read).
  const masked = <A, R>(effect: Effect.Effect<A, LlmError.LlmError, R>): Effect.Effect<A, LlmError.LlmError, R> =>
    Effect.catchAllCause(effect, (cause) =>
      // A single failure (the usual case) is no interruption: known without walking the cause.
      !Cause.isFailType(cause) && Cause.isInterruptedOnly(cause)
        ? Effect.failCause(cause)
        : Effect.fail(QuickError.fromInfo(maskInfo(mask, StreamChunk.errorFromCause(cause, req.provider)))))
  return (scope) => Effect.map(masked(open(scope)), (take) => Source.derive(take, masked(take)))
}
