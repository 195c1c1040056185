import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Schedule from "effect/Schedule"
import * as TestClock from "effect/TestClock"
import * as Retry from "../../../src/internal/transport/Retry.js"
import type * as Transport from "../../../src/internal/transport/Transport.js"
import * as LlmError from "../../../src/LlmError.js"
import * as Response from "../../../src/Response.js"
import * as StreamChunk from "../../../src/StreamChunk.js"
import * as Replay from "../../../src/testing/Replay.js"
import { awaitSleepUntil, settle } from "../../support/clock.js"
import { collect, collectResponse, lineFramer, toy } from "../../support/toy.js"

describe("Transport", () => {
  it.effect("decodes a body split into reads and ends with the provider's finish", () =>
    Effect.gen(function*() {
      const chunks = yield* collect(toy())
      expect(chunks).toStrictEqual([
        StreamChunk.metadata("toy", "toy-1"),
        StreamChunk.textDelta("Hello"),
        StreamChunk.textDelta("world"),
        StreamChunk.finish("stop", "stop")
      ])
      const requests = yield* Replay.requests
      expect(requests.length).toBe(1)
      expect(requests[0].body).toStrictEqual({ hello: "world" })
      expect(requests[0].headers["content-type"]).toBe("application/json")
    }).pipe(Effect.provide(Replay.layer({ body: "m\nt:Hello\nt:world\nf:stop\n", split: { at: [1, 3, 7, 12] } }))))

  it.effect("a 429 with retry-after: 7 then a 200 is retried at exactly 7 s, and the output appears once", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(collect(toy()))
      yield* awaitSleepUntil(7_000)
      yield* TestClock.adjust("6999 millis")
      yield* settle()
      expect((yield* Replay.requests).length).toBe(1)
      yield* TestClock.adjust("1 millis")
      const chunks = yield* Fiber.join(fiber)
      expect((yield* Replay.requests).length).toBe(2)
      expect(chunks).toStrictEqual([
        StreamChunk.metadata("toy", "toy-1"),
        StreamChunk.textDelta("once"),
        StreamChunk.finish("stop", "stop")
      ])
    }).pipe(Effect.provide(Replay.layer([
      { status: 429, headers: { "retry-after": "7" }, body: "slow down" },
      { body: "m\nt:once\nf:stop\n" }
    ]))))

  it.effect("retry-after-ms wins over retry-after, and an HTTP date is honoured", () =>
    Effect.gen(function*() {
      expect(Retry.retryAfterMs({ "retry-after-ms": "1500", "retry-after": "9" }, 0)).toBe(1500)
      expect(Retry.retryAfterMs({ "retry-after": "Thu, 01 Jan 1970 00:00:30 GMT" }, 10_000)).toBe(20_000)
      expect(Retry.retryAfterMs({ "retry-after": "soon" }, 0)).toBeUndefined()
    }))

  it.effect("a held-back metadata/usage of a failed attempt is never seen: in-band overload before output is retried", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(collect(toy({ retry: { schedule: Schedule.spaced("2 seconds") } })))
      yield* awaitSleepUntil(2_000)
      yield* TestClock.adjust("2 seconds")
      const chunks = yield* Fiber.join(fiber)
      expect(chunks).toStrictEqual([
        StreamChunk.metadata("toy", "toy-1"),
        StreamChunk.usage({ inputTokens: 5, outputTokens: 1, totalTokens: 6 }),
        StreamChunk.textDelta("second"),
        StreamChunk.finish("stop", "stop")
      ])
      expect((yield* Replay.requests).length).toBe(2)
    }).pipe(Effect.provide(Replay.layer([
      { body: "m\nu:3\ne:overloaded\n" },
      { body: "m\nu:5\nt:second\nf:stop\n" }
    ]))))

  it.effect("a 500 after the first chunk is not retried: the stream ends in an error chunk", () =>
    Effect.gen(function*() {
      const chunks = yield* collect(toy())
      expect(chunks).toStrictEqual([
        StreamChunk.metadata("toy", "toy-1"),
        StreamChunk.textDelta("partial"),
        StreamChunk.error(LlmError.info({ code: "server", message: "in-band server", provider: "toy" }))
      ])
      expect((yield* Replay.requests).length).toBe(1)
    }).pipe(Effect.provide(Replay.layer({ body: "m\nt:partial\ne:server\nt:never\n" }))))

  it.effect("non-retryable statuses fail at once with the mapped error and retry facts", () =>
    Effect.gen(function*() {
      const response = yield* collectResponse(toy())
      expect(response.error).toStrictEqual({
        code: "server",
        message: "bad",
        status: 400,
        retryable: false,
        provider: "toy",
        requestId: "req_123"
      })
      expect((yield* Replay.requests).length).toBe(1)
    }).pipe(Effect.provide(Replay.layer({ status: 400, headers: { "x-request-id": "req_123" }, body: "bad" }))))

  it.effect("x-should-retry: false stops a retry the status would allow", () =>
    Effect.gen(function*() {
      const response = yield* collectResponse(toy())
      expect(response.error?.status).toBe(503)
      expect(response.error?.retryable).toBe(false)
      expect((yield* Replay.requests).length).toBe(1)
    }).pipe(Effect.provide(Replay.layer({ status: 503, headers: { "x-should-retry": "false" }, body: "no" }))))

  it.effect("retries stop after `times`, and the last error is the terminal chunk", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(
        collectResponse(toy({ retry: { times: 1, schedule: Schedule.spaced("1 second") } }))
      )
      yield* awaitSleepUntil(1_000)
      yield* TestClock.adjust("1 second")
      const response = yield* Fiber.join(fiber)
      expect(response.error?.code).toBe("server")
      expect(response.error?.status).toBe(502)
      expect(response.error?.message).toBe("attempt")
      expect((yield* Replay.requests).length).toBe(2)
    }).pipe(Effect.provide(Replay.layer({ status: 502, body: "attempt" }))))

  it.effect("a stalled body ends with timeout exactly when the idle limit passes", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(collect(toy({ retry: { times: 0 }, timeouts: { idle: "10 seconds" } })))
      yield* awaitSleepUntil(10_000)
      yield* TestClock.adjust("9999 millis")
      yield* settle()
      expect(fiber.unsafePoll()).toBeNull()
      yield* TestClock.adjust("1 millis")
      const chunks = yield* Fiber.join(fiber)
      expect(chunks.map((c) => c.type)).toStrictEqual(["metadata", "text-delta", "error"])
      const last = chunks[2]
      expect(last.type === "error" && last.error.code).toBe("timeout")
      expect(last.type === "error" && last.error.message).toBe("Idle timeout: no data from the server for 10s")
    }).pipe(Effect.provide(Replay.layer({ body: "m\nt:start\n", stall: true }))))

  it.effect("the total limit covers the waits between attempts: a long Retry-After ends at the limit, not after it", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(collect(toy({ timeouts: { total: "10 seconds" } })))
      yield* awaitSleepUntil(10_000)
      yield* TestClock.adjust("9999 millis")
      yield* settle()
      expect(fiber.unsafePoll()).toBeNull()
      yield* TestClock.adjust("1 millis")
      expect(yield* Fiber.join(fiber)).toStrictEqual([
        StreamChunk.error(LlmError.info({
          code: "timeout",
          message: "Total timeout: the stream took longer than 10s",
          provider: "toy"
        }))
      ])
      expect((yield* Replay.requests).length).toBe(1)
    }).pipe(Effect.provide(Replay.layer({ status: 429, headers: { "retry-after": "60" }, body: "slow down" }))))

  it.effect("the total timeout ends even a trickling stream", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(collect(toy({ timeouts: { total: "2500 millis" } })))
      yield* awaitSleepUntil(1_000)
      yield* TestClock.adjust("1 second")
      yield* awaitSleepUntil(2_000)
      yield* TestClock.adjust("1 second")
      yield* settle()
      yield* TestClock.adjust("500 millis")
      const chunks = yield* Fiber.join(fiber)
      expect(chunks).toStrictEqual([
        StreamChunk.metadata("toy", "toy-1"),
        StreamChunk.textDelta("1"),
        StreamChunk.error(LlmError.info({
          code: "timeout",
          message: "Total timeout: the stream took longer than 2s 500ms",
          provider: "toy"
        }))
      ])
    }).pipe(Effect.provide(Replay.layer({
      body: "m\nt:1\nt:2\nt:3\nf:stop\n",
      split: { at: [2, 6, 10, 14] },
      pace: "1 second"
    }))))

  it.effect("a body that ends without a terminal chunk ends with truncated", () =>
    Effect.gen(function*() {
      const chunks = yield* collect(toy())
      expect(chunks[chunks.length - 1]).toStrictEqual(
        StreamChunk.error(
          LlmError.info({
            code: "truncated",
            message: "The stream ended without the provider's end marker",
            provider: "toy"
          })
        )
      )
    }).pipe(Effect.provide(Replay.layer({ body: "m\nt:cut off" }))))
})

describe("Transport: what is and is not retried", () => {
  it.effect("a connection dropped before any output is retried; the answer appears once", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(collect(toy({ retry: { schedule: Schedule.spaced("1 second") } })))
      yield* awaitSleepUntil(1_000)
      yield* TestClock.adjust("1 second")
      expect(yield* Fiber.join(fiber)).toStrictEqual([
        StreamChunk.metadata("toy", "toy-1"),
        StreamChunk.textDelta("ok"),
        StreamChunk.finish("stop", "stop")
      ])
      expect((yield* Replay.requests).length).toBe(2)
    }).pipe(Effect.provide(Replay.layer([{ body: "m\n", drop: true }, { body: "m\nt:ok\nf:stop\n" }]))))

  it.effect("a connection dropped after output is not retried: the partial output then a network error", () =>
    Effect.gen(function*() {
      const chunks = yield* collect(toy())
      expect(chunks.slice(0, 2)).toStrictEqual([StreamChunk.metadata("toy", "toy-1"), StreamChunk.textDelta("part")])
      const last = chunks[2]
      expect(chunks.length).toBe(3)
      expect(last.type === "error" && [last.error.code, last.error.provider]).toStrictEqual(["network", "toy"])
      expect((yield* Replay.requests).length).toBe(1)
    }).pipe(Effect.provide(Replay.layer({ body: "m\nt:part\n", drop: true }))))

  it.effect("x-should-retry: true retries a status that would not be retried", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(collect(toy({ retry: { schedule: Schedule.spaced("1 second") } })))
      yield* awaitSleepUntil(1_000)
      yield* TestClock.adjust("1 second")
      expect((yield* Fiber.join(fiber)).map((c) => c.type)).toStrictEqual(["metadata", "text-delta", "finish"])
      expect((yield* Replay.requests).length).toBe(2)
    }).pipe(Effect.provide(Replay.layer([
      { status: 400, headers: { "x-should-retry": "true" }, body: "try again" },
      { body: "m\nt:ok\nf:stop\n" }
    ]))))

  it.effect("a server asking for more than 60 s is retried after 60 s exactly", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(collect(toy()))
      yield* awaitSleepUntil(60_000)
      yield* TestClock.adjust("60 seconds")
      expect((yield* Fiber.join(fiber)).map((c) => c.type)).toStrictEqual(["metadata", "text-delta", "finish"])
      expect((yield* Replay.requests).length).toBe(2)
    }).pipe(Effect.provide(Replay.layer([
      { status: 429, headers: { "retry-after": "600" }, body: "later" },
      { body: "m\nt:ok\nf:stop\n" }
    ]))))

  it.effect("a framing failure (an event over the size cap) ends the stream with protocol and is not retried", () =>
    Effect.gen(function*() {
      const model = toy({
        framer: () => {
          const inner = lineFramer()
          let failed = false
          return {
            push: (bytes) => {
              if (bytes.length > 8) failed = true
              return failed ? [] : inner.push(bytes)
            },
            end: () => (failed ? [] : inner.end()),
            get error() {
              return failed
                ? LlmError.info({ code: "protocol", message: "An event exceeded the 8 bytes limit" })
                : undefined
            }
          }
        }
      })
      const chunks = yield* collect(model)
      expect(chunks).toStrictEqual([
        StreamChunk.metadata("toy", "toy-1"),
        StreamChunk.textDelta("a"),
        StreamChunk.error(
          LlmError.info({ code: "protocol", message: "An event exceeded the 8 bytes limit", provider: "toy" })
        )
      ])
      expect((yield* Replay.requests).length).toBe(1)
    }).pipe(
      Effect.provide(Replay.layer({
        body: ["m\nt:a\n", "t:way-too-long-line\n"].map((s) => new TextEncoder().encode(s))
      }))
    ))

  /** The toy line framer, recording the size of each piece it is given. */
  const spied = (pushed: Array<number>): Transport.Framer<string> => {
    const inner = lineFramer()
    return {
      push: (bytes) => {
        pushed.push(bytes.length)
        return inner.push(bytes)
      },
      end: () => inner.end(),
      error: undefined
    }
  }
  const firstRead = new TextEncoder().encode("m\nt:first\n" + "t:x\n".repeat(300) + "f:stop\n")
  // 2,003 bytes of metadata and usage lines (no content) before the first text, which the second piece holds.
  const lateRead = new TextEncoder().encode(
    "m\n" + "u:1\n".repeat(499) + "u:12\n" + "t:go\n" + "t:x\n".repeat(1000) + "f:stop\n"
  )

  it.effect("a read holding the first content is framed a piece at a time until it shows, then whole; nothing is lost", () =>
    Effect.gen(function*() {
      // One read: the metadata and the first text in its first bytes, 300 more lines after.
      const pushed: Array<number> = []
      let pushedAtFirst = -1
      const model = toy({ framer: () => spied(pushed) })
      const response = yield* Effect.flatMap(model, (m) =>
        m.stream("hi").pipe(Response.collectWith((c) => {
          if (c.type === "text-delta" && pushedAtFirst === -1) pushedAtFirst = pushed.reduce((a, b) => a + b, 0)
        })))
      expect(pushedAtFirst).toBe(1024)
      // The rest of the read in one piece once the first chunk was handed over.
      expect(pushed).toStrictEqual([1024, firstRead.length - 1024])
      expect(response.text).toBe("first" + "x".repeat(300))
      expect(response.finishReason).toBe("stop")
    }).pipe(Effect.provide(Replay.layer({ body: [firstRead] }))))

  it.effect("a read whose first content lies past the first piece is framed in doubling pieces up to it", () =>
    Effect.gen(function*() {
      const pushed: Array<number> = []
      const model = toy({ framer: () => spied(pushed) })
      const chunks = yield* collect(model)
      expect(pushed).toStrictEqual([1024, 2048, lateRead.length - 3072])
      expect(chunks.filter((c) => c.type === "text-delta").length).toBe(1001)
      expect(chunks.filter((c) => c.type === "usage").length).toBe(500)
      expect(chunks[chunks.length - 1]).toStrictEqual(StreamChunk.finish("stop", "stop"))
    }).pipe(Effect.provide(Replay.layer({ body: [lateRead] }))))

  it.effect("the retry policy uses the server's wait (capped at 60 s) instead of the backoff, for `times` retries", () =>
    Effect.gen(function*() {
      const e = (retryAfterMs?: number) =>
        LlmError.make({ code: "rate_limit", message: "x", ...(retryAfterMs === undefined ? {} : { retryAfterMs }) })
      const policy = Retry.policy({ times: 3, schedule: Schedule.spaced("2 seconds") })
      // `run` stops at the fourth input, where the policy says "done" (reported as a zero delay).
      const delays = yield* Schedule.run(Schedule.delays(policy), 0, [e(120_000), e(1_500), e(), e(10), e(10)])
      expect([...delays].map(Duration.toMillis)).toStrictEqual([60_000, 1_500, 2_000, 0])
    }))
})

describe("Transport: header timeout", () => {
  it.effect("a server that sends no headers for 60 s is timed out at exactly 60 s and retried", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(collect(toy({ retry: { schedule: Schedule.spaced("1 second") } })))
      yield* awaitSleepUntil(60_000)
      yield* TestClock.adjust("59999 millis")
      yield* settle()
      expect((yield* Replay.requests).length).toBe(1)
      yield* TestClock.adjust("1 millis")
      yield* awaitSleepUntil(61_000)
      yield* TestClock.adjust("1 second")
      expect((yield* Fiber.join(fiber)).map((c) => c.type)).toStrictEqual(["metadata", "text-delta", "finish"])
      expect((yield* Replay.requests).length).toBe(2)
    }).pipe(Effect.provide(Replay.layer([
      { headersAfter: "10 minutes", body: "m\nt:late\nf:stop\n" },
      { body: "m\nt:ok\nf:stop\n" }
    ]))))

  /** The toy line framer, counting how many were made. */
  const counted = (made: { n: number }) => (): Transport.Framer<string> => {
    made.n++
    return lineFramer()
  }

  it.effect("an attempt's framer and decoder are made while its request waits for headers, once", () =>
    Effect.gen(function*() {
      const made = { n: 0 }
      const fiber = yield* Effect.fork(collect(toy({ framer: counted(made) })))
      // The headers are held back on the test clock; the event loop turns meanwhile.
      yield* awaitSleepUntil(5_000)
      yield* settle()
      expect(made.n).toBe(1)
      yield* TestClock.adjust("5 seconds")
      expect(yield* Fiber.join(fiber)).toStrictEqual([
        StreamChunk.metadata("toy", "toy-1"),
        StreamChunk.textDelta("late"),
        StreamChunk.finish("stop", "stop")
      ])
      expect(made.n).toBe(1)
    }).pipe(Effect.provide(Replay.layer({ headersAfter: "5 seconds", body: "m\nt:late\nf:stop\n" }))))

  it.effect("a retried attempt gets a framer of its own: one per attempt, whenever its headers come", () =>
    Effect.gen(function*() {
      const made = { n: 0 }
      const fiber = yield* Effect.fork(
        collect(toy({ framer: counted(made), retry: { schedule: Schedule.spaced("1 second") } }))
      )
      yield* awaitSleepUntil(1_000)
      yield* TestClock.adjust("1 second")
      expect(yield* Fiber.join(fiber)).toStrictEqual([
        StreamChunk.metadata("toy", "toy-1"),
        StreamChunk.textDelta("second"),
        StreamChunk.finish("stop", "stop")
      ])
      expect(made.n).toBe(2)
    }).pipe(Effect.provide(Replay.layer([
      { status: 503, body: "busy" },
      { body: "m\nt:second\nf:stop\n" }
    ]))))

  it.effect("a framer that throws while the request is in flight ends the stream in its error chunk, thrown nowhere else", () =>
    Effect.gen(function*() {
      let calls = 0
      const framer = (): Transport.Framer<string> => {
        calls++
        throw new Error("the framer broke")
      }
      const fiber = yield* Effect.fork(collectResponse(toy({ framer })))
      yield* awaitSleepUntil(5_000)
      yield* settle()
      // Made once in the wait (and thrown there, caught), made again when the body is read.
      expect(calls).toBe(1)
      yield* TestClock.adjust("5 seconds")
      const response = yield* Fiber.join(fiber)
      expect(calls).toBe(2)
      expect(response.text).toBe("")
      expect(response.finishReason).toBe("error")
      expect(response.error?.code).toBe("unknown")
      expect(response.error?.message).toBe("Internal defect: the framer broke")
    }).pipe(Effect.provide(Replay.layer({ headersAfter: "5 seconds", body: "m\nt:never\nf:stop\n" }))))
})
