import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { readdirSync, readFileSync } from "node:fs"
import * as ChunkDecoder from "../../../src/internal/ChunkDecoder.js"
import * as Sse from "../../../src/internal/framing/Sse.js"
import * as LanguageModel from "../../../src/LanguageModel.js"
import * as Decode from "../../../src/providers/openai-chat/decode.js"
import * as OpenAiChat from "../../../src/providers/openai-chat/index.js"
import * as Response from "../../../src/Response.js"
import * as StreamChunk from "../../../src/StreamChunk.js"
import * as Fixture from "../../../src/testing/Fixture.js"
import * as Replay from "../../../src/testing/Replay.js"
import * as ReplayServer from "../../../src/testing/ReplayServer.js"
import { awaitSleepUntil, settle } from "../../support/clock.js"
import { describeRecorded, listRecorded, readRecorded } from "../../support/recorded.js"
import { withSpans } from "../../support/spans.js"

const ownDir = new URL("../../fixtures/openai-chat/", import.meta.url)
const own = (name: string): string => readFileSync(new URL(name, ownDir), "utf8")
const key = Redacted.make("sk-test-abcdef0123456789")
const model = OpenAiChat.layer({ model: "gpt-4.1-mini", apiKey: key, baseUrl: "http://replay.invalid/v1" })

/** What the pure decoder makes of the whole body at once, with the invariant applied. */
const expectedFor = (body: string) => {
  const framer = new Sse.Framer()
  const events = [...framer.push(new TextEncoder().encode(body)), ...framer.end()]
  return Effect.runSync(Stream.runCollect(StreamChunk.ensureTerminal(
    Stream.fromIterable(ChunkDecoder.decodeAll(Decode.make({ provider: "openai" }), events)),
    { provider: "openai" }
  ))).pipe((c) => [...c])
}

const streamed = (body: string, seed: number, maxRead = 48) =>
  LanguageModel.stream("hi").pipe(
    Stream.runCollect,
    Effect.map((c) => [...c]),
    Effect.provide(model),
    Effect.provide(Replay.layer({ body, split: { seed, maxRead } }))
  )

describe("OpenAiChat over HTTP (Replay)", () => {
  for (const name of readdirSync(ownDir).filter((f) => f.endsWith(".sse")).sort()) {
    it.effect(`${name}: any split of the bytes gives the chunks the decoder gives the whole body`, () =>
      Effect.gen(function*() {
        const body = own(name)
        const expected = expectedFor(body)
        for (const seed of [1, 2, 3, 4, 5]) expect(yield* streamed(body, seed)).toStrictEqual(expected)
      }))
  }

  it.effect("the demo's tool turn streams the exact call, usage and finish", () =>
    Effect.gen(function*() {
      const r = yield* Response.collect(LanguageModel.stream("hi")).pipe(
        Effect.provide(model),
        Effect.provide(Replay.layer({ body: own("weather-tool-call.sse"), split: { seed: 9 } }))
      )
      expect(r.text).toBe("I'll check the current weather in Paris for you.")
      expect(r.toolCalls).toStrictEqual([{
        index: 0,
        id: "call_demo_weather",
        name: "get_weather",
        arguments: { city: "Paris", unit: "celsius" },
        rawArguments: "{\"city\":\"Paris\",\"unit\":\"celsius\"}"
      }])
      expect([r.usage?.inputTokens, r.usage?.outputTokens, r.usage?.totalTokens]).toStrictEqual([142, 31, 173])
      expect([r.finishReason, r.rawFinishReason]).toStrictEqual(["tool_calls", "tool_calls"])
      expect(r.metadata).toStrictEqual({ provider: "openai", model: "demo-reasoner-1", responseId: "chatcmpl-demo-1" })
    }))

  it.effect("sends the exact URL, headers and body; the key only in the authorization header", () =>
    Effect.gen(function*() {
      yield* LanguageModel.chat({
        messages: [{ role: "user", content: "Hello" }],
        maxTokens: 50,
        headers: { "x-trace": "t1" }
      })
      const [request] = yield* Replay.requests
      expect(request.url).toBe("http://replay.invalid/v1/chat/completions")
      expect(request.headers.authorization).toBe("Bearer sk-test-abcdef0123456789")
      expect(request.headers.accept).toBe("text/event-stream")
      expect(request.headers["x-trace"]).toBe("t1")
      expect(request.body).toStrictEqual({
        model: "gpt-4.1-mini",
        messages: [{ role: "user", content: "Hello" }],
        max_completion_tokens: 50,
        stream: true,
        stream_options: { include_usage: true }
      })
    }).pipe(Effect.provide(model), Effect.provide(Replay.layer({ body: own("text.sse") }))))

  it.effect("HTTP errors become typed errors that never contain the key", () =>
    Effect.gen(function*() {
      const error = yield* LanguageModel.chat("hi").pipe(Effect.flip)
      expect(error._tag).toBe("LlmError")
      expect(error.code).toBe("authentication")
      expect(error.status).toBe(401)
      expect(error.retryable).toBe(false)
      expect(error.requestId).toBe("req_401")
      // The configured key is masked by value, before the patterns for unknown keys apply.
      expect(error.message).toBe("Incorrect API key provided: [redacted].")
      expect(error.details).toStrictEqual({
        error: {
          message: "Incorrect API key provided: [redacted].",
          type: "invalid_request_error",
          code: "invalid_api_key"
        }
      })
      expect(JSON.stringify(StreamChunk.error(error))).not.toContain("abcdef0123456789")
    }).pipe(
      Effect.provide(model),
      Effect.provide(Replay.layer({
        status: 401,
        headers: { "content-type": "application/json", "x-request-id": "req_401" },
        body: JSON.stringify({
          error: {
            message: "Incorrect API key provided: sk-test-abcdef0123456789.",
            type: "invalid_request_error",
            code: "invalid_api_key"
          }
        })
      }))
    ))

  it.effect("insufficient_quota on a 429 is quota and is not retried", () =>
    Effect.gen(function*() {
      const error = yield* LanguageModel.chat("hi").pipe(Effect.flip)
      expect([error.code, error.status, error.retryable]).toStrictEqual(["quota", 429, false])
      expect((yield* Replay.requests).length).toBe(1)
    }).pipe(
      Effect.provide(model),
      Effect.provide(Replay.layer({
        status: 429,
        body: JSON.stringify({
          error: { message: "You exceeded your current quota", type: "insufficient_quota", code: "insufficient_quota" }
        })
      }))
    ))

  it.effect("a 429 with retry-after: 7 then a 200 is retried at exactly 7 s; the answer appears once", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(Response.collect(LanguageModel.stream("hi")))
      yield* awaitSleepUntil(7_000)
      yield* TestClock.adjust("6999 millis")
      yield* settle()
      expect((yield* Replay.requests).length).toBe(1)
      yield* TestClock.adjust("1 millis")
      const r = yield* Fiber.join(fiber)
      expect((yield* Replay.requests).length).toBe(2)
      expect(r.text).toBe(Response.fromChunks(expectedFor(own("text.sse"))).text)
      expect(r.error).toBeUndefined()
    }).pipe(
      Effect.provide(model),
      Effect.provide(Replay.layer([
        {
          status: 429,
          headers: { "retry-after": "7" },
          body: JSON.stringify({
            error: { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" }
          })
        },
        { body: own("text.sse") }
      ]))
    ))

  it.effect("a server error after the first chunk is not retried and ends in an error chunk", () =>
    Effect.gen(function*() {
      const chunks = [...yield* Stream.runCollect(LanguageModel.stream("hi"))]
      const last = chunks[chunks.length - 1]
      expect(chunks.some((c) => c.type === "text-delta")).toBe(true)
      expect(last.type === "error" && [last.error.code, last.error.message]).toStrictEqual([
        "server",
        "The server had an error while processing your request. Sorry about that!"
      ])
      expect((yield* Replay.requests).length).toBe(1)
    }).pipe(Effect.provide(model), Effect.provide(Replay.layer({ body: own("error-midstream.sse") }))))

  it.effect("a stalled body ends with timeout exactly when the idle limit passes", () =>
    Effect.gen(function*() {
      const stalling = OpenAiChat.layer({
        model: "gpt-4.1-mini",
        apiKey: key,
        baseUrl: "http://replay.invalid/v1",
        retry: { times: 0 },
        timeouts: { idle: "30 seconds" }
      })
      const fiber = yield* Effect.fork(Response.collect(LanguageModel.stream("hi")).pipe(Effect.provide(stalling)))
      yield* awaitSleepUntil(30_000)
      yield* TestClock.adjust("29999 millis")
      yield* settle()
      expect(fiber.unsafePoll()).toBeNull()
      yield* TestClock.adjust("1 millis")
      const r = yield* Fiber.join(fiber)
      expect(r.error?.code).toBe("timeout")
      expect(r.text).toBe("Hello")
    }).pipe(Effect.provide(Replay.layer({
      body:
        `data: {"id":"c1","model":"gpt-4.1-mini","choices":[{"index":0,"delta":{"content":"Hello"},"finish_reason":null}]}\n\n`,
      stall: true
    }))))

  it.effect("a missing key is an authentication error before any request", () =>
    Effect.gen(function*() {
      const error = yield* LanguageModel.chat("hi").pipe(Effect.flip)
      expect([error.code, error.message]).toStrictEqual([
        "authentication",
        "No API key for openai: pass apiKey or set OPENAI_API_KEY"
      ])
      expect((yield* Replay.requests).length).toBe(0)
    }).pipe(Effect.provide(OpenAiChat.layer({ model: "gpt-4.1-mini" })), Effect.provide(Replay.layer({ body: "" }))))

  it.effect("a Groq model is one line of configuration: key and URL from the environment", () =>
    Effect.gen(function*() {
      yield* LanguageModel.chat({ messages: [{ role: "user", content: "Hi" }], maxTokens: 10 })
      const [request] = yield* Replay.requests
      expect(request.url).toBe("https://api.groq.com/openai/v1/chat/completions")
      expect(request.headers.authorization).toBe("Bearer gsk-from-env")
      expect((request.body as Record<string, unknown>).max_tokens).toBe(10)
      const service = yield* LanguageModel.LanguageModel
      expect([service.provider, service.model]).toStrictEqual(["groq", "llama-3.3-70b-versatile"])
    }).pipe(
      Effect.provide(OpenAiChat.layerConfig({ preset: "groq", model: "llama-3.3-70b-versatile" })),
      Effect.provide(Replay.layer({ body: own("text.sse") })),
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["GROQ_API_KEY", "gsk-from-env"]])))
    ))

  it.effect("layerConfig fails with a ConfigError when the preset's key is not set", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(
        Layer.build(OpenAiChat.layerConfig({ preset: "mistral", model: "mistral-small-latest" })).pipe(Effect.scoped)
      )
      expect(exit._tag).toBe("Failure")
      expect(String(exit)).toContain("MISTRAL_API_KEY")
    }).pipe(
      Effect.provide(Replay.layer({ body: "" })),
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map()))
    ))
})

describe("OpenAiChat over real sockets (loopback replay server)", () => {
  it.live("a consumer that takes three chunks and stops closes the socket within a second", () =>
    Effect.gen(function*() {
      const body = own("weather-answer.sse")
      const reads: Array<string> = []
      for (let i = 0; i < body.length; i += 40) reads.push(body.slice(i, i + 40))
      const server = yield* ReplayServer.make({ "/v1/chat/completions": { reads, paceMs: 100 } })
      const taken = yield* LanguageModel.stream("hi").pipe(
        Stream.filter(StreamChunk.isContent),
        Stream.take(3),
        Stream.runCollect,
        Effect.provide(OpenAiChat.layer({ model: "demo-reasoner-1", apiKey: key, baseUrl: `${server.url}/v1` }))
      )
      const stoppedAt = performance.now()
      expect([...taken].map((c) => c.type)).toStrictEqual(["reasoning-delta", "reasoning-delta", "reasoning-delta"])
      for (let i = 0; i < 100 && server.requests[0]?.closedAtMs === undefined; i++) yield* Effect.sleep("10 millis")
      const request = server.requests[0]
      expect(request.completed).toBe(false)
      expect(request.closedAtMs).toBeDefined()
      expect(request.closedAtMs! - stoppedAt).toBeLessThan(1_000)
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer)))
})

describeRecorded("openai-chat", () => {
  for (const file of listRecorded("openai-chat")) {
    it.live(`${file}: replayed over HTTP with random splits, the same chunks as decoding it whole`, () =>
      Effect.gen(function*() {
        const body = Fixture.sseText("openai-chat", readRecorded("openai-chat", file))
        const expected = expectedFor(body)
        for (const seed of [11, 12, 13]) expect(yield* streamed(body, seed, 700)).toStrictEqual(expected)
      }))
  }
})

describe("keys stay out of tracing spans", () => {
  it.effect("the request span records only allow-listed headers, with the key masked in their values", () =>
    Effect.gen(function*() {
      const { spans } = yield* withSpans(
        LanguageModel.chat("hi").pipe(
          Effect.provide(
            OpenAiChat.layer({ preset: "azure", model: "dep", apiKey: key, baseUrl: "https://res.example/openai/v1" })
          )
        )
      )
      const http = spans.filter((s) => s.name === "http.client POST")
      expect(http.length).toBe(1)
      const attributes = Object.fromEntries(http[0].attributes)
      expect(attributes).toStrictEqual({
        "http.request.method": "POST",
        "server.address": "res.example",
        "url.scheme": "https",
        "url.path": "/openai/v1/chat/completions",
        "http.request.header.accept": "text/event-stream",
        "http.response.status_code": 200,
        "http.response.header.content-type": "text/event-stream",
        "http.response.header.x-request-id": "req-[redacted]-1"
      })
      expect(JSON.stringify(attributes)).not.toContain("abcdef0123456789")
      const [request] = yield* Replay.requests
      expect(request.headers["api-key"]).toBe("sk-test-abcdef0123456789")
    }).pipe(Effect.provide(Replay.layer({
      headers: { "x-request-id": "req-sk-test-abcdef0123456789-1", "x-echo": "sk-test-abcdef0123456789" },
      body: own("text.sse")
    }))))
})

describe("configuration and key hygiene", () => {
  it.effect("each request masks its own credentials: the layer's key on every one, a request header's key on its request only", () =>
    Effect.gen(function*() {
      const other = "Zq7-other-credential-98765"
      const messages: Array<string> = []
      for (const headers of [undefined, { "x-api-key": other }, undefined]) {
        const error = yield* LanguageModel.chat({ messages: [{ role: "user", content: "hi" }], headers }).pipe(
          Effect.flip
        )
        messages.push(error.message)
      }
      expect(messages).toStrictEqual([
        `keys: [redacted] and ${other}`,
        "keys: [redacted] and [redacted]",
        `keys: [redacted] and ${other}`
      ])
      expect((yield* Replay.requests).map((r) => r.headers["x-api-key"])).toStrictEqual([undefined, other, undefined])
    }).pipe(
      Effect.provide(model),
      Effect.provide(Replay.layer({
        status: 400,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          error: {
            message: "keys: sk-test-abcdef0123456789 and Zq7-other-credential-98765",
            type: "invalid_request_error"
          }
        })
      }))
    ))

  it.effect("layerConfig for Azure fails with a ConfigError when no base URL is set", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(
        Layer.build(OpenAiChat.layerConfig({ preset: "azure", model: "dep" })).pipe(Effect.scoped)
      )
      expect(exit._tag).toBe("Failure")
      expect(String(exit)).toContain("AZURE_OPENAI_BASE_URL")
    }).pipe(
      Effect.provide(Replay.layer({ body: "" })),
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["AZURE_OPENAI_API_KEY", "k"]])))
    ))

  it.effect("a key holding a newline is an authentication error that never quotes the key, sent nowhere", () =>
    Effect.gen(function*() {
      // Every request is refused, not only the first (the layer's fixed headers are checked until valid).
      for (let i = 0; i < 2; i++) {
        const error = yield* LanguageModel.chat("hi").pipe(Effect.flip)
        expect([error.code, error.retryable, error.message]).toStrictEqual([
          "authentication",
          false,
          "The authorization header holds a control character (a stray newline in a key?)"
        ])
      }
      expect((yield* Replay.requests).length).toBe(0)
    }).pipe(
      Effect.provide(
        OpenAiChat.layer({
          model: "m",
          apiKey: Redacted.make("sk-secret-abc\ndefghijk"),
          baseUrl: "http://replay.invalid/v1"
        })
      ),
      Effect.provide(Replay.layer({ body: own("text.sse") }))
    ))
})

describe("a JSON document where a stream was expected", () => {
  it.effect("a 200 whose JSON body is an error is that error, not an empty answer", () =>
    Effect.gen(function*() {
      const error = yield* LanguageModel.chat("hi").pipe(Effect.flip)
      expect([error.code, error.message, error.status, error.retryable]).toStrictEqual([
        "context_length",
        "This model's maximum context length is 8192 tokens.",
        200,
        false
      ])
      expect((yield* Replay.requests).length).toBe(1)
    }).pipe(
      Effect.provide(model),
      Effect.provide(Replay.layer({
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          error: {
            message: "This model's maximum context length is 8192 tokens.",
            type: "invalid_request_error",
            code: "context_length_exceeded"
          }
        })
      }))
    ))

  it.effect("a 200 whose JSON body is a whole (non-streamed) completion is a protocol error naming what came", () =>
    Effect.gen(function*() {
      const error = yield* LanguageModel.chat("hi").pipe(Effect.flip)
      expect([error.code, error.message, error.status, error.retryable]).toStrictEqual([
        "protocol",
        "Expected a stream (text/event-stream), got a application/json; charset=utf-8 document",
        200,
        false
      ])
      expect(error.details).toBe("{\"id\":\"chatcmpl-1\",\"choices\":[{\"message\":{\"content\":\"Hi\"}}]}")
    }).pipe(
      Effect.provide(model),
      Effect.provide(Replay.layer({
        headers: { "content-type": "application/json; charset=utf-8" },
        body: JSON.stringify({ id: "chatcmpl-1", choices: [{ message: { content: "Hi" } }] })
      }))
    ))
})
