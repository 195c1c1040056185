import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Fiber, Option, Redacted, Schedule, TestClock } from "effect"
import type { LlmError } from "effect-llm-stream"
import { LanguageModel, OpenAiChat } from "effect-llm-stream"
import { Replay } from "effect-llm-stream/testing"

// The real OpenAiChat transport and decoder, answered by Replay instead of the network.
const model = OpenAiChat.layer({
  model: "gpt-4.1-mini",
  apiKey: Redacted.make("sk-test-not-a-real-key"),
  baseUrl: "http://replay.invalid/v1",
  timeouts: { idle: "10 seconds" },
  retry: { times: 1, schedule: Schedule.spaced("1 second") }
})

const event = (payload: unknown) => `data: ${JSON.stringify(payload)}\n\n`
const answer = event({ id: "c1", model: "gpt-4.1-mini", choices: [{ index: 0, delta: { content: "Hi!" } }] }) +
  event({ id: "c1", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }) +
  "data: [DONE]\n\n"

// Waits until some fiber sleeps until `ms` on the test clock (a retry's wait, a timeout's deadline).
const sleepingUntil = (ms: number) =>
  TestClock.sleeps().pipe(
    Effect.tap(() => Effect.yieldNow()),
    Effect.repeat({ until: (sleeps) => Chunk.some(sleeps, (at) => at === ms) })
  )

describe("my chat feature", () => {
  it.effect("a 429 is retried after exactly its Retry-After, and the answer arrives once", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(LanguageModel.chat("Hello"))
      yield* sleepingUntil(7_000)
      yield* TestClock.adjust("7 seconds")
      const response = yield* Fiber.join(fiber)
      expect(response.text).toBe("Hi!")
      expect(response.finishReason).toBe("stop")
      expect((yield* Replay.requests).length).toBe(2)
    }).pipe(
      Effect.provide(model),
      Effect.provide(Replay.layer([
        { status: 429, headers: { "retry-after": "7" }, body: `{"error":{"message":"Slow down"}}` },
        { body: answer }
      ]))
    ))

  it.effect("a server that goes quiet ends with a timeout exactly at the idle deadline", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(Effect.flip(LanguageModel.chat("Hello")))
      yield* sleepingUntil(10_000)
      yield* TestClock.adjust("9999 millis")
      expect(yield* Fiber.poll(fiber)).toStrictEqual(Option.none())
      yield* TestClock.adjust("1 millis")
      const error: LlmError.LlmError = yield* Fiber.join(fiber)
      expect([error.code, error.message]).toStrictEqual(["timeout", "Idle timeout: no data from the server for 10s"])
      expect(error.response?.text).toBe("Hi!")
    }).pipe(
      Effect.provide(model),
      Effect.provide(Replay.layer({ body: answer.slice(0, answer.indexOf("data:", 1)), stall: true }))
    ))
})
