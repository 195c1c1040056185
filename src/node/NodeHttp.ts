/**
 * The `HttpClient` for Node that the SDK's requests are fastest over: `@effect/platform-node`'s
 * undici client, made so that the providers send their own requests straight to its undici
 * dispatcher, past the platform's steps for each request (its context merge, its request and
 * response objects, its body stream). Any other use of the client — a program's own requests —
 * goes through the platform's client as with `NodeHttpClient.layerUndici`.
 *
 * Only the client object this module makes is sent to directly: a client made from it
 * (`HttpClient.mapRequest`, a retry policy, any middleware) is a new object, and the providers'
 * requests go through it, middleware and all. `NodeHttpClient.UndiciRequestOptions` in the
 * context applies to both ways, as it does to the platform's client.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { OpenAiChat } from "effect-llm-stream"
 * import { NodeHttp } from "effect-llm-stream/node"
 *
 * const Model = OpenAiChat.layerConfig({ model: "gpt-4.1-mini" }).pipe(Layer.provide(NodeHttp.layer))
 * ```
 *
 * @since 0.1.0
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import type * as Undici from "@effect/platform-node/Undici"
import * as HttpClient from "@effect/platform/HttpClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Http from "../internal/transport/Http.js"

/** The request options of `NodeHttpClient.UndiciRequestOptions`: the request's context first, then the layer's. */
const optionsIn = (
  context: Context.Context<never>,
  built: Context.Context<never>
): Context.Tag.Service<typeof NodeHttpClient.UndiciRequestOptions> | undefined => {
  const own = Context.getOption(context, NodeHttpClient.UndiciRequestOptions)
  if (Option.isSome(own)) return own.value
  return Option.getOrUndefined(Context.getOption(built, NodeHttpClient.UndiciRequestOptions))
}

/**
 * A client over `dispatcher` (an `Agent`, a `Pool`, a `ProxyAgent` …) whose requests from the
 * providers go straight to it. Its other requests see the services of `context` (the context it was
 * built in) under their own, as `NodeHttpClient.layerUndici`'s do.
 */
const makeIn = (dispatcher: Undici.Dispatcher, context: Context.Context<never>): HttpClient.HttpClient =>
  Http.direct(
    HttpClient.transformResponse(
      NodeHttpClient.makeUndici(dispatcher),
      Effect.mapInputContext((input: Context.Context<never>) => Context.merge(context, input))
    ),
    (request, requestContext) =>
      dispatcher.request({
        ...optionsIn(requestContext, context),
        ...request,
        // The timeouts are the transport's own, as the platform's client leaves them to Effect.
        headersTimeout: 60 * 60 * 1000,
        bodyTimeout: 0
      })
  )

/**
 * A client over `dispatcher`, which the caller keeps and closes: the providers' requests go
 * straight to it, any other request through `NodeHttpClient.makeUndici(dispatcher)`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (dispatcher: Undici.Dispatcher): HttpClient.HttpClient => makeIn(dispatcher, Context.empty())

/**
 * The client over the `NodeHttpClient.Dispatcher` in the context.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerWithoutDispatcher: Layer.Layer<HttpClient.HttpClient, never, NodeHttpClient.Dispatcher> = Layer
  .effect(
    HttpClient.HttpClient,
    Effect.flatMap(
      NodeHttpClient.Dispatcher,
      (dispatcher) => Effect.map(Effect.context<never>(), (context) => makeIn(dispatcher, context))
    )
  )

/**
 * The client over an undici `Agent` of its own, opened when the layer is built and closed when it
 * is released (as `NodeHttpClient.layerUndici`'s): build it once, at the edge of the program.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<HttpClient.HttpClient> = Layer.provide(
  layerWithoutDispatcher,
  NodeHttpClient.dispatcherLayer
)
