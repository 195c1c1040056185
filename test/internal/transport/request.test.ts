/**
 * What the transport hands the platform's `HttpClient` for each request: the fiber it runs in
 * (the caller's `RequestInit` kept, redirects handed to us, the platform's own span off) and the
 * request itself (URL, headers, body), when the headers' request is reused across requests and
 * when each request brings headers of its own.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberId from "effect/FiberId"
import * as FiberRef from "effect/FiberRef"
import * as FiberRefs from "effect/FiberRefs"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import type * as ChatRequest from "../../../src/ChatRequest.js"
import * as Http from "../../../src/internal/transport/Http.js"
import * as LanguageModel from "../../../src/LanguageModel.js"
import * as OpenAiChat from "../../../src/providers/openai-chat/index.js"

/** What the client saw of one request. */
interface Seen {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  readonly init: globalThis.RequestInit | undefined
  readonly tracerDisabled: boolean
}

const answer = [
  `data: {"id":"c1","model":"gpt-test","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}`,
  `data: {"id":"c1","model":"gpt-test","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
  "data: [DONE]",
  ""
].join("\n\n")

/** A client that records each request and answers it with a two-event Chat stream. */
const recording = (seen: Array<Seen>): HttpClient.HttpClient =>
  HttpClient.make((request, url) =>
    Effect.withFiberRuntime((fiber) => {
      const init = Context.getOption(fiber.currentContext, FetchHttpClient.RequestInit)
      seen.push({
        url: url.toString(),
        headers: { ...request.headers },
        body: request.body._tag === "Uint8Array" ? new TextDecoder().decode(request.body.body) : "",
        init: init._tag === "Some" ? init.value : undefined,
        tracerDisabled: fiber.getFiberRef(HttpClient.currentTracerDisabledWhen)(request)
      })
      return Effect.succeed(HttpClientResponse.fromWeb(
        request,
        new Response(answer, { status: 200, headers: { "content-type": "text/event-stream" } })
      ))
    })
  )

const model = OpenAiChat.layer({
  model: "gpt-test",
  apiKey: Redacted.make("sk-test-request-0123456789"),
  baseUrl: "http://llm.invalid/v1",
  retry: { times: 0 }
})

describe("the transport's requests", () => {
  it.effect("keep the caller's RequestInit, hand redirects to us and turn the platform's span off, request after request", () =>
    Effect.gen(function*() {
      const seen: Array<Seen> = []
      const run = (input: ChatRequest.Input) =>
        LanguageModel.chat(input).pipe(
          Effect.provide(Layer.provide(model, Layer.succeed(HttpClient.HttpClient, recording(seen))))
        )
      const first = yield* run("one")
      const second = yield* run("two").pipe(
        Effect.provideService(FetchHttpClient.RequestInit, { keepalive: true, redirect: "follow" })
      )
      const third = yield* run("three")
      expect([first.text, second.text, third.text]).toStrictEqual(["Hi", "Hi", "Hi"])
      expect(seen.map((s) => s.init)).toStrictEqual([
        { redirect: "manual" },
        { keepalive: true, redirect: "manual" },
        { redirect: "manual" }
      ])
      expect(seen.map((s) => s.tracerDisabled)).toStrictEqual([true, true, true])
      expect(seen.map((s) => JSON.parse(s.body).messages[0].content)).toStrictEqual(["one", "two", "three"])
      expect(new Set(seen.map((s) => s.url))).toStrictEqual(new Set(["http://llm.invalid/v1/chat/completions"]))
      for (const s of seen) {
        expect(s.headers).toStrictEqual({
          accept: "text/event-stream",
          authorization: "Bearer sk-test-request-0123456789",
          "content-type": "application/json",
          "content-length": String(new TextEncoder().encode(s.body).length)
        })
      }
    }))

  it.effect("send a request's own headers with it, and the fixed ones again after it", () =>
    Effect.gen(function*() {
      const seen: Array<Seen> = []
      const layers = Layer.provide(model, Layer.succeed(HttpClient.HttpClient, recording(seen)))
      yield* LanguageModel.chat({ messages: [{ role: "user", content: "a" }], headers: { "x-trace": "1" } }).pipe(
        Effect.provide(layers)
      )
      yield* LanguageModel.chat("b").pipe(Effect.provide(layers))
      expect(seen.map((s) => s.headers["x-trace"])).toStrictEqual(["1", undefined])
      expect(seen.map((s) => s.headers.authorization)).toStrictEqual([
        "Bearer sk-test-request-0123456789",
        "Bearer sk-test-request-0123456789"
      ])
    }))

  it("derives one request context per caller's context, each from its own", () => {
    const plain = Context.empty()
    const withInit = Context.make(FetchHttpClient.RequestInit, { cache: "no-store" })
    const a = Http.requestContext(plain)
    expect(Http.requestContext(plain)).toBe(a)
    expect(Context.unsafeGet(a, FetchHttpClient.RequestInit)).toStrictEqual({ redirect: "manual" })
    expect(Context.unsafeGet(Http.requestContext(withInit), FetchHttpClient.RequestInit)).toStrictEqual({
      cache: "no-store",
      redirect: "manual"
    })
    // The caller's context is left as it was.
    expect(Context.getOption(plain, FetchHttpClient.RequestInit)._tag).toBe("None")
    expect(Context.get(withInit, FetchHttpClient.RequestInit)).toStrictEqual({ cache: "no-store" })
  })

  it.effect("the fiber refs turn only the platform's span off", () =>
    Effect.gen(function*() {
      const refs = yield* Effect.getFiberRefs
      const before = yield* FiberRef.get(HttpClient.currentTracerPropagation)
      const after = Http.requestFiberRefs(refs, FiberId.unsafeMake())
      expect(FiberRefs.getOrDefault(after, HttpClient.currentTracerDisabledWhen)(undefined as never)).toBe(true)
      expect(FiberRefs.getOrDefault(after, HttpClient.currentTracerPropagation)).toBe(before)
    }))
})
