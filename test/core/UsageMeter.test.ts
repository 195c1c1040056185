import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as LanguageModel from "../../src/LanguageModel.js"
import * as LlmError from "../../src/LlmError.js"
import * as StreamChunk from "../../src/StreamChunk.js"
import * as TestModel from "../../src/testing/TestModel.js"
import * as UsageMeter from "../../src/UsageMeter.js"

const runStream = (request: string) => Effect.map(Stream.runCollect(LanguageModel.stream(request)), Chunk.toArray)

const cached: TestModel.Script = [
  StreamChunk.metadata("test", "alpha", "r1"),
  StreamChunk.usage({
    inputTokens: 110,
    outputTokens: 10,
    totalTokens: 120,
    cacheReadTokens: 80,
    cacheWriteTokens: 20
  }),
  StreamChunk.cacheRead(80),
  StreamChunk.cacheWrite(20),
  StreamChunk.textDelta("one"),
  StreamChunk.finish("stop")
]
const plain: TestModel.Script = [
  StreamChunk.textDelta("two"),
  StreamChunk.usage({ inputTokens: 5, outputTokens: 7, totalTokens: 12, reasoningTokens: 3 }),
  StreamChunk.finish("stop")
]
const failure = LlmError.make({ code: "server", message: "boom", status: 500 })
const failing: TestModel.Script = [
  StreamChunk.metadata("test", "alpha"),
  StreamChunk.textDelta("thr"),
  StreamChunk.usage({ inputTokens: 4, outputTokens: 2, totalTokens: 6 }),
  TestModel.fail(failure)
]

const afterFirst: UsageMeter.Totals = {
  requests: 1,
  errors: 0,
  inputTokens: 110,
  outputTokens: 10,
  cacheReadTokens: 80,
  cacheWriteTokens: 20,
  reasoningTokens: 0,
  byModel: {
    // The key is the model the service was built with ("test-model"), not the "alpha" the response names.
    "test:test-model": {
      requests: 1,
      errors: 0,
      inputTokens: 110,
      outputTokens: 10,
      cacheReadTokens: 80,
      cacheWriteTokens: 20,
      reasoningTokens: 0
    }
  }
}
const afterSecond: UsageMeter.Totals = {
  requests: 2,
  errors: 0,
  inputTokens: 115,
  outputTokens: 17,
  cacheReadTokens: 80,
  cacheWriteTokens: 20,
  reasoningTokens: 3,
  byModel: {
    "test:test-model": {
      requests: 2,
      errors: 0,
      inputTokens: 115,
      outputTokens: 17,
      cacheReadTokens: 80,
      cacheWriteTokens: 20,
      reasoningTokens: 3
    }
  }
}
const afterThird: UsageMeter.Totals = {
  requests: 3,
  errors: 1,
  inputTokens: 119,
  outputTokens: 19,
  cacheReadTokens: 80,
  cacheWriteTokens: 20,
  reasoningTokens: 3,
  byModel: {
    // one model, one key: its failure is filed with its successes
    "test:test-model": {
      requests: 3,
      errors: 1,
      inputTokens: 119,
      outputTokens: 19,
      cacheReadTokens: 80,
      cacheWriteTokens: 20,
      reasoningTokens: 3
    }
  }
}

const threeResponses = Layer.merge(TestModel.layer({ responses: [cached, plain, failing] }), UsageMeter.layer)

describe("UsageMeter", () => {
  it.effect("counts requests, errors and every token counter, in total and per provider:model", () =>
    Effect.gen(function*() {
      expect(yield* UsageMeter.snapshot).toStrictEqual(UsageMeter.emptyTotals)
      const first = yield* runStream("1")
      expect(first).toStrictEqual(cached)
      expect(yield* UsageMeter.snapshot).toStrictEqual(afterFirst)
      const second = yield* runStream("2")
      expect(second).toStrictEqual(plain)
      expect(yield* UsageMeter.snapshot).toStrictEqual(afterSecond)
      const third = yield* runStream("3")
      expect(third).toStrictEqual([
        StreamChunk.metadata("test", "alpha"),
        StreamChunk.textDelta("thr"),
        StreamChunk.usage({ inputTokens: 4, outputTokens: 2, totalTokens: 6 }),
        { type: "error", error: { code: "server", message: "boom", status: 500, retryable: true } }
      ])
      expect(yield* UsageMeter.snapshot).toStrictEqual(afterThird)
    }).pipe(Effect.provide(threeResponses)))

  it.effect("cache chunks report the meter's running total", () =>
    Effect.gen(function*() {
      const first = yield* runStream("a")
      const second = yield* runStream("b")
      expect(first.filter((c) => c.type === "cache-read" || c.type === "cache-write")).toStrictEqual([
        { type: "cache-read", cacheReadTokens: 80, accumulated: 80 },
        { type: "cache-write", cacheWriteTokens: 20, accumulated: 20 }
      ])
      expect(second).toStrictEqual([
        StreamChunk.metadata("test", "alpha", "r1"),
        StreamChunk.usage({
          inputTokens: 110,
          outputTokens: 10,
          totalTokens: 120,
          cacheReadTokens: 80,
          cacheWriteTokens: 20
        }),
        { type: "cache-read", cacheReadTokens: 80, accumulated: 160 },
        { type: "cache-write", cacheWriteTokens: 20, accumulated: 40 },
        StreamChunk.textDelta("one"),
        StreamChunk.finish("stop")
      ])
      const totals = yield* UsageMeter.snapshot
      expect(totals.cacheReadTokens).toBe(160)
      expect(totals.cacheWriteTokens).toBe(40)
      expect(totals.requests).toBe(2)
    }).pipe(Effect.provide(Layer.merge(TestModel.layer({ responses: [cached] }), UsageMeter.layer))))

  it.effect("changes sees the initial totals and every update, in order", () =>
    Effect.gen(function*() {
      const subscribed = yield* Deferred.make<void>()
      const watcher = yield* UsageMeter.changes.pipe(
        Stream.tap(() => Deferred.succeed(subscribed, undefined)),
        Stream.take(5),
        Stream.runCollect,
        Effect.fork
      )
      yield* Deferred.await(subscribed)
      yield* runStream("1")
      yield* runStream("2")
      yield* runStream("3")
      yield* UsageMeter.reset
      const seen = Chunk.toArray(yield* Fiber.join(watcher))
      expect(seen).toStrictEqual([UsageMeter.emptyTotals, afterFirst, afterSecond, afterThird, UsageMeter.emptyTotals])
    }).pipe(Effect.provide(threeResponses)))

  it.effect("reset sets every counter back to zero", () =>
    Effect.gen(function*() {
      yield* runStream("1")
      yield* runStream("2")
      expect(yield* UsageMeter.snapshot).toStrictEqual(afterSecond)
      yield* UsageMeter.reset
      expect(yield* UsageMeter.snapshot).toStrictEqual({
        requests: 0,
        errors: 0,
        inputTokens: 0,
        outputTokens: 0,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        reasoningTokens: 0,
        byModel: {}
      })
      // the third script answers the third request; counting restarts from zero
      yield* runStream("3")
      expect(yield* UsageMeter.snapshot).toStrictEqual({
        requests: 1,
        errors: 1,
        inputTokens: 4,
        outputTokens: 2,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        reasoningTokens: 0,
        byModel: {
          "test:test-model": {
            requests: 1,
            errors: 1,
            inputTokens: 4,
            outputTokens: 2,
            cacheReadTokens: 0,
            cacheWriteTokens: 0,
            reasoningTokens: 0
          }
        }
      })
    }).pipe(Effect.provide(threeResponses)))

  it.effect("a stream stopped early is still a request: counted once, with the usage it saw, not as an error", () =>
    Effect.gen(function*() {
      const taken = yield* Effect.map(Stream.runCollect(LanguageModel.stream("1").pipe(Stream.take(2))), Chunk.toArray)
      expect(taken).toStrictEqual(cached.slice(0, 2))
      const sawUsage: UsageMeter.Counters = {
        requests: 1,
        errors: 0,
        inputTokens: 110,
        outputTokens: 10,
        cacheReadTokens: 80,
        cacheWriteTokens: 20,
        reasoningTokens: 0
      }
      expect(yield* UsageMeter.snapshot).toStrictEqual({ ...sawUsage, byModel: { "test:test-model": sawUsage } })
      // stopped before any usage: one request, nothing else
      const first = yield* Effect.map(Stream.runCollect(LanguageModel.stream("2").pipe(Stream.take(1))), Chunk.toArray)
      expect(first).toStrictEqual([StreamChunk.textDelta("two")])
      const twoRequests = { ...sawUsage, requests: 2 }
      expect(yield* UsageMeter.snapshot).toStrictEqual({ ...twoRequests, byModel: { "test:test-model": twoRequests } })
    }).pipe(Effect.provide(threeResponses)))

  it.effect("a stream taken up to and including its terminal chunk is counted once", () =>
    Effect.gen(function*() {
      const all = yield* Effect.map(
        Stream.runCollect(LanguageModel.stream("1").pipe(Stream.take(cached.length))),
        Chunk.toArray
      )
      expect(all).toStrictEqual(cached)
      expect(yield* UsageMeter.snapshot).toStrictEqual(afterFirst)
    }).pipe(Effect.provide(threeResponses)))

  it.effect("an interrupted stream is a request, with the usage it saw", () =>
    Effect.gen(function*() {
      const seen = yield* Deferred.make<void>()
      const fiber = yield* LanguageModel.stream("x").pipe(
        Stream.tap((c) => c.type === "usage" ? Deferred.succeed(seen, undefined) : Effect.void),
        Stream.runDrain,
        Effect.fork
      )
      yield* Deferred.await(seen)
      expect(yield* UsageMeter.snapshot).toStrictEqual(UsageMeter.emptyTotals)
      yield* Fiber.interrupt(fiber)
      const counters: UsageMeter.Counters = { ...UsageMeter.zeroCounters, requests: 1, inputTokens: 9, outputTokens: 1 }
      expect(yield* UsageMeter.snapshot).toStrictEqual({ ...counters, byModel: { "acme:big-1": counters } })
    }).pipe(Effect.provide(Layer.merge(
      TestModel.layer({
        provider: "acme",
        model: "big-1",
        responses: [[
          StreamChunk.metadata("acme", "big-1-2025-06-01"),
          StreamChunk.textDelta("a"),
          StreamChunk.usage({ inputTokens: 9, outputTokens: 1, totalTokens: 10 }),
          TestModel.stall
        ]]
      }),
      UsageMeter.layer
    ))))

  it.effect("successes and failures of one model share the key it was built with, whatever the response names", () =>
    Effect.gen(function*() {
      yield* runStream("ok")
      yield* runStream("fails before any chunk")
      yield* runStream("fails after metadata")
      const counters: UsageMeter.Counters = {
        ...UsageMeter.zeroCounters,
        requests: 3,
        errors: 2,
        inputTokens: 2,
        outputTokens: 1,
        // gpt-4.1-mini's list price: 2 input tokens at $0.40 and 1 output token at $1.60 per million.
        cost: 0.0000024
      }
      expect(yield* UsageMeter.snapshot).toStrictEqual({ ...counters, byModel: { "openai:gpt-4.1-mini": counters } })
    }).pipe(Effect.provide(Layer.merge(
      TestModel.layer({
        provider: "openai",
        model: "gpt-4.1-mini",
        responses: [
          [
            StreamChunk.metadata("openai", "gpt-4.1-mini-2025-04-14", "r1"),
            StreamChunk.textDelta("hi"),
            StreamChunk.usage({ inputTokens: 2, outputTokens: 1, totalTokens: 3 }),
            StreamChunk.finish("stop")
          ],
          [TestModel.fail(LlmError.make({ code: "rate_limit", message: "slow down", status: 429 }))],
          [
            StreamChunk.metadata("openai", "gpt-4.1-mini-2025-04-14", "r3"),
            TestModel.fail(LlmError.make({ code: "server", message: "boom", status: 500 }))
          ]
        ]
      }),
      UsageMeter.layer
    ))))

  it.effect("without the meter layer the stream is unchanged", () =>
    Effect.gen(function*() {
      const first = yield* runStream("a")
      const second = yield* runStream("b")
      expect(first).toStrictEqual(cached)
      expect(second).toStrictEqual(cached)
      expect(second.filter((c) => c.type === "cache-read")).toStrictEqual([
        { type: "cache-read", cacheReadTokens: 80, accumulated: 80 }
      ])
    }).pipe(Effect.provide(TestModel.layer({ responses: [cached] }))))

  it("add is pure and keys counters by provider:model", () => {
    const once = UsageMeter.add(UsageMeter.emptyTotals, "openai:gpt", {
      inputTokens: 3,
      outputTokens: 4,
      totalTokens: 7
    }, false)
    const twice = UsageMeter.add(once, "openai:gpt", undefined, true)
    expect(UsageMeter.emptyTotals).toStrictEqual({ ...UsageMeter.zeroCounters, byModel: {} })
    expect(twice).toStrictEqual({
      requests: 2,
      errors: 1,
      inputTokens: 3,
      outputTokens: 4,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
      byModel: {
        "openai:gpt": {
          requests: 2,
          errors: 1,
          inputTokens: 3,
          outputTokens: 4,
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
          reasoningTokens: 0
        }
      }
    })
  })

  it.effect("record adds one finished response", () =>
    Effect.gen(function*() {
      yield* UsageMeter.record("x:y", { inputTokens: 1, outputTokens: 2, totalTokens: 3, reasoningTokens: 1 }, false)
      expect(yield* UsageMeter.snapshot).toStrictEqual({
        requests: 1,
        errors: 0,
        inputTokens: 1,
        outputTokens: 2,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        reasoningTokens: 1,
        byModel: {
          "x:y": {
            requests: 1,
            errors: 0,
            inputTokens: 1,
            outputTokens: 2,
            cacheReadTokens: 0,
            cacheWriteTokens: 0,
            reasoningTokens: 1
          }
        }
      })
    }).pipe(Effect.provide(UsageMeter.layer)))
})

describe("UsageMeter counts what cache chunks report", () => {
  it.effect("a cache-read chunk with no cacheReadTokens in the usage still reaches the totals", () =>
    Effect.gen(function*() {
      yield* runStream("a")
      const second = yield* runStream("b")
      expect(second.find((c) => c.type === "cache-read")).toStrictEqual(StreamChunk.cacheRead(30, 60))
      const totals = yield* UsageMeter.snapshot
      expect([totals.requests, totals.inputTokens, totals.outputTokens, totals.cacheReadTokens]).toStrictEqual([
        2,
        100,
        4,
        60
      ])
    }).pipe(Effect.provide(Layer.mergeAll(
      TestModel.layer({
        responses: [[
          StreamChunk.textDelta("x"),
          StreamChunk.usage({ inputTokens: 50, outputTokens: 2, totalTokens: 52 }),
          StreamChunk.cacheRead(30),
          StreamChunk.finish("stop")
        ]]
      }),
      UsageMeter.layer
    ))))
})

describe("UsageMeter with hostile counts", () => {
  const MAX = Number.MAX_SAFE_INTEGER
  const counters = (n: number, requests: number): UsageMeter.Counters => ({
    requests,
    errors: 0,
    inputTokens: n,
    outputTokens: n,
    cacheReadTokens: n,
    cacheWriteTokens: n,
    reasoningTokens: n
  })

  it("add skips counts that are not safe non-negative integers", () => {
    const hostile = {
      inputTokens: 1e308,
      outputTokens: Number.NaN,
      totalTokens: Infinity,
      cacheReadTokens: -1,
      cacheWriteTokens: 0.5,
      reasoningTokens: 2 ** 53
    }
    const totals = UsageMeter.add(UsageMeter.emptyTotals, "p:m", hostile, false)
    expect(totals).toStrictEqual({ ...counters(0, 1), byModel: { "p:m": counters(0, 1) } })
    expect(JSON.parse(JSON.stringify(totals))).toStrictEqual(totals)
  })

  it("add saturates every counter at Number.MAX_SAFE_INTEGER", () => {
    const huge = {
      inputTokens: MAX,
      outputTokens: MAX,
      totalTokens: MAX,
      cacheReadTokens: MAX,
      cacheWriteTokens: MAX,
      reasoningTokens: MAX
    }
    const once = UsageMeter.add(UsageMeter.emptyTotals, "p:m", huge, false)
    const thrice = UsageMeter.add(UsageMeter.add(once, "p:m", huge, false), "p:m", huge, false)
    expect(thrice).toStrictEqual({ ...counters(MAX, 3), byModel: { "p:m": counters(MAX, 3) } })
  })

  it.effect("a stream's hostile usage and cache chunks never put Infinity or NaN in chunks or totals", () =>
    Effect.gen(function*() {
      const first = yield* runStream("a")
      const second = yield* runStream("b")
      // The script's own usage chunk passes as written; what the meter makes (cache chunks, totals) is clean.
      expect(second).toStrictEqual([
        StreamChunk.textDelta("x"),
        StreamChunk.usage({ inputTokens: MAX, outputTokens: 1e308, totalTokens: Infinity }),
        StreamChunk.cacheRead(MAX, MAX),
        StreamChunk.cacheWrite(0, 0),
        StreamChunk.finish("stop")
      ])
      expect(first.filter((c) => c.type === "cache-read" || c.type === "cache-write")).toStrictEqual([
        StreamChunk.cacheRead(MAX, MAX),
        StreamChunk.cacheWrite(0, 0)
      ])
      const totals = yield* UsageMeter.snapshot
      const perModel = { ...counters(0, 2), inputTokens: MAX, cacheReadTokens: MAX }
      expect(totals).toStrictEqual({ ...perModel, byModel: { "test:test-model": perModel } })
    }).pipe(Effect.provide(Layer.mergeAll(
      TestModel.layer({
        responses: [[
          StreamChunk.textDelta("x"),
          // A script may say anything; the meter must stay finite whatever it says.
          StreamChunk.usage({ inputTokens: MAX, outputTokens: 1e308, totalTokens: Infinity }),
          StreamChunk.cacheRead(MAX),
          StreamChunk.cacheWrite(Number.NaN),
          StreamChunk.finish("stop")
        ]]
      }),
      UsageMeter.layer
    ))))
})
