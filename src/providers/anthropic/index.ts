/**
 * `Anthropic`: the Messages streaming protocol (`POST /v1/messages`), for Anthropic and hosts that
 * serve the same wire.
 *
 * Prompt caching: mark breakpoints per request with `providerOptions: Anthropic.cacheBreakpoints(…)`
 * (the last tool, the system prompt, or any message by its position), or turn on automatic caching
 * with `providerOptions: { cache_control: { type: "ephemeral" } }`, which is sent as it is.
 *
 * @since 0.1.0
 */
import type { HttpClient } from "@effect/platform/HttpClient"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
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
import * as Request from "./request.js"

/**
 * The default endpoint root.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultBaseUrl = "https://api.anthropic.com/v1"

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
export const make = (options: Options): Effect.Effect<LanguageModel.Service, never, HttpClient> =>
  Effect.map(Http.Client, (client) => {
    const provider = options.provider ?? "anthropic"
    const baseUrl = options.baseUrl ?? defaultBaseUrl
    const failWith = (code: LlmError.ErrorCode, message: string) =>
      Stream.succeed(StreamChunk.error(LlmError.info({ code, message, provider, retryable: false })))
    return LanguageModel.make({
      provider,
      model: options.model,
      stream: (request) => {
        if (options.apiKey === undefined) {
          return failWith("authentication", `No API key for ${provider}: pass apiKey or set ANTHROPIC_API_KEY`)
        }
        const body = Request.encode(request, { model: options.model, maxTokens: options.maxTokens ?? defaultMaxTokens })
        if (Either.isLeft(body)) return failWith("invalid_request", body.left)
        const key = Redacted.value(options.apiKey)
        const headers: Record<string, string> = {
          accept: "text/event-stream",
          "anthropic-version": options.version ?? defaultVersion,
          ...(options.betas !== undefined && options.betas.length > 0
            ? { "anthropic-beta": options.betas.join(",") }
            : {}),
          ...options.headers,
          ...request.headers,
          "x-api-key": key
        }
        return Transport.streamWith<Sse.Event>(client, {
          provider,
          url: ProviderOptions.joinUrl(baseUrl, "messages"),
          headers,
          body: body.right,
          secrets: [key],
          framer: (secrets) => new Sse.Framer({ maxEventBytes: options.maxEventBytes, secrets }),
          decoder: () => Decode.make({ provider }),
          errorFromResponse: (status, text, extras) => Errors.fromBody(status, text, provider, extras),
          streamType: Transport.sse,
          retry: options.retry,
          timeouts: options.timeouts
        })
      }
    })
  })

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
): Layer.Layer<LanguageModel.LanguageModel, ConfigError.ConfigError, HttpClient> => {
  const base: Config.Config<string | undefined> = options.baseUrl !== undefined
    ? Config.succeed(undefined)
    : ProviderOptions.optionalString("ANTHROPIC_BASE_URL")
  return Layer.effect(
    LanguageModel.LanguageModel,
    Effect.flatMap(
      Config.all([Config.redacted("ANTHROPIC_API_KEY"), base]),
      ([apiKey, baseUrl]) => make({ ...options, apiKey, baseUrl: options.baseUrl ?? baseUrl })
    )
  )
}
