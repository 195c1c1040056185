/**
 * `Chaos`: fault injection for your own tests. Wrap a `LanguageModel` ({@link layer}) or, better,
 * the `HttpClient` under a real provider ({@link httpClient}: the provider's own retries, timeouts
 * and decoders then meet the faults), and a seeded share of the requests meets a provider failure:
 * a 429 with Retry-After, a 5xx, an in-band overload error, a connection dropped before or after
 * output, a stall, a truncated body, a malformed event. Every wait is on the Effect clock, so a
 * `@effect/vitest` test with `TestClock` proves in milliseconds that a program's retries, fallbacks
 * and UI survive; the same seed always injects the same faults, and {@link injected} says which.
 *
 * @example
 * ```ts
 * import { Effect, Layer, Redacted, Schedule } from "effect"
 * import { LanguageModel, OpenAiChat } from "effect-llm-stream"
 * import { Chaos, Replay } from "effect-llm-stream/testing"
 *
 * const body = "data: {\"id\":\"c1\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
 * // The first request meets a 429 (Retry-After 1 s), the second a dropped connection, the third the answer.
 * const client = Chaos.httpClient({ seed: 42, rate: 0, plan: ["rate_limit", "drop_before"] }).pipe(
 *   Layer.provideMerge(Replay.layer({ body }))
 * )
 * const program = Effect.gen(function*() {
 *   const response = yield* LanguageModel.chat("Hello")
 *   const faults = yield* Chaos.injected // [{ request: 0, fault: "rate_limit" }, { request: 1, fault: "drop_before" }]
 *   return [response.text, faults.length] as const
 * }).pipe(
 *   Effect.provide(OpenAiChat.layer({ model: "m", apiKey: Redacted.make("sk-test-key-123"), retry: { times: 2, schedule: Schedule.spaced("1 second") } })),
 *   Effect.provide(client)
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as LanguageModel from "../LanguageModel.js"
import * as LlmError from "../LlmError.js"
import * as StreamChunk from "../StreamChunk.js"
import * as UsageMeter from "../UsageMeter.js"
import * as Fixture from "./Fixture.js"

/**
 * A fault Chaos can inject:
 *
 * - `rate_limit`: HTTP 429 with `retry-after` (and `retry-after-ms`): {@link Options.retryAfter}.
 * - `server`: HTTP 500 with a JSON error body.
 * - `overloaded`: a 200 stream whose first event is the provider's own in-band overload error
 *   (Anthropic `overloaded_error`, OpenAI `{"error":…}`, Responses `server_is_overloaded`, Gemini
 *   `UNAVAILABLE`, Ollama `server busy`, Bedrock `serviceUnavailableException`); an HTTP 529 for a
 *   host with no in-band overload (Cohere) or an unknown path.
 * - `drop_before`: the connection resets before the response.
 * - `drop_after`: the connection resets mid-body, after part of it arrived.
 * - `stall`: the body goes silent for {@link Options.stall}, then goes on (the provider's idle
 *   timeout decides whether that is a `timeout`).
 * - `truncate`: the body ends cleanly, early (after a whole line of a text stream).
 * - `malformed`: an event that is not JSON appears in the body.
 *
 * The faults that need no server (`rate_limit`, `server`, `overloaded`, `drop_before`) never reach
 * the wrapped client or model.
 *
 * @since 0.1.0
 * @category models
 */
export type Fault =
  | "rate_limit"
  | "server"
  | "overloaded"
  | "drop_before"
  | "drop_after"
  | "stall"
  | "truncate"
  | "malformed"

/**
 * Every fault, in the order of {@link Fault}.
 *
 * @since 0.1.0
 * @category constants
 */
export const allFaults: ReadonlyArray<Fault> = [
  "rate_limit",
  "server",
  "overloaded",
  "drop_before",
  "drop_after",
  "stall",
  "truncate",
  "malformed"
]

/**
 * How faults are chosen.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Seeds every draw: the same seed injects the same faults into the same requests. */
  readonly seed: number
  /** The share of requests that meet a fault, from 0 to 1. */
  readonly rate: number
  /** The faults to draw from, each equally likely (default: {@link allFaults}). */
  readonly faults?: ReadonlyArray<Fault> | undefined
  /** Forced outcomes for the first requests, in order (`"none"` for a clean one); the draw takes over after. */
  readonly plan?: ReadonlyArray<Fault | "none"> | undefined
  /** A 429's Retry-After: one duration, or a range drawn from by seed (default 1 second). */
  readonly retryAfter?:
    | Duration.DurationInput
    | readonly [min: Duration.DurationInput, max: Duration.DurationInput]
    | undefined
  /** How long a stall lasts (default 30 seconds). */
  readonly stall?: Duration.DurationInput | undefined
  /**
   * Where mid-stream faults strike: at a seeded offset within the first `within` bytes of the body
   * for {@link httpClient} (default 1,024; within a shorter body, the whole of it), after one of the
   * first `within` content chunks for {@link layer} (default 3).
   */
  readonly within?: number | undefined
}

/**
 * One injected fault: the request (0-based, in the order they were made), the fault, and for
 * mid-stream faults where it struck (a byte offset of the body, or a chunk index for {@link layer}).
 *
 * @since 0.1.0
 * @category models
 */
export interface Injection {
  readonly request: number
  readonly fault: Fault
  readonly at?: number
  /** For `rate_limit`: the Retry-After sent, in milliseconds. */
  readonly retryAfterMs?: number
}

/**
 * The log of what a Chaos layer injected, provided beside the wrapped service.
 *
 * @since 0.1.0
 * @category tags
 */
export class Log extends Context.Tag("effect-llm-stream/Chaos/Log")<Log, {
  /** Every fault injected so far, in request order. */
  readonly injected: Effect.Effect<ReadonlyArray<Injection>>
  /** How many requests went through, faulted or not. */
  readonly requests: Effect.Effect<number>
}>() {}

/**
 * Every fault injected so far by the Chaos layer in the context.
 *
 * @since 0.1.0
 * @category accessors
 */
export const injected: Effect.Effect<ReadonlyArray<Injection>, never, Log> = Effect.flatMap(Log, (log) => log.injected)

// --- drawing ---------------------------------------------------------------------------------------

interface Draw {
  readonly fault: Fault | undefined
  /** A number in [0, 1) for where the fault strikes. */
  readonly where: number
  readonly retryAfterMs: number
}

const millis = (d: Duration.DurationInput): number => Duration.toMillis(Duration.decode(d))

/** The draw for request `n`: its own generator, so concurrency cannot change which request gets what. */
const draw = (options: Options, n: number): Draw => {
  const next = Fixture.prng((Math.imul(options.seed | 0, 0x9e3779b1) ^ Math.imul(n + 1, 0x85ebca6b)) >>> 0)
  const faults = options.faults ?? allFaults
  const planned = options.plan?.[n]
  const roll = next()
  const pick = next()
  const fault = planned !== undefined
    ? (planned === "none" ? undefined : planned)
    : roll < options.rate && faults.length > 0
    ? faults[Math.floor(pick * faults.length)]
    : undefined
  const where = next()
  const range = options.retryAfter
  const [lo, hi] = range === undefined
    ? [1000, 1000]
    : Array.isArray(range)
    ? [millis(range[0]), millis(range[1])]
    : [millis(range as Duration.DurationInput), millis(range as Duration.DurationInput)]
  return { fault, where, retryAfterMs: Math.round(lo + next() * Math.max(0, hi - lo)) }
}

/** A fresh log and the function that draws and records request after request. */
const makeLog = (options: Options) =>
  Effect.sync(() => {
    const entries: Array<Injection> = []
    let count = 0
    const log: Log["Type"] = {
      injected: Effect.sync(() => [...entries]),
      requests: Effect.sync(() => count)
    }
    const nextDraw = (): Draw & { readonly n: number } => ({ ...draw(options, count), n: count++ })
    const record = (entry: Injection): void => {
      entries.push(entry)
      entries.sort((a, b) => a.request - b.request)
    }
    return { log, nextDraw, record }
  })

// --- the LanguageModel form ----------------------------------------------------------------------

const chaosError = (provider: string, fault: Fault, retryAfterMs: number): LlmError.ErrorInfo => {
  switch (fault) {
    case "rate_limit":
      return LlmError.info({ code: "rate_limit", message: "Chaos: rate limited", status: 429, retryAfterMs, provider })
    case "server":
      return LlmError.info({ code: "server", message: "Chaos: internal server error", status: 500, provider })
    case "overloaded":
      return LlmError.info({ code: "overloaded", message: "Chaos: overloaded", provider })
    case "drop_before":
    case "drop_after":
      return LlmError.info({ code: "network", message: "Chaos: the connection was reset", provider })
    case "truncate":
    case "stall":
      return StreamChunk.truncatedError(provider)
    case "malformed":
      return LlmError.info({
        code: "protocol",
        message: "Chaos: the stream sent an event that is not JSON",
        retryable: false,
        provider
      })
  }
}

/** The stream with a stall before chunk `at` (0-based). */
const stallBefore = (
  self: Stream.Stream<StreamChunk.StreamChunk>,
  at: number,
  duration: Duration.DurationInput
): Stream.Stream<StreamChunk.StreamChunk> =>
  Stream.zipWithIndex(self).pipe(
    Stream.mapEffect(([chunk, i]) => (i === at ? Effect.as(Effect.sleep(duration), chunk) : Effect.succeed(chunk)))
  )

/** The stream up to its `at`-th content chunk (1-based) or its end, then `error` in place of the rest. */
const breakAfter = (
  self: Stream.Stream<StreamChunk.StreamChunk>,
  at: number,
  error: LlmError.ErrorInfo
): Stream.Stream<StreamChunk.StreamChunk> =>
  Stream.suspend(() => {
    let content = 0
    return self.pipe(
      Stream.map((chunk): StreamChunk.StreamChunk => {
        if (StreamChunk.isTerminal(chunk)) return StreamChunk.error(error)
        if (StreamChunk.isContent(chunk)) content++
        return chunk
      }),
      Stream.flatMap((chunk) =>
        content >= at && !StreamChunk.isTerminal(chunk)
          ? Stream.make(chunk, StreamChunk.error(error))
          : Stream.make(chunk)
      ),
      Stream.takeUntil(StreamChunk.isTerminal)
    )
  })

/**
 * Wraps a service: each run of its stream is one request, faulted as drawn. A fault that needs no
 * answer ends the stream at once with the error a provider would give (metered as a failed request
 * when a `UsageMeter` is in the context); the others act on the model's own chunks.
 */
const wrapService = (
  service: LanguageModel.Service,
  options: Options,
  state: Effect.Effect.Success<ReturnType<typeof makeLog>>
): LanguageModel.Service => {
  const within = Math.max(1, Math.floor(options.within ?? 3))
  const stall = options.stall ?? "30 seconds"
  return {
    provider: service.provider,
    model: service.model,
    stream: (request) =>
      Stream.suspend(() => {
        const d = state.nextDraw()
        if (d.fault === undefined) return service.stream(request)
        const error = chaosError(service.provider, d.fault, d.retryAfterMs)
        switch (d.fault) {
          case "rate_limit":
          case "server":
          case "overloaded":
          case "drop_before": {
            state.record({
              request: d.n,
              fault: d.fault,
              ...(d.fault === "rate_limit" ? { retryAfterMs: d.retryAfterMs } : {})
            })
            return Stream.make(StreamChunk.error(error)).pipe(UsageMeter.track(service.provider, service.model))
          }
          case "stall": {
            const at = Math.floor(d.where * (within + 1))
            state.record({ request: d.n, fault: d.fault, at })
            return stallBefore(service.stream(request), at, stall)
          }
          default: {
            const at = 1 + Math.floor(d.where * within)
            state.record({ request: d.n, fault: d.fault, at })
            return breakAfter(service.stream(request), at, error)
          }
        }
      })
  }
}

/**
 * A layer that wraps the `LanguageModel` in its context (any provider, `TestModel`, a fallback)
 * with faults drawn by seed and rate, and provides the {@link Log}. Without HTTP in between, a
 * fault becomes the error chunk the provider would end with (`rate_limit` with `retryAfterMs`,
 * `server`, `overloaded`, `network`); `drop_after`, `truncate` and `malformed` strike after the
 * `at`-th content chunk (1 to `within`, default 3; at the model's end when it has fewer), ending
 * with `network`, `truncated` and `protocol`; `stall` waits {@link Options.stall} before chunk `at`
 * (0 to `within`). Nothing here retries: that is the program's job, which is what this tests.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options
): Layer.Layer<LanguageModel.LanguageModel | Log, never, LanguageModel.LanguageModel> =>
  Layer.effectContext(Effect.gen(function*() {
    const model = yield* LanguageModel.LanguageModel
    const state = yield* makeLog(options)
    return Context.make(LanguageModel.LanguageModel, wrapService(model, options, state)).pipe(
      Context.add(Log, state.log)
    )
  }))

// --- the HttpClient form -------------------------------------------------------------------------

const encoder = new TextEncoder()

const jsonResponse = (
  request: HttpClientRequest.HttpClientRequest,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {}
): HttpClientResponse.HttpClientResponse =>
  HttpClientResponse.fromWeb(
    request,
    new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } })
  )

/** The provider's in-band overload error as the first event of a 200 stream, chosen by the request's path. */
const inBandOverload = (request: HttpClientRequest.HttpClientRequest): HttpClientResponse.HttpClientResponse => {
  const path = request.url.split("?")[0] ?? ""
  const sse = (text: string): [string, Uint8Array] => ["text/event-stream", encoder.encode(text)]
  const data = (payload: unknown, event?: string) =>
    `${event === undefined ? "" : `event: ${event}\n`}data: ${JSON.stringify(payload)}\n\n`
  const message = "Chaos: overloaded"
  const [type, body]: [string, Uint8Array] | [undefined, undefined] = path.endsWith("/chat/completions")
    ? sse(data({ error: { message, type: "overloaded_error", code: "overloaded_error" } }))
    : path.endsWith("/responses")
    ? sse(data({ type: "error", code: "server_is_overloaded", message, param: null, sequence_number: 0 }, "error"))
    : path.endsWith("/messages")
    ? sse(data({ type: "error", error: { type: "overloaded_error", message } }, "error"))
    : path.includes(":streamGenerateContent")
    ? sse(data({ error: { code: 503, message, status: "UNAVAILABLE" } }))
    : path.endsWith("/api/chat")
    ? ["application/x-ndjson", encoder.encode(`${JSON.stringify({ error: `server busy: ${message}` })}\n`)]
    : path.endsWith("/converse-stream")
    ? [
      "application/vnd.amazon.eventstream",
      Fixture.eventStreamFrame(
        {
          ":message-type": "exception",
          ":exception-type": "serviceUnavailableException",
          ":content-type": "application/json"
        },
        encoder.encode(JSON.stringify({ message }))
      )
    ]
    : [undefined, undefined]
  if (type === undefined) return jsonResponse(request, 529, { message, error: { type: "overloaded_error", message } })
  return HttpClientResponse.fromWeb(
    request,
    new Response(new Uint8Array(body), { status: 200, headers: { "content-type": type } })
  )
}

/** Whether a response's body is binary frames (AWS event-stream), not lines of text. */
const isBinary = (response: HttpClientResponse.HttpClientResponse): boolean =>
  (response.headers["content-type"] ?? "").includes("eventstream")

/** What a body fault does at its offset. */
type BodyFault = "drop_after" | "stall" | "truncate" | "malformed"

const malformedEvent = encoder.encode("\n\ndata: {malformed\n\n")

/** Where in the first `n` bytes a fault strikes: `drop_after` in the second half, the others anywhere past byte 0. */
const offsetIn = (fault: BodyFault, n: number, where: number): number => {
  if (n < 2) return 0
  if (fault !== "drop_after") return 1 + Math.floor(where * (n - 1))
  const half = Math.floor(n / 2)
  return Math.min(n - 1, half + 1 + Math.floor(where * (n - half - 1)))
}

/**
 * The body with `fault` struck at a seeded offset of its first `within` bytes. For `stall` the
 * bytes flow as they come (a stall is silence, and holding bytes would be silence too): it strikes
 * at its offset, or before the last byte of a shorter body, each read's last byte waiting for the
 * next read until then. The other faults hold the first `within` bytes until they are all there or
 * the body has ended, so that they strike inside a shorter body too.
 */
const faultBody = <E>(
  body: Stream.Stream<Uint8Array, E>,
  fault: BodyFault,
  within: number,
  where: number,
  stall: Duration.DurationInput,
  lines: boolean,
  onStrike: (offset: number) => void
): Stream.Stream<Uint8Array, E | Error> =>
  Stream.suspend(() => {
    let seen = 0
    let struck = false
    let held: Uint8Array | undefined
    const strike = (head: Uint8Array, rest: Uint8Array): Stream.Stream<Uint8Array | "end", E | Error> => {
      struck = true
      onStrike(seen + head.length)
      const before = head.length > 0 ? Stream.make(head) : Stream.empty
      switch (fault) {
        case "drop_after":
          return Stream.concat(before, Stream.fail(new Error("Chaos: the connection was reset")))
        case "truncate":
          return Stream.concat(before, Stream.make("end" as const))
        case "malformed":
          return Stream.make(head, malformedEvent, rest)
        case "stall":
          return Stream.concat(before, Stream.fromEffect(Effect.as(Effect.sleep(stall), rest)))
      }
    }
    const stallAt = offsetIn(fault, within, where)
    const pieces: Stream.Stream<Uint8Array | "end", E | Error> = Stream.concat(body, Stream.make("end" as const))
    return pieces.pipe(
      Stream.flatMap((read): Stream.Stream<Uint8Array | "end", E | Error> => {
        if (struck) return read === "end" ? Stream.empty : Stream.make(read)
        const pending = held
        held = undefined
        if (fault !== "stall") {
          const bytes = read === "end" ? pending : pending === undefined ? read : Fixture.concat([pending, read])
          if (bytes === undefined) return Stream.empty
          if (read !== "end" && bytes.length < within) {
            held = bytes
            return Stream.empty
          }
          let at = offsetIn(fault, read === "end" ? bytes.length : within, where)
          // A text stream is truncated after a whole line, so what arrived decodes and the end is missed.
          if (fault === "truncate" && lines) at = bytes.lastIndexOf(0x0a, at - 1) + 1
          return strike(bytes.subarray(0, at), bytes.subarray(at))
        }
        if (read === "end") {
          return pending === undefined ? Stream.empty : strike(pending.subarray(0, 0), pending)
        }
        const bytes = pending === undefined ? read : Fixture.concat([pending, read])
        if (seen + bytes.length > stallAt) {
          const k = stallAt - seen
          return strike(bytes.subarray(0, k), bytes.subarray(k))
        }
        if (bytes.length === 0) return Stream.empty
        held = bytes.subarray(bytes.length - 1)
        const out = bytes.subarray(0, bytes.length - 1)
        seen += out.length
        return out.length > 0 ? Stream.make(out) : Stream.empty
      }),
      Stream.takeWhile((x): x is Uint8Array => x !== "end")
    )
  })

/**
 * A layer that transforms the `HttpClient` in its context, so that a real provider above it meets
 * faults drawn by seed and rate, and provides the {@link Log}. The provider's own retry policy,
 * timeouts and decoders run unchanged: a 429, a 5xx, an in-band overload or a dropped connection
 * before output are retried as configured (Retry-After honoured), a drop after output ends the
 * stream with `network`, a truncated body with `truncated`, a malformed event with `protocol`, a
 * stall longer than the idle timeout with `timeout`. Mid-body faults strike at a seeded byte offset
 * within the first {@link Options.within} bytes (default 1,024), or within a shorter body;
 * `drop_after` strikes in the second half of that span, so usually after the first output. To strike
 * inside a short body, `drop_after`, `truncate` and `malformed` hold the first `within` bytes of a
 * faulted body until they have all arrived or the body has ended; `stall` lets bytes flow.
 * Put it above any client: `Replay`, a loopback server through `FetchHttpClient`, the real network.
 *
 * @since 0.1.0
 * @category layers
 */
export const httpClient = (options: Options): Layer.Layer<HttpClient.HttpClient | Log, never, HttpClient.HttpClient> =>
  Layer.effectContext(Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const state = yield* makeLog(options)
    const within = Math.max(2, Math.floor(options.within ?? 1024))
    const stall = options.stall ?? "30 seconds"
    const faulty = HttpClient.transform(client, (effect, request) =>
      Effect.suspend(() => {
        const d = state.nextDraw()
        const fault = d.fault
        if (fault === undefined) return effect
        switch (fault) {
          case "rate_limit": {
            state.record({ request: d.n, fault, retryAfterMs: d.retryAfterMs })
            return Effect.succeed(jsonResponse(
              request,
              429,
              { error: { message: "Chaos: rate limited", type: "rate_limit_error", code: "rate_limit_exceeded" } },
              { "retry-after": String(Math.ceil(d.retryAfterMs / 1000)), "retry-after-ms": String(d.retryAfterMs) }
            ))
          }
          case "server":
            state.record({ request: d.n, fault })
            return Effect.succeed(
              jsonResponse(request, 500, { error: { message: "Chaos: internal server error", type: "server_error" } })
            )
          case "overloaded":
            state.record({ request: d.n, fault })
            return Effect.succeed(inBandOverload(request))
          case "drop_before":
            state.record({ request: d.n, fault })
            return Effect.fail(
              new HttpClientError.RequestError({
                request,
                reason: "Transport",
                cause: new Error("Chaos: the connection was reset before the response")
              })
            )
          default:
            return Effect.flatMap(effect, (response) =>
              Effect.map(
                Stream.toReadableStreamEffect(
                  faultBody(
                    response.stream,
                    fault,
                    within,
                    d.where,
                    stall,
                    !isBinary(response),
                    (at) => state.record({ request: d.n, fault, at })
                  )
                ),
                (readable) =>
                  HttpClientResponse.fromWeb(
                    request,
                    new Response(readable, { status: response.status, headers: response.headers })
                  )
              ))
        }
      }))
    return Context.make(HttpClient.HttpClient, faulty).pipe(Context.add(Log, state.log))
  }))
