import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as ConfigError from "effect/ConfigError"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as ChatRequest from "../../src/ChatRequest.js"
import * as LanguageModel from "../../src/LanguageModel.js"
import * as BedrockFixture from "../../src/providers/bedrock/fixture.js"
import * as Bedrock from "../../src/providers/bedrock/index.js"
import * as OpenAiChat from "../../src/providers/openai-chat/index.js"
import type * as StreamChunk from "../../src/StreamChunk.js"
import * as Replay from "../../src/testing/Replay.js"
import * as ReplayServer from "../../src/testing/ReplayServer.js"

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "effect-llm-stream-cassette-"))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

/** A fresh cassette path in the temporary folder (no file there yet). */
let files = 0
const freshPath = (name: string): string => path.join(dir, `${++files}-${name}.json`)

const key = "test-key-0123456789"
const model = "gpt-4.1-mini"

/** The environment as `layerConfig` reads it: only what is given. */
const env = (vars: Record<string, string>) =>
  Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(vars))))

// The agent's two requests: the model calls `weather`, then answers from its result.
const weather: ChatRequest.Tool = {
  name: "weather",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
}
const step1: ChatRequest.ChatRequest = { messages: [ChatRequest.user("Weather in Paris?")], tools: [weather] }
const step2 = (calls: ChatRequest.AssistantMessage["toolCalls"]): ChatRequest.ChatRequest => ({
  messages: [
    ...step1.messages,
    { role: "assistant", content: "", ...(calls === undefined ? {} : { toolCalls: calls }) },
    ChatRequest.toolResult("call_1", "{\"temperatureC\":21}")
  ],
  tools: [weather]
})

const sse = (id: string, rest: string) => `data: {"id":"${id}","model":"${model}",${rest}}\n\n`
const toolCallReads = [
  // A server echoing the credential it was sent (as some proxies do in debug output).
  `: echo Bearer ${key}\n\n`,
  sse(
    "c1",
    "\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\"," +
      "\"function\":{\"name\":\"weather\",\"arguments\":\"{\\\"city\\\":\\\"Paris\\\"}\"}}]},\"finish_reason\":\"tool_calls\"}]"
  ),
  "data: [DONE]\n\n"
]
const answerReads = [
  sse("c2", "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"It is 21 °C in Paris.\"},\"finish_reason\":\"stop\"}]"),
  "data: [DONE]\n\n"
]
const routes: ReplayServer.Routes = {
  "/v1/chat/completions": (_, n) => ({
    headers: { "content-type": "text/event-stream", "x-request-id": `req_${n + 1}`, "set-cookie": "session=abc" },
    reads: n === 0 ? toolCallReads : answerReads
  })
}

/** Runs the agent's two steps by hand: the chunks of each. */
const agent = Effect.gen(function*() {
  const first = Chunk.toArray(yield* Stream.runCollect(LanguageModel.stream(step1)))
  const calls = first.flatMap((c) => (c.type === "tool-call" ? [c.toolCall] : []))
  const second = Chunk.toArray(yield* Stream.runCollect(LanguageModel.stream(step2(calls))))
  return [first, second] as const
})

const run = <A, E, E2, R>(
  program: Effect.Effect<A, E, LanguageModel.LanguageModel>,
  layer: Layer.Layer<LanguageModel.LanguageModel, E2, R>
) => program.pipe(Effect.provide(layer))

const openAi = (baseUrl: string) => OpenAiChat.layerConfig({ model, baseUrl })

const toolCallChunks: ReadonlyArray<StreamChunk.StreamChunk> = [
  { type: "metadata", provider: "openai", model, responseId: "c1" },
  { type: "tool-call-delta", index: 0, id: "call_1", name: "weather", argumentsDelta: "{\"city\":\"Paris\"}" },
  {
    type: "tool-call",
    toolCall: {
      index: 0,
      id: "call_1",
      name: "weather",
      arguments: { city: "Paris" },
      rawArguments: "{\"city\":\"Paris\"}"
    }
  },
  { type: "finish", reason: "tool_calls", rawReason: "tool_calls" }
]
const answerChunks: ReadonlyArray<StreamChunk.StreamChunk> = [
  { type: "metadata", provider: "openai", model, responseId: "c2" },
  { type: "text-delta", delta: "It is 21 °C in Paris." },
  { type: "finish", reason: "stop", rawReason: "stop" }
]
const tools = [{
  type: "function",
  function: {
    name: "weather",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
  }
}]
const body1 = {
  model,
  messages: [{ role: "user", content: "Weather in Paris?" }],
  tools,
  stream: true,
  stream_options: { include_usage: true }
}
const body2 = {
  model,
  messages: [
    { role: "user", content: "Weather in Paris?" },
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_1", type: "function", function: { name: "weather", arguments: "{\"city\":\"Paris\"}" } }]
    },
    { role: "tool", tool_call_id: "call_1", content: "{\"temperatureC\":21}" }
  ],
  tools,
  stream: true,
  stream_options: { include_usage: true }
}
/** What the recording of the two steps holds, exactly. */
const recorded = {
  version: 1,
  exchanges: [
    {
      request: { method: "POST", url: "/v1/chat/completions", body: body1 },
      response: {
        status: 200,
        headers: { "content-type": "text/event-stream", "x-request-id": "req_1" },
        body: [": echo Bearer [redacted]\n\n", ...toolCallReads.slice(1)].join("")
      }
    },
    {
      request: { method: "POST", url: "/v1/chat/completions", body: body2 },
      response: {
        status: 200,
        headers: { "content-type": "text/event-stream", "x-request-id": "req_2" },
        body: answerReads.join("")
      }
    }
  ]
}

const rerecord = "Delete the file and run again with the provider's key set to record it anew."
const refused = (message: string): StreamChunk.StreamChunk => ({
  type: "error",
  error: {
    code: "invalid_request",
    message,
    retryable: false,
    status: 400,
    provider: "openai",
    details: { error: { type: "invalid_request_error", message }, message }
  }
})

/** Records the agent's two steps from a loopback "provider", then shuts it down: the cassette's path. */
const recordAgent = (file: string) =>
  Effect.gen(function*() {
    const server = yield* Effect.promise(() => ReplayServer.start(routes))
    const chunks = yield* run(agent, Replay.cassette(file, openAi(`${server.url}/v1`))).pipe(
      Effect.provide(FetchHttpClient.layer),
      env({ OPENAI_API_KEY: key }),
      Effect.ensuring(Effect.promise(() => server.close()))
    )
    return { chunks, server }
  })

describe("Replay.cassette", () => {
  it.live("records the exchanges when the file is missing, then replays them with no server and no key", () =>
    Effect.gen(function*() {
      const file = freshPath("agent")
      const { chunks, server } = yield* recordAgent(file)
      expect(chunks).toStrictEqual([toolCallChunks, answerChunks])
      expect(server.requests.length).toBe(2)
      const text = fs.readFileSync(file, "utf8")
      expect(text).toBe(`${JSON.stringify(recorded, null, 2)}\n`)
      expect(text.includes(key)).toBe(false)
      expect(text.toLowerCase().includes("authorization")).toBe(false)
      expect(fs.readdirSync(path.dirname(file)).filter((f) => f.includes(path.basename(file)))).toStrictEqual([
        path.basename(file)
      ])

      // The server is gone and OPENAI_API_KEY is unset: the same program replays the same chunks.
      const replayed = yield* run(agent, Replay.cassette(file, openAi("http://127.0.0.1:9/v1"))).pipe(
        Effect.provide(FetchHttpClient.layer),
        env({})
      )
      expect(replayed).toStrictEqual([toolCallChunks, answerChunks])
      expect(server.requests.length).toBe(2)
      expect(fs.readFileSync(file, "utf8")).toBe(text)
    }))

  it.live("a request whose body differs from the recording ends in an error chunk naming the cassette, exchange and difference", () =>
    Effect.gen(function*() {
      const file = freshPath("mismatch")
      yield* recordAgent(file)
      const lyon: ChatRequest.ChatRequest = { ...step1, messages: [ChatRequest.user("Weather in Lyon?")] }
      const chunks = yield* run(
        Effect.map(Stream.runCollect(LanguageModel.stream(lyon)), Chunk.toArray),
        Replay.cassette(file, openAi("http://127.0.0.1:9/v1"), { mode: "replay" })
      ).pipe(Effect.provide(FetchHttpClient.layer), env({}))
      expect(chunks).toStrictEqual([
        refused(
          `Replay.cassette: request 1 does not match exchange 1 of ${file}: body.messages[0].content: ` +
            `recorded "Weather in Paris?", sent "Weather in Lyon?". ${rerecord}`
        )
      ])
    }))

  it.live("a request after the last exchange ends in an error chunk saying how many the cassette holds", () =>
    Effect.gen(function*() {
      const file = freshPath("extra")
      yield* recordAgent(file)
      const chunks = yield* run(
        Effect.gen(function*() {
          const both = yield* agent
          const third = Chunk.toArray(yield* Stream.runCollect(LanguageModel.stream(step1)))
          return [...both, third]
        }),
        Replay.cassette(file, openAi("http://127.0.0.1:9/v1"))
      ).pipe(Effect.provide(FetchHttpClient.layer), env({}))
      expect(chunks).toStrictEqual([
        toolCallChunks,
        answerChunks,
        [refused(`Replay.cassette: request 3 has no recorded exchange: ${file} holds 2 exchanges. ${rerecord}`)]
      ])
    }))

  it.live("mode replay with no file fails the layer with a CassetteError saying how to record it", () =>
    Effect.gen(function*() {
      const file = freshPath("absent")
      const error = yield* run(agent, Replay.cassette(file, openAi("http://127.0.0.1:9/v1"), { mode: "replay" })).pipe(
        Effect.provide(FetchHttpClient.layer),
        env({ OPENAI_API_KEY: key }),
        Effect.flip
      )
      expect(error).toStrictEqual(
        new Replay.CassetteError({
          reason: "missing",
          path: file,
          message: `Replay.cassette: ${file} does not exist and mode is "replay". ` +
            `Record it by running once with mode "auto" (or "record") and the provider's key set.`
        })
      )
      expect(fs.existsSync(file)).toBe(false)
    }))

  it.live("a missing file and no key: the layer fails with a CassetteError naming the variable to set, and writes nothing", () =>
    Effect.gen(function*() {
      const file = freshPath("nokey")
      const error = yield* run(agent, Replay.cassette(file, openAi("http://127.0.0.1:9/v1"))).pipe(
        Effect.provide(FetchHttpClient.layer),
        env({}),
        Effect.flip
      )
      expect(error._tag).toBe("CassetteError")
      const failure = error as Replay.CassetteError
      expect([failure.reason, failure.path, failure.message]).toStrictEqual([
        "unrecordable",
        file,
        `Replay.cassette: ${file} does not exist, so it would be recorded from the real provider, but the provider ` +
        `layer could not be built: OPENAI_API_KEY is not set. Set OPENAI_API_KEY to record it, or add the recorded file.`
      ])
      expect(ConfigError.isConfigError(failure.cause)).toBe(true)
      expect(fs.existsSync(file)).toBe(false)
    }))

  /** What `JSON.parse` says about `text`, computed apart from the code under test. */
  const parseError = (text: string): string => {
    try {
      JSON.parse(text)
    } catch (e) {
      return e instanceof Error ? e.message : String(e)
    }
    throw new Error("expected invalid JSON")
  }
  const exchange = {
    request: { method: "POST", url: "/v1/chat/completions", body: {} },
    response: { status: 200, headers: {}, body: "" }
  }
  const malformed: ReadonlyArray<readonly [string, string, string]> = [
    ["not JSON", "{\"version\":", parseError("{\"version\":")],
    ["another version", JSON.stringify({ version: 2, exchanges: [] }), "version: Expected 1, actual 2"],
    [
      "a status out of range",
      JSON.stringify({
        version: 1,
        exchanges: [exchange, { ...exchange, response: { ...exchange.response, status: 42 } }]
      }),
      "exchanges[1].response.status: Expected a number between 200 and 599, actual 42"
    ],
    [
      "both body and bodyBase64",
      JSON.stringify({ version: 1, exchanges: [{ ...exchange, response: { ...exchange.response, bodyBase64: "" } }] }),
      "exchanges[0].response: body and bodyBase64 exclude each other"
    ]
  ]
  for (const [what, text, problem] of malformed) {
    it.live(`a file that is not a cassette (${what}) fails the layer with a CassetteError saying what is wrong`, () =>
      Effect.gen(function*() {
        const file = freshPath("bad")
        fs.writeFileSync(file, text)
        const error = yield* run(agent, Replay.cassette(file, openAi("http://127.0.0.1:9/v1"))).pipe(
          Effect.provide(FetchHttpClient.layer),
          env({}),
          Effect.flip
        )
        expect(error).toStrictEqual(
          new Replay.CassetteError({
            reason: "malformed",
            path: file,
            message: `Replay.cassette: ${file} is not a cassette: ${problem}`
          })
        )
      }))
  }

  it.live("a binary event stream (Bedrock) is recorded as Base64 and replays to the same chunks", () =>
    Effect.gen(function*() {
      const file = freshPath("bedrock")
      const bytes = BedrockFixture.eventStreamBytes([
        "{\"messageStart\":{\"role\":\"assistant\"}}",
        "{\"contentBlockDelta\":{\"contentBlockIndex\":0,\"delta\":{\"text\":\"Hi\"}}}",
        "{\"messageStop\":{\"stopReason\":\"end_turn\"}}",
        "{\"metadata\":{\"usage\":{\"inputTokens\":3,\"outputTokens\":1,\"totalTokens\":4}}}"
      ])
      const bedrockModel = "anthropic.claude-test-v1:0"
      const server = yield* Effect.promise(() =>
        ReplayServer.start({
          [`/model/${encodeURIComponent(bedrockModel)}/converse-stream`]: {
            headers: { "content-type": "application/vnd.amazon.eventstream" },
            reads: [bytes]
          }
        })
      )
      const layer = (baseUrl: string) =>
        Replay.cassette(file, Bedrock.layer({ model: bedrockModel, apiKey: Redacted.make(key), baseUrl }))
      const program = Effect.map(Stream.runCollect(LanguageModel.stream("hi")), Chunk.toArray)
      const first = yield* run(program, layer(server.url)).pipe(
        Effect.provide(FetchHttpClient.layer),
        Effect.ensuring(Effect.promise(() => server.close()))
      )
      expect(first).toStrictEqual([
        { type: "metadata", provider: "bedrock", model: bedrockModel },
        { type: "text-delta", delta: "Hi" },
        {
          type: "usage",
          usage: {
            inputTokens: 3,
            outputTokens: 1,
            totalTokens: 4,
            raw: { inputTokens: 3, outputTokens: 1, totalTokens: 4 }
          }
        },
        { type: "finish", reason: "stop", rawReason: "end_turn" }
      ])
      const cassette = JSON.parse(fs.readFileSync(file, "utf8")) as Replay.CassetteFile
      expect(cassette.exchanges.map((e) => [e.request.url, e.response])).toStrictEqual([[
        "/model/anthropic.claude-test-v1%3A0/converse-stream",
        {
          status: 200,
          headers: { "content-type": "application/vnd.amazon.eventstream" },
          bodyBase64: Buffer.from(bytes).toString("base64")
        }
      ]])
      expect(yield* run(program, layer("http://127.0.0.1:9")).pipe(Effect.provide(FetchHttpClient.layer)))
        .toStrictEqual(
          first
        )
    }))

  it.effect("a connection dropped mid-body is recorded as dropped, and replays to the same chunks", () =>
    Effect.gen(function*() {
      const file = freshPath("dropped")
      const partial = sse("c3", "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"It is\"},\"finish_reason\":null}]")
      const program = Effect.map(Stream.runCollect(LanguageModel.stream(step1)), Chunk.toArray)
      const layer = Replay.cassette(
        file,
        OpenAiChat.layer({ model, apiKey: Redacted.make(key), baseUrl: "http://x.invalid/v1" })
      )
      // The "real" provider here is a Replay client whose connection drops after the first event.
      const first = yield* run(program, layer).pipe(Effect.provide(Replay.layer({ body: partial, drop: true })))
      expect(first).toStrictEqual([
        { type: "metadata", provider: "openai", model, responseId: "c3" },
        { type: "text-delta", delta: "It is" },
        {
          type: "error",
          error: {
            code: "network",
            message: "The connection failed while streaming: connection reset by peer",
            provider: "openai",
            retryable: true
          }
        }
      ])
      const cassette = JSON.parse(fs.readFileSync(file, "utf8")) as Replay.CassetteFile
      expect(cassette.exchanges.map((e) => e.response)).toStrictEqual([
        { status: 200, headers: { "content-type": "text/event-stream" }, body: partial, dropped: true }
      ])
      expect(yield* run(program, layer).pipe(Effect.provide(Replay.layer({ body: "unused" })))).toStrictEqual(first)
    }))

  it.live("mode record records anew over an existing cassette", () =>
    Effect.gen(function*() {
      const file = freshPath("rerecord")
      fs.writeFileSync(file, JSON.stringify({ version: 1, exchanges: [] }))
      const server = yield* Effect.promise(() => ReplayServer.start(routes))
      const chunks = yield* run(agent, Replay.cassette(file, openAi(`${server.url}/v1`), { mode: "record" })).pipe(
        Effect.provide(FetchHttpClient.layer),
        env({ OPENAI_API_KEY: key }),
        Effect.ensuring(Effect.promise(() => server.close()))
      )
      expect(chunks).toStrictEqual([toolCallChunks, answerChunks])
      expect(fs.readFileSync(file, "utf8")).toBe(`${JSON.stringify(recorded, null, 2)}\n`)
    }))
})
