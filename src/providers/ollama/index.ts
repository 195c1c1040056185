/**
 * `Ollama`: Ollama's native chat API (`POST /api/chat`, newline-delimited JSON), for a local Ollama
 * server, Ollama's cloud (`https://ollama.com`, with a key) or a proxy in front of either.
 * `Ollama.layer({ model: "qwen3:8b" })` provides a `LanguageModel` (with an `HttpClient` layer such
 * as `FetchHttpClient.layer`); `Ollama.layerConfig({ model })` reads `OLLAMA_HOST` (and
 * `OLLAMA_API_KEY`, if set) through `Config`. No key is needed for a local server; a key, when
 * given, is sent as `Authorization: Bearer …`.
 *
 * The server address is read as Ollama's own clients read `OLLAMA_HOST` (see {@link hostUrl}):
 * `gpu-box`, `0.0.0.0:11434`, `:8080` and `https://ollama.example/` all work, as `baseUrl` or in
 * the variable.
 *
 * Reasoning: `reasoning: {}` sends `think: true`, `reasoning: { effort: "high" }` sends
 * `think: "high"` (for models that take levels); the `think` option sets it for requests that say
 * nothing. Thinking streams as reasoning deltas, and goes back as the assistant's `thinking` on the
 * next turn. Tool calls arrive whole; tool results go back with the tool's name (`tool_name`).
 * The Ollama model options (`num_ctx`, `seed`, `top_k` …) go in the `options` option, or per request
 * in `providerOptions: { options: {…} }`; `keepAlive` keeps the model loaded.
 *
 * @example
 * ```ts
 * import { FetchHttpClient } from "@effect/platform"
 * import { Effect, Layer } from "effect"
 * import { LanguageModel, Ollama } from "effect-llm-stream"
 *
 * // Reads OLLAMA_HOST (default http://localhost:11434) and OLLAMA_API_KEY, if set, through Config.
 * const Qwen = Ollama.layerConfig({ model: "qwen3:8b", keepAlive: "10m", options: { num_ctx: 8192 } })
 * const answer = LanguageModel.chat({
 *   messages: [{ role: "user", content: "Think, then answer: 17 × 23?" }],
 *   reasoning: { effort: "low" }
 * }).pipe(Effect.provide(Layer.provide(Qwen, FetchHttpClient.layer)))
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
 * The default server root: requests go to `<baseUrl>/api/chat`.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultBaseUrl: string = Hosts.hosts.ollamaNative.baseUrl

/**
 * The port Ollama listens on, added to an address given without scheme and port.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultPort = 11434

/**
 * Ollama's `think` values: on or off, or a level (`low | medium | high`) for models that take one.
 *
 * @since 0.1.0
 * @category models
 */
export type Think = Request.Think

/**
 * Options of an `Ollama` model.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options extends ProviderOptions.Common {
  /**
   * The server root (default {@link defaultBaseUrl}), read as `OLLAMA_HOST` is (see {@link hostUrl});
   * requests go to `<baseUrl>/api/chat`.
   */
  readonly baseUrl?: string | undefined
  /** `think` for requests that set no `reasoning` (left out by default: the model decides). */
  readonly think?: Think | undefined
  /** `keep_alive`: how long the model stays loaded after a request (`"10m"`, seconds, `-1` forever, `0` unload now). */
  readonly keepAlive?: string | number | undefined
  /**
   * The Ollama model options (`num_ctx`, `seed`, `top_k`, `repeat_penalty` …), sent in `options`;
   * a request's `temperature`, `topP`, `maxTokens` (`num_predict`) and `stop` replace theirs, and
   * `providerOptions.options` replaces any of them for one request.
   */
  readonly options?: Readonly<Record<string, unknown>> | undefined
  /** Overrides the provider name reported in chunks and meter keys (default `"ollama"`). */
  readonly provider?: string | undefined
}

/**
 * The server root for an address written as `OLLAMA_HOST` may be, the way Ollama's own clients read
 * it: empty → {@link defaultBaseUrl}; no scheme → `http://`, and without a port, {@link defaultPort}
 * (`gpu-box` → `http://gpu-box:11434`, `0.0.0.0:11434` → `http://0.0.0.0:11434`); a port alone
 * (`:8080`) → `http://127.0.0.1:8080`; a URL with a scheme is kept (its scheme's port when it
 * names none). Trailing slashes are dropped.
 *
 * @since 0.1.0
 * @category utils
 */
export const hostUrl = (address: string): string => {
  const value = address.trim()
  if (value === "") return defaultBaseUrl
  const sep = value.indexOf("://")
  const explicit = sep !== -1
  const scheme = explicit ? value.slice(0, sep) : "http"
  const rest = explicit ? value.slice(sep + 3) : value
  const slash = rest.indexOf("/")
  let authority = slash === -1 ? rest : rest.slice(0, slash)
  const path = slash === -1 ? "" : rest.slice(slash)
  if (authority.startsWith(":")) authority = `127.0.0.1${authority}`
  // Credentials (`user:pass@`) and an IPv6 literal (`[::1]`) hold colons of their own: the port is
  // what follows the last `@` and `]`.
  const hostPart = authority.slice(authority.lastIndexOf("@") + 1)
  const hasPort = hostPart.slice(hostPart.lastIndexOf("]") + 1).includes(":")
  if (!explicit && !hasPort) authority = `${authority}:${defaultPort}`
  return `${scheme}://${authority}${path}`.replace(/\/+$/, "")
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
    think: options.think,
    keepAlive: options.keepAlive,
    options: options.options,
    provider: options.provider ?? Hosts.hosts.ollamaNative.provider
  }
  return Provider.make({
    options: { ...options, baseUrl: options.baseUrl === undefined ? undefined : hostUrl(options.baseUrl) },
    host: Hosts.hosts.ollamaNative,
    provider: options.provider,
    path: "api/chat",
    wire: Provider.ndjson,
    // An image by URL, or a file that is not an image: one invalid_request chunk, before any request.
    encode: (request) => Request.encode(request, encodeOptions),
    decoder: (provider) => Decode.make({ provider }),
    errors: Errors.fromBody
  })
}

/**
 * A layer providing `LanguageModel` for an Ollama model.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<LanguageModel.LanguageModel, never, HttpClient> =>
  Layer.effect(LanguageModel.LanguageModel, make(options))

/** Where `layerConfig` reads from: Ollama's own variables, `OLLAMA_HOST` and `OLLAMA_API_KEY` (optional). */
const fromEnv: Hosts.Host = { ...Hosts.hosts.ollamaNative, apiKeyEnv: "OLLAMA_API_KEY" }

/**
 * Like {@link layer}, reading the server address from `OLLAMA_HOST` (unless `baseUrl` is given;
 * read by {@link hostUrl}) and a key from `OLLAMA_API_KEY` (unless `apiKey` is given), both optional:
 * with neither set it talks to {@link defaultBaseUrl} without a key.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (
  options: Options
): Layer.Layer<LanguageModel.LanguageModel, ConfigError.ConfigError, HttpClient> =>
  Provider.layerConfig(
    fromEnv,
    options,
    (env) => make({ ...options, baseUrl: env.baseUrl, apiKey: options.apiKey ?? env.apiKey })
  )
