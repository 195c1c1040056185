/**
 * `Cohere`: the v2 chat streaming protocol (`POST /v2/chat`, `stream: true`). `Cohere.layer({ model:
 * "command-a-03-2025", apiKey })` provides a `LanguageModel` (with an `HttpClient` layer such as
 * `FetchHttpClient.layer`); `Cohere.layerConfig({ model })` reads `COHERE_API_KEY` and
 * `COHERE_BASE_URL` through `Config`.
 *
 * What streams: text; the tool plan Cohere states before its tool calls, as text; thinking blocks
 * (`reasoning: { budgetTokens }` turns thinking on with that budget) as reasoning; tool calls with
 * their argument fragments; citations as `source` parts, the cited span in `providerMetadata`. A
 * collected `Response.message` goes back as the next request's assistant turn: its text as
 * `tool_plan` beside its `tool_calls`, its reasoning as `thinking` content.
 *
 * Usage: `inputTokens` and `outputTokens` are Cohere's `usage.tokens` (what the model read and
 * wrote, the prompt template included), `cacheReadTokens` its `cached_tokens`; the billed units are
 * in `usage.raw.billed_units`.
 *
 * Tool choice: Cohere knows `REQUIRED` and `NONE` only; naming one tool sends that tool alone with
 * `REQUIRED`.
 *
 * @example
 * ```ts
 * import { FetchHttpClient } from "@effect/platform"
 * import { Effect, Layer } from "effect"
 * import { Cohere, LanguageModel } from "effect-llm-stream"
 *
 * // Reads COHERE_API_KEY (and COHERE_BASE_URL, if set) through Config.
 * const Command = Cohere.layerConfig({ model: "command-a-reasoning-08-2025" })
 * const answer = LanguageModel.chat({
 *   messages: [{ role: "user", content: "Think, then answer: 17 × 23?" }],
 *   reasoning: { budgetTokens: 2048 },
 *   // Any other v2 chat field passes through: documents to cite, safety mode …
 *   providerOptions: { safety_mode: "CONTEXTUAL" }
 * }).pipe(Effect.provide(Layer.provide(Command, FetchHttpClient.layer)))
 * ```
 *
 * @since 0.1.0
 */
import type { HttpClient } from "@effect/platform/HttpClient"
import type * as ConfigError from "effect/ConfigError"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Hosts from "../../internal/kit/Hosts.js"
import * as Provider from "../../internal/kit/Provider.js"
import * as LanguageModel from "../../LanguageModel.js"
import type * as ProviderOptions from "../../ProviderOptions.js"
import * as Decode from "./decode.js"
import * as Errors from "./errors.js"
import * as Request from "./request.js"

/**
 * The default endpoint root, without `/v2`: requests go to `<baseUrl>/v2/chat`.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultBaseUrl: string = Hosts.hosts.cohere.baseUrl

/**
 * Options of a `Cohere` model.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options extends ProviderOptions.Common {
  /** The endpoint root without `/v2` (default {@link defaultBaseUrl}); requests go to `<baseUrl>/v2/chat`. */
  readonly baseUrl?: string | undefined
  /** Overrides the provider name reported in chunks and meter keys (default `"cohere"`). */
  readonly provider?: string | undefined
}

/**
 * Builds the service from options (uses the `HttpClient` in the context).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<LanguageModel.Service, never, HttpClient> => {
  const encodeOptions: Request.EncodeOptions = {
    model: options.model,
    provider: options.provider ?? Hosts.hosts.cohere.provider
  }
  return Provider.make({
    options,
    host: Hosts.hosts.cohere,
    provider: options.provider,
    path: "v2/chat",
    wire: Provider.sse,
    // A file that is not an image, or a tool choice naming no tool of the request: one
    // invalid_request chunk, before any request.
    encode: (request) => Request.encode(request, encodeOptions),
    decoder: (provider) => Decode.make({ provider }),
    errors: Errors.fromBody
  })
}

/**
 * A layer providing `LanguageModel` for a Cohere model.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<LanguageModel.LanguageModel, never, HttpClient> =>
  Layer.effect(LanguageModel.LanguageModel, make(options))

/**
 * Like {@link layer}, reading the key from `COHERE_API_KEY` and, unless `baseUrl` is given, the
 * endpoint root from `COHERE_BASE_URL` when set. Fails with a `ConfigError` when no key is set.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (
  options: Omit<Options, "apiKey">
): Layer.Layer<LanguageModel.LanguageModel, ConfigError.ConfigError, HttpClient> =>
  Provider.layerConfig(Hosts.hosts.cohere, options, (env) => make({ ...options, ...env }))
