/**
 * `OpenAiResponses`: the Responses API streaming protocol (`POST /responses`), for OpenAI, Azure
 * OpenAI, xAI, LM Studio and other open-responses servers (see `presets.ts`).
 *
 * Requests are stateless by default (`store: false`): the whole conversation is sent each turn, and
 * reasoning models are asked for `reasoning.encrypted_content`, which comes back in `reasoning` chunks
 * (`redacted`, with the item id as `signature`) and goes back in the next request from
 * `Response.message` — so reasoning survives tool loops without the host keeping anything.
 *
 * @example
 * ```ts
 * import { FetchHttpClient } from "@effect/platform"
 * import { Effect, Layer } from "effect"
 * import { LanguageModel, OpenAiResponses } from "effect-llm-stream"
 *
 * // Reads OPENAI_API_KEY (and OPENAI_BASE_URL, if set) through Config.
 * const Gpt = OpenAiResponses.layerConfig({ model: "gpt-5-mini" })
 * const main = LanguageModel.chat("Hello").pipe(Effect.provide(Layer.provide(Gpt, FetchHttpClient.layer)))
 * ```
 *
 * @since 0.1.0
 */
import type { HttpClient } from "@effect/platform/HttpClient"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as Sse from "../../internal/framing/Sse.js"
import * as Http from "../../internal/transport/Http.js"
import * as Transport from "../../internal/transport/Transport.js"
import * as LanguageModel from "../../LanguageModel.js"
import * as LlmError from "../../LlmError.js"
import * as ProviderOptions from "../../ProviderOptions.js"
import * as StreamChunk from "../../StreamChunk.js"
import * as Decode from "./decode.js"
import * as Errors from "./errors.js"
import * as Presets from "./presets.js"
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
  Effect.map(Http.Client, (client) => {
    const preset: Presets.Preset = Presets.presets[options.preset ?? "openai"]
    const provider = options.provider ?? preset.provider
    const baseUrl = options.baseUrl ?? preset.baseUrl
    const configError = (code: LlmError.ErrorCode, message: string) =>
      Stream.succeed(StreamChunk.error(LlmError.info({ code, message, provider, retryable: false })))
    return LanguageModel.make({
      provider,
      model: options.model,
      stream: (request) => {
        if (baseUrl === "") {
          return configError(
            "invalid_request",
            `The ${provider} preset needs a baseUrl (or ${preset.baseUrlEnv ?? "a base URL"})`
          )
        }
        if (options.apiKey === undefined && preset.requiresKey) {
          return configError(
            "authentication",
            `No API key for ${provider}: pass apiKey${preset.apiKeyEnv ? ` or set ${preset.apiKeyEnv}` : ""}`
          )
        }
        const headers: Record<string, string> = { accept: "text/event-stream", ...options.headers, ...request.headers }
        const key = options.apiKey === undefined ? undefined : Redacted.value(options.apiKey)
        if (key !== undefined) {
          if (preset.authHeader === "api-key") headers["api-key"] = key
          else headers.authorization = `Bearer ${key}`
        }
        return Transport.streamWith<Sse.Event>(client, {
          provider,
          url: ProviderOptions.joinUrl(baseUrl, "responses"),
          headers,
          body: Request.encode(request, {
            model: options.model,
            store: options.store,
            encryptedReasoning: options.encryptedReasoning
          }),
          secrets: key === undefined ? [] : [key],
          framer: (secrets) => new Sse.Framer({ maxEventBytes: options.maxEventBytes, secrets }),
          decoder: () => Decode.make({ provider }),
          errorFromResponse: (status, body, extras) => Errors.fromBody(status, parseBody(body), provider, extras),
          streamType: Transport.sse,
          retry: options.retry,
          timeouts: options.timeouts
        })
      }
    })
  })

const parseBody = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}

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
): Layer.Layer<LanguageModel.LanguageModel, ConfigError.ConfigError, HttpClient> => {
  const preset: Presets.Preset = Presets.presets[options.preset ?? "openai"]
  const key = preset.apiKeyEnv === undefined
    ? Config.succeed(undefined)
    : preset.requiresKey
    ? Config.redacted(preset.apiKeyEnv)
    : ProviderOptions.optionalSecret(preset.apiKeyEnv)
  const base: Config.Config<string | undefined> = preset.baseUrlEnv === undefined || options.baseUrl !== undefined
    ? Config.succeed(undefined)
    : preset.baseUrl === "" // a host with no default endpoint (Azure): the variable is required
    ? Config.string(preset.baseUrlEnv)
    : ProviderOptions.optionalString(preset.baseUrlEnv)
  return Layer.effect(
    LanguageModel.LanguageModel,
    Effect.flatMap(
      Config.all([key, base]),
      ([apiKey, baseUrl]) => make({ ...options, apiKey, baseUrl: options.baseUrl ?? baseUrl })
    )
  )
}
