/**
 * `Gemini`: Google's `streamGenerateContent` protocol (`alt=sse`), for the Gemini API (Google AI
 * Studio) and Vertex AI. `Gemini.layer({ model: "gemini-2.5-flash", apiKey })` provides a
 * `LanguageModel` (with an `HttpClient` layer such as `FetchHttpClient.layer`);
 * `Gemini.layerConfig({ model })` reads `GEMINI_API_KEY` and `GEMINI_BASE_URL` through `Config`.
 * Requests go to `<baseUrl>/models/<model>:streamGenerateContent?alt=sse`, the key in the
 * `x-goog-api-key` header.
 *
 * Vertex AI: give its endpoint root as `baseUrl` and, with an OAuth access token (`gcloud auth
 * print-access-token`), `auth: "bearer"`:
 * `https://aiplatform.googleapis.com/v1/projects/<project>/locations/<location>/publishers/google`
 * (or the regional `https://<location>-aiplatform.googleapis.com/v1/…`). Vertex express-mode API
 * keys keep the default `auth: "api-key"` with `https://aiplatform.googleapis.com/v1/publishers/google`.
 * `streamFunctionCallArguments: true` asks Vertex to stream tool arguments (`partialArgs`).
 *
 * Reasoning: `reasoning: { budgetTokens }` sends `thinkingBudget`, `reasoning: { effort }`
 * `thinkingLevel`; both ask for thought summaries (`includeThoughts`). A collected
 * `Response.message` goes back as the next request's `model` turn with its thought signatures on the
 * same kinds of parts (thoughts, text, function calls), as Gemini 3 requires for function calls.
 *
 * @example
 * ```ts
 * import { FetchHttpClient } from "@effect/platform"
 * import { Effect, Layer, Redacted } from "effect"
 * import { Gemini, LanguageModel } from "effect-llm-stream"
 *
 * // Reads GEMINI_API_KEY (and GEMINI_BASE_URL, if set) through Config.
 * const Flash = Gemini.layerConfig({ model: "gemini-2.5-flash" })
 * const answer = LanguageModel.chat({
 *   messages: [{ role: "user", content: "Think, then answer: 17 × 23?" }],
 *   reasoning: { budgetTokens: 1024 },
 *   providerOptions: { safetySettings: [{ category: "HARM_CATEGORY_HARASSMENT", threshold: "BLOCK_ONLY_HIGH" }] }
 * }).pipe(Effect.provide(Layer.provide(Flash, FetchHttpClient.layer)))
 *
 * // Vertex AI with an OAuth access token.
 * const Vertex = Gemini.layer({
 *   model: "gemini-2.5-pro",
 *   apiKey: Redacted.make("ya29.…"),
 *   auth: "bearer",
 *   baseUrl: "https://aiplatform.googleapis.com/v1/projects/my-project/locations/global/publishers/google"
 * })
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
 * The default endpoint root, the Gemini API's `v1beta`: requests go to
 * `<baseUrl>/models/<model>:streamGenerateContent?alt=sse`.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultBaseUrl: string = Hosts.hosts.google.baseUrl

/**
 * How the key is sent: `"api-key"` (the default) in the `x-goog-api-key` header, as the Gemini API
 * and Vertex express mode take it; `"bearer"` as `Authorization: Bearer <token>`, for Vertex AI with
 * an OAuth access token.
 *
 * @since 0.1.0
 * @category models
 */
export type Auth = "api-key" | "bearer"

/**
 * Options of a `Gemini` model.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options extends ProviderOptions.Common {
  /**
   * The model id (`gemini-2.5-flash`); an id with a slash (`tunedModels/x`, `endpoints/123`) is a
   * resource path, used as it is in place of `models/<model>`.
   */
  readonly model: string
  /** The endpoint root (default {@link defaultBaseUrl}); a Vertex root for Vertex AI. */
  readonly baseUrl?: string | undefined
  /** How the key is sent (default `"api-key"`). */
  readonly auth?: Auth | undefined
  /** Vertex only: stream tool-call arguments (`toolConfig.functionCallingConfig.streamFunctionCallArguments`). */
  readonly streamFunctionCallArguments?: boolean | undefined
  /**
   * The provider name reported in chunks, errors and meter keys: default `"vertex"` with
   * `auth: "bearer"` or an `aiplatform.googleapis.com` base URL, else `"google"`. Reasoning
   * signatures go back only to the provider name that made them.
   */
  readonly provider?: string | undefined
}

/** The request path for a model: `models/<model>:streamGenerateContent?alt=sse`. */
const pathFor = (model: string): string =>
  `${model.includes("/") ? model : `models/${model}`}:streamGenerateContent?alt=sse`

/** The provider name an options object reports. */
const providerFor = (options: Options): string =>
  options.provider ??
    (options.auth === "bearer" || (options.baseUrl ?? "").includes("aiplatform.googleapis.com") ? "vertex" : "google")

/**
 * Builds the service from options (uses the `HttpClient` in the context).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<LanguageModel.Service, never, HttpClient> => {
  const provider = providerFor(options)
  const host: Hosts.Host = options.auth === "bearer"
    ? { ...Hosts.hosts.google, auth: "bearer" }
    : Hosts.hosts.google
  const encodeOptions: Request.EncodeOptions = {
    provider,
    streamFunctionCallArguments: options.streamFunctionCallArguments
  }
  return Provider.make({
    options,
    host,
    provider,
    path: pathFor(options.model),
    wire: Provider.sse,
    encode: (request) => Request.encode(request, encodeOptions),
    decoder: (name) => Decode.make({ provider: name }),
    errors: Errors.fromBody
  })
}

/**
 * A layer providing `LanguageModel` for a Gemini model.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<LanguageModel.LanguageModel, never, HttpClient> =>
  Layer.effect(LanguageModel.LanguageModel, make(options))

/**
 * Like {@link layer}, reading the key from `GEMINI_API_KEY` and, unless `baseUrl` is given, the
 * endpoint root from `GEMINI_BASE_URL` when set. Fails with a `ConfigError` when no key is set.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (
  options: Omit<Options, "apiKey">
): Layer.Layer<LanguageModel.LanguageModel, ConfigError.ConfigError, HttpClient> =>
  Provider.layerConfig(Hosts.hosts.google, options, (env) => make({ ...options, ...env }))
