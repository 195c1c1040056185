/**
 * The Ollama layer over HTTP (Replay, and one real loopback server): exact URL, headers and body; the
 * server address read as OLLAMA_HOST is; no key needed, a key sent as bearer; the two-turn tool
 * conversation; HTTP and in-band errors; retries before output only; a body cut before done.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as ChatRequest from "../../../src/ChatRequest.js"
import * as LanguageModel from "../../../src/LanguageModel.js"
import * as Ollama from "../../../src/providers/ollama/index.js"
import * as Response from "../../../src/Response.js"
import * as StreamChunk from "../../../src/StreamChunk.js"
import * as Replay from "../../../src/testing/Replay.js"
import * as ReplayServer from "../../../src/testing/ReplayServer.js"
import * as UsageMeter from "../../../src/UsageMeter.js"
import { awaitSleepUntil } from "../../support/clock.js"
import { decode, frame, own, ownTranscripts } from "./support.js"

/** A fake key, built at run time. */
const fakeKey = ["ollama", "test", "0123456789abcdef"].join("-")
const local = Ollama.layer({ model: "qwen3:8b", baseUrl: "http://replay.invalid:11434", retry: { times: 0 } })

const ndjson = { "content-type": "application/x-ndjson" }
const errorReply = (status: number, message: string) => ({
  status,
  headers: { "content-type": "application/json; charset=utf-8" },
  body: JSON.stringify({ error: message })
})

/** What the pure decoder makes of the whole body, with the invariant applied. */
const expectedFor = (body: string) => [
  ...Effect.runSync(Stream.runCollect(StreamChunk.ensureTerminal(
    Stream.fromIterable(decode(frame(body))),
    { provider: "ollama" }
  )))
]

const withEnv = (env: ReadonlyArray<readonly [string, string]>) =>
  Effect.withConfigProvider(ConfigProvider.fromMap(new Map(env)))

describe("Ollama over HTTP (Replay)", () => {
  for (const name of ownTranscripts()) {
    it.effect(`${name}: any split of the bytes gives the chunks the decoder gives the whole body`, () =>
      Effect.gen(function*() {
        const body = own(name)
        const expected = expectedFor(body)
        for (const seed of [1, 2, 3]) {
          const chunks = yield* LanguageModel.stream("hi").pipe(
            Stream.runCollect,
            Effect.provide(local),
            Effect.provide(Replay.layer({ body, headers: ndjson, split: { seed, maxRead: 40 } }))
          )
          expect([...chunks]).toStrictEqual(expected)
        }
      }))
  }

  it.effect("sends the exact URL, headers and body; no key, no authorization header", () =>
    Effect.gen(function*() {
      yield* LanguageModel.chat({
        messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hello" }],
        temperature: 0,
        headers: { "x-trace": "t1" }
      })
      const [request] = yield* Replay.requests
      expect(request.url).toBe("http://localhost:11434/api/chat")
      expect(request.method).toBe("POST")
      expect(request.headers.accept).toBe("application/x-ndjson")
      expect(request.headers.authorization).toBeUndefined()
      expect(request.headers["x-trace"]).toBe("t1")
      expect(request.body).toStrictEqual({
        model: "qwen3:8b",
        messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hello" }],
        think: false,
        options: { num_ctx: 8192, temperature: 0 },
        keep_alive: "10m",
        stream: true
      })
    }).pipe(
      Effect.provide(Ollama.layer({ model: "qwen3:8b", think: false, keepAlive: "10m", options: { num_ctx: 8192 } })),
      Effect.provide(Replay.layer({ body: own("text.ndjson"), headers: ndjson }))
    ))

  it.effect("a key given in options is sent as bearer (Ollama's cloud, proxies), and never in an error", () =>
    Effect.gen(function*() {
      const error = yield* LanguageModel.chat("hi").pipe(Effect.flip)
      const [request] = yield* Replay.requests
      expect(request.url).toBe("https://ollama.com/api/chat")
      expect(request.headers.authorization).toBe(`Bearer ${fakeKey}`)
      expect([error.code, error.status, error.retryable, error.message]).toStrictEqual([
        "authentication",
        401,
        false,
        "unauthorized: [redacted]"
      ])
      expect(JSON.stringify(StreamChunk.error(error))).not.toContain("0123456789abcdef")
    }).pipe(
      Effect.provide(
        Ollama.layer({ model: "gpt-oss:120b", baseUrl: "https://ollama.com/", apiKey: Redacted.make(fakeKey) })
      ),
      Effect.provide(Replay.layer(errorReply(401, `unauthorized: ${fakeKey}`)))
    ))

  it.effect("the tool turn, then the answer after the tool result: exact calls, usage, finish, and the second body", () =>
    Effect.gen(function*() {
      const first: ChatRequest.ChatRequest = {
        messages: [ChatRequest.user("What's the weather in Paris?")],
        tools: [ChatRequest.tool({ name: "get_weather", parameters: Schema.Struct({ city: Schema.String }) })]
      }
      const one = yield* Response.collect(LanguageModel.stream(first))
      expect(one.text).toBe("Let me look up the weather in Paris.")
      expect(one.reasoning).toBe("The user wants current weather in Paris. I should call get_weather with city Paris.")
      expect(one.toolCalls).toStrictEqual([{
        index: 0,
        id: "call_demo0001",
        name: "get_weather",
        arguments: { city: "Paris" },
        rawArguments: "{\"city\":\"Paris\"}"
      }])
      const { raw: _raw, ...usage } = one.usage!
      expect(usage).toStrictEqual({ inputTokens: 188, outputTokens: 41, totalTokens: 229 })
      expect([one.finishReason, one.rawFinishReason]).toStrictEqual(["tool_calls", "stop"])
      expect(one.metadata).toStrictEqual({ provider: "ollama", model: "qwen3:8b-demo" })

      const result = ChatRequest.toolResult("call_demo0001", "{\"temperature\":18}")
      const two = yield* Response.collect(
        LanguageModel.stream({ ...first, messages: [...first.messages, one.message, result] })
      )
      expect(two.text).toBe(
        "It's 18 °C with light rain in Paris right now: mild, but take an umbrella if you head out."
      )
      expect([two.finishReason, two.rawFinishReason]).toStrictEqual(["stop", "stop"])
      const requests = yield* Replay.requests
      expect((requests[1]!.body as { messages: unknown }).messages).toStrictEqual([
        { role: "user", content: "What's the weather in Paris?" },
        {
          role: "assistant",
          content: "Let me look up the weather in Paris.",
          thinking: "The user wants current weather in Paris. I should call get_weather with city Paris.",
          tool_calls: [{ function: { name: "get_weather", arguments: { city: "Paris" } } }]
        },
        { role: "tool", tool_name: "get_weather", content: "{\"temperature\":18}" }
      ])
      const counters = {
        requests: 2,
        errors: 0,
        inputTokens: 434,
        outputTokens: 64,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        reasoningTokens: 0
      }
      expect(yield* UsageMeter.snapshot).toStrictEqual({ ...counters, byModel: { "ollama:qwen3:8b": counters } })
    }).pipe(
      Effect.provide(local),
      Effect.provide(Replay.layer([
        { body: own("demo-weather-tool-call.ndjson"), headers: ndjson, split: { seed: 4 } },
        { body: own("demo-weather-answer.ndjson"), headers: ndjson, split: { seed: 5 } }
      ])),
      Effect.provide(UsageMeter.layer)
    ))

  it.effect("404 model not found is not_found, not retried", () =>
    Effect.gen(function*() {
      const error = yield* LanguageModel.chat("hi").pipe(Effect.flip)
      expect([error.code, error.status, error.retryable, error.message]).toStrictEqual([
        "not_found",
        404,
        false,
        "model \"qwen3:8b\" not found, try pulling it first"
      ])
      expect((yield* Replay.requests).length).toBe(1)
    }).pipe(
      Effect.provide(Ollama.layer({ model: "qwen3:8b" })),
      Effect.provide(Replay.layer([errorReply(404, "model \"qwen3:8b\" not found, try pulling it first")]))
    ))

  it.effect("a 503 server busy is retried after the backoff; the answer appears once", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(Response.collect(LanguageModel.stream("hi")))
      yield* awaitSleepUntil(2_000)
      yield* TestClock.adjust("2 seconds")
      const r = yield* Fiber.join(fiber)
      expect((yield* Replay.requests).length).toBe(2)
      expect([r.text, r.error]).toStrictEqual(["The sky is blue, « bleu ».", undefined])
    }).pipe(
      Effect.provide(Ollama.layer({ model: "llama3.2", retry: { times: 1 } })),
      Effect.provide(Replay.layer([
        {
          ...errorReply(503, "server busy, please try again.  maximum pending requests exceeded"),
          headers: { "retry-after": "2" }
        },
        { body: own("text.ndjson"), headers: ndjson }
      ]))
    ))

  it.effect("an in-band error line before any output is retried; after output it is final", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(Stream.runCollect(LanguageModel.stream("hi")))
      yield* awaitSleepUntil(1_000)
      yield* TestClock.adjust("1 second")
      const chunks = [...yield* Fiber.join(fiber)]
      expect((yield* Replay.requests).length).toBe(2)
      // The failed attempt's metadata was held back and dropped: one beginning only.
      expect(chunks.filter((c) => c.type === "metadata")).toStrictEqual([
        { type: "metadata", provider: "ollama", model: "llama3.2" }
      ])
      expect(Response.fromChunks(chunks).text).toBe("The sky is blue, « bleu ».")

      const r = yield* Response.collect(LanguageModel.stream("again"))
      expect(r.text).toBe("Once upon")
      expect([r.error?.code, r.error?.retryable, r.error?.status]).toStrictEqual(["server", true, undefined])
      expect((yield* Replay.requests).length).toBe(3)
    }).pipe(
      Effect.provide(Ollama.layer({ model: "llama3.2", retry: { times: 1, schedule: Schedule.spaced("1 second") } })),
      Effect.provide(Replay.layer([
        { body: "{\"error\":\"an error was encountered while running the model\"}\n", headers: ndjson },
        { body: own("text.ndjson"), headers: ndjson },
        { body: own("error-midstream.ndjson"), headers: ndjson }
      ]))
    ))

  it.effect("a 200 JSON error document (not a stream) is that error", () =>
    Effect.gen(function*() {
      const error = yield* LanguageModel.chat("hi").pipe(Effect.flip)
      expect([error.code, error.message]).toStrictEqual(["not_found", "model 'x' not found"])
    }).pipe(
      Effect.provide(local),
      Effect.provide(
        Replay.layer({ headers: { "content-type": "application/json" }, body: "{\"error\":\"model 'x' not found\"}" })
      )
    ))

  it.effect("an empty 200 body is truncated; an empty 500 is a server error saying its status", () =>
    Effect.gen(function*() {
      const empty = yield* LanguageModel.chat("hi").pipe(Effect.flip)
      expect([empty.code, empty.status]).toStrictEqual(["truncated", undefined])
      const failed = yield* LanguageModel.chat("hi").pipe(Effect.flip)
      expect([failed.code, failed.status, failed.message]).toStrictEqual([
        "server",
        500,
        "The provider answered with HTTP 500"
      ])
    }).pipe(
      Effect.provide(local),
      Effect.provide(Replay.layer([{ body: "", headers: ndjson }, { status: 500, body: "" }]))
    ))

  it.effect("a body cut before done: true ends in truncated, what arrived kept", () =>
    Effect.gen(function*() {
      const r = yield* Response.collect(LanguageModel.stream("hi"))
      expect([r.text, r.reasoning, r.error?.code, r.finishReason]).toStrictEqual([
        "Half an answer",
        "Hmm",
        "truncated",
        "error"
      ])
    }).pipe(Effect.provide(local), Effect.provide(Replay.layer({ body: own("truncated.ndjson"), headers: ndjson }))))

  it.effect("an image by URL is invalid_request before any request", () =>
    Effect.gen(function*() {
      const error = yield* LanguageModel.chat({
        messages: [{ role: "user", content: [{ type: "image", url: "https://x.example/cat.png" }] }]
      }).pipe(Effect.flip)
      expect([error.code, error.retryable, error.message]).toStrictEqual([
        "invalid_request",
        false,
        "Ollama cannot fetch an image by URL: pass its bytes (data) instead"
      ])
      expect((yield* Replay.requests).length).toBe(0)
    }).pipe(Effect.provide(local), Effect.provide(Replay.layer({ body: "" }))))

  it.effect("layerConfig with nothing set: the default server, no key, no ConfigError", () =>
    Effect.gen(function*() {
      yield* LanguageModel.chat("Hi")
      const [request] = yield* Replay.requests
      expect(request.url).toBe("http://localhost:11434/api/chat")
      expect(request.headers.authorization).toBeUndefined()
      const service = yield* LanguageModel.LanguageModel
      expect([service.provider, service.model]).toStrictEqual(["ollama", "llama3.2"])
    }).pipe(
      Effect.provide(Ollama.layerConfig({ model: "llama3.2" })),
      Effect.provide(Replay.layer({ body: own("text.ndjson"), headers: ndjson })),
      withEnv([])
    ))

  const hosts: ReadonlyArray<readonly [string, string]> = [
    ["0.0.0.0:11434", "http://0.0.0.0:11434/api/chat"],
    ["gpu-box", "http://gpu-box:11434/api/chat"],
    [":8080", "http://127.0.0.1:8080/api/chat"],
    ["https://ollama.example/", "https://ollama.example/api/chat"],
    ["http://proxy.example:9000/ollama/", "http://proxy.example:9000/ollama/api/chat"]
  ]
  for (const [host, url] of hosts) {
    it.effect(`layerConfig reads OLLAMA_HOST=${host} as Ollama's clients do: ${url}`, () =>
      Effect.gen(function*() {
        yield* LanguageModel.chat("Hi")
        expect((yield* Replay.requests)[0]!.url).toBe(url)
      }).pipe(
        Effect.provide(Ollama.layerConfig({ model: "llama3.2" })),
        Effect.provide(Replay.layer({ body: own("text.ndjson"), headers: ndjson })),
        withEnv([["OLLAMA_HOST", host]])
      ))
  }

  it.effect("layerConfig reads OLLAMA_API_KEY as the bearer key; options win over the environment", () =>
    Effect.gen(function*() {
      yield* LanguageModel.chat("Hi")
      const [request] = yield* Replay.requests
      expect(request.url).toBe("http://other:11434/api/chat")
      expect(request.headers.authorization).toBe(`Bearer ${fakeKey}-option`)
    }).pipe(
      Effect.provide(
        Ollama.layerConfig({ model: "llama3.2", baseUrl: "other", apiKey: Redacted.make(`${fakeKey}-option`) })
      ),
      Effect.provide(Replay.layer({ body: own("text.ndjson"), headers: ndjson })),
      withEnv([["OLLAMA_HOST", "gpu-box"], ["OLLAMA_API_KEY", `${fakeKey}-env`]])
    ))

  it.effect("layerConfig: OLLAMA_API_KEY alone is sent to OLLAMA_HOST", () =>
    Effect.gen(function*() {
      yield* LanguageModel.chat("Hi")
      const [request] = yield* Replay.requests
      expect([request.url, request.headers.authorization]).toStrictEqual([
        "https://ollama.com/api/chat",
        `Bearer ${fakeKey}-env`
      ])
    }).pipe(
      Effect.provide(Ollama.layerConfig({ model: "gpt-oss:120b" })),
      Effect.provide(Replay.layer({ body: own("text.ndjson"), headers: ndjson })),
      withEnv([["OLLAMA_HOST", "https://ollama.com"], ["OLLAMA_API_KEY", `${fakeKey}-env`]])
    ))
})

describe("Ollama.hostUrl", () => {
  it("reads addresses as Ollama's clients read OLLAMA_HOST", () => {
    expect([
      "",
      "  ",
      "localhost",
      "0.0.0.0",
      "0.0.0.0:11434",
      ":11435",
      "[::1]",
      "[::1]:9000",
      "http://localhost",
      "https://ollama.com",
      "http://h:1/base//",
      "user:secret@gpu-box",
      "user:secret@gpu-box:8000"
    ].map(Ollama.hostUrl)).toStrictEqual([
      "http://localhost:11434",
      "http://localhost:11434",
      "http://localhost:11434",
      "http://0.0.0.0:11434",
      "http://0.0.0.0:11434",
      "http://127.0.0.1:11435",
      "http://[::1]:11434",
      "http://[::1]:9000",
      "http://localhost",
      "https://ollama.com",
      "http://h:1/base",
      "http://user:secret@gpu-box:11434",
      "http://user:secret@gpu-box:8000"
    ])
  })
})

describe("Ollama over a real loopback server (FetchHttpClient)", () => {
  it.live("streams the demo's tool turn as the server writes it, read by read", () =>
    Effect.gen(function*() {
      const body = own("demo-weather-tool-call.ndjson")
      const reads: Array<string> = []
      for (let i = 0; i < body.length; i += 97) reads.push(body.slice(i, i + 97))
      const server = yield* ReplayServer.make({ "/api/chat": { headers: ndjson, reads } })
      const chunks = yield* LanguageModel.stream("weather?").pipe(
        Stream.runCollect,
        Effect.provide(Ollama.layer({ model: "qwen3:8b", baseUrl: server.url.replace("http://", "") })),
        Effect.provide(FetchHttpClient.layer)
      )
      expect([...chunks]).toStrictEqual(expectedFor(body))
      expect(server.requests.map((r) => [r.path, JSON.parse(r.body).stream])).toStrictEqual([["/api/chat", true]])
    }).pipe(Effect.scoped))
})
