/**
 * `OpenAiChat`: the Chat Completions streaming protocol, for OpenAI, Azure OpenAI and every
 * compatible host (see `presets.ts`).
 *
 * @example
 * ```ts
 * import { FetchHttpClient } from "@effect/platform"
 * import { Effect, Layer } from "effect"
 * import { LanguageModel, OpenAiChat } from "effect-llm-stream"
 *
 * // Reads GROQ_API_KEY (and GROQ_BASE_URL, if set) through Config.
 * const Groq = OpenAiChat.layerConfig({ preset: "groq", model: "llama-3.3-70b-versatile" })
 * const main = LanguageModel.chat("Hello").pipe(Effect.provide(Layer.provide(Groq, FetchHttpClient.layer)))
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
import * as Presets from "./presets.js"
import * as Request from "./request.js"

export { type Preset, type PresetName, presets } from "./presets.js"

/**
 * Options of an `OpenAiChat` model.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options extends ProviderOptions.Common {
  /** A known host (default `"openai"`): base URL, key variable and request quirks. */
  readonly preset?: Presets.PresetName | undefined
  /** Overrides the provider name reported in chunks and meter keys. */
  readonly provider?: string | undefined
}

/**
 * Builds the service from options (uses the `HttpClient` in the context).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<LanguageModel.Service, never, HttpClient> => {
  const name = options.preset ?? "openai"
  const preset: Presets.Preset = Presets.presets[name]
  return Provider.make({
    options,
    host: Hosts.hosts[name],
    provider: options.provider,
    path: "chat/completions",
    wire: Provider.sse,
    encode: (request) =>
      Either.right(Request.encode(request, {
        model: options.model,
        maxTokensField: preset.maxTokensField,
        includeUsage: preset.includeUsage,
        provider: options.provider ?? Hosts.hosts[name].provider
      })),
    decoder: (provider) => Decode.make({ provider }),
    errors: Errors.fromBody
  })
}

/**
 * A layer providing `LanguageModel` for a Chat Completions model.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<LanguageModel.LanguageModel, never, HttpClient> =>
  Layer.effect(LanguageModel.LanguageModel, make(options))

/**
 * Like {@link layer}, reading the API key (and optionally the base URL) from the environment through
 * `Config`: `OPENAI_API_KEY`, `GROQ_API_KEY` … as the preset names them. Fails with a `ConfigError`
 * when the preset needs a key, or (Azure) a base URL, and none is set.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (
  options: Omit<Options, "apiKey">
): Layer.Layer<LanguageModel.LanguageModel, ConfigError.ConfigError, HttpClient> =>
  Provider.layerConfig(Hosts.hosts[options.preset ?? "openai"], options, (env) => make({ ...options, ...env }))
