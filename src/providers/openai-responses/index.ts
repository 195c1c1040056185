/**
 * `OpenAiResponses`: the Responses API streaming protocol (`POST /responses`), for OpenAI, Azure
 * OpenAI, xAI, LM Studio and other open-responses servers (see `presets.ts`).
 *
 * Requests are stateless by default (`store: false`): the whole conversation is sent each turn, and
 * reasoning models are asked for `reasoning.encrypted_content`, which comes back in `reasoning` chunks
 * (`redacted`, with the item id as `signature`) and goes back in the next request from
 * `Response.message` — so reasoning survives tool loops without the host keeping anything.
 *
 * `OpenAiResponses.layerConfig({ model: "gpt-5-mini" })` reads `OPENAI_API_KEY` (and `OPENAI_BASE_URL`,
 * if set) through `Config`; `preset` picks another host (`azure`, `xai`, `lmstudio`).
 *
 * @example
 * ```ts
 * import { FetchHttpClient } from "@effect/platform"
 * import { Effect, Layer } from "effect"
 * import { LanguageModel, OpenAiResponses } from "effect-llm-stream"
 *
 * // Reads OPENAI_API_KEY through Config; `preset` picks another host (azure, xai, lmstudio).
 * const Model = OpenAiResponses.layerConfig({ model: "o4-mini" })
 * const answer = LanguageModel.chat({ messages: [{ role: "user", content: "Hello" }], reasoning: { effort: "low" } }).pipe(
 *   Effect.provide(Layer.provide(Model, FetchHttpClient.layer))
 * )
 * ```
 *
 * @since 0.1.0
 */
import type { HttpClient } from "@effect/platform/HttpClient"
import type * as ConfigError from "effect/ConfigError"
import type * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Hosts from "../../internal/kit/Hosts.js"
import * as Provider from "../../internal/kit/Provider.js"
import * as LanguageModel from "../../LanguageModel.js"
import type * as ProviderOptions from "../../ProviderOptions.js"
import * as Decode from "./decode.js"
import * as Errors from "./errors.js"
import type * as Presets from "./presets.js"
import * as Request from "./request.js"

export { type Preset, type PresetName, presets } from "./presets.js"

/**
 * Options of an `OpenAiResponses` model.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options extends ProviderOptions.Common {
  /** A known host (default `"openai"`): base URL, key variable and auth header. */
  readonly preset?: Presets.PresetName | undefined
  /** Overrides the provider name reported in chunks and meter keys. */
  readonly provider?: string | undefined
  /**
   * Whether the host may keep responses (default `false`): stateless, the client resends the history,
   * and reasoning goes back as encrypted content. `true` suits `previous_response_id` (set through
   * `providerOptions`).
   */
  readonly store?: boolean | undefined
  /**
   * Whether to ask for `reasoning.encrypted_content` when not storing. Default: when the request sets
   * `reasoning`, or the model id names a reasoning family (`o1`, `o3`, `o4-mini`, `gpt-5…`, `codex…`);
   * set it for reasoning models under other names (Azure deployments). Models that do not reason
   * reject the request when asked.
   */
  readonly encryptedReasoning?: boolean | undefined
}

/**
 * Builds the service from options (uses the `HttpClient` in the context).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<LanguageModel.Service, never, HttpClient> =>
  Provider.make({
    options,
    host: Hosts.hosts[options.preset ?? "openai"],
    provider: options.provider,
    path: "responses",
    wire: Provider.sse,
    encode: (request) =>
      Either.right(Request.encode(request, {
        model: options.model,
        store: options.store,
        encryptedReasoning: options.encryptedReasoning,
        provider: options.provider ?? Hosts.hosts[options.preset ?? "openai"].provider
      })),
    decoder: (provider) => Decode.make({ provider }),
    errors: Errors.fromBody
  })

/**
 * A layer providing `LanguageModel` for a Responses API model.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<LanguageModel.LanguageModel, never, HttpClient> =>
  Layer.effect(LanguageModel.LanguageModel, make(options))

/**
 * Like {@link layer}, reading the API key (and optionally the base URL) from the environment through
 * `Config`: `OPENAI_API_KEY`, `AZURE_OPENAI_API_KEY` + `AZURE_OPENAI_BASE_URL`, `XAI_API_KEY`,
 * `LMSTUDIO_BASE_URL` as the preset names them. Fails with a `ConfigError` when the preset needs a
 * key, or (Azure) a base URL, and none is set.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (
  options: Omit<Options, "apiKey">
): Layer.Layer<LanguageModel.LanguageModel, ConfigError.ConfigError, HttpClient> =>
  Provider.layerConfig(Hosts.hosts[options.preset ?? "openai"], options, (env) => make({ ...options, ...env }))
