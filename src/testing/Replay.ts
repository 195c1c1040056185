/**
 * `Replay`: an `HttpClient` layer that answers requests with recorded wire bytes, split into network
 * reads at chosen or random boundaries and optionally paced with `Effect.sleep` (so `TestClock`
 * drives it). The real provider decoders run unchanged, with no sockets.
 *
 * Replies are checked before anything is played: a malformed reply fails the layer with a
 * {@link ReplayError} that says which reply and what is wrong with it.
 *
 * One layer answers the several requests of an agent's run: a list of replies in order,
 * {@link sequence} (in order, refusing extra requests) or {@link route} (chosen by the request), and
 * {@link requests} shows what each request sent. `Replay.cassette` records a real provider's
 * exchanges to a file and replays them (see `Cassette.ts`).
 *
 * @example
 * ```ts
 * import { Effect, Redacted } from "effect"
 * import { LanguageModel, OpenAiChat } from "effect-llm-stream"
 * import { Replay } from "effect-llm-stream/testing"
 *
 * const body = "data: {\"id\":\"c1\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
 * const answer = LanguageModel.chat("Hello").pipe(
 *   Effect.provide(OpenAiChat.layer({ model: "m", apiKey: Redacted.make("sk-test-key-123") })),
 *   Effect.provide(Replay.layer({ body, split: { seed: 7 } })) // the real decoder, random network reads
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as Fixture from "./Fixture.js"

/**
 * Cassettes, defined in `Cassette.ts` and read here as `Replay.cassette`: a provider layer's HTTP
 * exchanges recorded to a file once, and replayed from it afterwards.
 *
 * @since 0.1.0
 */
export {
  cassette,
  CassetteError,
  CassetteExchange,
  CassetteFile,
  CassetteRequest,
  CassetteResponse
} from "./Cassette.js"
export type { CassetteMode, CassetteOptions } from "./Cassette.js"

/**
 * One scripted HTTP answer.
 *
 * @since 0.1.0
 * @category models
 */
export interface Reply {
  /** HTTP status: an integer from 200 to 599 (default 200). */
  readonly status?: number
  /** Response headers (default `content-type: text/event-stream`). */
  readonly headers?: Readonly<Record<string, string>>
  /** The body: text or bytes (split per `split`), or the reads themselves (each text or bytes). */
  readonly body: string | Uint8Array | ReadonlyArray<Uint8Array | string>
  /**
   * How to cut a text/bytes body into reads: at byte offsets (integers; out-of-range ones ignored),
   * or at random sizes of 1 to `maxRead` bytes (default 64) from an integer `seed`.
   */
  readonly split?: { readonly at: ReadonlyArray<number> } | { readonly seed: number; readonly maxRead?: number }
  /** A pause before each read: one duration for all, or one per read. */
  readonly pace?: Duration.DurationInput | ReadonlyArray<Duration.DurationInput>
  /** After the last read, keep the connection open without sending anything (a stalled server). */
  readonly stall?: boolean
  /** After the last read, the connection drops (the body fails with a network error). */
  readonly drop?: boolean
  /** A wait before the response headers arrive (a slow server), on the Effect clock. */
  readonly headersAfter?: Duration.DurationInput
}

/**
 * A request the replay client received.
 *
 * @since 0.1.0
 * @category models
 */
export interface Received {
  readonly method: string
  readonly url: string
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>
  /** The body parsed as JSON (or the raw text when it is not JSON). */
  readonly body: unknown
}

/**
 * How replies are chosen: one for every request, a list played in order (the last repeats), or a
 * function of the request and its 0-based number ({@link sequence} and {@link route} build common ones).
 *
 * @since 0.1.0
 * @category models
 */
export type Replies = Reply | ReadonlyArray<Reply> | ((request: Received, n: number) => Reply)

/**
 * The log of received requests, provided next to the client.
 *
 * @since 0.1.0
 * @category tags
 */
export class ReplayLog extends Context.Tag("effect-llm-stream/ReplayLog")<
  ReplayLog,
  { readonly requests: Effect.Effect<ReadonlyArray<Received>> }
>() {}

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/**
 * A malformed reply or list of replies, found when the layer is built: the message says which reply
 * and what is wrong with it.
 *
 * @since 0.1.0
 * @category errors
 */
export class ReplayError extends Schema.TaggedError<ReplayError>("effect-llm-stream/ReplayError")("ReplayError", {
  message: Schema.String
}) {}

/**
 * The reads of a reply's body, after splitting.
 *
 * @since 0.1.0
 * @category utils
 */
export const readsOf = (reply: Reply): ReadonlyArray<Uint8Array> => {
  const body = reply.body
  if (typeof body !== "string" && !(body instanceof Uint8Array)) {
    return body.map((read) => (typeof read === "string" ? encoder.encode(read) : read))
  }
  const bytes = typeof body === "string" ? encoder.encode(body) : body
  const split = reply.split
  if (split === undefined) return [bytes]
  return "at" in split ? Fixture.splitAt(bytes, split.at) : Fixture.splitRandom(bytes, split.seed, split.maxRead)
}

const fields: ReadonlySet<string> = new Set([
  "status",
  "headers",
  "body",
  "split",
  "pace",
  "stall",
  "drop",
  "headersAfter"
])
const nullBodyStatuses: ReadonlySet<number> = new Set([204, 205, 304])

const show = (u: unknown): string => {
  if (u === null || u === undefined) return String(u)
  if (Array.isArray(u)) return "an array"
  if (u instanceof Uint8Array) return "bytes"
  if (typeof u === "string") return JSON.stringify(u.length > 40 ? `${u.slice(0, 40)}…` : u)
  if (typeof u === "number" || typeof u === "boolean" || typeof u === "bigint") return String(u)
  return typeof u === "object" ? "an object" : `a ${typeof u}`
}

const isInteger = (u: unknown): u is number => typeof u === "number" && Number.isSafeInteger(u)
const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const durationProblem = (u: unknown, what: string): string | undefined =>
  (typeof u === "number" && !(u >= 0)) || Option.isNone(Duration.decodeUnknown(u))
    ? `${what} must be a duration such as "100 millis" or a number of milliseconds >= 0 (got ${show(u)})`
    : undefined

const splitProblem = (split: unknown, body: unknown): string | undefined => {
  if (Array.isArray(body)) return "split applies to a string or bytes body; an array body already is the reads"
  const shape = "split must be { at: [byte offsets] } or { seed: integer, maxRead?: integer >= 1 }"
  if (!isObject(split)) return `${shape} (got ${show(split)})`
  if ("at" in split) {
    if (!Array.isArray(split.at)) {
      return `split.at must be an array of integer byte offsets >= 0 (got ${show(split.at)})`
    }
    const bad = split.at.findIndex((o) => !(isInteger(o) && o >= 0))
    return bad < 0 ? undefined : `split.at[${bad}] must be an integer byte offset >= 0 (got ${show(split.at[bad])})`
  }
  if (!isInteger(split.seed)) return `${shape} (got seed ${show(split.seed)})`
  if (split.maxRead !== undefined && !(isInteger(split.maxRead) && split.maxRead >= 1)) {
    return `split.maxRead must be an integer >= 1 (got ${show(split.maxRead)})`
  }
  return undefined
}

/** What is wrong with a reply, or undefined when it can be played. */
const problemOf = (reply: unknown): string | undefined => {
  if (!isObject(reply)) return `a reply must be an object with a body (got ${show(reply)})`
  for (const key of Object.keys(reply)) {
    if (!fields.has(key)) return `unknown field "${key}" (a reply has ${[...fields].join(", ")})`
  }
  const { body, status } = reply
  if (status !== undefined && !(isInteger(status) && status >= 200 && status <= 599)) {
    return `status must be an integer from 200 to 599 (got ${show(status)})`
  }
  if (
    typeof body !== "string" && !(body instanceof Uint8Array) &&
    !(Array.isArray(body) && body.every((read) => typeof read === "string" || read instanceof Uint8Array))
  ) {
    return `body must be a string, bytes (Uint8Array) or an array of reads, each a string or bytes (got ${show(body)})`
  }
  if (
    typeof status === "number" && nullBodyStatuses.has(status) &&
    (Array.isArray(body) ? body : [body]).some((r) => r.length > 0)
  ) {
    return `a ${status} response cannot have a body`
  }
  if (reply.headers !== undefined) {
    const headers = reply.headers
    if (!isObject(headers) || !Object.values(headers).every((v) => typeof v === "string")) {
      return `headers must be an object of string values (got ${show(headers)})`
    }
    try {
      new Headers(headers as Record<string, string>)
    } catch (e) {
      return `headers are not valid HTTP headers: ${e instanceof Error ? e.message : String(e)}`
    }
  }
  if (reply.split !== undefined) {
    const problem = splitProblem(reply.split, body)
    if (problem !== undefined) return problem
  }
  if (reply.pace !== undefined) {
    const paces: ReadonlyArray<unknown> = Array.isArray(reply.pace) ? reply.pace : [reply.pace]
    for (const [i, pace] of paces.entries()) {
      const problem = durationProblem(pace, Array.isArray(reply.pace) ? `pace[${i}]` : "pace")
      if (problem !== undefined) return problem
    }
  }
  if (reply.headersAfter !== undefined) {
    const problem = durationProblem(reply.headersAfter, "headersAfter")
    if (problem !== undefined) return problem
  }
  for (const flag of ["stall", "drop"] as const) {
    if (reply[flag] !== undefined && typeof reply[flag] !== "boolean") {
      return `${flag} must be true or false (got ${show(reply[flag])})`
    }
  }
  if (reply.stall === true && reply.drop === true) return "stall and drop cannot both be set"
  return undefined
}

const malformed = (which: string, problem: string): string => `Replay: ${which} is malformed: ${problem}`

/** Checks replies given as data (a function's replies are checked per request). */
const check = (replies: unknown): string | undefined => {
  if (typeof replies === "function") return undefined
  if (Array.isArray(replies)) {
    if (replies.length === 0) return "Replay: the list of replies is empty; give at least one reply"
    for (const [i, reply] of replies.entries()) {
      const problem = problemOf(reply)
      if (problem !== undefined) return malformed(`reply ${i + 1}`, problem)
    }
    return undefined
  }
  const problem = problemOf(replies)
  return problem === undefined ? undefined : malformed("the reply", problem)
}

/**
 * The reply to request `n` (0-based), or why there is none. A function's reply is checked here; a
 * list was checked when the layer was built.
 */
const pick = (replies: Replies, request: Received, n: number): Either.Either<Reply, string> => {
  if (typeof replies === "function") {
    let reply: unknown
    try {
      reply = replies(request, n)
    } catch (e) {
      return Either.left(
        `Replay: the reply function threw for request ${n + 1}: ${e instanceof Error ? e.message : String(e)}`
      )
    }
    const problem = problemOf(reply)
    return problem === undefined ? Either.right(reply as Reply) : Either.left(malformed(`reply ${n + 1}`, problem))
  }
  if (!Array.isArray(replies)) return Either.right(replies as Reply)
  const list = replies as ReadonlyArray<Reply>
  return Either.right(list[Math.min(n, list.length - 1)]!)
}

/**
 * A reply that refuses a request: an HTTP 400 whose JSON body carries `message` where providers read
 * error messages, never retried (`x-should-retry: false`), so the stream ends at once in an
 * `invalid_request` error chunk with that message. For reply functions that meet a request they
 * cannot answer.
 *
 * @since 0.1.0
 * @category constructors
 */
export const refusal = (message: string): Reply => ({
  status: 400,
  headers: { "content-type": "application/json", "x-should-retry": "false", "x-replay-error": "refused" },
  body: JSON.stringify({ error: { type: "invalid_request_error", message }, message })
})

/**
 * Replies played strictly in order, one per request: request n gets `replies[n]`, and a request past
 * the last is refused ({@link refusal}) with "Replay: request 3 came, but the sequence has 2 replies",
 * where a plain list would repeat its last reply (and could keep an agent loop calling tools).
 *
 * @since 0.1.0
 * @category constructors
 */
export const sequence = (replies: ReadonlyArray<Reply>): (request: Received, n: number) => Reply => (_, n) =>
  n < replies.length
    ? replies[n]!
    : refusal(
      `Replay: request ${n + 1} came, but the sequence has ${replies.length} repl${replies.length === 1 ? "y" : "ies"}`
    )

/**
 * One route of {@link route}: a test on the request (and its 0-based number), and what it gets.
 *
 * @since 0.1.0
 * @category models
 */
export interface Route {
  readonly when: (request: Received, n: number) => boolean
  readonly reply: Reply | ((request: Received, n: number) => Reply)
}

/**
 * Replies chosen by the request: the first route whose `when` holds answers; a request no route
 * takes is refused ({@link refusal}) with its number, method and path.
 *
 * ```ts
 * Replay.layer(Replay.route(
 *   { when: (r) => JSON.stringify(r.body).includes("\"role\":\"tool\""), reply: answer },
 *   { when: () => true, reply: toolCall }
 * ))
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const route = (...routes: ReadonlyArray<Route>): (request: Received, n: number) => Reply => (request, n) => {
  for (const r of routes) {
    if (r.when(request, n)) return typeof r.reply === "function" ? r.reply(request, n) : r.reply
  }
  return refusal(`Replay: no route takes request ${n + 1} (${request.method} ${pathOf(request.url)})`)
}

const pathOf = (url: string): string => {
  try {
    return new URL(url).pathname
  } catch {
    return url
  }
}

const bodyStream = (reply: Reply): Stream.Stream<Uint8Array, Error> => {
  const reads = readsOf(reply)
  const pace = reply.pace
  const delayOf = (i: number): Duration.DurationInput | undefined =>
    pace === undefined ? undefined : isPaceList(pace) ? pace[i] : pace
  const played = Stream.fromIterable(reads.map((bytes, i) => [bytes, i] as const)).pipe(
    Stream.mapEffect(([bytes, i]) => {
      const d = delayOf(i)
      return d === undefined ? Effect.succeed(bytes) : Effect.as(Effect.sleep(d), bytes)
    })
  )
  if (reply.drop === true) return Stream.concat(played, Stream.fail(new Error("connection reset by peer")))
  return reply.stall === true ? Stream.concat(played, Stream.never) : played
}

const isPaceList = (
  pace: Duration.DurationInput | ReadonlyArray<Duration.DurationInput>
): pace is ReadonlyArray<Duration.DurationInput> => Array.isArray(pace)

const headersOf = (h: Readonly<Record<string, unknown>>): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(h)) if (typeof v === "string") out[k.toLowerCase()] = v
  return out
}

/**
 * A replay client and its request log. Replies given as data are checked first: a malformed one
 * fails with a {@link ReplayError} naming it. A function's replies are checked per request: a
 * malformed one (or a function that throws) answers HTTP 400 with the message, which the provider
 * turns into an `invalid_request` error chunk such as "Replay: reply 2 is malformed: status must be
 * an integer from 200 to 599 (got 42)", without a retry.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  replies: Replies
): Effect.Effect<{ readonly client: HttpClient.HttpClient; readonly log: ReplayLog["Type"] }, ReplayError> =>
  Effect.suspend(() => {
    const problem = check(replies)
    return problem === undefined
      ? Ref.make<ReadonlyArray<Received>>([])
      : Effect.fail(new ReplayError({ message: problem }))
  }).pipe(Effect.map((log) => {
    const client = HttpClient.make((request, url) =>
      Effect.gen(function*() {
        const body = request.body._tag === "Uint8Array" ? decoder.decode(request.body.body) : ""
        let parsed: unknown = body
        try {
          parsed = JSON.parse(body)
        } catch {
          // a non-JSON body is recorded as its text
        }
        const received: Received = {
          method: request.method,
          url: url.toString(),
          headers: headersOf(request.headers),
          body: parsed
        }
        const n = yield* Ref.modify(log, (all) => [all.length, [...all, received]])
        const reply = Either.getOrElse(pick(replies, received, n), refusal)
        if (reply.headersAfter !== undefined) yield* Effect.sleep(reply.headersAfter)
        const status = reply.status ?? 200
        const readable = nullBodyStatuses.has(status) ? null : yield* Stream.toReadableStreamEffect(bodyStream(reply))
        const web = new Response(readable, {
          status,
          headers: { "content-type": "text/event-stream", ...reply.headers }
        })
        return HttpClientResponse.fromWeb(request, web)
      })
    )
    return { client, log: { requests: Ref.get(log) } }
  }))

/**
 * A layer providing the replaying `HttpClient` and its {@link ReplayLog}; fails with {@link ReplayError} on a malformed reply.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (replies: Replies): Layer.Layer<HttpClient.HttpClient | ReplayLog, ReplayError> =>
  Layer.effectContext(
    Effect.map(
      make(replies),
      ({ client, log }) => Context.make(HttpClient.HttpClient, client).pipe(Context.add(ReplayLog, log))
    )
  )

/**
 * The requests the replay client in the context has received.
 *
 * @since 0.1.0
 * @category accessors
 */
export const requests: Effect.Effect<ReadonlyArray<Received>, never, ReplayLog> = Effect.flatMap(
  ReplayLog,
  (l) => l.requests
)

/**
 * A recording made by `npm run record`: the response's reads with their original boundaries and timing.
 *
 * @since 0.1.0
 * @category models
 */
export interface Recording {
  readonly version: 1
  readonly provider: string
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  /** Each network read: milliseconds since the response headers, and the bytes as base64. */
  readonly reads: ReadonlyArray<{ readonly atMs: number; readonly base64: string }>
}

/**
 * A reply that plays a recording back exactly: same reads, same gaps between them.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromRecording = (recording: Recording): Reply => {
  let prev = 0
  const pace: Array<Duration.DurationInput> = []
  for (const r of recording.reads) {
    pace.push(Duration.millis(Math.max(0, r.atMs - prev)))
    prev = r.atMs
  }
  return {
    status: recording.status,
    headers: recording.headers,
    body: recording.reads.map((r) => Uint8Array.from(Buffer.from(r.base64, "base64"))),
    pace
  }
}
