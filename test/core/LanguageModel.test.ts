import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as LanguageModel from "../../src/LanguageModel.js"
import * as LlmError from "../../src/LlmError.js"
import type * as Response from "../../src/Response.js"
import * as StreamChunk from "../../src/StreamChunk.js"
import * as TestModel from "../../src/testing/TestModel.js"

const collect = (stream: Stream.Stream<StreamChunk.StreamChunk>) => Effect.map(Stream.runCollect(stream), Chunk.toArray)

const question = { messages: [{ role: "user" as const, content: "q" }] }

const ok: TestModel.Script = [
  StreamChunk.metadata("test", "test-model", "r1"),
  StreamChunk.textDelta("Hello"),
  StreamChunk.textDelta(", world"),
  StreamChunk.usage({ inputTokens: 3, outputTokens: 2, totalTokens: 5 }),
  StreamChunk.finish("stop", "end_turn")
]

const okResponse: Response.Response = {
  text: "Hello, world",
  reasoning: "",
  reasoningParts: [],
  toolCalls: [],
  contentParts: [],
  usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 },
  finishReason: "stop",
  rawFinishReason: "end_turn",
  error: undefined,
  metadata: { provider: "test", model: "test-model", responseId: "r1" },
  message: { role: "assistant", content: "Hello, world" }
}

const busy = LlmError.make({ code: "overloaded", message: "busy", status: 529 })
const partial: TestModel.Script = [StreamChunk.textDelta("Hel"), TestModel.fail(busy)]
const partialResponse: Response.Response = {
  text: "Hel",
  reasoning: "",
  reasoningParts: [],
  toolCalls: [],
  contentParts: [],
  usage: undefined,
  finishReason: "error",
  rawFinishReason: undefined,
  error: { code: "overloaded", message: "busy", status: 529, retryable: true },
  metadata: undefined,
  message: { role: "assistant", content: "Hel" }
}

describe("LanguageModel.chat", () => {
  it.effect("succeeds with the exact Response", () =>
    Effect.gen(function*() {
      expect(yield* LanguageModel.chat("hi")).toStrictEqual(okResponse)
      expect(yield* TestModel.requests).toStrictEqual([{ messages: [{ role: "user", content: "hi" }] }])
    }).pipe(Effect.provide(TestModel.layer({ responses: [ok] }))))

  it.effect("fails with an LlmError carrying the partial Response", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(LanguageModel.chat("hi"))
      expect(error).toBeInstanceOf(LlmError.LlmError)
      expect(error._tag).toBe("LlmError")
      expect(LlmError.toInfo(error)).toStrictEqual({ code: "overloaded", message: "busy", status: 529, retryable: true })
      expect(error.response).toStrictEqual(partialResponse)
    }).pipe(Effect.provide(TestModel.layer({ responses: [partial] }))))

  it.effect("Effect.catchTag(\"LlmError\") catches it", () =>
    Effect.gen(function*() {
      const caught = yield* LanguageModel.chat("hi").pipe(
        Effect.map((r) => `ok: ${r.text}`),
        Effect.catchTag("LlmError", (e) => Effect.succeed(`caught ${e.code} after "${e.response?.text ?? ""}"`))
      )
      expect(caught).toBe("caught overloaded after \"Hel\"")
    }).pipe(Effect.provide(TestModel.layer({ responses: [partial] }))))

  it.effect("Effect.retry works on it", () =>
    Effect.gen(function*() {
      expect(yield* Effect.retry(LanguageModel.chat("hi"), { times: 1 })).toStrictEqual(okResponse)
      expect((yield* TestModel.requests).length).toBe(2)
    }).pipe(Effect.provide(TestModel.layer({ responses: [partial, ok] }))))

  it.effect("toEffect succeeds or fails from a Response", () =>
    Effect.gen(function*() {
      expect(yield* LanguageModel.toEffect(okResponse)).toStrictEqual(okResponse)
      const e = yield* Effect.flip(LanguageModel.toEffect(partialResponse))
      expect(e.code).toBe("overloaded")
      expect(e.response).toBe(partialResponse)
    }))
})

describe("LanguageModel.make", () => {
  it.effect("a service that called a tool but said stop reports tool_calls", () =>
    Effect.gen(function*() {
      const call = StreamChunk.toolCall({ index: 0, id: "c1", name: "lookup", arguments: {}, rawArguments: "" })
      const service = LanguageModel.make({
        provider: "mine",
        model: "m1",
        stream: () => Stream.make(StreamChunk.toolCallDelta(0, "", { id: "c1", name: "lookup" }), call, StreamChunk.finish("stop"))
      })
      expect(yield* collect(service.stream("q"))).toStrictEqual([
        { type: "tool-call-delta", index: 0, argumentsDelta: "", id: "c1", name: "lookup" },
        call,
        { type: "finish", reason: "tool_calls" }
      ])
      const response = yield* LanguageModel.chatWith(service, "q")
      expect([response.finishReason, response.rawFinishReason]).toStrictEqual(["tool_calls", undefined])
    }))
})

describe("LanguageModel.withFallback", () => {
  const first = (script: TestModel.Script) => TestModel.make({ provider: "a", model: "ma", responses: [script] })
  const second = (script: TestModel.Script) => TestModel.make({ provider: "b", model: "mb", responses: [script] })

  const fromB: TestModel.Script = [
    StreamChunk.metadata("b", "mb"),
    StreamChunk.textDelta("from b"),
    StreamChunk.usage({ inputTokens: 1, outputTokens: 2, totalTokens: 3 }),
    StreamChunk.finish("stop")
  ]

  it.effect("switches on an early error: only the second model's output, none of the first's held chunks", () =>
    Effect.gen(function*() {
      const a = yield* first([
        StreamChunk.metadata("a", "ma"),
        StreamChunk.usage({ inputTokens: 7, outputTokens: 0, totalTokens: 7 }),
        StreamChunk.cacheRead(5),
        TestModel.fail(LlmError.make({ code: "overloaded", message: "a is busy" }))
      ])
      const b = yield* second(fromB)
      const service = LanguageModel.withFallback(a.model, b.model)
      expect(service.provider).toBe("a")
      expect(service.model).toBe("ma")
      expect(yield* collect(service.stream("q"))).toStrictEqual(fromB)
      expect(yield* a.recorder.requests).toStrictEqual([question])
      expect(yield* b.recorder.requests).toStrictEqual([question])
    }))

  it.effect("switches when the first stream is truncated before any output", () =>
    Effect.gen(function*() {
      const a = yield* first([StreamChunk.metadata("a", "ma")])
      const b = yield* second(fromB)
      expect(yield* collect(LanguageModel.withFallback(a.model, b.model).stream("q"))).toStrictEqual(fromB)
    }))

  it.effect("does not switch once output has started", () =>
    Effect.gen(function*() {
      const a = yield* first([
        StreamChunk.metadata("a", "ma"),
        StreamChunk.textDelta("partial"),
        TestModel.fail(LlmError.make({ code: "server", message: "a broke", status: 500 }))
      ])
      const b = yield* second(fromB)
      expect(yield* collect(LanguageModel.withFallback(a.model, b.model).stream("q"))).toStrictEqual([
        StreamChunk.metadata("a", "ma"),
        StreamChunk.textDelta("partial"),
        { type: "error", error: { code: "server", message: "a broke", status: 500, retryable: true } }
      ])
      expect(yield* a.recorder.requests).toStrictEqual([question])
      expect(yield* b.recorder.requests).toStrictEqual([])
    }))

  it.effect("does not switch on a finish without output", () =>
    Effect.gen(function*() {
      const a = yield* first([StreamChunk.metadata("a", "ma"), StreamChunk.finish("content_filter", "safety")])
      const b = yield* second(fromB)
      expect(yield* collect(LanguageModel.withFallback(a.model, b.model).stream("q"))).toStrictEqual([
        StreamChunk.metadata("a", "ma"),
        { type: "finish", reason: "content_filter", rawReason: "safety" }
      ])
      expect(yield* b.recorder.requests).toStrictEqual([])
    }))

  it.effect("ends with the last error when every model fails", () =>
    Effect.gen(function*() {
      const a = yield* first([
        StreamChunk.metadata("a", "ma"),
        StreamChunk.usage({ inputTokens: 7, outputTokens: 0, totalTokens: 7 }),
        TestModel.fail(LlmError.make({ code: "rate_limit", message: "a limited", status: 429 }))
      ])
      const b = yield* second([
        StreamChunk.metadata("b", "mb"),
        TestModel.fail(LlmError.make({ code: "overloaded", message: "b busy", status: 529 }))
      ])
      const c = yield* TestModel.make({
        provider: "c",
        model: "mc",
        responses: [[TestModel.fail(LlmError.make({ code: "server", message: "c down", status: 503, provider: "c" }))]]
      })
      const out = yield* collect(LanguageModel.withFallback(a.model, b.model, c.model).stream("q"))
      expect(out).toStrictEqual([
        { type: "error", error: { code: "server", message: "c down", status: 503, retryable: true, provider: "c" } }
      ])
      expect(yield* a.recorder.requests).toStrictEqual([question])
      expect(yield* b.recorder.requests).toStrictEqual([question])
      expect(yield* c.recorder.requests).toStrictEqual([question])
      const chat = yield* Effect.flip(LanguageModel.chatWith(LanguageModel.withFallback(a.model, b.model), "again"))
      expect(LlmError.toInfo(chat)).toStrictEqual({ code: "overloaded", message: "b busy", status: 529, retryable: true })
      expect(chat.response?.metadata).toStrictEqual({ provider: "b", model: "mb" })
    }))

  it.effect("a single model is itself", () =>
    Effect.gen(function*() {
      const b = yield* second(fromB)
      expect(yield* collect(LanguageModel.withFallback(b.model).stream("q"))).toStrictEqual(fromB)
    }))
})
