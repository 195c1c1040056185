import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Fiber, Layer, Redacted, Schedule, TestClock } from "effect"
import { LanguageModel, OpenAiChat } from "effect-llm-stream"
import { Chaos, Replay, TestModel } from "effect-llm-stream/testing"

const event = (payload: unknown) => `data: ${JSON.stringify(payload)}\n\n`
const answer = event({ id: "c1", model: "gpt-4.1-mini", choices: [{ index: 0, delta: { content: "Hi!" } }] }) +
  event({ id: "c1", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }) +
  "data: [DONE]\n\n"

// The real OpenAiChat transport and decoder over Replay, with Chaos between them.
const model = OpenAiChat.layer({
  model: "gpt-4.1-mini",
  apiKey: Redacted.make("sk-test-not-a-real-key"),
  baseUrl: "http://replay.invalid/v1",
  retry: { times: 3, schedule: Schedule.spaced("2 seconds") }
})

// Waits until some fiber sleeps until `ms` on the test clock (a retry's wait).
const sleepingUntil = (ms: number) =>
  TestClock.sleeps().pipe(
    Effect.tap(() => Effect.yieldNow()),
    Effect.repeat({ until: (sleeps) => Chunk.some(sleeps, (at) => at === ms) })
  )

describe("my chat feature under Chaos", () => {
  it.effect("survives a 429, a dropped connection and an in-band overload: the answer once", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(LanguageModel.chat("Hello"))
      yield* sleepingUntil(1_000) // the 429's Retry-After: 1 s
      yield* TestClock.adjust("1 second")
      yield* sleepingUntil(3_000) // the drop: the 2 s backoff
      yield* TestClock.adjust("2 seconds")
      yield* sleepingUntil(5_000) // the overload: the 2 s backoff
      yield* TestClock.adjust("2 seconds")
      const response = yield* Fiber.join(fiber)
      expect(response.text).toBe("Hi!")
      expect((yield* Chaos.injected).map((i) => i.fault)).toStrictEqual(["rate_limit", "drop_before", "overloaded"])
      expect((yield* Replay.requests).length).toBe(1) // only the fourth attempt reached the server
    }).pipe(
      Effect.provide(model),
      Effect.provide(
        Chaos.httpClient({ seed: 1, rate: 0, plan: ["rate_limit", "drop_before", "overloaded"] }).pipe(
          Layer.provideMerge(Replay.layer({ body: answer }))
        )
      )
    ))

  it.effect("a fallback answers when the primary is overloaded before any output", () =>
    Effect.gen(function*() {
      const response = yield* LanguageModel.chat("Hello")
      expect([response.text, response.finishReason]).toStrictEqual(["From the backup", "stop"])
    }).pipe(
      Effect.provide(LanguageModel.fallback(
        Chaos.layer({ seed: 1, rate: 1, faults: ["overloaded", "rate_limit", "server"] }).pipe(
          Layer.provide(TestModel.layer({ model: "primary", responses: [] }))
        ),
        TestModel.layer({
          model: "backup",
          responses: [[{ type: "text-delta", delta: "From the backup" }, { type: "finish", reason: "stop" }]]
        })
      ))
    ))
})
