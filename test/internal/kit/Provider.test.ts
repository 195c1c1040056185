import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as ErrorBody from "../../../src/internal/kit/ErrorBody.js"
import type * as Hosts from "../../../src/internal/kit/Hosts.js"
import * as Provider from "../../../src/internal/kit/Provider.js"
import * as LanguageModel from "../../../src/LanguageModel.js"
import * as Decode from "../../../src/providers/openai-chat/decode.js"
import * as Replay from "../../../src/testing/Replay.js"

const body =
  "data: {\"id\":\"c1\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\n\n" +
  "data: [DONE]\n\n"
const host = (auth: Hosts.Auth, extra?: Partial<Hosts.Host>): Hosts.Host => ({
  provider: "toy",
  baseUrl: "http://toy.invalid/api/",
  apiKeyEnv: "TOY_API_KEY",
  baseUrlEnv: "TOY_BASE_URL",
  requiresKey: true,
  auth,
  ...extra
})
const model = (h: Hosts.Host, options?: { readonly apiKey?: string; readonly baseUrl?: string }) =>
  Layer.effect(
    LanguageModel.LanguageModel,
    Provider.make({
      options: {
        model: "m",
        apiKey: options?.apiKey === undefined ? undefined : Redacted.make(options.apiKey),
        baseUrl: options?.baseUrl,
        headers: { "x-user": "u", "x-fixed": "from options" }
      },
      host: h,
      path: "/v9/chat",
      wire: Provider.sse,
      headers: { "x-fixed": "fixed", "x-version": "1" },
      encode: (request) => Either.right({ n: request.messages.length }),
      decoder: (provider) => Decode.make({ provider }),
      errors: ErrorBody.make({})
    })
  )
const chunks = LanguageModel.stream({ messages: [{ role: "user", content: "hi" }], headers: { "x-user": "request" } })
  .pipe(Stream.runCollect, Effect.map((c) => [...c]))

describe("Provider.make", () => {
  for (
    const [auth, header, value] of [
      ["bearer", "authorization", "Bearer toy-key-123456"],
      ["x-api-key", "x-api-key", "toy-key-123456"],
      ["api-key", "api-key", "toy-key-123456"],
      ["x-goog-api-key", "x-goog-api-key", "toy-key-123456"],
      ["none", "authorization", undefined]
    ] as const
  ) {
    it.effect(`auth ${auth}: the key in ${header} only; fixed, option and request headers merge in that order`, () =>
      Effect.gen(function*() {
        const out = yield* chunks
        expect(out.map((c) => c.type)).toStrictEqual(["metadata", "text-delta", "finish"])
        const [request] = yield* Replay.requests
        expect(request.url).toBe("http://toy.invalid/api/v9/chat")
        expect(request.body).toStrictEqual({ n: 1 })
        expect(request.headers[header]).toBe(value)
        const keyHeaders = ["authorization", "x-api-key", "api-key", "x-goog-api-key"].filter((h) =>
          request.headers[h] !== undefined
        )
        expect(keyHeaders).toStrictEqual(value === undefined ? [] : [header])
        expect([request.headers.accept, request.headers["x-version"], request.headers["x-fixed"]]).toStrictEqual([
          "text/event-stream",
          "1",
          "from options"
        ])
        expect(request.headers["x-user"]).toBe("request")
      }).pipe(Effect.provide(model(host(auth), { apiKey: "toy-key-123456" })), Effect.provide(Replay.layer({ body }))))
  }

  it.effect("a missing key or base URL is one error chunk naming the variable, with no request", () =>
    Effect.gen(function*() {
      const noKey = yield* chunks.pipe(Effect.provide(model(host("bearer"))))
      const noBase = yield* chunks.pipe(Effect.provide(model(host("bearer", { baseUrl: "" }), { apiKey: "k" })))
      expect([noKey, noBase]).toStrictEqual([
        [{
          type: "error",
          error: {
            code: "authentication",
            message: "No API key for toy: pass apiKey or set TOY_API_KEY",
            retryable: false,
            provider: "toy"
          }
        }],
        [{
          type: "error",
          error: {
            code: "invalid_request",
            message: "No base URL for toy: pass baseUrl or set TOY_BASE_URL",
            retryable: false,
            provider: "toy"
          }
        }]
      ])
      expect((yield* Replay.requests).length).toBe(0)
    }).pipe(Effect.provide(Replay.layer({ body }))))

  it.effect("a request the provider cannot encode is one invalid_request chunk, with no request", () =>
    Effect.gen(function*() {
      const refusing = Layer.effect(
        LanguageModel.LanguageModel,
        Provider.make({
          options: { model: "m", apiKey: Redacted.make("toy-key-123456") },
          host: host("bearer"),
          path: "chat",
          wire: Provider.sse,
          encode: () => Either.left("a breakpoint points at message 9, which does not exist"),
          decoder: (provider) => Decode.make({ provider }),
          errors: ErrorBody.make({})
        })
      )
      expect(yield* chunks.pipe(Effect.provide(refusing))).toStrictEqual([{
        type: "error",
        error: {
          code: "invalid_request",
          message: "a breakpoint points at message 9, which does not exist",
          retryable: false,
          provider: "toy"
        }
      }])
      expect((yield* Replay.requests).length).toBe(0)
    }).pipe(Effect.provide(Replay.layer({ body }))))
})

describe("Provider.layerConfig", () => {
  const layer = (h: Hosts.Host, baseUrl?: string) =>
    Provider.layerConfig(h, { baseUrl }, (env) =>
      Provider.make({
        options: { model: "m", ...env },
        host: h,
        path: "chat",
        wire: Provider.sse,
        encode: () => Either.right({}),
        decoder: (provider) => Decode.make({ provider }),
        errors: ErrorBody.make({})
      }))
  const withEnv = (env: Record<string, string>) =>
    Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))

  it.effect("reads the key and base URL variables; a required one that is missing is a ConfigError naming it", () =>
    Effect.gen(function*() {
      yield* chunks.pipe(
        Effect.provide(layer(host("bearer"))),
        withEnv({ TOY_API_KEY: "env-key-123456", TOY_BASE_URL: "http://env.invalid" })
      )
      const [request] = yield* Replay.requests
      expect([request.url, request.headers.authorization]).toStrictEqual([
        "http://env.invalid/chat",
        "Bearer env-key-123456"
      ])
      const missingKey = yield* Layer.build(layer(host("bearer"))).pipe(Effect.scoped, withEnv({}), Effect.flip)
      expect(String(missingKey)).toContain("TOY_API_KEY")
      const azureLike = host("api-key", { baseUrl: "" })
      const missingBase = yield* Layer.build(layer(azureLike)).pipe(
        Effect.scoped,
        withEnv({ TOY_API_KEY: "k" }),
        Effect.flip
      )
      expect(String(missingBase)).toContain("TOY_BASE_URL")
      // A base URL in the options: the variable is not read at all.
      yield* Layer.build(layer(azureLike, "http://given.invalid")).pipe(Effect.scoped, withEnv({ TOY_API_KEY: "k" }))
    }).pipe(Effect.provide(Replay.layer({ body }))))

  it.effect("one layer built again reads the environment again: a changed key or URL is used, and masked", () =>
    Effect.gen(function*() {
      const model = layer(host("bearer"))
      const run = (env: Record<string, string>) => chunks.pipe(Effect.provide(model), withEnv(env))
      yield* run({ TOY_API_KEY: "first-key-123456", TOY_BASE_URL: "http://one.invalid" })
      yield* run({ TOY_API_KEY: "first-key-123456", TOY_BASE_URL: "http://one.invalid" })
      yield* run({ TOY_API_KEY: "second-key-654321", TOY_BASE_URL: "http://one.invalid" })
      const echoed = yield* run({ TOY_API_KEY: "second-key-654321", TOY_BASE_URL: "http://two.invalid" })
      const requests = yield* Replay.requests
      expect(requests.map((r) => [r.url, r.headers.authorization])).toStrictEqual([
        ["http://one.invalid/chat", "Bearer first-key-123456"],
        ["http://one.invalid/chat", "Bearer first-key-123456"],
        ["http://one.invalid/chat", "Bearer second-key-654321"],
        ["http://two.invalid/chat", "Bearer second-key-654321"]
      ])
      // The server echoes the key it got: the text shows it masked, with the key of that build.
      expect(echoed.map((c) => c.type === "text-delta" ? c.delta : "").join("")).toBe("key: [redacted]")
    }).pipe(Effect.provide(Replay.layer({
      body:
        "data: {\"id\":\"c1\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"key: second-key-654321\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
    }))))
})
