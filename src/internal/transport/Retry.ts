/**
 * Retry policy: which failures are retried, how long to wait, and the replaceable `Schedule`.
 *
 * Retries happen only before the first content chunk (the transport enforces that), so a retry never
 * duplicates output.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Schedule from "effect/Schedule"
import type * as LlmError from "../../LlmError.js"
import type * as ProviderOptions from "../../ProviderOptions.js"

/** The `retry` option every provider takes (its public home is `ProviderOptions`). */
export type Options = ProviderOptions.RetryOptions

/** The longest server-requested wait that is honoured; longer requests are capped to it. */
export const maxRetryAfter: Duration.Duration = Duration.seconds(60)

/** The default backoff: exponential from 1 second, factor 2, with jitter. */
export const defaultBackoff: Schedule.Schedule<Duration.Duration> = Schedule.exponential("1 second", 2).pipe(
  Schedule.jittered
)

/**
 * The schedule used for one provider: the backoff (default or given), at most `times` retries, and
 * the server's Retry-After (carried by the error as `retryAfterMs`) in place of the backoff's delay.
 */
export const policy = (options?: Options): Schedule.Schedule<LlmError.LlmError, LlmError.LlmError> =>
  Schedule.passthrough(
    Schedule.intersect(options?.schedule ?? defaultBackoff, Schedule.recurs(Math.max(0, options?.times ?? 2)))
  ).pipe(
    Schedule.modifyDelay((error, delay) =>
      error.retryAfterMs === undefined
        ? delay
        : Duration.min(Duration.millis(Math.max(0, error.retryAfterMs)), maxRetryAfter)
    )
  )

/**
 * The wait a response asks for, in milliseconds: `retry-after-ms`, else `retry-after` as seconds or
 * an HTTP date (relative to `nowMs`). Undefined when absent or unreadable.
 */
export const retryAfterMs = (headers: Readonly<Record<string, string>>, nowMs: number): number | undefined => {
  const ms = headers["retry-after-ms"]
  if (ms !== undefined) {
    const n = Number.parseFloat(ms)
    if (Number.isFinite(n) && n >= 0) return n
  }
  const after = headers["retry-after"]
  if (after === undefined) return undefined
  const trimmed = after.trim()
  if (/^\d+(\.\d+)?$/.test(trimmed)) {
    // Hundreds of digits read as Infinity, which no error chunk may carry: such a wait is "too long".
    const ms = Number.parseFloat(trimmed) * 1000
    return Number.isFinite(ms) ? ms : undefined
  }
  const date = Date.parse(trimmed)
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs)
}

/** The server's `x-should-retry` verdict, when it gives one. */
export const shouldRetryHeader = (headers: Readonly<Record<string, string>>): boolean | undefined => {
  const v = headers["x-should-retry"]
  return v === "true" ? true : v === "false" ? false : undefined
}
