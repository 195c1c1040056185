/**
 * The Cohere layer over HTTP (Replay): exact URL, headers and body; HTTP errors and retries;
 * endings; configuration from the environment.
 */
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as LanguageModel from "../../../src/LanguageModel.js"
import * as Cohere from "../../../src/providers/cohere/index.js"
import * as Response from "../../../src/Response.js"
import * as StreamChunk from "../../../src/StreamChunk.js"
import * as Replay from "../../../src/testing/Replay.js"
import * as UsageMeter from "../../../src/UsageMeter.js"
import { awaitSleepUntil } from "../../support/clock.js"
import { own } from "./support.js"

const secret = ["co", "test", "abcdef0123456789"].join("-")
const key = Redacted.make(secret)
const model = Cohere.layer({ model: "command-a-03-2025", apiKey: key, baseUrl: "http://replay.invalid" })

describe("Cohere over HTTP (Replay)", () => {
  it.effect("sends the exact URL, headers and body; the key only as a bearer token", () =>
    Effect.gen(function*() {
      yield* LanguageModel.chat({
        messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hello" }],
        headers: { "x-trace": "t1" }
      })
      const [request] = yield* Replay.requests
      expect(request.url).toBe("http://replay.invalid/v2/chat")
      expect(request.method).toBe("POST")
      expect(request.headers.authorization).toBe(`Bearer ${secret}`)
      expect(request.headers.accept).toBe("text/event-stream")
      expect(request.headers["x-trace"]).toBe("t1")
      expect(request.body).toStrictEqual({
        model: "command-a-03-2025",
        messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hello" }],
        stream: true
      })
    }).pipe(Effect.provide(model), Effect.provide(Replay.layer({ body: own("text.sse") }))))

  it.effect("the default endpoint; a request header cannot replace the key", () =>
    Effect.gen(function*() {
      yield* LanguageModel.chat({ messages: [{ role: "user", content: "Hi" }], headers: { authorization: "other" } })
      const [request] = yield* Replay.requests
      expect(Cohere.defaultBaseUrl).toBe("https://api.cohere.com")
      expect(request.url).toBe("https://api.cohere.com/v2/chat")
      expect(request.headers.authorization).toBe(`Bearer ${secret}`)
    }).pipe(
      Effect.provide(Cohere.layer({ model: "command-a-03-2025", apiKey: key })),
      Effect.provide(Replay.layer({ body: own("text.sse") }))
    ))

  it.effect("the tool turn collects the plan as text, the exact calls, usage and finish", () =>
    Effect.gen(function*() {
      const r = yield* Response.collect(LanguageModel.stream("hi")).pipe(
        Effect.provide(model),
        Effect.provide(Replay.layer({ body: own("tool-call.sse"), split: { seed: 9 } }))
      )
      expect(r.text).toBe("I will check the weather and the time.")
      expect(r.toolCalls).toStrictEqual([
        {
          index: 0,
          id: "get_weather_k2x9q1",
          name: "get_weather",
          arguments: { city: "Paris", unit: "celsius" },
          rawArguments: "{\"city\": \"Paris\", \"unit\": \"celsius\"}"
        },
        { index: 1, id: "current_time_p7d3m0", name: "current_time", arguments: {}, rawArguments: "" }
      ])
      const { raw, ...usage } = r.usage!
      expect(usage).toStrictEqual({ inputTokens: 1580, outputTokens: 72, totalTokens: 1652, cacheReadTokens: 1408 })
      expect(raw).toStrictEqual({
        billed_units: { input_tokens: 61, output_tokens: 38 },
        tokens: { input_tokens: 1580, output_tokens: 72 },
        cached_tokens: 1408
      })
      expect([r.finishReason, r.rawFinishReason]).toStrictEqual(["tool_calls", "TOOL_CALL"])
      expect(r.metadata).toStrictEqual({ provider: "cohere", responseId: "c0h-tool-1" })
    }))

  it.effect("the demo pair: the tool call, then the answer after the tool result", () =>
    Effect.gen(function*() {
      const tools = [{ name: "get_weather", parameters: { type: "object" } }]
      const first = yield* LanguageModel.chat({ messages: [{ role: "user", content: "Weather in Paris?" }], tools })
      expect([first.text, first.toolCalls.map((c) => [c.id, c.name, c.arguments])]).toStrictEqual([
        "I will look up the weather in Paris.",
        [["get_weather_demo01", "get_weather", { city: "Paris", unit: "celsius" }]]
      ])
      const second = yield* LanguageModel.chat({
        messages: [
          { role: "user", content: "Weather in Paris?" },
          first.message,
          { role: "tool", toolCallId: "get_weather_demo01", content: "{\"temp_c\":18,\"sky\":\"light rain\"}" }
        ],
        tools
      })
      expect(second.text).toBe(
        "It's 18 °C with light rain in Paris right now: mild, but take an umbrella if you head out."
      )
      const [, request] = yield* Replay.requests
      expect((request.body as { messages: ReadonlyArray<unknown> }).messages.slice(1)).toStrictEqual([
        {
          role: "assistant",
          tool_plan: "I will look up the weather in Paris.",
          tool_calls: [{
            id: "get_weather_demo01",
            type: "function",
            function: { name: "get_weather", arguments: "{\"city\":\"Paris\",\"unit\":\"celsius\"}" }
          }]
        },
        { role: "tool", tool_call_id: "get_weather_demo01", content: "{\"temp_c\":18,\"sky\":\"light rain\"}" }
      ])
    }).pipe(
      Effect.provide(model),
      Effect.provide(Replay.layer([
        { body: own("demo-weather-tool-call.sse") },
        { body: own("demo-weather-answer.sse") }
      ]))
    ))

  it.effect("HTTP errors become typed errors that never contain the key", () =>
    Effect.gen(function*() {
      const error = yield* LanguageModel.chat("hi").pipe(Effect.flip)
      expect([error.code, error.status, error.retryable, error.requestId]).toStrictEqual([
        "authentication",
        401,
        false,
        "c0h-err-id"
      ])
      expect(JSON.stringify(StreamChunk.error(error))).not.toContain("abcdef0123456789")
      expect((yield* Replay.requests).length).toBe(1)
    }).pipe(
      Effect.provide(model),
      Effect.provide(Replay.layer({
        status: 401,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ id: "c0h-err-id", message: `invalid api token: Bearer ${secret}` })
      }))
    ))

  it.effect("a 429 is retried after retry-after; the answer appears once", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(Response.collect(LanguageModel.stream("hi")))
      yield* awaitSleepUntil(2_000)
      yield* TestClock.adjust("2 seconds")
      const r = yield* Fiber.join(fiber)
      expect((yield* Replay.requests).length).toBe(2)
      expect([r.text, r.error]).toStrictEqual(["Bonjour! Comment ça va aujourd'hui ?", undefined])
    }).pipe(
      Effect.provide(model),
      Effect.provide(Replay.layer([
        {
          status: 429,
          headers: { "retry-after": "2", "content-type": "application/json" },
          body: JSON.stringify({
            id: "r",
            message: "You are using a Trial key, which is limited to 10 API calls / minute."
          })
        },
        { body: own("text.sse") }
      ]))
    ))

  it.effect("finish_reason ERROR after output is final: no retry, the text kept, then the error", () =>
    Effect.gen(function*() {
      const r = yield* Response.collect(LanguageModel.stream("hi"))
      expect([r.text, r.error?.code, r.error?.retryable]).toStrictEqual(["The first part", "server", true])
      expect((yield* Replay.requests).length).toBe(1)
    }).pipe(Effect.provide(model), Effect.provide(Replay.layer({ body: own("error-finish.sse") }))))

  it.effect("a body cut before message-end ends in truncated, what arrived kept", () =>
    Effect.gen(function*() {
      const body = own("text.sse")
      const r = yield* Response.collect(LanguageModel.stream("hi")).pipe(
        Effect.provide(model),
        Effect.provide(Replay.layer({ body: body.slice(0, body.indexOf("event: message-end")) }))
      )
      expect([r.text, r.error?.code, r.finishReason]).toStrictEqual([
        "Bonjour! Comment ça va aujourd'hui ?",
        "truncated",
        "error"
      ])
    }))

  it.effect("a missing key is an authentication error before any request", () =>
    Effect.gen(function*() {
      const error = yield* LanguageModel.chat("hi").pipe(Effect.flip)
      expect([error.code, error.message]).toStrictEqual([
        "authentication",
        "No API key for cohere: pass apiKey or set COHERE_API_KEY"
      ])
      expect((yield* Replay.requests).length).toBe(0)
    }).pipe(
      Effect.provide(Cohere.layer({ model: "command-a-03-2025" })),
      Effect.provide(Replay.layer({ body: "" }))
    ))

  it.effect("a tool choice naming no tool of the request is invalid_request before any request", () =>
    Effect.gen(function*() {
      const error = yield* LanguageModel.chat({
        messages: [{ role: "user", content: "x" }],
        toolChoice: { type: "tool", name: "missing" }
      }).pipe(Effect.flip)
      expect([error.code, error.retryable, error.message]).toStrictEqual([
        "invalid_request",
        false,
        "toolChoice names the tool \"missing\", which is not among the request's tools"
      ])
      expect((yield* Replay.requests).length).toBe(0)
    }).pipe(Effect.provide(model), Effect.provide(Replay.layer({ body: "" }))))

  it.effect("the meter counts the final usage, cache reads inside input", () =>
    Effect.gen(function*() {
      const chunks = [...yield* Stream.runCollect(LanguageModel.stream("hi"))]
      expect(chunks.find((c) => c.type === "cache-read")).toStrictEqual({
        type: "cache-read",
        cacheReadTokens: 448,
        accumulated: 448
      })
      const counters = {
        requests: 1,
        errors: 0,
        inputTokens: 512,
        outputTokens: 14,
        cacheReadTokens: 448,
        cacheWriteTokens: 0,
        reasoningTokens: 0
      }
      expect(yield* UsageMeter.snapshot).toStrictEqual({
        ...counters,
        byModel: { "cohere:command-a-03-2025": counters }
      })
    }).pipe(
      Effect.provide(model),
      Effect.provide(Replay.layer({ body: own("text.sse") })),
      Effect.provide(UsageMeter.layer)
    ))

  it.effect("layerConfig reads COHERE_API_KEY and COHERE_BASE_URL", () =>
    Effect.gen(function*() {
      yield* LanguageModel.chat("Hi")
      const [request] = yield* Replay.requests
      expect(request.url).toBe("https://proxy.example/cohere/v2/chat")
      expect(request.headers.authorization).toBe("Bearer co-from-env")
      const service = yield* LanguageModel.LanguageModel
      expect([service.provider, service.model]).toStrictEqual(["cohere", "command-r7b-12-2024"])
    }).pipe(
      Effect.provide(Cohere.layerConfig({ model: "command-r7b-12-2024" })),
      Effect.provide(Replay.layer({ body: own("text.sse") })),
      Effect.withConfigProvider(ConfigProvider.fromMap(
        new Map([["COHERE_API_KEY", "co-from-env"], ["COHERE_BASE_URL", "https://proxy.example/cohere"]])
      ))
    ))

  it.effect("layerConfig fails with a ConfigError naming COHERE_API_KEY when it is not set", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(
        Layer.build(Cohere.layerConfig({ model: "command-a-03-2025" })).pipe(Effect.scoped)
      )
      expect(exit._tag).toBe("Failure")
      expect(String(exit)).toContain("COHERE_API_KEY")
    }).pipe(Effect.provide(Replay.layer({ body: "" })), Effect.withConfigProvider(ConfigProvider.fromMap(new Map()))))

  it.effect("the provider option renames the provider in chunks", () =>
    Effect.gen(function*() {
      const chunks = [...yield* Stream.runCollect(LanguageModel.stream("hi"))]
      expect(chunks[0]).toStrictEqual({ type: "metadata", provider: "cohere-eu", responseId: "c0h-text-1" })
    }).pipe(
      Effect.provide(Cohere.layer({ model: "command-a-03-2025", apiKey: key, provider: "cohere-eu" })),
      Effect.provide(Replay.layer({ body: own("text.sse") }))
    ))
})
