import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as Http from "../../../src/internal/transport/Http.js"
import * as Transport from "../../../src/internal/transport/Transport.js"
import * as LlmError from "../../../src/LlmError.js"
import * as StreamChunk from "../../../src/StreamChunk.js"
import * as Replay from "../../../src/testing/Replay.js"
import { awaitSleepUntil, settle } from "../../support/clock.js"
import { collect, toy } from "../../support/toy.js"

// The transport's timeouts on the Effect clock: headers, then idle gaps in the body, each exact under
// TestClock (the toy line protocol is in test/support/toy.ts).
const timed = (timeouts: Transport.TimeoutOptions) => toy({ retry: { times: 0 }, timeouts })

const encoder = new TextEncoder()

/** A client whose response headers come after `delay`, then a body that sends `text` and stalls. */
const slowHeaders = (delay: Duration.DurationInput, text: string) =>
  Effect.succeed(HttpClient.make((request) =>
    Effect.as(
      Effect.sleep(delay),
      HttpClientResponse.fromWeb(
        request,
        new Response(new ReadableStream({ start: (c) => c.enqueue(encoder.encode(text)) }), { status: 200 })
      )
    )
  ))

describe("Transport timeouts", () => {
  it.effect("no response headers: timeout exactly when the headers limit passes", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(collect(timed({ headers: "5 seconds" })))
      yield* awaitSleepUntil(5_000)
      yield* TestClock.adjust("4999 millis")
      yield* settle()
      expect(fiber.unsafePoll()).toBeNull()
      yield* TestClock.adjust("1 millis")
      const chunks = yield* Fiber.join(fiber)
      expect(chunks).toStrictEqual([
        StreamChunk.error(
          LlmError.info({ code: "timeout", message: "Headers timeout: no response headers within 5s", provider: "toy" })
        )
      ])
    }).pipe(Effect.provideServiceEffect(Http.Client, slowHeaders("1 hour", ""))))

  it.effect("the idle limit starts with the body, even when shorter than what is left of the headers limit", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(collect(timed({ headers: "60 seconds", idle: "10 seconds" })))
      yield* awaitSleepUntil(30_000)
      yield* TestClock.adjust("30 seconds")
      yield* settle()
      yield* TestClock.adjust("9999 millis")
      yield* settle()
      expect(fiber.unsafePoll()).toBeNull()
      yield* TestClock.adjust("1 millis")
      const chunks = yield* Fiber.join(fiber)
      expect(chunks).toStrictEqual([
        StreamChunk.metadata("toy", "toy-1"),
        StreamChunk.textDelta("hi"),
        StreamChunk.error(
          LlmError.info({ code: "timeout", message: "Idle timeout: no data from the server for 10s", provider: "toy" })
        )
      ])
    }).pipe(Effect.provideServiceEffect(Http.Client, slowHeaders("30 seconds", "m\nt:hi\n"))))

  it.effect("keep-alive reads restart the idle timer", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(collect(timed({ idle: "10 seconds" })))
      for (const at of [8_000, 16_000, 24_000]) {
        yield* awaitSleepUntil(at)
        yield* TestClock.adjust("8 seconds")
      }
      const chunks = yield* Fiber.join(fiber)
      expect(chunks).toStrictEqual([
        StreamChunk.metadata("toy", "toy-1"),
        StreamChunk.textDelta("a"),
        StreamChunk.finish("stop", "stop")
      ])
    }).pipe(Effect.provide(Replay.layer({
      body: ["m\nt:a\n", "\n", "\n", "f:stop\n"].map((s) => encoder.encode(s)),
      pace: ["0 millis", "8 seconds", "8 seconds", "8 seconds"]
    }))))

  it.effect("a consumer slower than the idle limit does not time out: the timer runs only while it waits", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(
        Effect.flatMap(
          timed({ idle: "10 seconds" }),
          (m) => Stream.runCollect(m.stream("hi").pipe(Stream.rechunk(1), Stream.tap(() => Effect.sleep("20 seconds"))))
        )
      )
      for (let i = 1; i <= 4; i++) {
        yield* awaitSleepUntil(i * 20_000)
        yield* TestClock.adjust("20 seconds")
      }
      const chunks = [...yield* Fiber.join(fiber)]
      expect(chunks).toStrictEqual([
        StreamChunk.metadata("toy", "toy-1"),
        StreamChunk.textDelta("a"),
        StreamChunk.textDelta("b"),
        StreamChunk.finish("stop", "stop")
      ])
    }).pipe(Effect.provide(Replay.layer({ body: "m\nt:a\nt:b\nf:stop\n", split: { at: [2, 6, 10] } }))))

  // A server that sends only keep-alives would hold the stream forever: the default total limit ends it.
  const keepAlivesOnly = Replay.layer({
    body: ["m\nt:hi\n", ...Array.from({ length: 40 }, () => ":\n")].map((s) => encoder.encode(s)),
    pace: [Duration.zero, ...Array.from({ length: 40 }, () => Duration.seconds(60))]
  })

  it.effect("keep-alives alone end at the default total limit, exactly 30 minutes in", () =>
    Effect.gen(function*() {
      expect(Duration.toMillis(Transport.defaultTotalTimeout)).toBe(30 * 60_000)
      const fiber = yield* Effect.fork(collect(timed({ idle: "90 seconds" })))
      yield* awaitSleepUntil(60_000)
      yield* TestClock.adjust("1799999 millis")
      yield* settle()
      expect(fiber.unsafePoll()).toBeNull()
      yield* TestClock.adjust("1 millis")
      expect(yield* Fiber.join(fiber)).toStrictEqual([
        StreamChunk.metadata("toy", "toy-1"),
        StreamChunk.textDelta("hi"),
        StreamChunk.error(LlmError.info({
          code: "timeout",
          message: "Total timeout: the stream took longer than 30m",
          provider: "toy"
        }))
      ])
    }).pipe(Effect.provide(keepAlivesOnly)))

  it.effect("total: Duration.infinity turns the total limit off", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(collect(timed({ idle: "90 seconds", total: Duration.infinity })))
      yield* awaitSleepUntil(60_000)
      yield* TestClock.adjust("41 minutes")
      const chunks = yield* Fiber.join(fiber)
      expect(chunks).toStrictEqual([
        StreamChunk.metadata("toy", "toy-1"),
        StreamChunk.textDelta("hi"),
        StreamChunk.error(StreamChunk.truncatedError("toy"))
      ])
    }).pipe(Effect.provide(keepAlivesOnly)))
})
