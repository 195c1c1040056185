/**
 * The transport against a hostile server over real loopback HTTP, through the real `OpenAiChat`
 * layer, once over `FetchHttpClient` and once over `NodeHttp.layer` (whose requests go straight to
 * undici): keys echoed back in every shape, redirects, huge bodies, lying content types, and our own
 * event-loop lag. Every rule here lives in the transport, so it holds for every provider built on it.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import type * as HttpClient from "@effect/platform/HttpClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import type * as http from "node:http"
import * as Transport from "../../../src/internal/transport/Transport.js"
import * as LanguageModel from "../../../src/LanguageModel.js"
import * as NodeHttp from "../../../src/node/NodeHttp.js"
import * as OpenAiChat from "../../../src/providers/openai-chat/index.js"
import * as Response from "../../../src/Response.js"
import * as StreamChunk from "../../../src/StreamChunk.js"
import { chatBody, type Handler, type Hostile, make, writeMany } from "../../support/hostile.js"
import { withSpans } from "../../support/spans.js"

const openAiKey = "sk-proj-Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LmNbVcXz"
/** Azure keys have no prefix a pattern could know. */
const azureKey = "8c1f0e2d3b4a59687a6b5c4d3e2f1a0b"

/** Whether any 8 consecutive characters of `key` appear in `text`, in any letter case. */
const leaks = (text: string, key: string): boolean => {
  const lower = text.toLowerCase()
  for (let i = 0; i + 8 <= key.length; i++) if (lower.includes(key.slice(i, i + 8).toLowerCase())) return true
  return false
}

const layerFor = (server: Hostile, options?: Partial<OpenAiChat.Options>) =>
  OpenAiChat.layer({
    model: "m",
    apiKey: Redacted.make(openAiKey),
    baseUrl: `${server.url}/v1`,
    retry: { times: 0 },
    ...options
  })

/** The HTTP clients every case runs over. */
const httpClients: ReadonlyArray<readonly [string, Layer.Layer<HttpClient.HttpClient>]> = [
  ["FetchHttpClient", FetchHttpClient.layer],
  ["NodeHttp.layer", NodeHttp.layer]
]

/** Every chunk of one response from `server`, over `http`. */
const chunksOver =
  (http: Layer.Layer<HttpClient.HttpClient>) => (server: Hostile, options?: Partial<OpenAiChat.Options>) =>
    LanguageModel.stream("hi").pipe(
      Stream.runCollect,
      Effect.map((c) => [...c]),
      Effect.provide(layerFor(server, options)),
      Effect.provide(http)
    )

/** The terminal chunk, which must be the only one. */
const terminalOf = (chunks: ReadonlyArray<StreamChunk.StreamChunk>) => {
  expect(chunks.filter(StreamChunk.isTerminal).length).toBe(1)
  const last = chunks[chunks.length - 1]
  if (!StreamChunk.isTerminal(last)) throw new Error(`the last chunk is not terminal: ${JSON.stringify(last)}`)
  return last
}

const errorOf = (chunks: ReadonlyArray<StreamChunk.StreamChunk>) => {
  const last = terminalOf(chunks)
  if (last.type !== "error") throw new Error(`expected an error chunk, got ${JSON.stringify(last)}`)
  return last.error
}

const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers })
  res.end(JSON.stringify(body))
}

const sse = (res: http.ServerResponse, body: string, headers: Record<string, string> = {}) => {
  res.writeHead(200, { "content-type": "text/event-stream", ...headers })
  res.end(body)
}

const serve = (handler: Handler) => make(handler)

/** Every case, over `http`. */
const cases = (http: Layer.Layer<HttpClient.HttpClient>): void => {
  const chunksFrom = chunksOver(http)

  describe("secrets: the configured key is masked by value everywhere", () => {
    it.live("echoed in a request id, URL-encoded, after an underscore and upper-cased: none survives", () =>
      Effect.gen(function*() {
        const server = yield* serve((_req, res) =>
          json(res, 401, {
            error: {
              message: `bad key Bearer%20${openAiKey}, _${openAiKey}, ${openAiKey.toUpperCase()}`,
              code: "invalid_api_key"
            }
          }, { "x-request-id": openAiKey })
        )
        const chunks = yield* chunksFrom(server)
        expect(errorOf(chunks)).toStrictEqual({
          code: "authentication",
          message: "bad key Bearer%20[redacted], _[redacted], [redacted]",
          status: 401,
          retryable: false,
          provider: "openai",
          requestId: "[redacted]",
          details: {
            error: { message: "bad key Bearer%20[redacted], _[redacted], [redacted]", code: "invalid_api_key" }
          }
        })
        expect(leaks(JSON.stringify(chunks), openAiKey)).toBe(false)
      }).pipe(Effect.scoped))

    it.live("an Azure key (no known prefix) echoed in an error body is masked", () =>
      Effect.gen(function*() {
        const server = yield* serve((_req, res) =>
          json(res, 400, { error: { message: `Access denied for key ${azureKey}`, code: "bad_request" } })
        )
        const chunks = yield* chunksFrom(server, { preset: "azure", apiKey: Redacted.make(azureKey) })
        expect(server.requests[0].headers["api-key"]).toBe(azureKey)
        expect(errorOf(chunks).message).toBe("Access denied for key [redacted]")
        expect(leaks(JSON.stringify(chunks), azureKey)).toBe(false)
      }).pipe(Effect.scoped))

    it.live("a key cut in half by the excerpt of a malformed event leaves no half behind", () =>
      Effect.gen(function*() {
        // The excerpt keeps 200 characters: the key starts at 180, so a cut would keep its first 20.
        const bad = `{"oops": "${"x".repeat(170)}${openAiKey}${"y".repeat(100)}`
        const server = yield* serve((_req, res) =>
          sse(res, chatBody("Hi ").split("data: [DONE]")[0] + `data: ${bad}\n\n`)
        )
        const chunks = yield* chunksFrom(server)
        const error = errorOf(chunks)
        expect(error.code).toBe("protocol")
        expect(error.message.startsWith("The stream sent an event that is not a JSON object: ")).toBe(true)
        expect(error.message).toContain("[redacted]")
        expect(leaks(JSON.stringify(chunks), openAiKey)).toBe(false)
      }).pipe(Effect.scoped))

    it.live("a key the server hides behind JSON escapes in an in-band error, then cuts, is still masked", () =>
      Effect.gen(function*() {
        const escaped = [...openAiKey].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("")
        const server = yield* serve((_req, res) =>
          sse(res, `data: {"error":{"message":"${"z".repeat(990)}${escaped}","type":"server_error"}}\n\n`)
        )
        const error = errorOf(yield* chunksFrom(server))
        expect(error.code).toBe("server")
        // The message is cut at 1,000 characters: 990 z's, then what is left of the key, masked.
        expect(error.message).toBe("z".repeat(990) + "[redacted]…")
        expect(leaks(JSON.stringify(error), openAiKey)).toBe(false)
      }).pipe(Effect.scoped))

    it.live("a key echoed in the answer itself, split across network reads, is masked in the text", () =>
      Effect.gen(function*() {
        const body = chatBody(`Your key is ${openAiKey} ok`)
        const at = body.indexOf(openAiKey) + 10
        const server = yield* serve((_req, res) => {
          res.writeHead(200, { "content-type": "text/event-stream" })
          res.write(body.slice(0, at))
          setTimeout(() => res.end(body.slice(at)), 20)
        })
        const chunks = yield* chunksFrom(server)
        const response = Response.fromChunks(chunks)
        expect(response.text).toBe("Your key is [redacted] ok")
        expect(response.finishReason).toBe("stop")
      }).pipe(Effect.scoped))
  })

  describe("secrets: keys that only JSON decoding or a partial mask reveals", () => {
    const uEscape = (text: string) =>
      [...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("")

    it.live("a key behind \\u escapes in a text delta, the model name and tool arguments is masked in every chunk", () =>
      Effect.gen(function*() {
        const escaped = uEscape(azureKey)
        const server = yield* serve((_req, res) =>
          sse(
            res,
            `data: {"id":"c1","model":"${escaped}","choices":[{"index":0,"delta":{"content":"key=${escaped}!"}}]}\n\n` +
              `data: {"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"t1","function":{"name":"f","arguments":"{\\"k\\":\\"${
                escaped.replace(/\\/g, "\\\\")
              }\\"}"}}]}}]}\n\n` +
              `data: {"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n`
          )
        )
        const chunks = yield* chunksFrom(server, { preset: "azure", apiKey: Redacted.make(azureKey) })
        const response = Response.fromChunks(chunks)
        expect(response.text).toBe("key=[redacted]!")
        expect(chunks[0]).toStrictEqual({ type: "metadata", provider: "azure", model: "[redacted]", responseId: "c1" })
        expect(response.toolCalls.map((c) => c.arguments)).toStrictEqual([{ k: "[redacted]" }])
        expect(leaks(JSON.stringify(chunks), azureKey)).toBe(false)
      }).pipe(Effect.scoped))

    it.live("the last characters of a key that a server's own mask left ('****' + 16) are masked too", () =>
      Effect.gen(function*() {
        const server = yield* serve((_req, res) =>
          json(res, 401, {
            error: { message: `Access denied for key ****${azureKey.slice(-16)}`, code: "invalid_api_key" }
          })
        )
        const error = errorOf(yield* chunksFrom(server, { preset: "azure", apiKey: Redacted.make(azureKey) }))
        expect(error.message).toBe("Access denied for key ****[redacted]")
        expect(leaks(JSON.stringify(error), azureKey)).toBe(false)
      }).pipe(Effect.scoped))

    it.live("a same-origin redirect whose path holds the key does not put it in the span", () =>
      Effect.gen(function*() {
        const server = yield* serve((req, res) => {
          if (req.path === "/v1/chat/completions") {
            res.writeHead(307, { location: `/leak/${openAiKey}/chat/completions` })
            return res.end()
          }
          sse(res, chatBody("ok"))
        })
        const { result: chunks, spans } = yield* withSpans(chunksFrom(server))
        expect(Response.fromChunks(chunks).text).toBe("ok")
        const paths = spans.filter((span) => span.name === "http.client POST").map((span) =>
          span.attributes.get("url.path")
        )
        expect(paths).toStrictEqual(["/v1/chat/completions", "/leak/[redacted]/chat/completions"])
      }).pipe(Effect.scoped))

    it.live("an error body quoting a bearer header stays that error (no defect), and is retried when transient", () =>
      Effect.gen(function*() {
        const server = yield* serve((_req, res, n) =>
          n === 0
            ? json(res, 503, {
              error: { message: "Invalid Authorization header \"Bearer abc\"", type: "server_error" }
            })
            : sse(res, chatBody("Recovered"))
        )
        const chunks = yield* chunksFrom(server, { retry: { times: 1, schedule: Schedule.spaced("10 millis") } })
        expect(Response.fromChunks(chunks).text).toBe("Recovered")
        const once = yield* chunksFrom(
          yield* serve((_req, res) =>
            json(res, 503, { error: { message: "Invalid Authorization header \"Bearer abc\"", type: "server_error" } })
          )
        )
        expect(errorOf(once)).toStrictEqual({
          code: "overloaded",
          message: "Invalid Authorization header \"Bearer [redacted]\"",
          status: 503,
          retryable: true,
          provider: "openai",
          details: { error: { message: "Invalid Authorization header \"Bearer [redacted]\"", type: "server_error" } }
        })
      }).pipe(Effect.scoped))
  })

  describe("redirects: credentials only ever go to the configured origin", () => {
    for (const status of [301, 302, 303, 307, 308]) {
      it.live(`a ${status} to another origin is refused with a clear error; the other host sees nothing`, () =>
        Effect.gen(function*() {
          const other = yield* serve((_req, res) => sse(res, chatBody("stolen ")))
          const server = yield* serve((_req, res) => {
            res.writeHead(status, { location: `${other.url}/v1/chat/completions` })
            res.end()
          })
          const chunks = yield* chunksFrom(server, { preset: "azure", apiKey: Redacted.make(azureKey) })
          expect(errorOf(chunks)).toStrictEqual({
            code: "invalid_request",
            message:
              `The server redirected to another origin (${other.url}); the API key is only sent to ${server.url}. ` +
              "If the endpoint moved, set baseUrl to the new location.",
            status,
            retryable: false,
            provider: "azure"
          })
          expect(other.requests.length).toBe(0)
        }).pipe(Effect.scoped))
    }

    it.live("a same-origin 307 and 302 are followed with the method, body and key kept", () =>
      Effect.gen(function*() {
        const server = yield* serve((req, res) => {
          if (req.path === "/v1/chat/completions") {
            res.writeHead(307, { location: "/v2/chat/completions" })
            return res.end()
          }
          if (req.path === "/v2/chat/completions") {
            res.writeHead(302, { location: `/v3/chat/completions` })
            return res.end()
          }
          sse(res, chatBody("Hello world"))
        })
        const chunks = yield* chunksFrom(server)
        expect(Response.fromChunks(chunks).text).toBe("Hello world")
        expect(server.requests.map((r) => [r.method, r.path, r.headers.authorization])).toStrictEqual([
          ["POST", "/v1/chat/completions", `Bearer ${openAiKey}`],
          ["POST", "/v2/chat/completions", `Bearer ${openAiKey}`],
          ["POST", "/v3/chat/completions", `Bearer ${openAiKey}`]
        ])
        expect(new Set(server.requests.map((r) => r.body)).size).toBe(1)
        expect(JSON.parse(server.requests[2].body).model).toBe("m")
      }).pipe(Effect.scoped))

    it.live("a redirect loop ends after 5 redirects", () =>
      Effect.gen(function*() {
        const server = yield* serve((_req, res) => {
          res.writeHead(301, { location: "/v1/chat/completions" })
          res.end()
        })
        const error = errorOf(yield* chunksFrom(server))
        expect([error.code, error.message, error.status]).toStrictEqual([
          "invalid_request",
          "More than 5 redirects",
          301
        ])
        expect(server.requests.length).toBe(6)
      }).pipe(Effect.scoped))
  })

  describe("memory bounds: bodies that are not streams are read only up to 1 MiB", () => {
    it.live("a 32 MB error body: the error keeps a prefix, says it was cut, and the connection is closed", () =>
      Effect.gen(function*() {
        const server = yield* serve((_req, res) => {
          res.writeHead(500, { "content-type": "text/plain" })
          writeMany(res, "upstream exploded ", 32 * 1024 * 1024)
        })
        const error = errorOf(yield* chunksFrom(server))
        expect(error.code).toBe("server")
        expect(error.message).toBe(
          `${
            "upstream exploded ".repeat(56).slice(0, 1000)
          }… (the response body was cut at ${Transport.maxDocumentBytes} bytes)`
        )
        expect(typeof error.details === "string" && error.details.length <= 8192 + 20).toBe(true)
        yield* Effect.sleep("50 millis")
        expect([server.open(), server.aborted()]).toStrictEqual([0, 1])
      }).pipe(Effect.scoped))

    it.live("a 32 MB JSON document on a 200 is a protocol error that says it was cut", () =>
      Effect.gen(function*() {
        const server = yield* serve((_req, res) => {
          res.writeHead(200, { "content-type": "application/json" })
          res.write("{\"id\":\"x\",\"filler\":\"")
          writeMany(res, "a", 32 * 1024 * 1024)
        })
        const error = errorOf(yield* chunksFrom(server))
        expect([error.code, error.message, error.status, error.retryable]).toStrictEqual([
          "protocol",
          `Expected a stream (text/event-stream), got a application/json document (the response body was cut at ${Transport.maxDocumentBytes} bytes)`,
          200,
          false
        ])
        yield* Effect.sleep("50 millis")
        expect(server.aborted()).toBe(1)
      }).pipe(Effect.scoped))

    it.live("an event of millions of empty data lines ends at the event cap", () =>
      Effect.gen(function*() {
        const server = yield* serve((_req, res) => {
          res.writeHead(200, { "content-type": "text/event-stream" })
          writeMany(res, "data:\n", 24 * 1024 * 1024)
        })
        const error = errorOf(yield* chunksFrom(server))
        expect([error.code, error.message]).toStrictEqual(["protocol", "An SSE event exceeded the 16 MiB limit"])
      }).pipe(Effect.scoped))
  })

  describe("content types: a 2xx body is what it is, not what it is labelled", () => {
    const rateLimited = { error: { message: "Slow down", type: "rate_limit_error" } }

    for (const type of ["application/problem+json", "Application/JSON; charset=UTF-8", "text/plain"]) {
      it.live(`a JSON error on a 200 labelled ${type} is that error, and retried when it is transient`, () =>
        Effect.gen(function*() {
          const server = yield* serve((_req, res, n) =>
            n === 0
              ? (res.writeHead(200, { "content-type": type }), res.end(JSON.stringify(rateLimited)))
              : sse(res, chatBody("Second try"))
          )
          const chunks = yield* chunksFrom(server, { retry: { times: 1, schedule: Schedule.spaced("10 millis") } })
          expect(Response.fromChunks(chunks).text).toBe("Second try")
          expect(server.requests.length).toBe(2)
        }).pipe(Effect.scoped))
    }

    it.live("a JSON error on a 200 labelled text/plain that is not transient is reported, not retried", () =>
      Effect.gen(function*() {
        const server = yield* serve((_req, res) => {
          res.writeHead(200, { "content-type": "text/plain" })
          res.end(JSON.stringify({ error: { message: "Too long", code: "context_length_exceeded" } }))
        })
        const error = errorOf(
          yield* chunksFrom(server, { retry: { times: 2, schedule: Schedule.spaced("10 millis") } })
        )
        expect([error.code, error.message, error.status, error.retryable]).toStrictEqual([
          "context_length",
          "Too long",
          200,
          false
        ])
        expect(server.requests.length).toBe(1)
      }).pipe(Effect.scoped))

    it.live("an RFC 9457 problem on a 200 takes its status and detail", () =>
      Effect.gen(function*() {
        const server = yield* serve((_req, res) => {
          res.writeHead(200, { "content-type": "application/problem+json" })
          res.end(
            JSON.stringify({ type: "about:blank", title: "Service Unavailable", status: 503, detail: "Try later" })
          )
        })
        const error = errorOf(yield* chunksFrom(server))
        expect([error.code, error.message, error.status, error.retryable]).toStrictEqual([
          "overloaded",
          "Try later",
          200,
          true
        ])
      }).pipe(Effect.scoped))

    const page =
      `<!DOCTYPE html><html><body><pre>\ndata: {"choices":[{"delta":{"content":"hi"}}]}\n\ndata: [DONE]\n\n</pre></body></html>`
    for (const type of ["text/html; charset=utf-8", "text/event-stream", "text/plain"]) {
      it.live(`an HTML page on a 200 labelled ${type} never yields an answer, even one quoting SSE events`, () =>
        Effect.gen(function*() {
          const server = yield* serve((_req, res) => {
            res.writeHead(200, { "content-type": type })
            res.end(page)
          })
          const chunks = yield* chunksFrom(server)
          expect(chunks.length).toBe(1)
          const error = errorOf(chunks)
          expect([error.code, error.message, error.status, error.retryable, error.details]).toStrictEqual([
            "protocol",
            "Expected a stream (text/event-stream), got an HTML page",
            200,
            false,
            page
          ])
        }).pipe(Effect.scoped))
    }

    it.live("an HTML error page (a 401 from a proxy) is an error named by its status, the page kept as details", () =>
      Effect.gen(function*() {
        const html = "\n<html><head><title>401 Authorization Required</title></head><body>nginx</body></html>"
        const server = yield* serve((_req, res) => {
          res.writeHead(401, { "content-type": "text/html" })
          res.end(html)
        })
        const error = errorOf(yield* chunksFrom(server))
        expect([error.code, error.message, error.status, error.retryable, error.details]).toStrictEqual([
          "authentication",
          "The provider answered with HTTP 401 (an HTML page)",
          401,
          false,
          html
        ])
      }).pipe(Effect.scoped))

    it.live("a stream with no content type, or a wrong one, is still read as the stream it is", () =>
      Effect.gen(function*() {
        const server = yield* serve((_req, res, n) => {
          res.writeHead(200, n === 0 ? {} : { "content-type": "application/json" })
          res.end("\n\n" + chatBody("Still fine"))
        })
        expect(Response.fromChunks(yield* chunksFrom(server)).text).toBe("Still fine")
        expect(Response.fromChunks(yield* chunksFrom(server)).text).toBe("Still fine")
      }).pipe(Effect.scoped))

    it.live("an HTML page after 80 KiB of blank bytes, or after a form feed, is still an HTML page", () =>
      Effect.gen(function*() {
        const page = "<html><body><pre>\ndata: [DONE]\n\n</pre></body></html>"
        const server = yield* serve((_req, res, n) => {
          res.writeHead(200, { "content-type": "text/event-stream" })
          if (n === 0) {
            res.write(" ".repeat(80 * 1024))
            setTimeout(() => res.end(page), 10)
          } else res.end("\f" + page)
        })
        const first = errorOf(yield* chunksFrom(server))
        expect([first.code, first.message]).toStrictEqual([
          "protocol",
          "Expected a stream (text/event-stream), got a body that does not begin as one"
        ])
        const second = errorOf(yield* chunksFrom(server))
        expect([second.code, second.message]).toStrictEqual([
          "protocol",
          "Expected a stream (text/event-stream), got an HTML page"
        ])
      }).pipe(Effect.scoped))

    it.live("JSON errors wrapped in an array, or as {code, message}, on a 200 are those errors", () =>
      Effect.gen(function*() {
        const server = yield* serve((_req, res, n) => {
          res.writeHead(200, { "content-type": "application/json" })
          res.end(JSON.stringify(
            n === 0
              ? [{ error: { code: 429, message: "Resource exhausted", status: "RESOURCE_EXHAUSTED" } }]
              : { code: 503, message: "The model is overloaded" }
          ))
        })
        const wrapped = errorOf(yield* chunksFrom(server))
        expect([wrapped.code, wrapped.message, wrapped.retryable]).toStrictEqual([
          "rate_limit",
          "Resource exhausted",
          true
        ])
        const bare = errorOf(yield* chunksFrom(server))
        expect([bare.code, bare.message, bare.retryable]).toStrictEqual(["overloaded", "The model is overloaded", true])
      }).pipe(Effect.scoped))

    it.live("a Retry-After of hundreds of digits never puts Infinity in the error", () =>
      Effect.gen(function*() {
        const server = yield* serve((_req, res) =>
          json(res, 429, { error: { message: "Slow down" } }, { "retry-after": "9".repeat(400) })
        )
        const chunks = yield* chunksFrom(server)
        expect(errorOf(chunks)).toStrictEqual({
          code: "rate_limit",
          message: "Slow down",
          status: 429,
          retryable: true,
          provider: "openai",
          details: { error: { message: "Slow down" } }
        })
        expect(JSON.parse(JSON.stringify(chunks))).toStrictEqual(chunks)
      }).pipe(Effect.scoped))

    it.live("an empty 200 body ends truncated", () =>
      Effect.gen(function*() {
        const server = yield* serve((_req, res) => sse(res, ""))
        expect(errorOf(yield* chunksFrom(server)).code).toBe("truncated")
      }).pipe(Effect.scoped))
  })

  describe("under load: the idle timeout measures the server's silence, not our lag", () => {
    it.live("an event-loop stall past the idle deadline does not turn a live stream into a timeout", () =>
      Effect.gen(function*() {
        const body = chatBody("one two")
        const cut = body.indexOf("data: ", 1)
        const server = yield* serve((_req, res) => {
          res.writeHead(200, { "content-type": "text/event-stream" })
          res.write(body.slice(0, cut))
          setTimeout(() => res.end(body.slice(cut)), 200)
        })
        let stalled = false
        const chunks = yield* LanguageModel.stream("hi").pipe(
          Stream.tap((c) =>
            Effect.sync(() => {
              if (c.type !== "text-delta" || stalled) return
              stalled = true
              // Our own work blocks the loop from 150 ms to 550 ms: past the idle deadline (300 ms),
              // while the server's next read (at 200 ms) waits unread in the socket.
              setTimeout(() => {
                const until = performance.now() + 400
                while (performance.now() < until) {
                  // busy: the event loop is ours, not the server's
                }
              }, 150)
            })
          ),
          Stream.runCollect,
          Effect.map((c) => [...c]),
          Effect.provide(layerFor(server, { timeouts: { idle: "300 millis" } })),
          Effect.provide(http)
        )
        expect(Response.fromChunks(chunks).text).toBe("one two")
        expect(terminalOf(chunks)).toStrictEqual(StreamChunk.finish("stop", "stop"))
      }).pipe(Effect.scoped))
  })

  describe("under load: many concurrent faulty streams", () => {
    it.live("600 streams (answers, paced answers, drops, in-band errors): exact endings, no false timeouts, no open request left", () =>
      Effect.gen(function*() {
        const body = chatBody("alpha beta gamma delta")
        const firstEvent = body.slice(0, body.indexOf("data: ", 1))
        const server = yield* serve((_req, res, n) => {
          res.writeHead(200, { "content-type": "text/event-stream" })
          switch (n % 4) {
            case 0:
              return res.end(body)
            case 1:
              res.write(firstEvent)
              return setTimeout(() => res.destroy(), 30)
            case 2:
              return res.end(firstEvent + `data: {"error":{"message":"upstream failed","type":"server_error"}}\n\n`)
            default: {
              const parts = body.match(/[\s\S]{1,120}/g) ?? []
              let i = 0
              const next = (): void => {
                if (i < parts.length - 1) {
                  res.write(parts[i++])
                  setTimeout(next, 20)
                } else res.end(parts[i])
              }
              return next()
            }
          }
        })
        const results = yield* Effect.forEach(
          Array.from({ length: 600 }, (_, i) => i),
          () => chunksFrom(server, { timeouts: { idle: "2 seconds" } }),
          { concurrency: "unbounded" }
        )
        const endings = new Map<string, number>()
        for (const chunks of results) {
          const last = terminalOf(chunks)
          const key = last.type === "finish" ? `finish:${last.reason}` : `error:${last.error.code}`
          endings.set(key, (endings.get(key) ?? 0) + 1)
          if (last.type === "finish") expect(Response.fromChunks(chunks).text).toBe("alpha beta gamma delta")
          else expect(Response.fromChunks(chunks).text).toBe("alpha ")
        }
        expect(Object.fromEntries(endings)).toStrictEqual({
          "finish:stop": 300,
          "error:network": 150,
          "error:server": 150
        })
        yield* Effect.sleep("100 millis")
        expect(server.open()).toBe(0)
      }).pipe(Effect.scoped))
  })
}

describe.each(httpClients)("over %s", (_, http) => cases(http))
