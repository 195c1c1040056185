/**
 * The HTTP transport every provider shares: post the request, map HTTP errors, frame the body a
 * network read at a time, run the provider's pure decoder, retry before the first content chunk,
 * and enforce the header / idle / total timeouts.
 *
 * @since 0.1.0
 */
import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as LlmError from "../LlmError.js"
import * as StreamChunk from "../StreamChunk.js"
import * as Timeouts from "../internal/timeouts.js"
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
  /** Longest gap between two network reads of the body, keep-alives included (default 300 s). */
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
  /** Maps a non-2xx response (status, body text) to error data; the transport adds retry facts. */
  readonly errorFromResponse: (
    status: number,
    body: string,
    extras: { readonly requestId?: string | undefined; readonly retryAfterMs?: number | undefined }
  ) => LlmError.ErrorInfo
  readonly retry?: Retry.Options | undefined
  readonly timeouts?: TimeoutOptions | undefined
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

/** Frames and decodes a body, one network read at a time (no Effect per event). */
const decodeBody = <Ev>(
  req: Request<Ev>,
  body: Stream.Stream<Uint8Array, LlmError.LlmError>
): Stream.Stream<StreamChunk.StreamChunk, LlmError.LlmError> =>
  Stream.suspend(() => {
    const framer = req.framer()
    const decoder = req.decoder()
    let broken = false
    const frame = (events: Array<Ev>, out: Array<StreamChunk.StreamChunk>): void => {
      for (let i = 0; i < events.length; i++) decoder.push(events[i], out)
      if (framer.error !== undefined && !broken) {
        broken = true
        out.push(StreamChunk.error(framer.error))
      }
    }
    const idle = req.timeouts?.idle ?? defaultIdleTimeout
    const reads = Timeouts.idle(idle, () => timeoutError(req.provider, "No data from the server (idle timeout)", idle))(body)
    const decoded = Stream.mapChunks(reads, (chunk) => {
      const out: Array<StreamChunk.StreamChunk> = []
      for (const bytes of chunk) {
        if (broken) break
        frame(framer.push(bytes), out)
      }
      return Chunk.unsafeFromArray(out)
    })
    const flush = Stream.suspend(() => {
      if (broken) return Stream.empty
      const out: Array<StreamChunk.StreamChunk> = []
      frame(framer.end(), out)
      if (!broken) decoder.end(out)
      return Stream.fromIterable(out)
    })
    return Stream.concat(decoded, flush)
  })

/** One attempt: the request, its HTTP error mapping, and the decoded body. */
const attempt = <Ev>(req: Request<Ev>): Stream.Stream<StreamChunk.StreamChunk, LlmError.LlmError, Http.Client> =>
  Stream.unwrap(Effect.gen(function*() {
    const headersTimeout = req.timeouts?.headers ?? defaultHeadersTimeout
    const response = yield* Http.postJson({ url: req.url, headers: req.headers, body: req.body, provider: req.provider })
      .pipe(Effect.timeoutFail({
        duration: headersTimeout,
        onTimeout: () => timeoutError(req.provider, "No response headers in time", headersTimeout)
      }))
    if (response.status >= 200 && response.status < 300) return decodeBody(req, response.body)
    const text = yield* response.text.pipe(
      Effect.timeoutFail({
        duration: req.timeouts?.idle ?? defaultIdleTimeout,
        onTimeout: () => timeoutError(req.provider, "The error body did not arrive in time", req.timeouts?.idle ?? defaultIdleTimeout)
      }),
      Effect.orElseSucceed(() => "")
    )
    const now = yield* Clock.currentTimeMillis
    const retryAfterMs = Retry.retryAfterMs(response.headers, now)
    const info = req.errorFromResponse(response.status, text, {
      requestId: requestIdOf(response.headers),
      retryAfterMs
    })
    const retryable = Retry.shouldRetryHeader(response.headers) ??
      (info.code !== "quota" && HttpStatus.isRetryableStatus(response.status))
    return yield* Effect.fail(LlmError.fromInfo({ ...info, status: response.status, retryable }))
  }))

/** An attempt that has produced its first content chunk (or its terminal chunk). */
interface Started {
  readonly held: ReadonlyArray<StreamChunk.StreamChunk>
  readonly rest: Stream.Stream<StreamChunk.StreamChunk, LlmError.LlmError, Http.Client>
}

/**
 * Runs an attempt until its first content chunk, holding back metadata/usage/cache chunks so a
 * retried attempt never shows the consumer two beginnings. A retryable failure or in-band error
 * before that point fails (and closes this attempt's connection) so the caller can retry.
 */
const done = (held: ReadonlyArray<StreamChunk.StreamChunk>): Started => ({ held, rest: Stream.empty })

const start = <Ev>(req: Request<Ev>): Effect.Effect<Started, LlmError.LlmError, Http.Client | Scope.Scope> =>
  Effect.gen(function*() {
    const scope = yield* Scope.fork(yield* Effect.scope, ExecutionStrategy.sequential)
    const pull = yield* Scope.extend(Stream.toPull(attempt(req)), scope)
    const held: Array<StreamChunk.StreamChunk> = []
    const giveUp = (error: LlmError.LlmError) => Effect.zipRight(Scope.close(scope, Exit.void), Effect.fail(error))
    while (true) {
      const next = yield* Effect.either(pull)
      if (Either.isLeft(next)) {
        if (Option.isNone(next.left)) return done(held)
        return yield* giveUp(next.left.value)
      }
      const chunks = Chunk.toReadonlyArray(next.right)
      for (let i = 0; i < chunks.length; i++) {
        const c = chunks[i]
        if (StreamChunk.isContent(c)) {
          const rest: Started["rest"] = Stream.repeatEffectChunkOption(pull)
          return { held: held.concat(chunks.slice(i)), rest }
        }
        if (c.type === "error" && c.error.retryable) return yield* giveUp(LlmError.fromInfo(c.error))
        held.push(c)
        if (StreamChunk.isTerminal(c)) return done(held)
      }
    }
  })

/**
 * Streams one response: retried (per {@link Retry.policy}) only while no content chunk has been
 * emitted, with the header, idle and total timeouts applied. Failures arrive as the stream's error;
 * `StreamChunk.ensureTerminal` (applied by `LanguageModel.make`) turns them into the terminal chunk.
 */
export const stream = <Ev>(req: Request<Ev>): Stream.Stream<StreamChunk.StreamChunk, LlmError.LlmError, Http.Client> =>
  Stream.unwrapScoped(
    start(req).pipe(
      Effect.retry({ schedule: Retry.policy(req.retry), while: (e) => e.retryable }),
      Effect.map(({ held, rest }) => Stream.concat(Stream.fromIterable(held), rest))
    )
  ).pipe(Timeouts.apply({ total: req.timeouts?.total }, req.provider))
