/**
 * Chaos: the HttpClient form under every family's real layer (over Replay, and over a loopback
 * server for cancellation), the LanguageModel form over TestModel, determinism by seed, and the
 * Effect clock.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as LanguageModel from "../../src/LanguageModel.js"
import * as StreamChunk from "../../src/StreamChunk.js"
import * as Chaos from "../../src/testing/Chaos.js"
import * as Replay from "../../src/testing/Replay.js"
import * as TestModel from "../../src/testing/TestModel.js"
import * as UsageMeter from "../../src/UsageMeter.js"
import { type Extra, families } from "../reliability/families.js"
import { awaitSleepUntil, settle } from "../support/clock.js"
import { make as hostile } from "../support/hostile.js"

type Chunks = ReadonlyArray<StreamChunk.StreamChunk>

const collect = Effect.map(Stream.runCollect(LanguageModel.stream("hi")), (c): Chunks => [...c])

const oneTerminal = (chunks: Chunks): StreamChunk.Of<"finish"> | StreamChunk.Of<"error"> => {
  expect(chunks.filter(StreamChunk.isTerminal).length).toBe(1)
  const last = chunks[chunks.length - 1]!
  if (!StreamChunk.isTerminal(last)) return expect.fail(`the last chunk is ${last.type}`)
  return last
}

const codeOf = (chunks: Chunks): string => {
  const last = oneTerminal(chunks)
  return last.type === "error" ? last.error.code : `finish:${last.reason}`
}

const quick: Extra = { retry: { times: 1, schedule: Schedule.spaced("1 millis") } }
const none: Extra = { retry: { times: 0 } }

for (const family of families) {
  const whole = family.frame([...family.head, family.text("là"), ...family.tail])
  const wholeChunks: Chunks = [...family.headChunks, StreamChunk.textDelta("là"), ...family.tailChunks]
  /** One run of the family's layer over Replay under Chaos; the chunks, the replies played, the log. */
  const run = (options: Chaos.Options, extra: Extra) =>
    Effect.gen(function*() {
      const chunks = yield* collect
      return {
        chunks,
        replayed: (yield* Replay.requests).length,
        injected: yield* Chaos.injected,
        requests: yield* Effect.flatMap(Chaos.Log, (l) => l.requests)
      }
    }).pipe(
      Effect.provide(family.layer("http://replay.invalid", extra)),
      Effect.provide(
        Chaos.httpClient(options).pipe(
          Layer.provideMerge(Replay.layer({ body: whole, headers: { "content-type": family.contentType } }))
        )
      )
    )

  describe(`Chaos.httpClient under ${family.name}`, () => {
    for (
      const [fault, code, status] of [
        ["rate_limit", "rate_limit", 429],
        ["server", "server", 500],
        ["overloaded", "overloaded", undefined],
        ["drop_before", "network", undefined]
      ] as const
    ) {
      it.live(`${fault} before output: retried, the answer once; without a retry, ${code}`, () =>
        Effect.gen(function*() {
          const options: Chaos.Options = { seed: 1, rate: 0, plan: [fault], retryAfter: "2 millis" }
          const retried = yield* run(options, quick)
          expect(retried.chunks).toStrictEqual(wholeChunks)
          expect([retried.replayed, retried.requests]).toStrictEqual([1, 2])
          expect(retried.injected).toStrictEqual([
            fault === "rate_limit" ? { request: 0, fault, retryAfterMs: 2 } : { request: 0, fault }
          ])
          const failed = yield* run(options, none)
          expect(failed.chunks.length).toBe(1)
          const last = oneTerminal(failed.chunks)
          if (last.type !== "error") return expect.fail("expected an error")
          // In-band, no status; but Gemini's error says its code (503), and Cohere has no in-band overload (HTTP 529).
          const wantStatus = fault !== "overloaded"
            ? status
            : family.name === "Cohere"
            ? 529
            : family.name === "Gemini"
            ? 503
            : undefined
          expect([last.error.code, last.error.retryable, last.error.status, last.error.provider]).toStrictEqual([
            code,
            true,
            wantStatus,
            family.provider
          ])
          if (fault === "rate_limit") expect(last.error.retryAfterMs).toBe(2)
          expect(failed.replayed).toBe(0)
        }))
    }

    for (
      const [fault, code] of [["drop_after", "network"], ["truncate", "truncated"], ["malformed", "protocol"]] as const
    ) {
      it.live(`${fault} mid-body, after the first text: the chunks so far, then ${code}, not retried`, () =>
        Effect.gen(function*() {
          const { chunks, injected, replayed } = yield* run({ seed: 3, rate: 0, plan: [fault] }, quick)
          expect(replayed).toBe(1)
          expect(injected.length).toBe(1)
          expect(injected[0]!.fault).toBe(fault)
          // what came before the error is the uncut answer's beginning, with its first text
          const body = chunks.slice(0, -1)
          expect(wholeChunks.slice(0, body.length)).toStrictEqual(body)
          expect(body.some((c) => c.type === "text-delta")).toBe(true)
          expect(codeOf(chunks)).toBe(code)
        }))
    }

    it.live("stall shorter than the idle timeout: the whole answer", () =>
      Effect.gen(function*() {
        const { chunks, injected } = yield* run({ seed: 4, rate: 0, plan: ["stall"], stall: "5 millis" }, quick)
        expect(chunks).toStrictEqual(wholeChunks)
        expect(injected.map((i) => i.fault)).toStrictEqual(["stall"])
      }))
  })
}

// --- the Effect clock ----------------------------------------------------------------------------

const chatFamily = families[0]!
const chatWhole = chatFamily.frame([...chatFamily.head, chatFamily.text("là"), ...chatFamily.tail])
const replayChat = Replay.layer({ body: chatWhole, split: { seed: 1, maxRead: 40 } })

describe("Chaos.httpClient on the TestClock", () => {
  it.effect("a 429's Retry-After (3 s, drawn from its range) is honoured to the millisecond", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(LanguageModel.chat("hi"))
      yield* awaitSleepUntil(3_000)
      yield* TestClock.adjust("2999 millis")
      yield* settle()
      expect(yield* Fiber.poll(fiber)).toStrictEqual(Option.none())
      expect((yield* Replay.requests).length).toBe(0)
      yield* TestClock.adjust("1 millis")
      const response = yield* Fiber.join(fiber)
      expect(response.text).toBe("Hé là")
      expect(yield* Chaos.injected).toStrictEqual([{ request: 0, fault: "rate_limit", retryAfterMs: 3_000 }])
    }).pipe(
      Effect.provide(chatFamily.layer("http://replay.invalid", { retry: { times: 1 } })),
      Effect.provide(
        Chaos.httpClient({ seed: 9, rate: 0, plan: ["rate_limit"], retryAfter: ["3 seconds", "3 seconds"] }).pipe(
          Layer.provideMerge(replayChat)
        )
      )
    ))

  it.effect("a stall of 30 s under a 10 s idle timeout: the text so far, then timeout at the deadline", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(collect)
      yield* awaitSleepUntil(10_000)
      yield* TestClock.adjust("10 seconds")
      const chunks = yield* Fiber.join(fiber)
      const last = oneTerminal(chunks)
      expect(last.type === "error" && [last.error.code, last.error.message]).toStrictEqual([
        "timeout",
        "Idle timeout: no data from the server for 10s"
      ])
      const [injection] = yield* Chaos.injected
      expect(injection!.fault).toBe("stall")
      // the chunks before are the uncut answer's beginning
      expect(chunks.slice(0, -1)).toStrictEqual(
        [...chatFamily.headChunks, StreamChunk.textDelta("là"), ...chatFamily.tailChunks].slice(0, chunks.length - 1)
      )
    }).pipe(
      Effect.provide(
        chatFamily.layer("http://replay.invalid", { retry: { times: 0 }, timeouts: { idle: "10 seconds" } })
      ),
      Effect.provide(Chaos.httpClient({ seed: 2, rate: 0, plan: ["stall"] }).pipe(Layer.provideMerge(replayChat)))
    ))
})

describe("Chaos.httpClient over a loopback server", () => {
  it.live("interrupting a stalled faulted body closes the connection", () =>
    Effect.gen(function*() {
      const server = yield* hostile((_req, res) => {
        res.writeHead(200, { "content-type": "text/event-stream" })
        res.write(chatWhole.subarray(0, 200))
        // never ends: only the client can close it
      })
      const fiber = yield* collect.pipe(
        Effect.provide(chatFamily.layer(server.url, { retry: { times: 0 } })),
        Effect.provide(Chaos.httpClient({ seed: 5, rate: 0, plan: ["stall"], stall: "1 hour", within: 100 })),
        Effect.provide(FetchHttpClient.layer),
        Effect.fork
      )
      for (let i = 0; i < 200 && server.open() === 0; i++) yield* Effect.sleep("5 millis")
      expect(server.open()).toBe(1)
      yield* Fiber.interrupt(fiber)
      for (let i = 0; i < 200 && server.open() > 0; i++) yield* Effect.sleep("5 millis")
      expect([server.open(), server.aborted()]).toStrictEqual([0, 1])
    }).pipe(Effect.scoped))
})

// --- determinism ---------------------------------------------------------------------------------

const answer = [
  StreamChunk.textDelta("a"),
  StreamChunk.textDelta("b"),
  StreamChunk.textDelta("c"),
  StreamChunk.finish("stop")
]
const testModel = TestModel.layer({ provider: "test", model: "t", responses: [answer] })

/** The injections of 120 requests made one after another under `options`. */
const hundredTwenty = (options: Chaos.Options) =>
  Effect.gen(function*() {
    for (let i = 0; i < 120; i++) yield* collect
    return yield* Chaos.injected
  }).pipe(Effect.provide(Chaos.layer(options).pipe(Layer.provide(testModel))))

describe("Chaos: determinism", () => {
  it.effect("the same seed injects the same faults into the same requests; another seed, others", () =>
    Effect.gen(function*() {
      const faults = ["rate_limit", "server", "overloaded", "drop_before"] as const
      const a = yield* hundredTwenty({ seed: 7, rate: 0.25, faults })
      const b = yield* hundredTwenty({ seed: 7, rate: 0.25, faults })
      const c = yield* hundredTwenty({ seed: 8, rate: 0.25, faults })
      expect(b).toStrictEqual(a)
      expect(c).not.toStrictEqual(a)
      // a quarter of 120, give or take what a fair draw gives; every fault drawn
      expect(a.length).toBeGreaterThan(18)
      expect(a.length).toBeLessThan(42)
      expect(new Set(a.map((i) => i.fault))).toStrictEqual(new Set(faults))
      expect(yield* hundredTwenty({ seed: 7, rate: 0 })).toStrictEqual([])
      expect((yield* hundredTwenty({ seed: 7, rate: 1, faults: ["server"] })).length).toBe(120)
    }))

  it.live("concurrent requests get the faults their number draws, whatever the order they run in", () =>
    Effect.gen(function*() {
      const serial = yield* hundredTwenty({ seed: 11, rate: 0.5, faults: ["server", "overloaded"] })
      const concurrent = yield* Effect.forEach(Array.from({ length: 120 }), () => collect, { concurrency: 50 }).pipe(
        Effect.zipRight(Chaos.injected),
        Effect.provide(
          Chaos.layer({ seed: 11, rate: 0.5, faults: ["server", "overloaded"] }).pipe(Layer.provide(testModel))
        )
      )
      expect(concurrent).toStrictEqual(serial)
    }))
})

// --- the LanguageModel form ----------------------------------------------------------------------

const withChaos = (options: Chaos.Options) => <A, R>(effect: Effect.Effect<A, never, R>) =>
  effect.pipe(Effect.provide(Chaos.layer(options).pipe(Layer.provide(testModel))))

describe("Chaos.layer around a LanguageModel", () => {
  for (
    const [fault, error] of [
      ["rate_limit", {
        code: "rate_limit",
        message: "Chaos: rate limited",
        status: 429,
        retryable: true,
        retryAfterMs: 1000,
        provider: "test"
      }],
      ["server", {
        code: "server",
        message: "Chaos: internal server error",
        status: 500,
        retryable: true,
        provider: "test"
      }],
      ["overloaded", { code: "overloaded", message: "Chaos: overloaded", retryable: true, provider: "test" }],
      ["drop_before", {
        code: "network",
        message: "Chaos: the connection was reset",
        retryable: true,
        provider: "test"
      }]
    ] as const
  ) {
    it.effect(`${fault}: the model is not asked; one ${error.code} error`, () =>
      Effect.gen(function*() {
        expect(yield* collect).toStrictEqual([{ type: "error", error }])
        expect(yield* TestModel.requests).toStrictEqual([])
      }).pipe(Effect.provide(Chaos.layer({ seed: 1, rate: 0, plan: [fault] })), Effect.provide(testModel)))
  }

  for (
    const [fault, code] of [["drop_after", "network"], ["truncate", "truncated"], ["malformed", "protocol"]] as const
  ) {
    it.effect(`${fault}: the chunks up to the content chunk it strikes after, then ${code}`, () =>
      Effect.gen(function*() {
        const chunks = yield* collect
        const [injection] = yield* Chaos.injected
        const at = injection!.at!
        expect(chunks.slice(0, -1)).toStrictEqual(answer.slice(0, at))
        expect(codeOf(chunks)).toBe(code)
      }).pipe(withChaos({ seed: 1, rate: 0, plan: [fault] })))
  }

  it.effect("stall: the chunks wait 30 s (TestClock), then come, all of them", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(collect)
      yield* awaitSleepUntil(30_000)
      yield* TestClock.adjust("30 seconds")
      expect(yield* Fiber.join(fiber)).toStrictEqual(answer)
    }).pipe(withChaos({ seed: 1, rate: 0, plan: ["stall"] })))

  it.effect("a fault injected without the model counts as a failed request in the UsageMeter", () =>
    Effect.gen(function*() {
      yield* collect
      yield* collect
      const totals = yield* UsageMeter.snapshot
      expect([totals.requests, totals.errors]).toStrictEqual([2, 1])
      expect(totals.byModel["test:t"]).toMatchObject({ requests: 2, errors: 1 })
    }).pipe(withChaos({ seed: 1, rate: 0, plan: ["server", "none"] }), Effect.provide(UsageMeter.layer)))
})
