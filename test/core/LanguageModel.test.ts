import type * as HttpClient from "@effect/platform/HttpClient"
import { describe, expect, expectTypeOf, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as ConfigError from "effect/ConfigError"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as LanguageModel from "../../src/LanguageModel.js"
import * as LlmError from "../../src/LlmError.js"
import * as OpenAiChat from "../../src/providers/openai-chat/index.js"
import type * as Response from "../../src/Response.js"
import * as StreamChunk from "../../src/StreamChunk.js"
import * as Replay from "../../src/testing/Replay.js"
import * as TestModel from "../../src/testing/TestModel.js"
import * as UsageMeter from "../../src/UsageMeter.js"

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
  message: { role: "assistant", content: "Hello, world" },
  toolResults: [],
  steps: [],
  messages: [{ role: "assistant", content: "Hello, world" }],
  cost: undefined
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
  message: { role: "assistant", content: "Hel" },
  toolResults: [],
  steps: [],
  messages: [{ role: "assistant", content: "Hel" }],
  cost: undefined
}

describe("LanguageModel.make: the call-id rule", () => {
  it.effect("a TestModel script's fragments without ids get their call's id, the finished call's", () =>
    Effect.gen(function*() {
      const chunks = [...yield* Stream.runCollect(LanguageModel.stream("hi"))]
      expect(chunks.filter((c) => c.type === "tool-call-delta").map((c) => c.type === "tool-call-delta" && c.id))
        .toStrictEqual(["r7_call_0", "r7_call_0"])
      const call = chunks.find((c) => c.type === "tool-call")
      expect(call?.type === "tool-call" && call.toolCall.id).toBe("r7_call_0")
    }).pipe(Effect.provide(TestModel.layer({
      responses: [
        StreamChunk.metadata("test", "m", "r7"),
        StreamChunk.toolCallDelta(0, "{\"a\":", { name: "f" }),
        StreamChunk.toolCallDelta(0, "1}"),
        StreamChunk.toolCall({ index: 0, id: "r7_call_0", name: "f", arguments: { a: 1 }, rawArguments: "{\"a\":1}" }),
        StreamChunk.finish("tool_calls")
      ]
    }))))
})

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
      expect(LlmError.toInfo(error)).toStrictEqual({
        code: "overloaded",
        message: "busy",
        status: 529,
        retryable: true
      })
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
        stream: () =>
          Stream.make(StreamChunk.toolCallDelta(0, "", { id: "c1", name: "lookup" }), call, StreamChunk.finish("stop"))
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
        // c sent no metadata: the fallback names the model whose error this is
        { type: "metadata", provider: "c", model: "mc" },
        { type: "error", error: { code: "server", message: "c down", status: 503, retryable: true, provider: "c" } }
      ])
      expect(yield* a.recorder.requests).toStrictEqual([question])
      expect(yield* b.recorder.requests).toStrictEqual([question])
      expect(yield* c.recorder.requests).toStrictEqual([question])
      const chat = yield* Effect.flip(LanguageModel.chatWith(LanguageModel.withFallback(a.model, b.model), "again"))
      expect(LlmError.toInfo(chat)).toStrictEqual({
        code: "overloaded",
        message: "b busy",
        status: 529,
        retryable: true
      })
      expect(chat.response?.metadata).toStrictEqual({ provider: "b", model: "mb" })
    }))

  it.effect("a single model is itself", () =>
    Effect.gen(function*() {
      const b = yield* second(fromB)
      expect(yield* collect(LanguageModel.withFallback(b.model).stream("q"))).toStrictEqual(fromB)
    }))
})

describe("LanguageModel.withFallback names the model that answered, first", () => {
  const failing = (provider: string, model: string) =>
    TestModel.make({
      provider,
      model,
      responses: [[
        StreamChunk.metadata(provider, model),
        TestModel.fail(LlmError.make({ code: "overloaded", message: "busy" }))
      ]]
    })

  it.effect("a fallback that sends no metadata: metadata(provider, model) of its service comes first", () =>
    Effect.gen(function*() {
      const a = yield* failing("a", "ma")
      const b = yield* TestModel.make({
        provider: "b",
        model: "mb",
        responses: [[StreamChunk.textDelta("hi"), StreamChunk.finish("stop")]]
      })
      expect(yield* collect(LanguageModel.withFallback(a.model, b.model).stream("q"))).toStrictEqual([
        { type: "metadata", provider: "b", model: "mb" },
        { type: "text-delta", delta: "hi" },
        { type: "finish", reason: "stop" }
      ])
    }))

  it.effect("a metadata chunk held behind usage is moved first; one without a model gets the service's", () =>
    Effect.gen(function*() {
      const a = yield* failing("a", "ma")
      const b = yield* TestModel.make({
        provider: "b",
        model: "mb",
        responses: [[
          StreamChunk.usage({ inputTokens: 1, outputTokens: 0, totalTokens: 1 }),
          StreamChunk.metadata("b", undefined, "resp_9"),
          StreamChunk.textDelta("hi"),
          StreamChunk.metadata("b", "late"),
          StreamChunk.finish("stop")
        ]]
      })
      expect(yield* collect(LanguageModel.withFallback(a.model, b.model).stream("q"))).toStrictEqual([
        { type: "metadata", provider: "b", model: "mb", responseId: "resp_9" },
        { type: "usage", usage: { inputTokens: 1, outputTokens: 0, totalTokens: 1 } },
        { type: "text-delta", delta: "hi" },
        { type: "finish", reason: "stop" }
      ])
    }))

  it.effect("the primary answering without metadata is named too", () =>
    Effect.gen(function*() {
      const a = yield* TestModel.make({
        provider: "a",
        model: "ma",
        responses: [[StreamChunk.textDelta("x"), StreamChunk.finish("stop")]]
      })
      const b = yield* failing("b", "mb")
      expect(yield* collect(LanguageModel.withFallback(a.model, b.model).stream("q"))).toStrictEqual([
        { type: "metadata", provider: "a", model: "ma" },
        { type: "text-delta", delta: "x" },
        { type: "finish", reason: "stop" }
      ])
      expect(yield* b.recorder.requests).toStrictEqual([])
    }))
})

describe("LanguageModel.fallback (layers)", () => {
  const busy = (provider: string, model: string) =>
    TestModel.layer({
      provider,
      model,
      responses: [[
        StreamChunk.metadata(provider, `${model}-2025`),
        StreamChunk.usage({ inputTokens: 7, outputTokens: 0, totalTokens: 7 }),
        TestModel.fail(LlmError.make({ code: "overloaded", message: `${model} is busy`, status: 529 }))
      ]]
    })
  const answers = (provider: string, model: string, text: string) =>
    TestModel.layer({
      provider,
      model,
      responses: [[
        StreamChunk.textDelta(text),
        StreamChunk.usage({ inputTokens: 3, outputTokens: 2, totalTokens: 5 }),
        StreamChunk.finish("stop", "end_turn")
      ]]
    })
  const counters = (c: Partial<UsageMeter.Counters>): UsageMeter.Counters => ({ ...UsageMeter.zeroCounters, ...c })

  it.effect("takes layers; the answering model is named first in the chunks and metered under its own key", () =>
    Effect.gen(function*() {
      const model = yield* LanguageModel.LanguageModel
      expect([model.provider, model.model]).toStrictEqual(["a", "ma"])
      expect(yield* Effect.map(Stream.runCollect(LanguageModel.stream("q")), Chunk.toArray)).toStrictEqual([
        { type: "metadata", provider: "c", model: "mc" },
        { type: "text-delta", delta: "from c" },
        { type: "usage", usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 } },
        { type: "finish", reason: "stop", rawReason: "end_turn" }
      ])
      const a = counters({ requests: 1, errors: 1, inputTokens: 7 })
      const b = counters({ requests: 1, errors: 1, inputTokens: 7 })
      const c = counters({ requests: 1, inputTokens: 3, outputTokens: 2 })
      expect(yield* UsageMeter.snapshot).toStrictEqual({
        ...counters({ requests: 3, errors: 2, inputTokens: 17, outputTokens: 2 }),
        byModel: { "a:ma": a, "b:mb": b, "c:mc": c }
      })
      const response = yield* LanguageModel.chat("again")
      expect([response.text, response.metadata]).toStrictEqual(["from c", { provider: "c", model: "mc" }])
    }).pipe(Effect.provide(Layer.merge(
      LanguageModel.fallback(busy("a", "ma"), busy("b", "mb"), answers("c", "mc", "from c")),
      UsageMeter.layer
    ))))

  it.effect("the primary answers when it can; the others are built but never asked", () =>
    Effect.gen(function*() {
      const response = yield* LanguageModel.chat("q")
      expect([response.text, response.metadata, response.finishReason]).toStrictEqual([
        "from a",
        { provider: "a", model: "ma" },
        "stop"
      ])
      const a = counters({ requests: 1, inputTokens: 3, outputTokens: 2 })
      expect(yield* UsageMeter.snapshot).toStrictEqual({ ...a, byModel: { "a:ma": a } })
    }).pipe(Effect.provide(Layer.merge(
      LanguageModel.fallback(answers("a", "ma", "from a"), busy("b", "mb")),
      UsageMeter.layer
    ))))

  it("combines the layers' errors and requirements in its type", () => {
    const openai = OpenAiChat.layerConfig({ model: "gpt-4.1-mini" })
    const test = answers("t", "mt", "x")
    expectTypeOf(LanguageModel.fallback(openai, test)).toEqualTypeOf<
      Layer.Layer<LanguageModel.LanguageModel, ConfigError.ConfigError, HttpClient.HttpClient>
    >()
    expectTypeOf(LanguageModel.fallback(test)).toEqualTypeOf<Layer.Layer<LanguageModel.LanguageModel>>()
    const failing = Layer.fail("no model" as const)
    expectTypeOf(LanguageModel.fallback(test, failing, openai)).toEqualTypeOf<
      Layer.Layer<LanguageModel.LanguageModel, "no model" | ConfigError.ConfigError, HttpClient.HttpClient>
    >()
  })

  it.effect("fails with a layer's error when one cannot be built", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        LanguageModel.chat("q").pipe(
          Effect.provide(
            LanguageModel.fallback(answers("t", "mt", "x"), OpenAiChat.layerConfig({ model: "gpt-4.1-mini" }))
          ),
          Effect.provide(Replay.layer({ body: "" })),
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map()))
        )
      )
      expect(ConfigError.isConfigError(error)).toBe(true)
      expect(ConfigError.isConfigError(error) && ConfigError.isMissingData(error) && error.path).toStrictEqual([
        "OPENAI_API_KEY"
      ])
    }))

  it.effect("layers the models share are built once", () =>
    Effect.gen(function*() {
      let builds = 0
      class Shared extends Context.Tag("test/Shared")<Shared, string>() {}
      const shared = Layer.effect(Shared, Effect.sync(() => `build ${++builds}`))
      const on = (provider: string) =>
        Layer.effect(
          LanguageModel.LanguageModel,
          Effect.map(Shared, (label) =>
            LanguageModel.make({
              provider,
              model: "m",
              stream: () => Stream.make(StreamChunk.textDelta(`${provider} via ${label}`), StreamChunk.finish("stop"))
            }))
        ).pipe(Layer.provide(shared))
      const text = yield* Effect.map(LanguageModel.chat("q"), (r) => r.text).pipe(
        Effect.provide(LanguageModel.fallback(on("x"), on("y")))
      )
      expect([text, builds]).toStrictEqual(["x via build 1", 1])
    }))

  it.effect("over HTTP: a 401 from the primary, then the Groq preset answers", () =>
    Effect.gen(function*() {
      const chunks = yield* Effect.map(Stream.runCollect(LanguageModel.stream("hi")), Chunk.toArray)
      expect(chunks).toStrictEqual([
        { type: "metadata", provider: "groq", model: "llama-3.3-70b-versatile", responseId: "chatcmpl-g1" },
        { type: "text-delta", delta: "Hi" },
        {
          type: "usage",
          usage: {
            inputTokens: 3,
            outputTokens: 1,
            totalTokens: 4,
            raw: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 }
          }
        },
        { type: "finish", reason: "stop", rawReason: "stop" }
      ])
      expect((yield* Replay.requests).map((r) => r.url)).toStrictEqual([
        "http://openai.invalid/v1/chat/completions",
        "http://groq.invalid/v1/chat/completions"
      ])
      const openai = counters({ requests: 1, errors: 1 })
      const groq = counters({ requests: 1, inputTokens: 3, outputTokens: 1 })
      expect((yield* UsageMeter.snapshot).byModel).toStrictEqual({
        "openai:gpt-4.1-mini": openai,
        "groq:llama-3.3-70b-versatile": groq
      })
    }).pipe(
      Effect.provide(Layer.merge(
        LanguageModel.fallback(
          OpenAiChat.layer({
            model: "gpt-4.1-mini",
            apiKey: Redacted.make("sk-a"),
            baseUrl: "http://openai.invalid/v1"
          }),
          OpenAiChat.layer({
            preset: "groq",
            model: "llama-3.3-70b-versatile",
            apiKey: Redacted.make("gsk-b"),
            baseUrl: "http://groq.invalid/v1"
          })
        ),
        UsageMeter.layer
      )),
      Effect.provide(Replay.layer((request) =>
        request.url.startsWith("http://openai.invalid")
          ? {
            status: 401,
            headers: { "content-type": "application/json" },
            body: "{\"error\":{\"message\":\"bad key\",\"code\":\"invalid_api_key\"}}"
          }
          : {
            body: [
              "data: {\"id\":\"chatcmpl-g1\",\"model\":\"llama-3.3-70b-versatile\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":null}]}",
              "data: {\"id\":\"chatcmpl-g1\",\"model\":\"llama-3.3-70b-versatile\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1,\"total_tokens\":4}}",
              "data: [DONE]",
              ""
            ].join("\n\n")
          }
      ))
    ))
})
