/**
 * Options every provider layer takes, and the `Config` helpers their `layerConfig` constructors use.
 *
 * @example
 * ```ts
 * import { Redacted, Schedule } from "effect"
 * import { OpenAiChat, ProviderOptions } from "effect-llm-stream"
 *
 * const retry: ProviderOptions.RetryOptions = { times: 4, schedule: Schedule.spaced("500 millis") }
 * const timeouts: ProviderOptions.TimeoutOptions = { headers: "30 seconds", idle: "2 minutes", total: "10 minutes" }
 * const model = OpenAiChat.layer({ model: "gpt-4.1-mini", apiKey: Redacted.make("sk-…"), retry, timeouts })
 * ```
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import type * as Duration from "effect/Duration"
import type * as Redacted from "effect/Redacted"
import type * as Schedule from "effect/Schedule"
import type * as LlmError from "./LlmError.js"

/**
 * The `retry` option: retries happen only before the first content chunk, so a retry never
 * duplicates output.
 *
 * @since 0.1.0
 * @category options
 */
export interface RetryOptions {
  /** How many retries after the first attempt (default 2; 0 disables retries). */
  readonly times?: number
  /** Replaces the default backoff (exponential from 1 s, factor 2, jittered). Retry-After still wins. */
  readonly schedule?: Schedule.Schedule<unknown, LlmError.LlmError>
}

/**
 * The `timeouts` option: each ends the stream with an `error` chunk of code `timeout`.
 *
 * @since 0.1.0
 * @category options
 */
export interface TimeoutOptions {
  /** Until response headers arrive (default 60 s). */
  readonly headers?: Duration.DurationInput
  /**
   * Longest the consumer waits for the next network read of the body, keep-alives included
   * (default 300 s). Time the consumer spends on its own work does not count.
   */
  readonly idle?: Duration.DurationInput
  /** The whole response, retries included (default 30 minutes; `Duration.infinity` turns it off). */
  readonly total?: Duration.DurationInput
}

/**
 * Options common to all providers.
 *
 * @since 0.1.0
 * @category models
 */
export interface Common {
  /** The provider's model id. */
  readonly model: string
  /** The API key; optional where the host needs none (local servers). Never logged or put in errors. */
  readonly apiKey?: Redacted.Redacted<string> | undefined
  /** Replaces the provider's default endpoint root (proxies, local servers, tests). */
  readonly baseUrl?: string | undefined
  /** Extra request headers. */
  readonly headers?: Readonly<Record<string, string>> | undefined
  /** Retries before the first content chunk: defaults 2 retries, exponential 1 s × 2 with jitter. */
  readonly retry?: RetryOptions | undefined
  /** Header / idle / total timeouts: defaults 60 s / 300 s / 30 min. */
  readonly timeouts?: TimeoutOptions | undefined
  /** The largest single event accepted before the stream ends with `protocol` (default 16 MiB). */
  readonly maxEventBytes?: number | undefined
  /**
   * Passes the provider's raw wire events (SSE events, NDJSON lines, event-stream frames; credentials
   * masked) through beside the chunks: `Telemetry.debug(stream)` interleaves them with the chunks, in
   * order; without it each is logged with `Effect.logDebug`. Off by default; the chunks are the same either way.
   */
  readonly debug?: boolean | undefined
}

/**
 * Reads an optional redacted secret (an API key) from the environment.
 *
 * @since 0.1.0
 * @category utils
 */
export const optionalSecret = (name: string): Config.Config<Redacted.Redacted<string> | undefined> =>
  Config.option(Config.redacted(name)).pipe(Config.map((o) => (o._tag === "Some" ? o.value : undefined)))

/**
 * Reads an optional string (a base URL) from the environment.
 *
 * @since 0.1.0
 * @category utils
 */
export const optionalString = (name: string): Config.Config<string | undefined> =>
  Config.option(Config.string(name)).pipe(Config.map((o) => (o._tag === "Some" ? o.value : undefined)))

/**
 * Joins a base URL and a path with exactly one slash.
 *
 * @since 0.1.0
 * @category utils
 */
export const joinUrl = (base: string, path: string): string => base.replace(/\/+$/, "") + "/" + path.replace(/^\/+/, "")
