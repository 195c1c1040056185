// The Node entry point as a Node consumer uses it, type-checked by test/package/package.test.ts
// against the installed tarball under the strictest settings (with @types/node; the browser and edge
// check leaves it out), and in the repository against the sources.
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import type { HttpClient } from "@effect/platform/HttpClient"
import { Effect, Layer, Redacted } from "effect"
import { LanguageModel, OpenAiChat, type Response } from "effect-llm-stream"
import { NodeHttp } from "effect-llm-stream/node"

const layer: Layer.Layer<HttpClient> = NodeHttp.layer
const overDispatcher: Layer.Layer<HttpClient, never, NodeHttpClient.Dispatcher> = NodeHttp.layerWithoutDispatcher
const fromDispatcher: Layer.Layer<HttpClient> = Layer.provide(overDispatcher, NodeHttpClient.dispatcherLayer)

const Model = OpenAiChat.layer({ model: "gpt-4.1-mini", apiKey: Redacted.make("sk-not-a-real-key") })

export const answer: Effect.Effect<Response.Response, unknown> = LanguageModel.chat("hi").pipe(
  Effect.provide(Model),
  Effect.provide(layer)
)
export const answerOver: Effect.Effect<Response.Response, unknown> = LanguageModel.chat("hi").pipe(
  Effect.provide(Layer.provide(Model, fromDispatcher))
)
