/**
 * `Replay`: an `HttpClient` layer that answers requests with recorded wire bytes, split into network
 * reads at chosen or random boundaries and optionally paced with `Effect.sleep` (so `TestClock`
 * drives it). The real provider decoders run unchanged, with no sockets.
 *
 * @since 0.1.0
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import * as Fixture from "./Fixture.js"

/** One scripted HTTP answer. */
export interface Reply {
  /** HTTP status (default 200). */
  readonly status?: number
  readonly headers?: Readonly<Record<string, string>>
  /** The body: text or bytes (split per `split`), or the reads themselves. */
  readonly body: string | Uint8Array | ReadonlyArray<Uint8Array>
  /** How to cut a text/bytes body into reads: offsets, or a random split from a seed. */
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

/** A request the replay client received. */
export interface Received {
  readonly method: string
  readonly url: string
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>
  /** The body parsed as JSON (or the raw text when it is not JSON). */
  readonly body: unknown
}

/** How replies are chosen: one for every request, a list played in order (the last repeats), or a function. */
export type Replies = Reply | ReadonlyArray<Reply> | ((request: Received, n: number) => Reply)

/** The log of received requests, provided next to the client. */
export class ReplayLog extends Context.Tag("effect-llm-stream/ReplayLog")<
  ReplayLog,
  { readonly requests: Effect.Effect<ReadonlyArray<Received>> }
>() {}

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** The reads of a reply's body, after splitting. */
export const readsOf = (reply: Reply): ReadonlyArray<Uint8Array> => {
  if (Array.isArray(reply.body)) return reply.body as ReadonlyArray<Uint8Array>
  const bytes = typeof reply.body === "string" ? encoder.encode(reply.body) : (reply.body as Uint8Array)
  const split = reply.split
  if (split === undefined) return [bytes]
  return "at" in split ? Fixture.splitAt(bytes, split.at) : Fixture.splitRandom(bytes, split.seed, split.maxRead)
}

const pick = (replies: Replies, request: Received, n: number): Reply => {
  if (typeof replies === "function") return replies(request, n)
  if (!Array.isArray(replies)) return replies as Reply
  const list = replies as ReadonlyArray<Reply>
  const reply = list[Math.min(n, list.length - 1)]
  if (reply === undefined) throw new Error("Replay was given an empty list of replies")
  return reply
}

const bodyStream = (reply: Reply): Stream.Stream<Uint8Array, Error> => {
  const reads = readsOf(reply)
  const pace = reply.pace
  const delayOf = (i: number): Duration.DurationInput | undefined =>
    pace === undefined ? undefined : Array.isArray(pace) ? (pace as ReadonlyArray<Duration.DurationInput>)[i] : (pace as Duration.DurationInput)
  const played = Stream.fromIterable(reads.map((bytes, i) => [bytes, i] as const)).pipe(
    Stream.mapEffect(([bytes, i]) => {
      const d = delayOf(i)
      return d === undefined ? Effect.succeed(bytes) : Effect.as(Effect.sleep(d), bytes)
    })
  )
  if (reply.drop === true) return Stream.concat(played, Stream.fail(new Error("connection reset by peer")))
  return reply.stall === true ? Stream.concat(played, Stream.never) : played
}

const headersOf = (h: Readonly<Record<string, unknown>>): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(h)) if (typeof v === "string") out[k.toLowerCase()] = v
  return out
}

/** A replay client and its request log. */
export const make = (replies: Replies): Effect.Effect<{ readonly client: HttpClient.HttpClient; readonly log: ReplayLog["Type"] }> =>
  Effect.map(Ref.make<ReadonlyArray<Received>>([]), (log) => {
    const client = HttpClient.make((request, url) =>
      Effect.gen(function*() {
        const body = request.body._tag === "Uint8Array" ? decoder.decode(request.body.body) : ""
        let parsed: unknown = body
        try {
          parsed = JSON.parse(body)
        } catch {
          // a non-JSON body is recorded as its text
        }
        const received: Received = { method: request.method, url: url.toString(), headers: headersOf(request.headers), body: parsed }
        const n = yield* Ref.modify(log, (all) => [all.length, [...all, received]])
        const reply = pick(replies, received, n)
        if (reply.headersAfter !== undefined) yield* Effect.sleep(reply.headersAfter)
        const readable = yield* Stream.toReadableStreamEffect(bodyStream(reply))
        const web = new Response(readable, {
          status: reply.status ?? 200,
          headers: { "content-type": "text/event-stream", ...reply.headers }
        })
        return HttpClientResponse.fromWeb(request, web)
      })
    )
    return { client, log: { requests: Ref.get(log) } }
  })

/** A layer providing the replaying `HttpClient` and its {@link ReplayLog}. */
export const layer = (replies: Replies): Layer.Layer<HttpClient.HttpClient | ReplayLog> =>
  Layer.effectContext(
    Effect.map(make(replies), ({ client, log }) =>
      Context.make(HttpClient.HttpClient, client).pipe(Context.add(ReplayLog, log)))
  )

/** The requests the replay client in the context has received. */
export const requests: Effect.Effect<ReadonlyArray<Received>, never, ReplayLog> = Effect.flatMap(ReplayLog, (l) => l.requests)

/** A recording made by `npm run record`: the response's reads with their original boundaries and timing. */
export interface Recording {
  readonly version: 1
  readonly provider: string
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  /** Each network read: milliseconds since the response headers, and the bytes as base64. */
  readonly reads: ReadonlyArray<{ readonly atMs: number; readonly base64: string }>
}

/** A reply that plays a recording back exactly: same reads, same gaps between them. */
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
