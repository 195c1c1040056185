/**
 * A chunk stream relayed from a server to a browser (or any other client) as `text/event-stream`,
 * and read back into `Stream<StreamChunk, never>` on the other side, lossless.
 *
 * Server side: {@link encode} turns chunks into SSE bytes for an Effect HTTP server
 * (`HttpServerResponse.stream`); {@link toResponse} makes a web-standard `Response` for hosts that
 * serve those (Next.js, Hono, Deno, Bun …). Each chunk is one event, `id: <n>` then
 * `data: <StreamChunk.encodeJson>`; a `: keep-alive` comment goes out every `keepAlive` (default
 * 15 s), so proxies keep the connection open while the model thinks. A client that goes
 * away cancels the body, which interrupts the stream and aborts the provider request.
 *
 * Client side: {@link fetch} posts and reads the answer, {@link fromResponse} reads a `Response`
 * already fetched, {@link decode} reads bytes. Every run ends in exactly one terminal chunk: the
 * server's own, else `truncated` when the body ended early, `network` when the connection dropped,
 * the HTTP status's code for a non-2xx answer, and `protocol` for an event that is not a chunk.
 * Interrupting the client stream (leaving a loop, closing a page) aborts its request.
 *
 * @example
 * ```ts
 * import { FetchHttpClient } from "@effect/platform"
 * import { Effect, Layer, Stream } from "effect"
 * import { LanguageModel, Registry, Relay } from "effect-llm-stream"
 *
 * const Model = Layer.provide(Registry.layer("anthropic:claude-sonnet-4-5"), FetchHttpClient.layer)
 *
 * // On the server (any host that answers with a web Response):
 * export const POST = async (request: Request): Promise<Response> => {
 *   const { question } = (await request.json()) as { question: string }
 *   return Relay.toResponse(LanguageModel.stream(question), Model)
 * }
 *
 * // In the browser: the same chunks, with the same guarantees.
 * const answer = Relay.fetch("/chat", { method: "POST", body: JSON.stringify({ question: "Hi" }) }).pipe(
 *   Stream.runForEach((chunk) => Effect.sync(() => chunk.type === "text-delta" && document.write(chunk.delta)))
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import * as HttpStatus from "../internal/transport/HttpStatus.js"
import * as LlmError from "../LlmError.js"
import * as StreamChunk from "../StreamChunk.js"
import * as Interop from "./Interop.js"

/**
 * Options of the server side.
 *
 * @since 0.1.0
 * @category models
 */
export interface EncodeOptions {
  /** The silence after which a `: keep-alive` comment is sent (default 15 seconds). */
  readonly keepAlive?: Duration.DurationInput | undefined
}

/**
 * Options of {@link toResponse}.
 *
 * @since 0.1.0
 * @category models
 */
export interface ResponseOptions extends EncodeOptions {
  /** Extra response headers (CORS, cookies …), added to the SSE ones. */
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/**
 * The keep-alive interval when none is given: 15 seconds.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultKeepAlive: Duration.Duration = Duration.seconds(15)

/**
 * The headers of a relayed stream: `text/event-stream`, never cached, never buffered by a proxy.
 *
 * @since 0.1.0
 * @category constants
 */
export const headers: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no"
}

const keepAliveComment = ": keep-alive\n\n"

/**
 * The chunks as SSE text, one event each (`id: <n>`, `data: <chunk JSON>`), with a keep-alive comment
 * every `keepAlive` (on the Effect clock). Ends when the chunk stream ends.
 *
 * @since 0.1.0
 * @category encoding
 */
export const encodeText = <R>(
  chunks: Stream.Stream<StreamChunk.StreamChunk, never, R>,
  options?: EncodeOptions
): Stream.Stream<string, never, R> => {
  const keepAlive = Duration.decode(options?.keepAlive ?? defaultKeepAlive)
  return Stream.suspend(() => {
    let id = 0
    const events = Stream.map(chunks, (chunk) => `id: ${++id}\ndata: ${StreamChunk.encodeJson(chunk)}\n\n`)
    const comments = Stream.as(Stream.fromSchedule(Schedule.spaced(keepAlive)), keepAliveComment)
    return Stream.merge(events, comments, { haltStrategy: "left" })
  })
}

/**
 * The chunks as SSE bytes (UTF-8), for an Effect HTTP server:
 * `HttpServerResponse.stream(Relay.encode(chunks), { headers: Relay.headers })`.
 *
 * @since 0.1.0
 * @category encoding
 */
export const encode = <R>(
  chunks: Stream.Stream<StreamChunk.StreamChunk, never, R>,
  options?: EncodeOptions
): Stream.Stream<Uint8Array, never, R> => Stream.encodeText(encodeText(chunks, options))

/**
 * A web `Response` streaming the chunks as `text/event-stream`, with what the stream needs given as a
 * layer or a `ManagedRuntime` (see `Interop`). A client that goes away cancels the body, which
 * interrupts the stream and aborts the provider request.
 *
 * @since 0.1.0
 * @category encoding
 */
export const toResponse = <R, E>(
  chunks: Stream.Stream<StreamChunk.StreamChunk, never, R>,
  provided: Interop.Provided<R, E>,
  options?: ResponseOptions
): Response => {
  const text = encodeText(Interop.provide(chunks, provided), options)
  return new Response(Stream.toReadableStream(Stream.encodeText(text)), {
    status: 200,
    headers: { ...headers, ...options?.headers }
  })
}

/** A connection that broke while the body was read. */
const dropped = (e: unknown): LlmError.LlmError =>
  LlmError.make({
    code: "network",
    message: `The connection dropped: ${e instanceof Error ? e.message : String(e)}`,
    retryable: true
  })

/**
 * Reads relayed bytes back into chunks, ending in exactly one terminal chunk: `network` when the
 * bytes fail, `truncated` when they end before a terminal chunk, `protocol` for an event that is not
 * a chunk.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decode = <E, R>(
  bytes: Stream.Stream<Uint8Array, E, R>
): Stream.Stream<StreamChunk.StreamChunk, never, R> =>
  StreamChunk.ensureTerminal(
    StreamChunk.decodeJsonStream(Stream.decodeText(Stream.mapError(bytes, dropped)))
  )

/** The one error chunk of an answer that is not a relayed stream. */
const statusError = (response: Response): Stream.Stream<StreamChunk.StreamChunk> =>
  Stream.fromEffect(
    Effect.map(
      Effect.promise(() => response.text().then((t) => t.slice(0, 1_000), () => "")),
      (body) =>
        StreamChunk.error(LlmError.info({
          code: HttpStatus.codeForStatus(response.status),
          message: body.trim() === ""
            ? `The server answered with HTTP ${response.status}`
            : `The server answered with HTTP ${response.status}: ${body.trim()}`,
          status: response.status
        }))
    )
  )

/**
 * Reads a fetched `Response` of a relayed stream: a non-2xx status is one error chunk with its code
 * (`authentication` for 401, `rate_limit` for 429 …). Interrupting the stream cancels the body.
 *
 * @since 0.1.0
 * @category decoding
 */
export const fromResponse = (response: Response): Stream.Stream<StreamChunk.StreamChunk> => {
  if (response.status < 200 || response.status >= 300) return statusError(response)
  const body = response.body
  if (body === null) return decode(Stream.empty)
  return decode(Stream.fromReadableStream({ evaluate: () => body, onError: (e) => e }))
}

/**
 * Fetches a relayed stream (`fetch(input, init)`, with `accept: text/event-stream`) and reads it.
 * Interrupting the stream aborts the request; a request that cannot be sent is one `network` chunk.
 *
 * @since 0.1.0
 * @category decoding
 */
export const fetch = (input: string | URL, init?: RequestInit): Stream.Stream<StreamChunk.StreamChunk> =>
  Stream.unwrapScoped(
    Effect.gen(function*() {
      const controller = yield* Effect.acquireRelease(
        Effect.sync(() => new AbortController()),
        (c) => Effect.sync(() => c.abort())
      )
      const requestHeaders = new Headers(init?.headers)
      if (!requestHeaders.has("accept")) requestHeaders.set("accept", "text/event-stream")
      const sent = yield* Effect.either(Effect.tryPromise({
        try: () => globalThis.fetch(input, { ...init, headers: requestHeaders, signal: controller.signal }),
        catch: dropped
      }))
      return sent._tag === "Left"
        ? Stream.succeed(StreamChunk.error(LlmError.toInfo(sent.left)))
        : fromResponse(sent.right)
    })
  )
