/**
 * `Relay`: chunks to a client as `text/event-stream` and back, over a real loopback HTTP connection.
 * Lossless round trip; one terminal chunk for a dropped connection, an early end, an HTTP error and a
 * malformed event; keep-alive comments on the Effect clock; a client that leaves aborts the provider
 * request behind the relay.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { describe, expect } from "vitest"
import * as Relay from "../../src/interop/Relay.js"
import * as LanguageModel from "../../src/LanguageModel.js"
import * as OpenAiChat from "../../src/providers/openai-chat/index.js"
import * as StreamChunk from "../../src/StreamChunk.js"
import * as ReplayServer from "../../src/testing/ReplayServer.js"
import * as TestModel from "../../src/testing/TestModel.js"
import * as Tool from "../../src/Tool.js"
import * as Toolkit from "../../src/Toolkit.js"

/** Every kind of chunk, with the values a lossy encoding would drop. */
const script: ReadonlyArray<StreamChunk.StreamChunk> = [
  StreamChunk.metadata("anthropic", "claude-test", "msg_1"),
  StreamChunk.reasoningDelta("Let me ", "Let me "),
  StreamChunk.reasoningDelta("think.", "Let me think."),
  StreamChunk.reasoning("Let me think.", { signature: "sig-abc" }),
  StreamChunk.textDelta("Héllo ✓ "),
  StreamChunk.textDelta("world\n\ndata: not an event"),
  { type: "tool-call-delta", index: 0, id: "call_1", name: "get_weather", argumentsDelta: "{\"city\":" },
  { type: "tool-call-delta", index: 0, id: "call_1", argumentsDelta: "\"Paris\"}" },
  StreamChunk.toolCall({
    index: 0,
    id: "call_1",
    name: "get_weather",
    arguments: { city: "Paris" },
    rawArguments: "{\"city\":\"Paris\"}"
  }),
  StreamChunk.contentPart({ type: "source", sourceType: "url", url: "https://example.com/a", title: "A" }),
  StreamChunk.usage({
    inputTokens: 120,
    outputTokens: 40,
    totalTokens: 160,
    cacheReadTokens: 100,
    reasoningTokens: 12,
    raw: { input_tokens: 20, nested: { a: [1, 2] } }
  }),
  StreamChunk.cacheRead(100),
  StreamChunk.finish("tool_calls", "tool_use")
]

/** An agent loop's chunks (two steps), then structured output's: every chunk the loop and streamObject add. */
const loopScript: ReadonlyArray<StreamChunk.StreamChunk> = [
  StreamChunk.metadata("anthropic", "claude-test", "msg_1"),
  StreamChunk.textDelta("Let me check."),
  StreamChunk.toolCall({
    index: 0,
    id: "toolu_1",
    name: "get_weather",
    arguments: { city: "Paris" },
    rawArguments: "{\"city\":\"Paris\"}"
  }),
  StreamChunk.toolCall({
    index: 1,
    id: "toolu_2",
    name: "get_time",
    arguments: { raw: "{\"zone\":" },
    rawArguments: "{\"zone\":",
    parseError: "Unexpected end of JSON input"
  }),
  StreamChunk.usage({ inputTokens: 100, outputTokens: 20, totalTokens: 120, cacheReadTokens: 64 }),
  StreamChunk.toolResult({
    toolCallId: "toolu_1",
    name: "get_weather",
    result: { city: "Paris", temperature: 18, tags: ["rain", null], nested: { ok: true } },
    isError: false,
    step: 1
  }),
  StreamChunk.toolResult({
    toolCallId: "toolu_2",
    name: "get_time",
    result: "The arguments of get_time are not valid JSON. Call it again with a JSON object.",
    isError: true,
    step: 1
  }),
  StreamChunk.stepFinish(1, "tool_calls", {
    rawReason: "tool_use",
    usage: { inputTokens: 100, outputTokens: 20, totalTokens: 120, cacheReadTokens: 64, raw: { input_tokens: 36 } }
  }),
  StreamChunk.textDelta("{\"temp\":"),
  StreamChunk.partialObject({}),
  StreamChunk.textDelta("18,\"sky\":\"rain\"}"),
  StreamChunk.partialObject({ temp: 18, sky: "rain" }),
  StreamChunk.object({ temp: 18, sky: "rain" }),
  StreamChunk.usage({ inputTokens: 250, outputTokens: 35, totalTokens: 285, cacheReadTokens: 128 }),
  StreamChunk.stepFinish(2, "stop", { usage: { inputTokens: 150, outputTokens: 15, totalTokens: 165 } }),
  StreamChunk.finish("stop", "end_turn")
]

/** The bytes of an encoded stream, cut into one-byte reads: every UTF-8 sequence and line break is cut somewhere. */
const byteReads = (bytes: ReadonlyArray<Uint8Array>): Array<Uint8Array> => {
  const all = new Uint8Array(bytes.reduce((n, b) => n + b.length, 0))
  let at = 0
  for (const b of bytes) {
    all.set(b, at)
    at += b.length
  }
  return Array.from(all, (b) => Uint8Array.of(b))
}

/** A typed tool for the relayed loop. */
const getWeather = Tool.make("get_weather", {
  parameters: Schema.Struct({ city: Schema.String }),
  handler: ({ city }) => Effect.succeed({ city, temperature: 18 })
})

/** A two-step conversation for `streamWithTools`: a call (and a call of an unknown tool), then the answer. */
const loopModel = () =>
  TestModel.layer({
    responses: TestModel.steps([
      [
        StreamChunk.metadata("anthropic", "claude-test", "msg_1"),
        TestModel.toolCall("get_weather", { city: "Paris" }),
        TestModel.toolCall("get_time", {}, { index: 1 }),
        StreamChunk.usage({ inputTokens: 10, outputTokens: 5, totalTokens: 15 }),
        StreamChunk.finish("tool_calls", "tool_use")
      ],
      [
        StreamChunk.metadata("anthropic", "claude-test", "msg_2"),
        StreamChunk.textDelta("18 °C in Paris."),
        StreamChunk.usage({ inputTokens: 30, outputTokens: 7, totalTokens: 37 }),
        StreamChunk.finish("stop", "end_turn")
      ]
    ])
  })

/** Serves web `Response`s from a node server, as a host adapter would; cancels the body when the client leaves. */
const serveWeb = (handler: (body: string) => Response) =>
  Effect.acquireRelease(
    Effect.async<{ url: string; server: http.Server }>((resume) => {
      const server = http.createServer((req, res) => {
        const parts: Array<Buffer> = []
        req.on("data", (b: Buffer) => parts.push(b))
        req.on("end", async () => {
          const response = handler(Buffer.concat(parts).toString("utf8"))
          const head: Record<string, string> = {}
          response.headers.forEach((value, name) => {
            head[name] = value
          })
          res.writeHead(response.status, head)
          res.flushHeaders()
          const reader = response.body!.getReader()
          res.on("close", () => void reader.cancel().catch(() => undefined))
          try {
            while (true) {
              const next = await reader.read()
              if (next.done) break
              res.write(next.value)
            }
            res.end()
          } catch {
            res.destroy()
          }
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        resume(Effect.succeed({ url: `http://127.0.0.1:${port}`, server }))
      })
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )

/** A raw node server whose handler writes what it likes. */
const serveRaw = (handler: (res: http.ServerResponse) => void) =>
  Effect.acquireRelease(
    Effect.async<{ url: string; server: http.Server }>((resume) => {
      const server = http.createServer((_req, res) => handler(res))
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        resume(Effect.succeed({ url: `http://127.0.0.1:${port}`, server }))
      })
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )

const collect = (stream: Stream.Stream<StreamChunk.StreamChunk>) =>
  Effect.map(Stream.runCollect(stream), Chunk.toReadonlyArray)

describe("Relay over loopback HTTP", () => {
  it.live("round-trips every chunk exactly", () =>
    Effect.gen(function*() {
      const { url } = yield* serveWeb(() =>
        Relay.toResponse(LanguageModel.stream("hi"), TestModel.layer({ responses: [...script] }))
      )
      const chunks = yield* collect(Relay.fetch(url, { method: "POST", body: "{}" }))
      expect(chunks).toEqual(script)
    }).pipe(Effect.scoped))

  it.live("the wire is SSE: one event per chunk with increasing ids, SSE headers", () =>
    Effect.gen(function*() {
      const { url } = yield* serveWeb(() =>
        Relay.toResponse(
          LanguageModel.stream("hi"),
          TestModel.layer({ responses: [StreamChunk.textDelta("a"), StreamChunk.finish("stop")] }),
          { headers: { "access-control-allow-origin": "*" } }
        )
      )
      const response = yield* Effect.promise(() => fetch(url, { method: "POST" }))
      expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8")
      expect(response.headers.get("cache-control")).toBe("no-cache, no-transform")
      expect(response.headers.get("access-control-allow-origin")).toBe("*")
      expect(yield* Effect.promise(() => response.text())).toBe(
        "id: 1\ndata: {\"type\":\"text-delta\",\"delta\":\"a\"}\n\n" +
          "id: 2\ndata: {\"type\":\"finish\",\"reason\":\"stop\"}\n\n"
      )
    }).pipe(Effect.scoped))

  it.live("a dropped connection ends in one network error after every chunk that arrived", () =>
    Effect.gen(function*() {
      const { url } = yield* serveRaw((res) => {
        res.writeHead(200, Relay.headers)
        res.write("id: 1\ndata: {\"type\":\"text-delta\",\"delta\":\"partial\"}\n\n")
        setTimeout(() => res.destroy(), 30)
      })
      const chunks = yield* collect(Relay.fetch(url))
      expect(chunks.map((c) => c.type)).toEqual(["text-delta", "error"])
      expect(chunks[0]).toEqual({ type: "text-delta", delta: "partial" })
      const last = chunks[1]
      if (last?.type === "error") {
        expect(last.error.code).toBe("network")
        expect(last.error.message.startsWith("The connection dropped: ")).toBe(true)
      }
    }).pipe(Effect.scoped))

  it.live("a body that ends before a terminal chunk ends truncated", () =>
    Effect.gen(function*() {
      const { url } = yield* serveRaw((res) => {
        res.writeHead(200, Relay.headers)
        res.end("id: 1\ndata: {\"type\":\"text-delta\",\"delta\":\"cut\"}\n\n")
      })
      const chunks = yield* collect(Relay.fetch(url))
      expect(chunks[0]).toEqual({ type: "text-delta", delta: "cut" })
      expect(chunks.length).toBe(2)
      expect(chunks[1]?.type === "error" && chunks[1].error.code).toBe("truncated")
    }).pipe(Effect.scoped))

  it.live("an event that is not a chunk ends in protocol", () =>
    Effect.gen(function*() {
      const { url } = yield* serveRaw((res) => {
        res.writeHead(200, Relay.headers)
        res.end("data: {\"type\":\"text-delta\",\"delta\":\"ok\"}\n\ndata: {\"type\":\"bogus\"}\n\n")
      })
      const chunks = yield* collect(Relay.fetch(url))
      expect(chunks[0]).toEqual({ type: "text-delta", delta: "ok" })
      expect(chunks.length).toBe(2)
      const last = chunks[1]
      expect(last?.type === "error" && last.error.code).toBe("protocol")
      expect(last?.type === "error" && last.error.message).toBe("line 3: unknown chunk type: \"bogus\"")
    }).pipe(Effect.scoped))

  it.live.each([[401, "authentication"], [429, "rate_limit"], [503, "overloaded"], [404, "not_found"]] as const)(
    "an HTTP %i is one %s error chunk",
    ([status, code]) =>
      Effect.gen(function*() {
        const { url } = yield* serveRaw((res) => {
          res.writeHead(status, { "content-type": "text/plain" })
          res.end("go away")
        })
        const chunks = yield* collect(Relay.fetch(url))
        expect(chunks).toEqual([
          StreamChunk.error({
            code,
            message: `The server answered with HTTP ${status}: go away`,
            status,
            retryable: code === "rate_limit" || code === "overloaded"
          })
        ])
      }).pipe(Effect.scoped)
  )

  it.live("a server that cannot be reached is one network error chunk", () =>
    Effect.gen(function*() {
      const { server, url } = yield* serveRaw(() => undefined)
      yield* Effect.async<void>((resume) => {
        server.close(() => resume(Effect.void))
      })
      const chunks = yield* collect(Relay.fetch(url))
      expect(chunks.length).toBe(1)
      expect(chunks[0]?.type === "error" && chunks[0].error.code).toBe("network")
    }).pipe(Effect.scoped))

  it.live("a client that leaves aborts the provider request behind the relay", () =>
    Effect.gen(function*() {
      const delta = (content: string) =>
        `data: ${JSON.stringify({ id: "c1", model: "m", choices: [{ index: 0, delta: { content } }] })}\n\n`
      const upstream = yield* ReplayServer.make({
        "/v1/chat/completions": { reads: [delta("Hel"), delta("lo")], paceMs: 20, stall: true }
      })
      const model = Layer.provide(
        OpenAiChat.layer({ model: "m", apiKey: Redacted.make("test-relay-key-123"), baseUrl: `${upstream.url}/v1` }),
        FetchHttpClient.layer
      )
      const { url } = yield* serveWeb(() => Relay.toResponse(LanguageModel.stream("hi"), model))
      const first = yield* collect(
        Relay.fetch(url, { method: "POST" }).pipe(Stream.filter((c) => c.type === "text-delta"), Stream.take(1))
      )
      expect(first).toEqual([{ type: "text-delta", delta: "Hel" }])
      for (let i = 0; i < 300 && upstream.requests[0]?.closedAtMs === undefined; i++) yield* Effect.sleep("10 millis")
      expect(upstream.requests[0]?.closedAtMs).toBeTypeOf("number")
      expect(upstream.requests[0]?.completed).toBe(false)
    }).pipe(Effect.scoped))
})

describe("Relay of an agent loop", () => {
  it.live("toResponse then fromResponse: the loop's chunks exactly, one terminal chunk, last", () =>
    Effect.gen(function*() {
      const loop = LanguageModel.streamWithTools("hi", Toolkit.make(getWeather))
      const direct = yield* collect(Stream.provideLayer(loop, loopModel()))
      const { url } = yield* serveWeb(() => Relay.toResponse(loop, loopModel()))
      const response = yield* Effect.promise(() => fetch(url, { method: "POST" }))
      const relayed = yield* collect(Relay.fromResponse(response))
      expect(relayed).toStrictEqual(direct)
      expect(relayed).toStrictEqual([
        StreamChunk.metadata("anthropic", "claude-test", "msg_1"),
        StreamChunk.toolCall({
          index: 0,
          id: "call_0",
          name: "get_weather",
          arguments: { city: "Paris" },
          rawArguments: "{\"city\":\"Paris\"}"
        }),
        StreamChunk.toolCall({ index: 1, id: "call_1", name: "get_time", arguments: {}, rawArguments: "{}" }),
        StreamChunk.usage({ inputTokens: 10, outputTokens: 5, totalTokens: 15 }),
        StreamChunk.toolResult({
          toolCallId: "call_0",
          name: "get_weather",
          result: { city: "Paris", temperature: 18 },
          isError: false,
          step: 1
        }),
        StreamChunk.toolResult({
          toolCallId: "call_1",
          name: "get_time",
          result: "Unknown tool \"get_time\". The tools available are: get_weather.",
          isError: true,
          step: 1
        }),
        StreamChunk.stepFinish(1, "tool_calls", {
          rawReason: "tool_use",
          usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 }
        }),
        StreamChunk.textDelta("18 °C in Paris."),
        StreamChunk.usage({ inputTokens: 40, outputTokens: 12, totalTokens: 52 }),
        StreamChunk.stepFinish(2, "stop", {
          rawReason: "end_turn",
          usage: { inputTokens: 30, outputTokens: 7, totalTokens: 37 }
        }),
        StreamChunk.finish("stop", "end_turn")
      ])
      expect(relayed.filter(StreamChunk.isTerminal)).toStrictEqual([StreamChunk.finish("stop", "end_turn")])
    }).pipe(Effect.scoped))

  it.live("a relayed loop cut after a step-finish ends in one truncated error, the step's chunks kept", () =>
    Effect.gen(function*() {
      const firstStep = loopScript.slice(0, 8)
      const { url } = yield* serveRaw((res) => {
        res.writeHead(200, Relay.headers)
        res.end(firstStep.map((c, i) => `id: ${i + 1}\ndata: ${StreamChunk.encodeJson(c)}\n\n`).join(""))
      })
      const chunks = yield* collect(Relay.fetch(url))
      expect(chunks.slice(0, -1)).toStrictEqual(firstStep)
      expect(chunks.length).toBe(firstStep.length + 1)
      const last = chunks.at(-1)
      expect(last?.type === "error" && last.error.code).toBe("truncated")
    }).pipe(Effect.scoped))

  it.effect("decode(encode(chunks)) gives an agent loop's and structured output's chunks back unchanged", () =>
    Effect.gen(function*() {
      const bytes = Chunk.toReadonlyArray(yield* Stream.runCollect(Relay.encode(Stream.fromIterable(loopScript))))
      const back = yield* collect(Relay.decode(Stream.fromIterable(byteReads(bytes))))
      expect(back).toStrictEqual(loopScript)
    }))
})

describe("Relay.encodeText", () => {
  it.effect("sends a keep-alive comment every interval while the model is silent", () =>
    Effect.gen(function*() {
      const model = TestModel.layer({
        responses: [StreamChunk.textDelta("a"), TestModel.sleep("40 seconds"), StreamChunk.finish("stop")]
      })
      const fiber = yield* Effect.fork(
        Stream.runCollect(Relay.encodeText(LanguageModel.stream("hi"), { keepAlive: "15 seconds" })).pipe(
          Effect.provide(model)
        )
      )
      yield* TestClock.adjust("41 seconds")
      const text = Chunk.toReadonlyArray(yield* Fiber.join(fiber)).join("")
      expect(text).toBe(
        "id: 1\ndata: {\"type\":\"text-delta\",\"delta\":\"a\"}\n\n" +
          ": keep-alive\n\n" +
          ": keep-alive\n\n" +
          "id: 2\ndata: {\"type\":\"finish\",\"reason\":\"stop\"}\n\n"
      )
    }))

  it.effect("decode(encode(chunks)) gives the chunks back, whatever the reads", () =>
    Effect.gen(function*() {
      const bytes = Chunk.toReadonlyArray(
        yield* Stream.runCollect(Relay.encode(Stream.fromIterable(script)))
      )
      const back = yield* collect(Relay.decode(Stream.fromIterable(byteReads(bytes))))
      expect(back).toEqual(script)
    }))
})
