/**
 * The Gemini layer over HTTP (Replay): exact URL, headers and body; api-key and bearer (Vertex)
 * auth; HTTP and in-band errors; retries before output only (RetryInfo honoured); configuration.
 */
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as TestClock from "effect/TestClock"
import * as LanguageModel from "../../../src/LanguageModel.js"
import * as Gemini from "../../../src/providers/gemini/index.js"
import * as Response from "../../../src/Response.js"
import * as StreamChunk from "../../../src/StreamChunk.js"
import * as Replay from "../../../src/testing/Replay.js"
import { awaitSleepUntil } from "../../support/clock.js"
import { own } from "./support.js"

// Fake keys, built at runtime.
const secret = ["AIza", "Sy", "TEST", "0123456789abcdef"].join("")
const key = Redacted.make(secret)
const model = Gemini.layer({ model: "gemini-2.5-flash", apiKey: key, baseUrl: "http://replay.invalid/v1beta" })

const googleError = (code: number, status: string, message: string, details?: ReadonlyArray<unknown>) =>
  JSON.stringify({ error: { code, message, status, ...(details !== undefined ? { details } : {}) } })

describe("Gemini over HTTP (Replay)", () => {
  it.effect("sends the exact URL, headers and body; the key only in x-goog-api-key", () =>
    Effect.gen(function*() {
      const r = yield* LanguageModel.chat({
        messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hello" }],
        maxTokens: 64,
        headers: { "x-trace": "t1" }
      })
      expect(r.text).toBe("Hello, world! été 🌞")
      const [request] = yield* Replay.requests
      expect(request.url).toBe("http://replay.invalid/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse")
      expect(request.method).toBe("POST")
      expect(request.headers["x-goog-api-key"]).toBe(secret)
      expect(request.headers.authorization).toBeUndefined()
      expect(request.headers.accept).toBe("text/event-stream")
      expect(request.headers["x-trace"]).toBe("t1")
      expect(request.body).toStrictEqual({
        systemInstruction: { parts: [{ text: "Be brief." }] },
        contents: [{ role: "user", parts: [{ text: "Hello" }] }],
        generationConfig: { maxOutputTokens: 64 }
      })
      expect(request.url).not.toContain(secret)
    }).pipe(Effect.provide(model), Effect.provide(Replay.layer({ body: own("text.sse"), split: { seed: 3 } }))))

  it.effect("the default endpoint; a model given as a resource path is used as it is", () =>
    Effect.gen(function*() {
      yield* LanguageModel.chat("Hi").pipe(Effect.provide(Gemini.layer({ model: "gemini-2.5-pro", apiKey: key })))
      yield* LanguageModel.chat("Hi").pipe(
        Effect.provide(Gemini.layer({ model: "tunedModels/my-model-7", apiKey: key }))
      )
      const [a, b] = yield* Replay.requests
      expect(Gemini.defaultBaseUrl).toBe("https://generativelanguage.googleapis.com/v1beta")
      expect(a.url).toBe(
        "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
      )
      expect(b.url).toBe(
        "https://generativelanguage.googleapis.com/v1beta/tunedModels/my-model-7:streamGenerateContent?alt=sse"
      )
    }).pipe(Effect.provide(Replay.layer([{ body: own("text.sse") }, { body: own("text.sse") }]))))

  it.effect("Vertex: bearer auth, its URL, provider vertex, argument streaming asked for", () =>
    Effect.gen(function*() {
      const token = ["ya29", "TESTTOKEN", "abcdef"].join(".")
      const base = "https://aiplatform.googleapis.com/v1/projects/my-project/locations/global/publishers/google"
      const chunks = yield* LanguageModel.stream({ messages: [{ role: "user", content: "Trip" }], toolChoice: "auto" })
        .pipe(
          Response.collect,
          Effect.provide(
            Gemini.layer({
              model: "gemini-3-pro-preview",
              apiKey: Redacted.make(token),
              auth: "bearer",
              baseUrl: base,
              streamFunctionCallArguments: true
            })
          )
        )
      const [request] = yield* Replay.requests
      expect(request.url).toBe(`${base}/models/gemini-3-pro-preview:streamGenerateContent?alt=sse`)
      expect(request.headers.authorization).toBe(`Bearer ${token}`)
      expect(request.headers["x-goog-api-key"]).toBeUndefined()
      expect(request.body).toMatchObject({
        toolConfig: { functionCallingConfig: { mode: "AUTO", streamFunctionCallArguments: true } }
      })
      expect(chunks.metadata?.provider).toBe("vertex")
      expect(chunks.toolCalls.map((c) => [c.name, c.arguments])).toStrictEqual([[
        "book_trip",
        {
          trip: { city: "Paris \"centre\"", nights: 3, breakfast: true },
          guests: [{ name: "Ada" }, { name: "Grace", note: null }]
        }
      ]])
      // The signed call goes back with its signature, to the same provider name.
      const next = yield* LanguageModel.chat({
        messages: [{ role: "user", content: "Trip" }, chunks.message, {
          role: "tool",
          toolCallId: chunks.toolCalls[0]!.id,
          content: "booked"
        }]
      }).pipe(
        Effect.provide(
          Gemini.layer({ model: "gemini-3-pro-preview", apiKey: Redacted.make(token), auth: "bearer", baseUrl: base })
        )
      )
      expect(next.text).toBe("Hello, world! été 🌞")
      const second = (yield* Replay.requests)[1]!
      expect((second.body as { contents: unknown }).contents).toStrictEqual([
        { role: "user", parts: [{ text: "Trip" }] },
        {
          role: "model",
          parts: [{
            functionCall: {
              name: "book_trip",
              args: {
                trip: { city: "Paris \"centre\"", nights: 3, breakfast: true },
                guests: [{ name: "Ada" }, { name: "Grace", note: null }]
              }
            },
            thoughtSignature: "CmIBjz1rVERTEX"
          }]
        },
        { role: "user", parts: [{ functionResponse: { name: "book_trip", response: { output: "booked" } } }] }
      ])
    }).pipe(Effect.provide(Replay.layer([{ body: own("vertex-partial-args.sse") }, { body: own("text.sse") }]))))

  it.effect("HTTP errors become typed errors that never contain the key", () =>
    Effect.gen(function*() {
      const error = yield* LanguageModel.chat("hi").pipe(Effect.flip)
      expect([error.code, error.status, error.retryable]).toStrictEqual(["authentication", 400, false])
      expect(JSON.stringify(StreamChunk.error(error))).not.toContain(secret)
      expect((yield* Replay.requests).length).toBe(1)
    }).pipe(
      Effect.provide(model),
      Effect.provide(Replay.layer({
        status: 400,
        headers: { "content-type": "application/json" },
        body: googleError(400, "INVALID_ARGUMENT", `API key not valid: ${secret}. Please pass a valid API key.`)
      }))
    ))

  it.effect("a 429 is retried after RetryInfo's retryDelay; the answer appears once", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(Response.collect(LanguageModel.stream("hi")))
      yield* awaitSleepUntil(37_000)
      yield* TestClock.adjust("37 seconds")
      const r = yield* Fiber.join(fiber)
      expect((yield* Replay.requests).length).toBe(2)
      expect([r.text, r.error]).toStrictEqual(["Hello, world! été 🌞", undefined])
    }).pipe(
      Effect.provide(model),
      Effect.provide(Replay.layer([
        {
          status: 429,
          headers: { "content-type": "application/json" },
          body: googleError(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted", [
            { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "37s" }
          ])
        },
        { body: own("text.sse") }
      ]))
    ))

  it.effect("an in-band UNAVAILABLE before any output is retried; out of retries it is reported alone", () =>
    Effect.gen(function*() {
      const retried = yield* Response.collect(LanguageModel.stream("hi")).pipe(
        Effect.provide(
          Gemini.layer({
            model: "m",
            apiKey: key,
            baseUrl: "http://replay.invalid",
            retry: { times: 1, schedule: Schedule.forever }
          })
        )
      )
      expect([retried.text, retried.error]).toStrictEqual(["Hello, world! été 🌞", undefined])
      const alone = yield* LanguageModel.stream("hi").pipe(
        Response.collect,
        Effect.provide(Gemini.layer({ model: "m", apiKey: key, baseUrl: "http://replay.invalid", retry: { times: 0 } }))
      )
      expect([alone.text, alone.error?.code, alone.error?.retryable]).toStrictEqual(["", "overloaded", true])
    }).pipe(
      Effect.provide(
        Replay.layer([{ body: own("overloaded.sse") }, { body: own("text.sse") }, { body: own("overloaded.sse") }])
      )
    ))

  it.effect("an in-band error after output is final: the text kept, then the error, no retry", () =>
    Effect.gen(function*() {
      const r = yield* Response.collect(LanguageModel.stream("hi"))
      expect([r.text, r.error?.code]).toStrictEqual(["The answer is", "overloaded"])
      expect((yield* Replay.requests).length).toBe(1)
    }).pipe(Effect.provide(model), Effect.provide(Replay.layer({ body: own("error-midstream.sse") }))))

  it.effect("a body that ends before any finishReason is truncated, what arrived kept", () =>
    Effect.gen(function*() {
      const body = own("text.sse")
      const r = yield* Response.collect(LanguageModel.stream("hi"))
      expect([r.text, r.error?.code]).toStrictEqual(["Hello, world", "truncated"])
      expect(body.length).toBeGreaterThan(0)
    }).pipe(
      Effect.provide(model),
      Effect.provide(
        Replay.layer({ body: own("text.sse").split("\r\n\r\n").slice(0, 2).join("\r\n\r\n") + "\r\n\r\n" })
      )
    ))

  it.effect("a missing key is an authentication error before any request", () =>
    Effect.gen(function*() {
      const error = yield* LanguageModel.chat("hi").pipe(Effect.flip)
      expect([error.code, error.message]).toStrictEqual([
        "authentication",
        "No API key for google: pass apiKey or set GEMINI_API_KEY"
      ])
      expect((yield* Replay.requests).length).toBe(0)
    }).pipe(Effect.provide(Gemini.layer({ model: "gemini-2.5-flash" })), Effect.provide(Replay.layer({ body: "" }))))

  it.effect("layerConfig reads GEMINI_API_KEY and GEMINI_BASE_URL", () =>
    Effect.gen(function*() {
      yield* LanguageModel.chat("Hi")
      const [request] = yield* Replay.requests
      expect(request.url).toBe("https://proxy.example/gemini/models/gemini-2.5-flash:streamGenerateContent?alt=sse")
      expect(request.headers["x-goog-api-key"]).toBe("from-env-key")
      const service = yield* LanguageModel.LanguageModel
      expect([service.provider, service.model]).toStrictEqual(["google", "gemini-2.5-flash"])
    }).pipe(
      Effect.provide(Gemini.layerConfig({ model: "gemini-2.5-flash" })),
      Effect.provide(Replay.layer({ body: own("text.sse") })),
      Effect.withConfigProvider(ConfigProvider.fromMap(
        new Map([["GEMINI_API_KEY", "from-env-key"], ["GEMINI_BASE_URL", "https://proxy.example/gemini"]])
      ))
    ))

  it.effect("layerConfig fails with a ConfigError naming GEMINI_API_KEY when it is not set", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(
        Layer.build(Gemini.layerConfig({ model: "gemini-2.5-flash" })).pipe(Effect.scoped)
      )
      expect(exit._tag).toBe("Failure")
      expect(String(exit)).toContain("GEMINI_API_KEY")
    }).pipe(Effect.provide(Replay.layer({ body: "" })), Effect.withConfigProvider(ConfigProvider.fromMap(new Map()))))
})
