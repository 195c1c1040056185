/**
 * Options every provider layer takes, and the `Config` helpers their `layerConfig` constructors use.
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import type * as Redacted from "effect/Redacted"
import type * as Retry from "./wire/Retry.js"
import type * as Transport from "./wire/Transport.js"

/** Options common to all providers. */
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
  readonly retry?: Retry.Options | undefined
  /** Header / idle / total timeouts: defaults 60 s / 300 s / none. */
  readonly timeouts?: Transport.TimeoutOptions | undefined
  /** The largest single event accepted before the stream ends with `protocol` (default 16 MiB). */
  readonly maxEventBytes?: number | undefined
}

/** Reads an optional redacted secret (an API key) from the environment. */
export const optionalSecret = (name: string): Config.Config<Redacted.Redacted<string> | undefined> =>
  Config.option(Config.redacted(name)).pipe(Config.map((o) => (o._tag === "Some" ? o.value : undefined)))

/** Reads an optional string (a base URL) from the environment. */
export const optionalString = (name: string): Config.Config<string | undefined> =>
  Config.option(Config.string(name)).pipe(Config.map((o) => (o._tag === "Some" ? o.value : undefined)))

/** Joins a base URL and a path with exactly one slash. */
export const joinUrl = (base: string, path: string): string =>
  base.replace(/\/+$/, "") + "/" + path.replace(/^\/+/, "")
