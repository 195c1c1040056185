import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { readFileSync } from "node:fs"
import * as ChatRequest from "../../../src/ChatRequest.js"
import * as LanguageModel from "../../../src/LanguageModel.js"
import * as OpenAiResponses from "../../../src/providers/openai-responses/index.js"
import * as Response from "../../../src/Response.js"
import * as StreamChunk from "../../../src/StreamChunk.js"
import * as Replay from "../../../src/testing/Replay.js"
import * as ReplayServer from "../../../src/testing/ReplayServer.js"
import { settle } from "../../support/clock.js"

const ownDir = new URL("../../fixtures/openai-responses/", import.meta.url)
const own = (name: string): string => readFileSync(new URL(name, ownDir), "utf8")
const key = Redacted.make("sk-test-abcdef0123456789")
const model = OpenAiResponses.layer({ model: "gpt-5-mini", apiKey: key, baseUrl: "http://replay.invalid/v1" })

// Splits, cuts, retries and key hygiene over every transcript and recording: conformance.test.ts.
describe("OpenAiResponses over HTTP (Replay)", () => {
  it.effect("sends the exact URL, headers and body; the key only in the authorization header", () =>
    Effect.gen(function*() {
      yield* LanguageModel.chat({
        messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hello" }],
        maxTokens: 50,
        headers: { "x-trace": "t1" }
      })
      const [request] = yield* Replay.requests
      expect(request.url).toBe("http://replay.invalid/v1/responses")
      expect(request.headers.authorization).toBe("Bearer sk-test-abcdef0123456789")
      expect(request.headers.accept).toBe("text/event-stream")
      expect(request.headers["x-trace"]).toBe("t1")
      expect(request.body).toStrictEqual({
        model: "gpt-5-mini",
        instructions: "Be brief.",
        input: [{ role: "user", content: "Hello" }],
        max_output_tokens: 50,
        store: false,
        include: ["reasoning.encrypted_content"],
        stream: true
      })
    }).pipe(Effect.provide(model), Effect.provide(Replay.layer({ body: own("text.sse") }))))

  it.effect("text.sse: the exact text, usage, cache read and finish", () =>
    Effect.gen(function*() {
      const r = yield* Response.collect(LanguageModel.stream("hi"))
      expect(r.text).toBe("Hello, world — héllo ✓")
      expect(r.metadata).toStrictEqual({ provider: "openai", model: "gpt-5-mini-demo", responseId: "resp_demo_1" })
      const { raw: _raw, ...usage } = r.usage ?? {}
      expect(usage).toStrictEqual({
        inputTokens: 12,
        outputTokens: 7,
        totalTokens: 19,
        cacheReadTokens: 4,
        reasoningTokens: 0
      })
      expect([r.finishReason, r.rawFinishReason, r.error]).toStrictEqual(["stop", "completed", undefined])
    }).pipe(Effect.provide(model), Effect.provide(Replay.layer({ body: own("text.sse"), split: { seed: 3 } }))))

  it.effect("the round trip: reasoning with encrypted content and the call go back exactly as the API wants", () =>
    Effect.gen(function*() {
      const question: ChatRequest.Message = { role: "user", content: "Weather in Paris?" }
      const first = yield* Response.collect(LanguageModel.stream({ messages: [question] }))
      expect(first.reasoning).toBe("**Checking the weather**\n\nI will call get_weather.")
      expect(first.toolCalls).toStrictEqual([{
        index: 0,
        id: "call_demo_weather",
        name: "get_weather",
        arguments: { city: "Paris", unit: "celsius" },
        rawArguments: "{\"city\":\"Paris\",\"unit\":\"celsius\"}"
      }])
      const { raw: _raw, ...usage } = first.usage ?? {}
      expect(usage).toStrictEqual({
        inputTokens: 85,
        outputTokens: 64,
        totalTokens: 149,
        cacheReadTokens: 0,
        reasoningTokens: 40
      })
      expect([first.finishReason, first.rawFinishReason]).toStrictEqual(["tool_calls", "completed"])
      yield* LanguageModel.chat({
        messages: [question, first.message, { role: "tool", toolCallId: "call_demo_weather", content: "18°C, sunny" }]
      })
      const [, second] = yield* Replay.requests
      expect(second.body).toStrictEqual({
        model: "gpt-5-mini",
        input: [
          { role: "user", content: "Weather in Paris?" },
          {
            type: "reasoning",
            id: "rs_demo_2",
            summary: [{ type: "summary_text", text: "**Checking the weather**\n\nI will call get_weather." }],
            encrypted_content: "enc_final_v1"
          },
          {
            type: "function_call",
            call_id: "call_demo_weather",
            name: "get_weather",
            arguments: "{\"city\":\"Paris\",\"unit\":\"celsius\"}"
          },
          { type: "function_call_output", call_id: "call_demo_weather", output: "18°C, sunny" }
        ],
        store: false,
        include: ["reasoning.encrypted_content"],
        stream: true
      })
    }).pipe(
      Effect.provide(model),
      Effect.provide(Replay.layer([
        { body: own("reasoning-tool-call.sse"), split: { seed: 5 } },
        { body: own("text.sse") }
      ]))
    ))

  it.effect("HTTP errors become typed errors that never contain the key", () =>
    Effect.gen(function*() {
      const error = yield* LanguageModel.chat("hi").pipe(Effect.flip)
      expect([error.code, error.status, error.retryable, error.requestId]).toStrictEqual([
        "authentication",
        401,
        false,
        "req_401"
      ])
      expect(error.message).toBe("Incorrect API key provided: [redacted].")
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

  it.effect("response.failed before any content is retried; the answer appears once", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(Response.collect(LanguageModel.stream("hi")))
      for (let i = 0; i < 10 && fiber.unsafePoll() === null; i++) {
        yield* settle()
        yield* TestClock.adjust("10 seconds")
      }
      const r = yield* Fiber.join(fiber)
      expect((yield* Replay.requests).length).toBe(2)
      expect([r.text, r.finishReason, r.error]).toStrictEqual(["Hello, world — héllo ✓", "stop", undefined])
    }).pipe(
      Effect.provide(model),
      Effect.provide(Replay.layer([{ body: own("failed.sse") }, { body: own("text.sse") }]))
    ))

  it.effect("a flat rate-limit error event is retried; a stream cut before the terminal event is truncated", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(Response.collect(LanguageModel.stream("hi")))
      for (let i = 0; i < 10 && fiber.unsafePoll() === null; i++) {
        yield* settle()
        yield* TestClock.adjust("10 seconds")
      }
      const r = yield* Fiber.join(fiber)
      expect((yield* Replay.requests).length).toBe(2)
      expect([r.text, r.error?.code]).toStrictEqual(["The answer is", "truncated"])
    }).pipe(
      Effect.provide(model),
      Effect.provide(Replay.layer([{ body: own("error-flat.sse") }, { body: own("truncated.sse") }]))
    ))

  it.effect("a missing key is an authentication error before any request", () =>
    Effect.gen(function*() {
      const error = yield* LanguageModel.chat("hi").pipe(Effect.flip)
      expect([error.code, error.message]).toStrictEqual([
        "authentication",
        "No API key for openai: pass apiKey or set OPENAI_API_KEY"
      ])
      expect((yield* Replay.requests).length).toBe(0)
    }).pipe(Effect.provide(OpenAiResponses.layer({ model: "gpt-5" })), Effect.provide(Replay.layer({ body: "" }))))
})

describe("OpenAiResponses presets and configuration", () => {
  it.effect("Azure: the key in the api-key header, the base URL from the environment", () =>
    Effect.gen(function*() {
      yield* LanguageModel.chat("Hi")
      const [request] = yield* Replay.requests
      expect(request.url).toBe("https://res.openai.azure.com/openai/v1/responses")
      expect(request.headers["api-key"]).toBe("az-key")
      expect(request.headers.authorization).toBeUndefined()
      const service = yield* LanguageModel.LanguageModel
      expect([service.provider, service.model]).toStrictEqual(["azure", "my-deployment"])
    }).pipe(
      Effect.provide(OpenAiResponses.layerConfig({ preset: "azure", model: "my-deployment" })),
      Effect.provide(Replay.layer({ body: own("text.sse") })),
      Effect.withConfigProvider(ConfigProvider.fromMap(
        new Map([["AZURE_OPENAI_API_KEY", "az-key"], [
          "AZURE_OPENAI_BASE_URL",
          "https://res.openai.azure.com/openai/v1"
        ]])
      ))
    ))

  it.effect("layerConfig for Azure fails with a ConfigError when no base URL is set", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(
        Layer.build(OpenAiResponses.layerConfig({ preset: "azure", model: "dep" })).pipe(Effect.scoped)
      )
      expect(exit._tag).toBe("Failure")
      expect(String(exit)).toContain("AZURE_OPENAI_BASE_URL")
    }).pipe(
      Effect.provide(Replay.layer({ body: "" })),
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["AZURE_OPENAI_API_KEY", "k"]])))
    ))

  it.effect("Azure without a base URL is an invalid_request error chunk, before any request", () =>
    Effect.gen(function*() {
      const error = yield* LanguageModel.chat("hi").pipe(Effect.flip)
      expect([error.code, error.message]).toStrictEqual([
        "invalid_request",
        "No base URL for azure: pass baseUrl or set AZURE_OPENAI_BASE_URL"
      ])
      expect((yield* Replay.requests).length).toBe(0)
    }).pipe(
      Effect.provide(OpenAiResponses.layer({ preset: "azure", model: "dep", apiKey: key })),
      Effect.provide(Replay.layer({ body: "" }))
    ))

  it.effect("xAI reads XAI_API_KEY; LM Studio needs no key and sends none", () =>
    Effect.gen(function*() {
      yield* LanguageModel.chat("Hi").pipe(
        Effect.provide(OpenAiResponses.layerConfig({ preset: "xai", model: "grok-4" }))
      )
      yield* LanguageModel.chat("Hi").pipe(
        Effect.provide(OpenAiResponses.layerConfig({ preset: "lmstudio", model: "qwen3-8b" }))
      )
      const [xai, lmstudio] = yield* Replay.requests
      expect([xai.url, xai.headers.authorization]).toStrictEqual(["https://api.x.ai/v1/responses", "Bearer xai-key"])
      expect([lmstudio.url, lmstudio.headers.authorization]).toStrictEqual([
        "http://localhost:1234/v1/responses",
        undefined
      ])
      expect(lmstudio.body).toStrictEqual({
        model: "qwen3-8b",
        input: [{ role: "user", content: "Hi" }],
        store: false,
        stream: true
      })
    }).pipe(
      Effect.provide(Replay.layer([{ body: own("text.sse") }, { body: own("text.sse") }])),
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["XAI_API_KEY", "xai-key"]])))
    ))
})

describe("OpenAiResponses custom (freeform) tool calls over real sockets (loopback replay server)", () => {
  it.live("the call streams with its call_id on every fragment, and goes back as custom_tool_call items", () =>
    Effect.gen(function*() {
      const body = own("custom-tool-call.sse")
      const reads: Array<string> = []
      for (let i = 0; i < body.length; i += 113) reads.push(body.slice(i, i + 113))
      const server = yield* ReplayServer.make({
        "/v1/responses": (_body, n) => ({ reads: n === 0 ? reads : [own("text.sse")] })
      })
      const layer = OpenAiResponses.layer({ model: "gpt-5-mini", apiKey: key, baseUrl: `${server.url}/v1` })
      const question: ChatRequest.Message = { role: "user", content: "Say hello, not hi." }
      const chunks = [
        ...yield* LanguageModel.stream({ messages: [question] }).pipe(Stream.runCollect, Effect.provide(layer))
      ]
      const patch = "*** Begin Patch\n*** Update File: hello.py\n-print(\"hi\")\n+print(\"hello\")\n*** End Patch"
      expect(chunks.filter((c) => c.type === "tool-call-delta")).toStrictEqual([
        {
          type: "tool-call-delta",
          index: 0,
          argumentsDelta: "*** Begin Patch\n*** Update File: hel",
          id: "call_demo_patch",
          name: "apply_patch"
        },
        {
          type: "tool-call-delta",
          index: 0,
          argumentsDelta: "lo.py\n-print(\"hi\")\n+print(\"hel",
          id: "call_demo_patch"
        },
        { type: "tool-call-delta", index: 0, argumentsDelta: "lo\")\n*** End Patch", id: "call_demo_patch" }
      ])
      const first = Response.fromChunks(chunks)
      expect(first.toolCalls).toStrictEqual([{
        index: 0,
        id: "call_demo_patch",
        name: "apply_patch",
        arguments: patch,
        rawArguments: patch,
        kind: "custom"
      }])
      expect([first.text, first.finishReason, first.rawFinishReason]).toStrictEqual([
        "Applying the patch.",
        "tool_calls",
        "completed"
      ])

      yield* LanguageModel.chat({
        messages: [question, first.message, ChatRequest.toolResult("call_demo_patch", "Done!", { name: "apply_patch" })]
      }).pipe(Effect.provide(layer))
      expect(server.requests.map((r) => r.path)).toStrictEqual(["/v1/responses", "/v1/responses"])
      expect(JSON.parse(server.requests[1]!.body)).toStrictEqual({
        model: "gpt-5-mini",
        input: [
          { role: "user", content: "Say hello, not hi." },
          {
            type: "reasoning",
            id: "rs_demo_ct",
            summary: [{ type: "summary_text", text: "**Patching the greeting**" }],
            encrypted_content: "enc_ct_final"
          },
          { role: "assistant", content: "Applying the patch." },
          { type: "custom_tool_call", call_id: "call_demo_patch", name: "apply_patch", input: patch },
          { type: "custom_tool_call_output", call_id: "call_demo_patch", output: "Done!" }
        ],
        store: false,
        include: ["reasoning.encrypted_content"],
        stream: true
      })
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer)))
})
