import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as LanguageModel from "../../src/LanguageModel.js"
import * as LlmError from "../../src/LlmError.js"
import * as StreamChunk from "../../src/StreamChunk.js"
import * as TestModel from "../../src/testing/TestModel.js"

/** Forks a consumer that appends every chunk it sees to a Ref. */
const watch = (request: string) =>
  Effect.gen(function*() {
    const seen = yield* Ref.make<ReadonlyArray<StreamChunk.StreamChunk>>([])
    const fiber = yield* LanguageModel.stream(request).pipe(
      Stream.runForEach((c) => Ref.update(seen, (all) => [...all, c])),
      Effect.fork
    )
    return { seen, fiber }
  })

const collect = (request: string) => Effect.map(Stream.runCollect(LanguageModel.stream(request)), Chunk.toArray)

describe("TestModel", () => {
  it.effect("plays a chunk per interval on the TestClock", () =>
    Effect.gen(function*() {
      const { fiber, seen } = yield* watch("count")
      yield* TestClock.adjust("2500 millis")
      expect(yield* Ref.get(seen)).toStrictEqual([StreamChunk.textDelta("1"), StreamChunk.textDelta("2")])
      yield* TestClock.adjust("500 millis")
      expect(yield* Ref.get(seen)).toStrictEqual([
        StreamChunk.textDelta("1"),
        StreamChunk.textDelta("2"),
        StreamChunk.textDelta("3")
      ])
      yield* TestClock.adjust("2 seconds")
      yield* Fiber.join(fiber)
      expect(yield* Ref.get(seen)).toStrictEqual([
        StreamChunk.textDelta("1"),
        StreamChunk.textDelta("2"),
        StreamChunk.textDelta("3"),
        StreamChunk.finish("stop")
      ])
    }).pipe(Effect.provide(TestModel.layer({
      interval: "1 second",
      responses: [[
        StreamChunk.textDelta("1"),
        StreamChunk.textDelta("2"),
        StreamChunk.textDelta("3"),
        StreamChunk.finish("stop")
      ]]
    }))))

  it.effect("sleep steps pause the script", () =>
    Effect.gen(function*() {
      const { fiber, seen } = yield* watch("x")
      yield* TestClock.adjust("9 seconds")
      expect(yield* Ref.get(seen)).toStrictEqual([StreamChunk.textDelta("a")])
      yield* TestClock.adjust("1 second")
      yield* Fiber.join(fiber)
      expect(yield* Ref.get(seen)).toStrictEqual([
        StreamChunk.textDelta("a"),
        StreamChunk.textDelta("b"),
        StreamChunk.finish("stop")
      ])
    }).pipe(Effect.provide(TestModel.layer({
      responses: [[
        StreamChunk.textDelta("a"),
        TestModel.sleep("10 seconds"),
        StreamChunk.textDelta("b"),
        StreamChunk.finish("stop")
      ]]
    }))))

  it.effect("a stall with an idle timeout ends in a timeout error only once the clock moves", () =>
    Effect.gen(function*() {
      const { fiber, seen } = yield* watch("x")
      yield* TestClock.adjust("4999 millis")
      expect(yield* Ref.get(seen)).toStrictEqual([StreamChunk.textDelta("a")])
      expect(fiber.unsafePoll()).toBe(null)
      yield* TestClock.adjust("1 millis")
      yield* Fiber.join(fiber)
      expect(yield* Ref.get(seen)).toStrictEqual([
        StreamChunk.textDelta("a"),
        {
          type: "error",
          error: { code: "timeout", message: "Idle timeout: nothing for 5s", retryable: true, provider: "test" }
        }
      ])
    }).pipe(Effect.provide(TestModel.layer({
      responses: [[StreamChunk.textDelta("a"), TestModel.stall]],
      timeouts: { idle: "5 seconds" }
    }))))

  it.effect("after the idle timeout the stream ends with an error chunk of code timeout", () =>
    Effect.gen(function*() {
      const { fiber, seen } = yield* watch("x")
      yield* TestClock.adjust("5 seconds")
      yield* Fiber.join(fiber)
      const all = yield* Ref.get(seen)
      expect(all[all.length - 1]).toStrictEqual({
        type: "error",
        error: { code: "timeout", message: "Idle timeout: nothing for 5s", retryable: true, provider: "test" }
      })
      expect(all.length).toBe(2)
    }).pipe(Effect.provide(TestModel.layer({
      responses: [[StreamChunk.textDelta("a"), TestModel.stall]],
      timeouts: { idle: "5 seconds" }
    }))))

  it.effect("the idle timeout restarts after each chunk", () =>
    Effect.gen(function*() {
      const { fiber, seen } = yield* watch("x")
      yield* TestClock.adjust("4 seconds")
      yield* TestClock.adjust("4 seconds")
      expect(yield* Ref.get(seen)).toStrictEqual([StreamChunk.textDelta("a"), StreamChunk.textDelta("b")])
      yield* TestClock.adjust("4 seconds")
      expect(yield* Ref.get(seen)).toStrictEqual([
        StreamChunk.textDelta("a"),
        StreamChunk.textDelta("b"),
        StreamChunk.textDelta("c")
      ])
      // the interval comes before every chunk, the finish chunk too
      yield* TestClock.adjust("4 seconds")
      yield* Fiber.join(fiber)
      expect(yield* Ref.get(seen)).toStrictEqual([
        StreamChunk.textDelta("a"),
        StreamChunk.textDelta("b"),
        StreamChunk.textDelta("c"),
        StreamChunk.finish("stop")
      ])
    }).pipe(Effect.provide(TestModel.layer({
      interval: "4 seconds",
      responses: [[
        StreamChunk.textDelta("a"),
        StreamChunk.textDelta("b"),
        StreamChunk.textDelta("c"),
        StreamChunk.finish("stop")
      ]],
      timeouts: { idle: "5 seconds" }
    }))))

  it.effect("a total timeout ends a slow stream with code timeout", () =>
    Effect.gen(function*() {
      const { fiber, seen } = yield* watch("x")
      yield* TestClock.adjust("2 seconds")
      expect(yield* Ref.get(seen)).toStrictEqual([StreamChunk.textDelta("a"), StreamChunk.textDelta("b")])
      expect(fiber.unsafePoll()).toBe(null)
      yield* TestClock.adjust("1 second")
      expect(yield* Ref.get(seen)).toStrictEqual([
        StreamChunk.textDelta("a"),
        StreamChunk.textDelta("b"),
        StreamChunk.textDelta("c")
      ])
      expect(fiber.unsafePoll()).toBe(null)
      yield* TestClock.adjust("500 millis")
      yield* Fiber.join(fiber)
      expect(yield* Ref.get(seen)).toStrictEqual([
        StreamChunk.textDelta("a"),
        StreamChunk.textDelta("b"),
        StreamChunk.textDelta("c"),
        {
          type: "error",
          error: {
            code: "timeout",
            message: "Total timeout: the stream took longer than 3s 500ms",
            retryable: true,
            provider: "test"
          }
        }
      ])
    }).pipe(Effect.provide(TestModel.layer({
      interval: "1 second",
      responses: [[
        StreamChunk.textDelta("a"),
        StreamChunk.textDelta("b"),
        StreamChunk.textDelta("c"),
        StreamChunk.textDelta("d"),
        StreamChunk.finish("stop")
      ]],
      timeouts: { total: "3500 millis" }
    }))))

  it.effect("a fail step ends the stream with its error chunk", () =>
    Effect.gen(function*() {
      expect(yield* collect("x")).toStrictEqual([
        StreamChunk.textDelta("a"),
        {
          type: "error",
          error: {
            code: "rate_limit",
            message: "slow down",
            status: 429,
            retryable: true,
            retryAfterMs: 2000,
            provider: "acme"
          }
        }
      ])
    }).pipe(Effect.provide(TestModel.layer({
      provider: "acme",
      responses: [[
        StreamChunk.textDelta("a"),
        TestModel.fail(
          LlmError.make({ code: "rate_limit", message: "slow down", status: 429, retryAfterMs: 2000, provider: "acme" })
        ),
        StreamChunk.textDelta("never")
      ]]
    }))))

  it.effect("a die step ends the stream with an unknown error chunk", () =>
    Effect.gen(function*() {
      expect(yield* collect("x")).toStrictEqual([
        StreamChunk.textDelta("a"),
        {
          type: "error",
          error: { code: "unknown", message: "Internal defect: decoder bug", retryable: false, provider: "test" }
        }
      ])
    }).pipe(Effect.provide(TestModel.layer({
      responses: [[StreamChunk.textDelta("a"), TestModel.die(new Error("decoder bug"))]]
    }))))

  it.effect("a script without a terminal chunk ends truncated", () =>
    Effect.gen(function*() {
      expect(yield* collect("x")).toStrictEqual([
        StreamChunk.textDelta("a"),
        {
          type: "error",
          error: {
            code: "truncated",
            message: "The stream ended without the provider's end marker",
            retryable: false,
            provider: "test"
          }
        }
      ])
    }).pipe(Effect.provide(TestModel.layer({ responses: [[StreamChunk.textDelta("a")]] }))))

  it.effect("plays successive scripts for successive requests (the last repeats) and records every request", () =>
    Effect.gen(function*() {
      expect(yield* collect("one")).toStrictEqual([StreamChunk.textDelta("1"), StreamChunk.finish("stop")])
      expect(yield* collect("two")).toStrictEqual([StreamChunk.textDelta("2"), StreamChunk.finish("stop")])
      expect(yield* collect("three")).toStrictEqual([StreamChunk.textDelta("2"), StreamChunk.finish("stop")])
      const full = {
        messages: [{ role: "system" as const, content: "be brief" }, { role: "user" as const, content: "four" }],
        temperature: 0.2,
        maxTokens: 64
      }
      yield* collect("four").pipe(Effect.zipRight(Stream.runDrain(LanguageModel.stream(full))))
      expect(yield* TestModel.requests).toStrictEqual([
        { messages: [{ role: "user", content: "one" }] },
        { messages: [{ role: "user", content: "two" }] },
        { messages: [{ role: "user", content: "three" }] },
        { messages: [{ role: "user", content: "four" }] },
        full
      ])
    }).pipe(Effect.provide(TestModel.layer({
      responses: [
        [StreamChunk.textDelta("1"), StreamChunk.finish("stop")],
        [StreamChunk.textDelta("2"), StreamChunk.finish("stop")]
      ]
    }))))

  it.effect("a function of the request chooses the script", () =>
    Effect.gen(function*() {
      expect(yield* collect("ping")).toStrictEqual([StreamChunk.textDelta("0:ping"), StreamChunk.finish("stop")])
      expect(yield* collect("pong")).toStrictEqual([StreamChunk.textDelta("1:pong"), StreamChunk.finish("stop")])
    }).pipe(Effect.provide(TestModel.layer({
      responses: (request, n) => {
        const last = request.messages[request.messages.length - 1]
        const text = last.role === "user" && typeof last.content === "string" ? last.content : "?"
        return [StreamChunk.textDelta(`${n}:${text}`), StreamChunk.finish("stop")]
      }
    }))))

  it.effect("a bare string request becomes one user message", () =>
    Effect.gen(function*() {
      yield* collect("What is 2 + 2?")
      expect(yield* TestModel.requests).toStrictEqual([{ messages: [{ role: "user", content: "What is 2 + 2?" }] }])
    }).pipe(Effect.provide(TestModel.layer({ responses: [[StreamChunk.finish("stop")]] }))))

  it.effect("a script that calls a tool and says stop reports tool_calls, in the chunks and the Response", () =>
    Effect.gen(function*() {
      const call = {
        index: 0,
        id: "call_1",
        name: "get_weather",
        arguments: { city: "Paris" },
        rawArguments: "{\"city\":\"Paris\"}"
      }
      expect(yield* collect("weather?")).toStrictEqual([
        StreamChunk.toolCall(call),
        { type: "finish", reason: "tool_calls", rawReason: "stop" }
      ])
      const response = yield* LanguageModel.chat("weather?")
      expect([response.finishReason, response.rawFinishReason, response.toolCalls]).toStrictEqual([
        "tool_calls",
        "stop",
        [call]
      ])
    }).pipe(Effect.provide(TestModel.layer({
      responses: [[
        StreamChunk.toolCall({
          index: 0,
          id: "call_1",
          name: "get_weather",
          arguments: { city: "Paris" },
          rawArguments: "{\"city\":\"Paris\"}"
        }),
        StreamChunk.finish("stop", "stop")
      ]]
    }))))

  it.effect("fail takes the fields of an LlmError as well as an LlmError", () =>
    Effect.gen(function*() {
      const error = {
        type: "error",
        error: { code: "rate_limit", message: "slow down", status: 429, retryable: true, retryAfterMs: 2000 }
      }
      expect(yield* collect("x")).toStrictEqual([StreamChunk.textDelta("a"), error])
      expect(yield* collect("y")).toStrictEqual([StreamChunk.textDelta("a"), error])
      expect(TestModel.fail({ code: "server", message: "down" })).toStrictEqual(
        TestModel.fail(LlmError.make({ code: "server", message: "down" }))
      )
    }).pipe(Effect.provide(TestModel.layer({
      responses: [
        [
          StreamChunk.textDelta("a"),
          TestModel.fail({ code: "rate_limit", message: "slow down", status: 429, retryAfterMs: 2000 })
        ],
        [
          StreamChunk.textDelta("a"),
          TestModel.fail(LlmError.make({ code: "rate_limit", message: "slow down", status: 429, retryAfterMs: 2000 }))
        ]
      ]
    }))))

  it.effect("responses may be one script, played for every request", () =>
    Effect.gen(function*() {
      const answer = [StreamChunk.textDelta("same"), StreamChunk.finish("stop")]
      expect(yield* collect("one")).toStrictEqual(answer)
      expect(yield* collect("two")).toStrictEqual(answer)
      expect((yield* TestModel.requests).length).toBe(2)
    }).pipe(Effect.provide(TestModel.layer({
      responses: [StreamChunk.textDelta("same"), StreamChunk.finish("stop")]
    }))))

  it.effect("names its provider and model", () =>
    Effect.gen(function*() {
      const model = yield* LanguageModel.LanguageModel
      expect([model.provider, model.model]).toStrictEqual(["test", "test-model"])
    }).pipe(Effect.provide(TestModel.layer({ responses: [] }))))
})
