/**
 * The Anthropic layer over HTTP (Replay): exact URL, headers and body; our own transcripts and the
 * recordings under random splits; HTTP and in-band errors; retries before output only; configuration.
 */
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as LanguageModel from "../../../src/LanguageModel.js"
import * as Anthropic from "../../../src/providers/anthropic/index.js"
import * as Response from "../../../src/Response.js"
import * as StreamChunk from "../../../src/StreamChunk.js"
import * as Fixture from "../../../src/testing/Fixture.js"
import * as Replay from "../../../src/testing/Replay.js"
import * as UsageMeter from "../../../src/UsageMeter.js"
import { awaitSleepUntil } from "../../support/clock.js"
import { describeRecorded, listRecorded, readRecorded } from "../../support/recorded.js"
import { decode, frame, own, ownTranscripts } from "./support.js"

const key = Redacted.make("sk-ant-test-abcdef0123456789")
const model = Anthropic.layer({ model: "claude-sonnet-4-5", apiKey: key, baseUrl: "http://replay.invalid" })
/** Without retries: a retryable in-band error ends the stream as the decoder says, with no wait. */
const once = Anthropic.layer({
  model: "claude-sonnet-4-5",
  apiKey: key,
  baseUrl: "http://replay.invalid",
  retry: { times: 0 }
})

/**
 * What the pure decoder makes of the whole body at once, with the invariant applied. A retryable
 * error before any content is the one case the transport changes: it gives up on the attempt and
 * drops what it held back (metadata, usage), so only the error arrives.
 */
const expectedFor = (body: string) => {
  const chunks = [
    ...Effect.runSync(Stream.runCollect(StreamChunk.ensureTerminal(
      Stream.fromIterable(decode(frame(body))),
      { provider: "anthropic" }
    )))
  ]
  const last = chunks.at(-1)!
  return last.type === "error" && last.error.retryable && !chunks.some(StreamChunk.isContent) ? [last] : chunks
}

const streamed = (body: string, seed: number, maxRead = 48) =>
  LanguageModel.stream("hi").pipe(
    Stream.runCollect,
    Effect.map((c) => [...c]),
    Effect.provide(once),
    Effect.provide(Replay.layer({ body, split: { seed, maxRead } }))
  )

const errorBody = (type: string, message: string) =>
  JSON.stringify({ type: "error", error: { type, message }, request_id: "req_body" })

describe("Anthropic over HTTP (Replay)", () => {
  for (const name of ownTranscripts()) {
    it.effect(`${name}: any split of the bytes gives the chunks the decoder gives the whole body`, () =>
      Effect.gen(function*() {
        const body = own(name)
        const expected = expectedFor(body)
        expect(expected.filter(StreamChunk.isTerminal).length).toBe(1)
        for (const seed of [1, 2, 3, 4, 5]) expect(yield* streamed(body, seed)).toStrictEqual(expected)
      }))
  }

  it.effect("a JSON answer: json_response offered (auto, as thinking is on), its input read back as the text", () =>
    Effect.gen(function*() {
      const schema = { type: "object", properties: { city: { type: "string" }, population: { type: "number" } } }
      const r = yield* LanguageModel.chat({
        messages: [{ role: "user", content: "The capital of France, and its population?" }],
        reasoning: { budgetTokens: 1024 },
        responseFormat: { type: "json_schema", name: "city", schema }
      })
      expect(JSON.parse(r.text)).toStrictEqual({ city: "Paris", population: 2102650 })
      expect([r.toolCalls, r.finishReason, r.rawFinishReason]).toStrictEqual([[], "stop", "tool_use"])
      const [request] = yield* Replay.requests
      expect(request.body).toStrictEqual({
        model: "claude-sonnet-4-5",
        messages: [{ role: "user", content: "The capital of France, and its population?" }],
        max_tokens: 5120,
        tools: [{
          name: "json_response",
          description: "Respond with a JSON object matching this schema: call this tool once, with the whole answer.",
          input_schema: schema
        }],
        tool_choice: { type: "auto" },
        thinking: { type: "enabled", budget_tokens: 1024 },
        stream: true
      })
    }).pipe(
      Effect.provide(model),
      Effect.provide(Replay.layer({ body: own("json-response.sse"), split: { seed: 4 } }))
    ))

  it.effect("sends the exact URL, headers and body; the key only in x-api-key", () =>
    Effect.gen(function*() {
      yield* LanguageModel.chat({
        messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hello" }],
        headers: { "x-trace": "t1" }
      })
      const [request] = yield* Replay.requests
      expect(request.url).toBe("http://replay.invalid/v1/messages")
      expect(request.method).toBe("POST")
      expect(request.headers["x-api-key"]).toBe("sk-ant-test-abcdef0123456789")
      expect(request.headers["anthropic-version"]).toBe("2023-06-01")
      expect(request.headers["anthropic-beta"]).toBeUndefined()
      expect(request.headers.authorization).toBeUndefined()
      expect(request.headers.accept).toBe("text/event-stream")
      expect(request.headers["x-trace"]).toBe("t1")
      expect(request.body).toStrictEqual({
        model: "claude-sonnet-4-5",
        system: "Be brief.",
        messages: [{ role: "user", content: "Hello" }],
        max_tokens: 4096,
        stream: true
      })
    }).pipe(Effect.provide(model), Effect.provide(Replay.layer({ body: own("text.sse") }))))

  it.effect("betas, version and maxTokens options; the default endpoint", () =>
    Effect.gen(function*() {
      yield* LanguageModel.chat("Hi")
      const [request] = yield* Replay.requests
      expect(request.url).toBe("https://api.anthropic.com/v1/messages")
      expect(request.headers["anthropic-beta"]).toBe("context-1m-2025-08-07,interleaved-thinking-2025-05-14")
      expect(request.headers["anthropic-version"]).toBe("2099-01-01")
      expect((request.body as { max_tokens: number }).max_tokens).toBe(1000)
    }).pipe(
      Effect.provide(Anthropic.layer({
        model: "claude-sonnet-4-5",
        apiKey: key,
        betas: ["context-1m-2025-08-07", "interleaved-thinking-2025-05-14"],
        version: "2099-01-01",
        maxTokens: 1000
      })),
      Effect.provide(Replay.layer({ body: own("text.sse") }))
    ))

  it.effect("the layer's headers replace the fixed ones; a request header cannot replace the key", () =>
    Effect.gen(function*() {
      yield* LanguageModel.chat({ messages: [{ role: "user", content: "Hi" }], headers: { "x-api-key": "other" } })
      const [request] = yield* Replay.requests
      expect(request.headers["anthropic-version"]).toBe("2024-01-01")
      expect(request.headers["x-api-key"]).toBe("sk-ant-test-abcdef0123456789")
    }).pipe(
      Effect.provide(Anthropic.layer({
        model: "claude-sonnet-4-5",
        apiKey: key,
        headers: { "anthropic-version": "2024-01-01" }
      })),
      Effect.provide(Replay.layer({ body: own("text.sse") }))
    ))

  it.effect("the tool turn collects the exact calls, usage and finish", () =>
    Effect.gen(function*() {
      const r = yield* Response.collect(LanguageModel.stream("hi")).pipe(
        Effect.provide(model),
        Effect.provide(Replay.layer({ body: own("tool-use.sse"), split: { seed: 9 } }))
      )
      expect(r.text).toBe("Checking both.")
      expect(r.toolCalls).toStrictEqual([
        {
          index: 0,
          id: "toolu_01Weather",
          name: "get_weather",
          arguments: { city: "Paris", unit: "celsius" },
          rawArguments: "{\"city\": \"Paris\", \"unit\": \"celsius\"}"
        },
        { index: 1, id: "toolu_02Clock", name: "current_time", arguments: {}, rawArguments: "" }
      ])
      const { raw: _raw, ...usage } = r.usage!
      expect(usage).toStrictEqual({
        inputTokens: 412,
        outputTokens: 71,
        totalTokens: 483,
        cacheReadTokens: 0,
        cacheWriteTokens: 0
      })
      expect([r.finishReason, r.rawFinishReason]).toStrictEqual(["tool_calls", "tool_use"])
      expect(r.metadata).toStrictEqual({
        provider: "anthropic",
        model: "claude-sonnet-4-5-20250929",
        responseId: "msg_tool_1"
      })
    }))

  it.effect("HTTP errors become typed errors that never contain the key", () =>
    Effect.gen(function*() {
      const error = yield* LanguageModel.chat("hi").pipe(Effect.flip)
      expect([error.code, error.status, error.retryable, error.requestId]).toStrictEqual([
        "authentication",
        401,
        false,
        "req_401"
      ])
      expect(error.message).toBe("invalid x-api-key: [redacted]")
      expect(JSON.stringify(StreamChunk.error(error))).not.toContain("abcdef0123456789")
      expect((yield* Replay.requests).length).toBe(1)
    }).pipe(
      Effect.provide(model),
      Effect.provide(Replay.layer({
        status: 401,
        headers: { "content-type": "application/json", "request-id": "req_401" },
        body: errorBody("authentication_error", "invalid x-api-key: sk-ant-test-abcdef0123456789")
      }))
    ))

  it.effect("a 529 overloaded_error is retried after retry-after; the answer appears once", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(Response.collect(LanguageModel.stream("hi")))
      yield* awaitSleepUntil(3_000)
      yield* TestClock.adjust("3 seconds")
      const r = yield* Fiber.join(fiber)
      expect((yield* Replay.requests).length).toBe(2)
      expect([r.text, r.error]).toStrictEqual(["Bonjour ! Comment ça va aujourd'hui ?", undefined])
    }).pipe(
      Effect.provide(model),
      Effect.provide(Replay.layer([
        { status: 529, headers: { "retry-after": "3" }, body: errorBody("overloaded_error", "Overloaded") },
        { body: own("text.sse") }
      ]))
    ))

  it.effect("an in-band overloaded_error before any output is retried like a 529", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(Stream.runCollect(LanguageModel.stream("hi")))
      yield* awaitSleepUntil(1_000)
      yield* TestClock.adjust("1 second")
      const chunks = [...yield* Fiber.join(fiber)]
      expect((yield* Replay.requests).length).toBe(2)
      // The failed attempt's metadata and usage were held back and dropped: one beginning only.
      expect(chunks.filter((c) => c.type === "metadata")).toStrictEqual([
        { type: "metadata", provider: "anthropic", model: "claude-sonnet-4-5-20250929", responseId: "msg_text_1" }
      ])
      expect(Response.fromChunks(chunks).text).toBe("Bonjour ! Comment ça va aujourd'hui ?")
    }).pipe(
      Effect.provide(Anthropic.layer({
        model: "claude-sonnet-4-5",
        apiKey: key,
        retry: { times: 1, schedule: Schedule.spaced("1 second") }
      })),
      Effect.provide(Replay.layer([{ body: own("overloaded.sse") }, { body: own("text.sse") }]))
    ))

  it.effect("an in-band error after output is final: no retry, the text kept, then the error", () =>
    Effect.gen(function*() {
      const r = yield* Response.collect(LanguageModel.stream("hi"))
      expect(r.text).toBe("Once upon")
      expect([r.error?.code, r.error?.message, r.error?.retryable]).toStrictEqual(["overloaded", "Overloaded", true])
      expect((yield* Replay.requests).length).toBe(1)
    }).pipe(Effect.provide(model), Effect.provide(Replay.layer({ body: own("error-midstream.sse") }))))

  it.effect("a body cut before message_stop ends in truncated, what arrived kept", () =>
    Effect.gen(function*() {
      const body = own("text.sse")
      const r = yield* Response.collect(LanguageModel.stream("hi")).pipe(
        Effect.provide(model),
        Effect.provide(Replay.layer({ body: body.slice(0, body.indexOf("event: message_delta")) }))
      )
      expect([r.text, r.error?.code, r.finishReason]).toStrictEqual([
        "Bonjour ! Comment ça va aujourd'hui ?",
        "truncated",
        "error"
      ])
    }))

  it.effect("a missing key is an authentication error before any request", () =>
    Effect.gen(function*() {
      const error = yield* LanguageModel.chat("hi").pipe(Effect.flip)
      expect([error.code, error.message]).toStrictEqual([
        "authentication",
        "No API key for anthropic: pass apiKey or set ANTHROPIC_API_KEY"
      ])
      expect((yield* Replay.requests).length).toBe(0)
    }).pipe(
      Effect.provide(Anthropic.layer({ model: "claude-sonnet-4-5" })),
      Effect.provide(Replay.layer({ body: "" }))
    ))

  it.effect("a cache breakpoint that points nowhere is invalid_request before any request", () =>
    Effect.gen(function*() {
      const error = yield* LanguageModel.chat({
        messages: [{ role: "user", content: "x" }],
        providerOptions: Anthropic.cacheBreakpoints([5])
      }).pipe(Effect.flip)
      expect([error.code, error.retryable, error.message]).toStrictEqual([
        "invalid_request",
        false,
        "providerOptions.cacheBreakpoints: message 5 does not exist (the request has 1)"
      ])
      expect((yield* Replay.requests).length).toBe(0)
    }).pipe(Effect.provide(model), Effect.provide(Replay.layer({ body: "" }))))

  it.effect("the meter counts the answer's final usage, cache reads inside input, and a refused request once", () =>
    Effect.gen(function*() {
      const chunks = [...yield* Stream.runCollect(LanguageModel.stream("hi"))]
      expect(chunks.find((c) => c.type === "cache-read")).toStrictEqual({
        type: "cache-read",
        cacheReadTokens: 1024,
        accumulated: 1024
      })
      yield* LanguageModel.chat({ messages: [], providerOptions: Anthropic.cacheBreakpoints(["tools"]) }).pipe(
        Effect.flip
      )
      const counters = {
        requests: 2,
        errors: 1,
        inputTokens: 1049,
        outputTokens: 12,
        cacheReadTokens: 1024,
        cacheWriteTokens: 0,
        reasoningTokens: 0,
        // Claude Sonnet 4.5's list price: 25 plain input × $3, 1024 cache reads × $0.30, 12 output × $15 per million.
        cost: 0.0005622
      }
      expect(yield* UsageMeter.snapshot).toStrictEqual({
        ...counters,
        byModel: { "anthropic:claude-sonnet-4-5": counters }
      })
      expect((yield* Replay.requests).length).toBe(1)
    }).pipe(
      Effect.provide(model),
      Effect.provide(Replay.layer({ body: own("text.sse") })),
      Effect.provide(UsageMeter.layer)
    ))

  it.effect("layerConfig reads ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL", () =>
    Effect.gen(function*() {
      yield* LanguageModel.chat("Hi")
      const [request] = yield* Replay.requests
      expect(request.url).toBe("https://proxy.example/anthropic/v1/messages")
      expect(request.headers["x-api-key"]).toBe("sk-ant-from-env")
      const service = yield* LanguageModel.LanguageModel
      expect([service.provider, service.model]).toStrictEqual(["anthropic", "claude-haiku-4-5"])
    }).pipe(
      Effect.provide(Anthropic.layerConfig({ model: "claude-haiku-4-5" })),
      Effect.provide(Replay.layer({ body: own("text.sse") })),
      Effect.withConfigProvider(ConfigProvider.fromMap(
        new Map([["ANTHROPIC_API_KEY", "sk-ant-from-env"], [
          "ANTHROPIC_BASE_URL",
          "https://proxy.example/anthropic"
        ]])
      ))
    ))

  it.effect("layerConfig fails with a ConfigError naming ANTHROPIC_API_KEY when it is not set", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(
        Layer.build(Anthropic.layerConfig({ model: "claude-haiku-4-5" })).pipe(Effect.scoped)
      )
      expect(exit._tag).toBe("Failure")
      expect(String(exit)).toContain("ANTHROPIC_API_KEY")
    }).pipe(Effect.provide(Replay.layer({ body: "" })), Effect.withConfigProvider(ConfigProvider.fromMap(new Map()))))
})

describeRecorded("anthropic", () => {
  for (const file of listRecorded("anthropic")) {
    it.live(`${file}: replayed over HTTP with random splits, the same chunks as decoding it whole`, () =>
      Effect.gen(function*() {
        const body = Fixture.sseText("anthropic", readRecorded("anthropic", file))
        const expected = expectedFor(body)
        for (const seed of [11, 12, 13]) expect(yield* streamed(body, seed, 700)).toStrictEqual(expected)
      }))
  }
})
