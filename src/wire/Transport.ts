/**
 * The HTTP transport every provider shares: post the request, map HTTP errors, frame the body a
 * network read at a time, run the provider's pure decoder, retry before the first content chunk,
 * and enforce the header / idle / total timeouts.
 *
 * Each attempt runs in a producer fiber that sends the request and decodes every network read as it
 * arrives; the consumer takes the decoded chunks through a one-place handoff whose watchdog enforces
 * the header and idle timeouts (see `internal/handoff.ts`). That keeps the cost per network read to
 * one handoff, where a timeout raced against every read cost more than the decoding itself.
 *
 * @since 0.1.0
 */
import * as Channel from "effect/Channel"
import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as LlmError from "../LlmError.js"
import * as StreamChunk from "../StreamChunk.js"
import * as HandoffModule from "../internal/handoff.js"
import * as Timeouts from "../internal/timeouts.js"
import * as Unwrap from "../internal/unwrap.js"
import type * as ChunkDecoder from "./ChunkDecoder.js"
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
}

/** The `timeouts` option every provider takes. */
export interface TimeoutOptions {
  /** Until response headers arrive (default 60 s). */
  readonly headers?: Duration.DurationInput
  /**
   * Longest the consumer waits for the next network read of the body, keep-alives included
   * (default 300 s). Time the consumer spends on its own work does not count.
   */
  readonly idle?: Duration.DurationInput
  /** The whole response (off by default). */
  readonly total?: Duration.DurationInput
}

/** Default time allowed until response headers. */
export const defaultHeadersTimeout: Duration.Duration = Duration.seconds(60)
/** Default longest silence between body reads. */
export const defaultIdleTimeout: Duration.Duration = Duration.seconds(300)

/** What the transport needs from a provider for one request. */
export interface Request<Ev> {
  readonly provider: string
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: unknown
  /** A fresh framer per attempt. */
  readonly framer: () => Framer<Ev>
  /** A fresh decoder per attempt. */
  readonly decoder: () => ChunkDecoder.ChunkDecoder<Ev>
  /**
   * Maps an error response to error data; the transport adds retry facts. `status` is undefined when
   * the error came as the JSON body of a successful response (see {@link Request.streamContentType}).
   */
  readonly errorFromResponse: (
    status: number | undefined,
    body: string,
    extras: { readonly requestId?: string | undefined; readonly retryAfterMs?: number | undefined }
  ) => LlmError.ErrorInfo
  readonly retry?: Retry.Options | undefined
  readonly timeouts?: TimeoutOptions | undefined
  /**
   * The content type a stream comes with (`text/event-stream`). A 2xx response that is a JSON
   * document instead (a proxy's error, a host that ignored `stream: true`) is read whole: an
   * `{"error": …}` body becomes that error, anything else a `protocol` error — never an empty answer.
   */
  readonly streamContentType?: string | undefined
}

const requestIdHeaders = ["x-request-id", "request-id", "x-amzn-requestid", "x-goog-request-id", "x-generation-id"]

/** The provider's request id, from whichever header it uses. */
export const requestIdOf = (headers: Readonly<Record<string, string>>): string | undefined => {
  for (const name of requestIdHeaders) {
    const v = headers[name]
    if (v !== undefined && v !== "") return v
  }
  return undefined
}

const timeoutError = (provider: string, what: string, d: Duration.DurationInput): LlmError.LlmError =>
  LlmError.make({ code: "timeout", message: `${what} (${Duration.format(Duration.decode(d))})`, provider })

/** What an attempt hands its consumer: the chunks decoded from one network read. */
type Handoff = HandoffModule.Handoff<Chunk.Chunk<StreamChunk.StreamChunk>, LlmError.LlmError>

/** Frames and decodes a body one network read at a time (no Effect per event). */
const bodyDecoder = <Ev>(req: Request<Ev>) => {
  const framer = req.framer()
  const decoder = req.decoder()
  let broken = false
  const frame = (events: Array<Ev>, out: Array<StreamChunk.StreamChunk>): void => {
    for (let i = 0; i < events.length; i++) decoder.push(events[i], out)
    if (framer.error !== undefined && !broken) {
      broken = true
      out.push(StreamChunk.error({ ...framer.error, provider: req.provider }))
    }
  }
  return {
    /** Set once the framing broke: the error chunk has been emitted and nothing more will be. */
    broken: () => broken,
    read: (reads: Chunk.Chunk<Uint8Array>): Array<StreamChunk.StreamChunk> => {
      const out: Array<StreamChunk.StreamChunk> = []
      for (const bytes of reads) {
        if (broken) break
        frame(framer.push(bytes), out)
      }
      return out
    },
    end: (): Array<StreamChunk.StreamChunk> => {
      const out: Array<StreamChunk.StreamChunk> = []
      if (broken) return out
      frame(framer.end(), out)
      if (!broken) decoder.end(out)
      return out
    }
  }
}

/** A whole (non-stream) body, read within the idle limit. */
const wholeBody = <Ev>(req: Request<Ev>, response: Http.Response): Effect.Effect<string, LlmError.LlmError> => {
  const idle = req.timeouts?.idle ?? defaultIdleTimeout
  return response.text.pipe(Effect.timeoutFail({
    duration: idle,
    onTimeout: () => timeoutError(req.provider, "The response body did not arrive in time", idle)
  }))
}

/** Maps a non-2xx response to its error, with the retry facts the transport adds. */
const statusError = <Ev>(req: Request<Ev>, response: Http.Response): Effect.Effect<never, LlmError.LlmError> =>
  Effect.gen(function*() {
    const text = yield* wholeBody(req, response).pipe(Effect.orElseSucceed(() => ""))
    const now = yield* Clock.currentTimeMillis
    const retryAfterMs = Retry.retryAfterMs(response.headers, now)
    const info = req.errorFromResponse(response.status, text, {
      requestId: requestIdOf(response.headers),
      retryAfterMs
    })
    const retryable = Retry.shouldRetryHeader(response.headers) ??
      (info.code !== "quota" && HttpStatus.isRetryableStatus(response.status))
    return yield* Effect.fail(LlmError.fromInfo({ ...info, status: response.status, retryable }))
  })

/** A 2xx answer that is a JSON document where a stream was expected: its error, or a protocol error. */
const documentError = <Ev>(req: Request<Ev>, response: Http.Response): Effect.Effect<never, LlmError.LlmError> =>
  Effect.gen(function*() {
    const text = yield* wholeBody(req, response)
    let parsed: unknown = undefined
    try {
      parsed = JSON.parse(text)
    } catch {
      // not even JSON: reported below as a protocol error, with the text as details
    }
    const extras = { requestId: requestIdOf(response.headers), retryAfterMs: undefined }
    const info = typeof parsed === "object" && parsed !== null && "error" in parsed
      ? req.errorFromResponse(undefined, text, extras)
      : LlmError.info({
        code: "protocol",
        message: `Expected a stream (${req.streamContentType}), got a ${response.headers["content-type"]} document`,
        provider: req.provider,
        requestId: extras.requestId,
        retryable: false,
        details: text
      })
    return yield* Effect.fail(LlmError.fromInfo({ ...info, status: response.status }))
  })

/** Whether a response is a JSON document where the request expected a stream. */
const isDocumentInsteadOfStream = <Ev>(req: Request<Ev>, response: Http.Response): boolean => {
  const type = response.headers["content-type"]
  return req.streamContentType !== undefined && type !== undefined &&
    type.startsWith("application/json") && !type.startsWith(req.streamContentType)
}

/**
 * The producer of one attempt, run in its own fiber: the request, its HTTP error mapping, then the
 * body, framed and decoded as each network read arrives and handed over to the consumer (a failure
 * too). Reading with `Channel.toPull` costs less per read than running the body stream into a sink.
 */
const produce = <Ev>(req: Request<Ev>, handoff: Handoff): Effect.Effect<void, never, Http.Client> =>
  Effect.gen(function*() {
    const response = yield* Http.postJson({ url: req.url, headers: req.headers, body: req.body, provider: req.provider })
    if (response.status < 200 || response.status >= 300) {
      handoff.endFirst()
      return yield* statusError(req, response)
    }
    if (isDocumentInsteadOfStream(req, response)) {
      handoff.endFirst()
      return yield* documentError(req, response)
    }
    handoff.startIdle()
    const pull = yield* Channel.toPull(Stream.toChannel(response.body))
    const decode = bodyDecoder(req)
    while (!decode.broken()) {
      const next = yield* pull
      const out = Either.isRight(next) ? decode.read(next.right) : decode.end()
      // A read that decodes to nothing (a keep-alive) still shows the server is alive.
      if (out.length > 0) yield* handoff.offer(Chunk.unsafeFromArray(out))
      else handoff.touch()
      if (Either.isLeft(next)) break
    }
    handoff.end()
  }).pipe(
    Effect.scoped,
    // Every ending is handed over: when the consumer left or the watchdog already reported its
    // timeout this is a no-op, and an interruption from inside (the client, a child fiber) must not
    // leave the consumer waiting for a timeout that may never come.
    Effect.catchAllCause((cause) => Effect.sync(() => handoff.fail(cause)))
  )

/** The chunks an attempt held back, then (once it has produced content) the rest of its chunks. */
interface Started {
  readonly held: ReadonlyArray<StreamChunk.StreamChunk>
  /** Takes the attempt's next chunks; undefined when it already ended. */
  readonly rest: Effect.Effect<Chunk.Chunk<StreamChunk.StreamChunk> | undefined, LlmError.LlmError> | undefined
}

/**
 * Starts an attempt (its producer, and the watchdog enforcing the header and idle timeouts) and takes
 * its chunks until the first content chunk, holding back metadata/usage/cache chunks so a retried
 * attempt never shows the consumer two beginnings. A retryable failure or in-band error before that
 * point fails (and closes this attempt's connection) so the caller can retry.
 */
const start = <Ev>(req: Request<Ev>): Effect.Effect<Started, LlmError.LlmError, Http.Client | Scope.Scope> =>
  Effect.gen(function*() {
    const scope = yield* Scope.fork(yield* Effect.scope, ExecutionStrategy.sequential)
    const headers = Duration.decode(req.timeouts?.headers ?? defaultHeadersTimeout)
    const idle = Duration.decode(req.timeouts?.idle ?? defaultIdleTimeout)
    const handoff: Handoff = new HandoffModule.Handoff(yield* Effect.clock, {
      first: headers,
      onFirst: () => timeoutError(req.provider, "No response headers in time", headers),
      idle,
      onIdle: () => timeoutError(req.provider, "No data from the server (idle timeout)", idle)
    })
    const producer = yield* Effect.forkIn(produce(req, handoff), scope)
    yield* Effect.forkIn(handoff.watch(producer), scope)
    // Closes this attempt's connection before a retry opens the next one.
    const giveUp = (error: LlmError.LlmError) => Effect.zipRight(Scope.close(scope, Exit.void), Effect.fail(error))
    const held: Array<StreamChunk.StreamChunk> = []
    while (true) {
      const next = yield* Effect.either(handoff.take)
      if (Either.isLeft(next)) return yield* giveUp(next.left)
      if (next.right === undefined) return { held, rest: undefined }
      const chunks = Chunk.toReadonlyArray(next.right)
      for (let i = 0; i < chunks.length; i++) {
        const c = chunks[i]
        if (StreamChunk.isContent(c)) return { held: held.concat(chunks.slice(i)), rest: handoff.take }
        if (c.type === "error" && c.error.retryable) return yield* giveUp(LlmError.fromInfo(c.error))
        held.push(c)
        if (StreamChunk.isTerminal(c)) return { held, rest: undefined }
      }
    }
  })

/** The started attempt as one stream: what it held back, then the rest, a network read at a time. */
const toStream = ({ held, rest }: Started): Stream.Stream<StreamChunk.StreamChunk, LlmError.LlmError> =>
  rest === undefined ? Stream.fromIterable(held) : HandoffModule.toStream(Chunk.fromIterable(held), rest)

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
): Stream.Stream<StreamChunk.StreamChunk, LlmError.LlmError> =>
  Unwrap.unwrapScoped(
    start(req).pipe(
      Effect.retry({ schedule: Retry.policy(req.retry), while: (e) => e.retryable }),
      Effect.provideService(Http.Client, client),
      Effect.map(toStream)
    )
  ).pipe(Timeouts.apply({ total: req.timeouts?.total }, req.provider))
