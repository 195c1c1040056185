/**
 * Models named by a string: `"anthropic:claude-sonnet-4-5"`, `"groq:llama-3.3-70b-versatile"`,
 * `"ollama:qwen3:8b"`. {@link layer} builds the right provider's `LanguageModel` from the string,
 * reading its key and base URL from the environment through `Config` (the variables each provider's
 * `layerConfig` reads), so a program switches provider by changing only the string.
 *
 * The text before the first colon names a provider module (`openai-chat`, `openai-responses`,
 * `anthropic`, `gemini` or `google`, `ollama`, `bedrock`, `cohere`) or an OpenAI-compatible preset
 * (`openai`, `azure`, `groq`, `deepseek`, `mistral`, `xai`, `openrouter`, `together`, `fireworks`,
 * `cerebras`, `perplexity`, `moonshot`, `alibaba`, `vllm`, `lmstudio`, `llamacpp`), served by
 * `OpenAiChat`; where a name is both, as `ollama` is, the native module wins. The rest, colons and
 * all, is the model id. An unknown provider, a malformed string or a missing key fails with a
 * {@link RegistryError} whose message names what to set.
 *
 * @example
 * ```ts
 * import { FetchHttpClient } from "@effect/platform"
 * import { Effect, Layer } from "effect"
 * import { LanguageModel, Registry } from "effect-llm-stream"
 *
 * // MODEL=groq:llama-3.3-70b-versatile reads GROQ_API_KEY; anthropic:… reads ANTHROPIC_API_KEY.
 * const Model = Registry.layer(process.env.MODEL ?? "anthropic:claude-sonnet-4-5")
 * const answer = LanguageModel.chat("Hello").pipe(
 *   Effect.provide(Layer.provide(Model, FetchHttpClient.layer)),
 *   Effect.catchTag("RegistryError", (error) => Effect.die(error.message)) // e.g. "… set ANTHROPIC_API_KEY …"
 * )
 * ```
 *
 * @since 0.1.0
 */
import type { HttpClient } from "@effect/platform/HttpClient"
import type * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import type * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Hosts from "./internal/kit/Hosts.js"
import * as LanguageModel from "./LanguageModel.js"
import * as ProviderOptions from "./ProviderOptions.js"
import * as Anthropic from "./providers/anthropic/index.js"
import * as Bedrock from "./providers/bedrock/index.js"
import * as Cohere from "./providers/cohere/index.js"
import * as Gemini from "./providers/gemini/index.js"
import * as Ollama from "./providers/ollama/index.js"
import * as OpenAiChat from "./providers/openai-chat/index.js"
import * as OpenAiResponses from "./providers/openai-responses/index.js"

/**
 * Why a model string could not become a model: `UnknownProvider` (the name before the colon is not
 * known; the message lists the known ones), `InvalidModelString` (no colon, or nothing on one side),
 * `MissingKey` / `MissingBaseUrl` / `MissingRegion` (the environment variable to set is in `variable`
 * and the message), `InvalidConfig` (a variable is set but unreadable).
 *
 * @since 0.1.0
 * @category errors
 */
export class RegistryError extends Schema.TaggedError<RegistryError>("effect-llm-stream/RegistryError")(
  "RegistryError",
  {
    reason: Schema.Literal(
      "UnknownProvider",
      "InvalidModelString",
      "MissingKey",
      "MissingBaseUrl",
      "MissingRegion",
      "InvalidConfig"
    ),
    message: Schema.String,
    /** The provider named before the colon, when there was one. */
    provider: Schema.optional(Schema.String),
    /** The environment variable to set, when one would fix it. */
    variable: Schema.optional(Schema.String)
  }
) {}

/**
 * What may be given beside the string: the key and base URL (which then are not read from the
 * environment), headers, retry, timeouts, the event cap, and the provider name reported in chunks.
 *
 * @since 0.1.0
 * @category models
 */
export interface Overrides extends Omit<ProviderOptions.Common, "model"> {
  /** Overrides the provider name reported in chunks, errors and meter keys. */
  readonly provider?: string | undefined
}

/**
 * A model string taken apart: the provider name (lower-cased) and the model id (everything after the
 * first colon, as given).
 *
 * @since 0.1.0
 * @category models
 */
export interface ModelString {
  readonly provider: string
  readonly model: string
}

/** Builds one provider's service from the model id and the overrides, reading what is missing from `Config`. */
type Entry = (
  model: string,
  overrides: Overrides
) => Effect.Effect<LanguageModel.Service, RegistryError, HttpClient>

/** The key and base URL of a host: the overrides', else the environment's. */
interface Env {
  readonly apiKey: Redacted.Redacted<string> | undefined
  readonly baseUrl: string | undefined
}

/** A `ConfigError` from reading `variable` as a {@link RegistryError} naming it. */
const configFailure = (provider: string, variable: string) => (error: ConfigError.ConfigError): RegistryError =>
  new RegistryError({
    reason: "InvalidConfig",
    message: `Could not read ${variable} for ${provider}: ${String(error)}`,
    provider,
    variable
  })

/** Reads an optional variable; a value that is set but unreadable is an `InvalidConfig` error. */
const optional = <A>(
  provider: string,
  variable: string | undefined,
  read: (name: string) => Config.Config<A | undefined>
): Effect.Effect<A | undefined, RegistryError> =>
  variable === undefined
    ? Effect.succeed(undefined)
    : Effect.mapError(read(variable), configFailure(provider, variable))

/**
 * Reads a host's key and base URL (unless the overrides give them): a host that needs a key, or (as
 * Azure) a base URL, and has none is a `MissingKey` / `MissingBaseUrl` error naming the variable.
 */
const readEnv = (host: Hosts.Host, overrides: Overrides): Effect.Effect<Env, RegistryError> =>
  Effect.gen(function*() {
    const provider = host.provider
    const apiKey = overrides.apiKey ?? (yield* optional(provider, host.apiKeyEnv, ProviderOptions.optionalSecret))
    if (apiKey === undefined && host.requiresKey) {
      return yield* new RegistryError({
        reason: "MissingKey",
        message: `No API key for ${provider}: set ${host.apiKeyEnv ?? "an API key"} or pass apiKey`,
        provider,
        variable: host.apiKeyEnv
      })
    }
    const baseUrl = overrides.baseUrl ?? (yield* optional(provider, host.baseUrlEnv, ProviderOptions.optionalString))
    if (baseUrl === undefined && host.baseUrl === "") {
      return yield* new RegistryError({
        reason: "MissingBaseUrl",
        message: `No base URL for ${provider}: set ${host.baseUrlEnv ?? "a base URL"} or pass baseUrl`,
        provider,
        variable: host.baseUrlEnv
      })
    }
    return { apiKey, baseUrl }
  })

/** An entry for a provider configured by one host: its key and base URL read, then `make`. */
const fromHost = (
  host: Hosts.Host,
  make: (options: ProviderOptions.Common & Overrides) => Effect.Effect<LanguageModel.Service, never, HttpClient>
): Entry =>
(model, overrides) => Effect.flatMap(readEnv(host, overrides), (env) => make({ ...overrides, ...env, model }))

/**
 * A provider's own `ConfigError` as a {@link RegistryError}: a missing variable names it (credentials
 * are `MissingKey`, a region `MissingRegion`), anything else is `InvalidConfig`.
 */
const fromConfigError = (provider: string) => (error: ConfigError.ConfigError): RegistryError => {
  if (ConfigError.isMissingData(error)) {
    const variable = error.path.join(".")
    return new RegistryError({
      reason: /REGION/.test(variable) ? "MissingRegion" : "MissingKey",
      message: `${error.message} (for ${provider})`,
      provider,
      variable
    })
  }
  return new RegistryError({ reason: "InvalidConfig", message: String(error), provider })
}

/** Every OpenAI-compatible preset, served by `OpenAiChat`. */
const chatPresets: Record<string, Entry> = Object.fromEntries(
  (Object.keys(OpenAiChat.presets) as Array<OpenAiChat.PresetName>).map((preset) => [
    preset,
    fromHost(Hosts.hosts[preset], (options) => OpenAiChat.make({ ...options, preset }))
  ])
)

/** The provider modules, which win over a preset of the same name. */
const modules: Record<string, Entry> = {
  "openai-chat": fromHost(Hosts.hosts.openai, (options) => OpenAiChat.make(options)),
  "openai-responses": fromHost(Hosts.hosts.openai, (options) => OpenAiResponses.make(options)),
  anthropic: fromHost(Hosts.hosts.anthropic, (options) => Anthropic.make(options)),
  gemini: fromHost(Hosts.hosts.google, (options) => Gemini.make(options)),
  google: fromHost(Hosts.hosts.google, (options) => Gemini.make(options)),
  cohere: fromHost(Hosts.hosts.cohere, (options) => Cohere.make(options)),
  // AWS credentials or a Bedrock API key, and a region: Bedrock's own variables.
  bedrock: (model, overrides) =>
    Effect.flatMap(
      Effect.mapError(Bedrock.resolve({ ...overrides, model }), fromConfigError("bedrock")),
      Bedrock.make
    ),
  // Ollama's own variables: OLLAMA_HOST (the server, optional) and OLLAMA_API_KEY (optional).
  ollama: fromHost({ ...Hosts.hosts.ollamaNative, apiKeyEnv: "OLLAMA_API_KEY" }, (options) => Ollama.make(options))
}

const entries: Readonly<Record<string, Entry>> = { ...chatPresets, ...modules }

/**
 * Every provider name a model string may start with, sorted.
 *
 * @since 0.1.0
 * @category constants
 */
export const providers: ReadonlyArray<string> = Object.keys(entries).sort()

/**
 * Takes a model string apart at its first colon: `"ollama:qwen3:8b"` is provider `ollama`, model
 * `qwen3:8b`. A string without a colon, or with nothing before or after it, is an
 * `InvalidModelString` error; the provider name is not checked here (see {@link make}).
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = (spec: string): Either.Either<ModelString, RegistryError> => {
  const at = spec.indexOf(":")
  const provider = at < 0 ? "" : spec.slice(0, at).trim().toLowerCase()
  const model = at < 0 ? "" : spec.slice(at + 1).trim()
  if (provider === "" || model === "") {
    return Either.left(
      new RegistryError({
        reason: "InvalidModelString",
        message: `Expected "provider:model" (e.g. "anthropic:claude-sonnet-4-5"), got ${JSON.stringify(spec)}`,
        ...(provider === "" ? {} : { provider })
      })
    )
  }
  return Either.right({ provider, model })
}

/**
 * Builds the `LanguageModel` service a model string names (uses the `HttpClient` in the context),
 * reading the provider's key and base URL from the environment unless `overrides` gives them.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  spec: string,
  overrides: Overrides = {}
): Effect.Effect<LanguageModel.Service, RegistryError, HttpClient> =>
  Effect.flatMap(parse(spec), ({ model, provider }) => {
    const entry = Object.hasOwn(entries, provider) ? entries[provider] : undefined
    if (entry === undefined) {
      return new RegistryError({
        reason: "UnknownProvider",
        message: `Unknown provider ${JSON.stringify(provider)} in ${JSON.stringify(spec)}; known: ${
          providers.join(", ")
        }`,
        provider
      })
    }
    return entry(model, overrides)
  })

/**
 * A layer providing the `LanguageModel` a model string names; fails with a {@link RegistryError}
 * when the string or the environment cannot make one.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  spec: string,
  overrides?: Overrides
): Layer.Layer<LanguageModel.LanguageModel, RegistryError, HttpClient> =>
  Layer.effect(LanguageModel.LanguageModel, make(spec, overrides))
