/**
 * `Anthropic`: the Messages streaming protocol (`POST /v1/messages`), for Anthropic and hosts that
 * serve the same wire. `Anthropic.layer({ model: "claude-sonnet-4-5", apiKey })` provides a
 * `LanguageModel` (with an `HttpClient` layer such as `FetchHttpClient.layer`);
 * `Anthropic.layerConfig({ model })` reads `ANTHROPIC_API_KEY` and `ANTHROPIC_BASE_URL` through `Config`.
 *
 * Reasoning: `reasoning: { budgetTokens }` turns on thinking with that budget, `reasoning: { effort }`
 * adaptive thinking at that effort. A collected `Response.message` goes back as the next request's
 * assistant turn as the API requires: signed thinking and redacted thinking first, then text and
 * `tool_use`; tool results follow as `tool_result` blocks.
 *
 * Structured output: `responseFormat` `json` / `json_schema` is answered through a tool,
 * `json_response`, whose input schema is the requested one (forced, or `auto` when thinking is on);
 * its input streams back as the answer's `text-delta`s and the response finishes `stop`.
 *
 * Prompt caching: mark breakpoints per request with `providerOptions: Anthropic.cacheBreakpoints(…)`
 * (the last tool, the system prompt, or any message by its position), or turn on automatic caching
 * with `providerOptions: { cache_control: { type: "ephemeral" } }`, which is sent as it is.
 *
 * @example
 * ```ts
 * import { FetchHttpClient } from "@effect/platform"
 * import { Effect, Layer } from "effect"
 * import { Anthropic, LanguageModel } from "effect-llm-stream"
 *
 * // Reads ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL, if set) through Config.
 * const Claude = Anthropic.layerConfig({ model: "claude-sonnet-4-5", betas: ["interleaved-thinking-2025-05-14"] })
 * const answer = LanguageModel.chat({
 *   messages: [{ role: "user", content: "Think, then answer: 17 × 23?" }],
 *   reasoning: { budgetTokens: 2048 },
 *   providerOptions: Anthropic.cacheBreakpoints(["system"])
 * }).pipe(Effect.provide(Layer.provide(Claude, FetchHttpClient.layer)))
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
 * The default endpoint root, without `/v1` (as `ANTHROPIC_BASE_URL` is for Anthropic's own SDKs):
 * requests go to `<baseUrl>/v1/messages`.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultBaseUrl: string = Hosts.hosts.anthropic.baseUrl

/**
 * The `anthropic-version` header sent unless `version` says otherwise.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultVersion = "2023-06-01"

/**
 * `max_tokens` when a request sets no `maxTokens` (the API requires one); a thinking budget is added to it.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxTokens = 4096

/**
 * Options of an `Anthropic` model.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options extends ProviderOptions.Common {
  /**
   * The endpoint root without `/v1` (default {@link defaultBaseUrl}); requests go to
   * `<baseUrl>/v1/messages`.
   */
  readonly baseUrl?: string | undefined
  /** `max_tokens` for requests that set no `maxTokens` (default {@link defaultMaxTokens}, plus any thinking budget). */
  readonly maxTokens?: number | undefined
  /** Beta features, sent as one `anthropic-beta` header (e.g. `["context-1m-2025-08-07"]`). */
  readonly betas?: ReadonlyArray<string> | undefined
  /** The `anthropic-version` header (default {@link defaultVersion}). */
  readonly version?: string | undefined
  /** Overrides the provider name reported in chunks and meter keys (default `"anthropic"`). */
  readonly provider?: string | undefined
}

/**
 * Where a prompt-cache breakpoint goes: `"tools"` (the last tool definition), `"system"` (the last
 * system message), or a message's position in `request.messages` (negative counts from the end:
 * `-1` is the last message), which marks that message's last content block (for a tool message,
 * its `tool_result`). `{ at, ttl: "1h" }` asks for the one-hour cache. At most 4 per request.
 *
 * @since 0.1.0
 * @category models
 */
export type CacheBreakpoint = Request.CacheBreakpoint

/**
 * The `providerOptions` that place prompt-cache breakpoints (`cache_control: {type: "ephemeral"}`)
 * on the request's blocks: `providerOptions: Anthropic.cacheBreakpoints(["tools", "system", -1])`.
 * Spread it with other options: `{ ...Anthropic.cacheBreakpoints([-1]), metadata: { user_id } }`.
 * A breakpoint that points nowhere ends the stream with `invalid_request` before any request is sent.
 *
 * @since 0.1.0
 * @category utils
 */
export const cacheBreakpoints = (
  breakpoints: ReadonlyArray<CacheBreakpoint>
): { readonly cacheBreakpoints: ReadonlyArray<CacheBreakpoint> } => ({ [Request.cacheBreakpointsKey]: breakpoints })

/**
 * Builds the service from options (uses the `HttpClient` in the context).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<LanguageModel.Service, never, HttpClient> => {
  const encodeOptions: Request.EncodeOptions = {
    model: options.model,
    maxTokens: options.maxTokens ?? defaultMaxTokens,
    provider: options.provider ?? Hosts.hosts.anthropic.provider
  }
  const headers: Record<string, string> = { "anthropic-version": options.version ?? defaultVersion }
  if (options.betas !== undefined && options.betas.length > 0) headers["anthropic-beta"] = options.betas.join(",")
  return Provider.make({
    options,
    host: Hosts.hosts.anthropic,
    provider: options.provider,
    path: "v1/messages",
    wire: Provider.sse,
    headers,
    // Cache breakpoints that point nowhere: one invalid_request chunk, before any request.
    encode: (request) => Request.encode(request, encodeOptions),
    decoder: (provider) => Decode.make({ provider }),
    errors: Errors.fromBody
  })
}

/**
 * A layer providing `LanguageModel` for an Anthropic model.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<LanguageModel.LanguageModel, never, HttpClient> =>
  Layer.effect(LanguageModel.LanguageModel, make(options))

/**
 * Like {@link layer}, reading the key from `ANTHROPIC_API_KEY` and, unless `baseUrl` is given, the
 * endpoint root from `ANTHROPIC_BASE_URL` when set. Fails with a `ConfigError` when no key is set.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (
  options: Omit<Options, "apiKey">
): Layer.Layer<LanguageModel.LanguageModel, ConfigError.ConfigError, HttpClient> =>
  Provider.layerConfig(Hosts.hosts.anthropic, options, (env) => make({ ...options, ...env }))
