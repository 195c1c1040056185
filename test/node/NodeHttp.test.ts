/**
 * `NodeHttp`: the providers' requests go straight to its undici dispatcher, with the headers and
 * body the platform's undici client sends; a client made from it (middleware) is used as any client
 * is; an interrupted request is aborted; `NodeHttpClient.UndiciRequestOptions` applies. Over real
 * loopback HTTP (the body, cut connections, hostile servers: Body.test.ts and Hostile.test.ts run
 * their cases over this layer too).
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Undici from "@effect/platform-node/Undici"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as LanguageModel from "../../src/LanguageModel.js"
import * as NodeHttp from "../../src/node/NodeHttp.js"
import * as OpenAiChat from "../../src/providers/openai-chat/index.js"
import { chatBody, type Hostile, make } from "../support/hostile.js"
import { traceHeaders, withSpans } from "../support/spans.js"

const key = "sk-test-node-http"

const modelOver = (server: Hostile, http: Layer.Layer<HttpClient.HttpClient>) =>
  Layer.provide(
    OpenAiChat.layer({ model: "m", apiKey: Redacted.make(key), baseUrl: `${server.url}/v1`, retry: { times: 0 } }),
    http
  )

/** The model over a client made from `spy` (requests sent straight to it). */
const modelOverSpy = (server: Hostile, spy: Undici.Agent) =>
  modelOver(server, Layer.succeed(HttpClient.HttpClient, NodeHttp.make(spy)))

const answering = make((_req, res) => {
  res.writeHead(200, { "content-type": "text/event-stream" })
  res.end(chatBody("Hello there"))
})

/** What a dispatcher's `request` was given, of the fields the test reads. */
interface Seen {
  readonly plainHeaders: boolean
  readonly headers: Record<string, unknown>
  readonly body: unknown
  readonly path: unknown
}

/** An Agent whose `request` calls are recorded, destroyed with the scope. */
const spied = Effect.suspend(() => {
  const agent = new Undici.Agent()
  return Effect.as(Effect.addFinalizer(() => Effect.promise(() => agent.destroy())), recorded(agent))
})
const recorded = (agent: Undici.Agent) => {
  const seen: Array<Seen> = []
  const request = agent.request.bind(agent)
  const spy = Object.assign(Object.create(agent) as Undici.Agent, {
    request: (options: Undici.Dispatcher.RequestOptions) => {
      const headers = options.headers as Record<string, unknown>
      seen.push({
        plainHeaders: Object.getPrototypeOf(headers) === Object.prototype,
        headers: { ...headers },
        body: options.body,
        path: options.path
      })
      return request(options)
    }
  })
  return { spy, seen }
}

describe("NodeHttp", () => {
  it.live("a provider's request goes straight to the dispatcher, sent as the platform's client sends it", () =>
    Effect.gen(function*() {
      const server = yield* answering
      const { seen, spy } = yield* spied
      const response = yield* LanguageModel.chat("hi").pipe(
        Effect.provide(modelOverSpy(server, spy))
      )
      expect(response.text).toBe("Hello there")
      expect(response.finishReason).toBe("stop")
      expect(seen.length).toBe(1)
      const [sent] = seen
      // Our own headers object (not the platform's `Headers`), our bytes.
      expect(sent!.plainHeaders).toBe(true)
      expect(sent!.path).toBe("/v1/chat/completions")
      const body = new TextDecoder().decode(sent!.body as Uint8Array)
      expect(JSON.parse(body)).toMatchObject({ model: "m", stream: true, messages: [{ role: "user", content: "hi" }] })
      expect(sent!.headers["content-type"]).toBe("application/json")
      expect(sent!.headers["authorization"]).toBe(`Bearer ${key}`)
      // What reached the server is what the platform's client sends.
      const [received] = server.requests
      expect(received!.headers["content-type"]).toBe("application/json")
      expect(received!.headers["content-length"]).toBe(String(new TextEncoder().encode(body).length))
      expect(received!.headers["authorization"]).toBe(`Bearer ${key}`)
      expect(received!.body).toBe(body)
    }).pipe(Effect.scoped))

  it.live("with a tracer installed, a request sent straight to undici still gets its HTTP span and sends its trace on", () =>
    Effect.gen(function*() {
      const server = yield* answering
      const { seen, spy } = yield* spied
      const { result, spans } = yield* withSpans(
        LanguageModel.chat("hi").pipe(
          Effect.provide(modelOverSpy(server, spy))
        )
      )
      expect(result.text).toBe("Hello there")
      expect(seen.length).toBe(1)
      expect(spans.map((s) => s.name)).toStrictEqual(["chat m", "http.client POST"])
      const [chat, http] = spans
      expect(Option.map(http!.parent, (p) => p.spanId)).toStrictEqual(Option.some(chat!.spanId))
      expect(server.requests[0]!.headers["traceparent"]).toBe(`00-${http!.traceId}-${http!.spanId}-01`)
    }).pipe(Effect.scoped))

  it.live("without a tracer, a request sent straight to undici carries no trace headers", () =>
    Effect.gen(function*() {
      const server = yield* answering
      const { spy } = yield* spied
      const response = yield* LanguageModel.chat("hi").pipe(
        Effect.provide(modelOverSpy(server, spy))
      )
      expect(response.text).toBe("Hello there")
      expect(traceHeaders(server.requests[0]!.headers)).toStrictEqual([])
    }).pipe(Effect.scoped))

  it.live("the same request and answer as NodeHttpClient.layerUndici", () =>
    Effect.gen(function*() {
      const server = yield* answering
      const direct = yield* LanguageModel.chat("hi").pipe(Effect.provide(modelOver(server, NodeHttp.layer)))
      const platform = yield* LanguageModel.chat("hi").pipe(
        Effect.provide(modelOver(server, NodeHttpClient.layerUndici))
      )
      expect(direct.text).toBe("Hello there")
      expect(direct).toStrictEqual(platform)
      const [a, b] = server.requests
      expect(a!.body).toBe(b!.body)
      const headersOf = (r: typeof a) => {
        const { connection: _c, host: _h, ...rest } = r!.headers
        return rest
      }
      expect(headersOf(a)).toStrictEqual(headersOf(b))
    }).pipe(Effect.scoped))

  it.live("a client made from it (middleware) is used as any client is: its middleware applies", () =>
    Effect.gen(function*() {
      const server = yield* answering
      const { seen, spy } = yield* spied
      const wrapped = HttpClient.mapRequest(NodeHttp.make(spy), HttpClientRequest.setHeader("x-middleware", "yes"))
      const response = yield* LanguageModel.chat("hi").pipe(
        Effect.provide(modelOver(server, Layer.succeed(HttpClient.HttpClient, wrapped)))
      )
      expect(response.text).toBe("Hello there")
      expect(server.requests[0]!.headers["x-middleware"]).toBe("yes")
      // Through the platform's client: its own headers object.
      expect(seen.map((s) => s.plainHeaders)).toStrictEqual([false])
    }).pipe(Effect.scoped))

  it.live("an interrupted request is aborted: the server sees its connection close", () =>
    Effect.gen(function*() {
      const arrived = yield* Deferred.make<void>()
      const closed = yield* Deferred.make<void>()
      const server = yield* make((_req, res) => {
        res.on("close", () => Deferred.unsafeDone(closed, Effect.void))
        Deferred.unsafeDone(arrived, Effect.void)
        // No headers: the request waits.
      })
      const fiber = yield* LanguageModel.chat("hi").pipe(
        Effect.provide(modelOver(server, NodeHttp.layer)),
        Effect.fork
      )
      yield* Deferred.await(arrived)
      yield* Fiber.interrupt(fiber)
      yield* Deferred.await(closed)
      expect(server.aborted()).toBe(1)
      expect(server.open()).toBe(0)
    }).pipe(Effect.scoped))

  it.live("NodeHttpClient.UndiciRequestOptions in the context applies to the providers' requests", () =>
    Effect.gen(function*() {
      const server = yield* answering
      const model = modelOver(server, NodeHttp.layer)
      yield* LanguageModel.chat("hi").pipe(Effect.provide(model))
      // `reset` closes the connection after the request: undici says so in the request's headers.
      yield* LanguageModel.chat("hi").pipe(
        Effect.provide(model),
        // The platform types these options as a whole request's (path and method required); only
        // what is given is spread under the request's own fields.
        Effect.provideService(
          NodeHttpClient.UndiciRequestOptions,
          { reset: true } as unknown as Undici.Dispatcher.RequestOptions
        )
      )
      expect(server.requests.map((r) => r.headers.connection)).toStrictEqual(["keep-alive", "close"])
    }).pipe(Effect.scoped))

  it.live("layerWithoutDispatcher sends over the Dispatcher in the context", () =>
    Effect.gen(function*() {
      const server = yield* answering
      const { seen, spy } = yield* spied
      const http = Layer.provide(NodeHttp.layerWithoutDispatcher, Layer.succeed(NodeHttpClient.Dispatcher, spy))
      const response = yield* LanguageModel.chat("hi").pipe(Effect.provide(modelOver(server, http)))
      expect(response.text).toBe("Hello there")
      expect(seen.map((s) => s.plainHeaders)).toStrictEqual([true])
    }).pipe(Effect.scoped))

  it.live("its other requests go through the platform's undici client", () =>
    Effect.gen(function*() {
      const server = yield* answering
      const text = yield* HttpClient.get(`${server.url}/anything`).pipe(
        Effect.flatMap((r) => r.text),
        Effect.provide(NodeHttp.layer)
      )
      expect(text).toBe(chatBody("Hello there"))
    }).pipe(Effect.scoped))
})
