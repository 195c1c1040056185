/**
 * How the transport reads a response body, with each HTTP client a user is likely to provide, over
 * real loopback HTTP: the fetch client and `NodeHttpClient`'s undici client are read directly (one
 * promise per network read), any other response through the platform's body stream (`node:http`
 * here). The answer is the same whichever path; a complete answer leaves its connection for the next
 * request; a body that goes on after its answer, or a consumer that stops early, closes it.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import type * as HttpClient from "@effect/platform/HttpClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as Supervisor from "effect/Supervisor"
import type { ServerResponse } from "node:http"
import * as LanguageModel from "../../../src/LanguageModel.js"
import * as NodeHttp from "../../../src/node/NodeHttp.js"
import * as OpenAiChat from "../../../src/providers/openai-chat/index.js"
import * as Response from "../../../src/Response.js"
import * as StreamChunk from "../../../src/StreamChunk.js"
import { chatBody, type Hostile, make, writeMany } from "../../support/hostile.js"

const clients: ReadonlyArray<readonly [string, Layer.Layer<HttpClient.HttpClient>, { readonly direct: boolean }]> = [
  ["FetchHttpClient", FetchHttpClient.layer, { direct: true }],
  ["NodeHttpClient.layerUndici", NodeHttpClient.layerUndici, { direct: true }],
  ["NodeHttp.layer (straight to undici)", NodeHttp.layer, { direct: true }],
  ["NodeHttpClient.layer (node:http)", NodeHttpClient.layer, { direct: false }]
]

const modelFor = (server: Hostile, http: Layer.Layer<HttpClient.HttpClient>) =>
  Layer.provide(
    OpenAiChat.layer({
      model: "m",
      apiKey: Redacted.make("sk-test-body"),
      baseUrl: `${server.url}/v1`,
      retry: { times: 0 }
    }),
    http
  )

const usage = `data: ${
  JSON.stringify({ id: "c", model: "m", choices: [], usage: { prompt_tokens: 3, completion_tokens: 2 } })
}\n\n`

/** Polls (real time) until `check` holds, for at most `ms`; then returns whether it held. */
/** A loopback server answering every request with an event stream's head, then `write(res)`. */
const sse = (write: (res: ServerResponse) => void) =>
  make((_, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" })
    write(res)
  })

const eventually = (check: () => boolean, ms: number) =>
  Effect.promise(async () => {
    const until = Date.now() + ms
    while (!check() && Date.now() < until) await new Promise((r) => setTimeout(r, 10))
    return check()
  })

describe.each(clients)("reading the body with %s", (_, http, { direct }) => {
  it.scopedLive("a complete answer decodes exactly; the next requests reuse the connection", () =>
    Effect.gen(function*() {
      const server = yield* sse((res) => {
        res.end(chatBody("Hello there world").replace("data: [DONE]", `${usage}data: [DONE]`))
      })
      const once = Response.collect(LanguageModel.stream("hi"))
      const responses = yield* Effect.provide(Effect.all(Array.from({ length: 6 }, () => once)), modelFor(server, http))
      for (const r of responses) {
        expect([r.text, r.finishReason, r.usage?.inputTokens, r.usage?.outputTokens, r.error]).toStrictEqual([
          "Hello there world",
          "stop",
          3,
          2,
          undefined
        ])
      }
      expect(server.requests.length).toBe(6)
      // As with plain fetch: the second request may come before the first connection is free. (The
      // platform's body stream closes the connection when reading stops, even at the end.)
      expect(server.connections()).toBeLessThanOrEqual(direct ? 2 : 6)
      expect(yield* eventually(() => server.open() === 0, 2000)).toBe(true)
      expect(server.aborted()).toBe(0)
    }))

  it.scopedLive("a body that ends a little after its last event: the connection is not cut", () =>
    Effect.gen(function*() {
      const server = yield* sse((res) => {
        res.write(chatBody("Almost done"))
        setTimeout(() => res.end(), 20)
      })
      const once = Response.collect(LanguageModel.stream("hi"))
      // The client is kept until the bodies ended (NodeHttpClient's agent closes its connections with it).
      const [responses, closed] = yield* Effect.provide(
        Effect.all([Effect.all(Array.from({ length: 4 }, () => once)), eventually(() => server.open() === 0, 2000)]),
        modelFor(server, http)
      )
      expect(responses.map((r) => [r.text, r.finishReason, r.error])).toStrictEqual(
        Array.from({ length: 4 }, () => ["Almost done", "stop", undefined])
      )
      expect(closed).toBe(true)
      expect(server.aborted()).toBe(direct ? 0 : 4)
    }))

  it.scopedLive("a body held open after its answer: the answer ends at once, the connection is closed soon after", () =>
    Effect.gen(function*() {
      const server = yield* sse((res) => {
        res.write(chatBody("Still here"))
      })
      const started = Date.now()
      const r = yield* Effect.provide(Response.collect(LanguageModel.stream("hi")), modelFor(server, http))
      expect([r.text, r.finishReason, r.error]).toStrictEqual(["Still here", "stop", undefined])
      expect(Date.now() - started).toBeLessThan(900)
      expect(yield* eventually(() => server.open() === 0, 3000)).toBe(true)
      expect(server.aborted()).toBe(1)
    }))

  it.scopedLive("a body that goes on past 64 KiB after its answer: the connection is closed", () =>
    Effect.gen(function*() {
      const server = yield* sse((res) => {
        res.write(chatBody("Then noise"))
        writeMany(res, ": keep-alive\n\n", 64 * 1024 * 1024)
      })
      const r = yield* Effect.provide(Response.collect(LanguageModel.stream("hi")), modelFor(server, http))
      expect([r.text, r.finishReason, r.error]).toStrictEqual(["Then noise", "stop", undefined])
      // Well before the 64 MB the server would send, and before the one-second limit.
      expect(yield* eventually(() => server.open() === 0, 900)).toBe(true)
      expect(server.aborted()).toBe(1)
    }))

  it.scopedLive("a consumer that stops early closes the connection at once", () =>
    Effect.gen(function*() {
      const server = yield* sse((res) => {
        res.write(chatBody("one two three").split("\n\n").slice(0, 2).join("\n\n") + "\n\n")
      })
      const chunks = yield* LanguageModel.stream("hi").pipe(
        Stream.filter((c) => c.type === "text-delta"),
        Stream.take(1),
        Stream.runCollect,
        Effect.provide(modelFor(server, http))
      )
      expect([...chunks]).toStrictEqual([StreamChunk.textDelta("one ")])
      expect(yield* eventually(() => server.open() === 0, 900)).toBe(true)
      expect(server.aborted()).toBe(1)
    }))

  it.scopedLive("a body that stalls while a read waits: the idle timeout ends the stream, the connection is closed", () =>
    Effect.gen(function*() {
      const server = yield* sse((res) => {
        res.write(chatBody("stalled here").split("\n\n")[0] + "\n\n")
      })
      const model = Layer.provide(
        OpenAiChat.layer({
          model: "m",
          apiKey: Redacted.make("sk-test-body"),
          baseUrl: `${server.url}/v1`,
          retry: { times: 0 },
          timeouts: { idle: "200 millis" }
        }),
        http
      )
      const started = Date.now()
      const fibers = yield* Supervisor.track
      const r = yield* Effect.provide(Response.collect(LanguageModel.stream("hi")), model).pipe(
        Effect.supervised(fibers)
      )
      // No read is left running behind the stream (the read under way is stopped with the body).
      expect(yield* eventually(() => Effect.runSync(fibers.value).length === 0, 900)).toBe(true)
      expect([r.text, r.error?.code, r.error?.message]).toStrictEqual([
        "stalled ",
        "timeout",
        "Idle timeout: no data from the server for 200ms"
      ])
      expect(Date.now() - started).toBeGreaterThanOrEqual(190)
      expect(yield* eventually(() => server.open() === 0, 900)).toBe(true)
      expect(server.aborted()).toBe(1)
    }))

  it.scopedLive("the response's headers: names of any case found, a repeated header's values joined", () =>
    Effect.gen(function*() {
      const server = yield* make((_, res) => {
        res.statusCode = 429
        res.setHeader("Retry-After", "7")
        res.setHeader("X-Request-ID", ["req_a", "req_b"])
        res.setHeader("Content-Type", "application/json")
        res.end(JSON.stringify({ error: { message: "Slow down", type: "rate_limit" } }))
      })
      const r = yield* Effect.provide(Response.collect(LanguageModel.stream("hi")), modelFor(server, http))
      expect([r.error?.code, r.error?.status, r.error?.retryAfterMs, r.error?.requestId, r.error?.message])
        .toStrictEqual(["rate_limit", 429, 7000, "req_a, req_b", "Slow down"])
    }))

  it.scopedLive("a connection cut mid-stream is a network error after what arrived", () =>
    Effect.gen(function*() {
      const server = yield* sse((res) => {
        res.write(chatBody("cut here").split("\n\n")[0] + "\n\n", () => setTimeout(() => res.socket?.destroy(), 20))
      })
      const r = yield* Effect.provide(Response.collect(LanguageModel.stream("hi")), modelFor(server, http))
      expect([r.text, r.error?.code, r.error?.message.startsWith("The connection failed while streaming")])
        .toStrictEqual(["cut ", "network", true])
    }))
})
