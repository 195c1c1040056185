import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as LlmError from "../LlmError.js"

/** The timeouts a stream can carry; each ends it with an `LlmError` of code `timeout`. */
export interface Timeouts {
  /** Longest gap between two elements (for HTTP: between two network reads, keep-alives included). */
  readonly idle?: Duration.DurationInput | undefined
  /** Longest time for the whole stream. */
  readonly total?: Duration.DurationInput | undefined
}

/**
 * Fails with `onTimeout()` when `self` emits nothing for `duration`, measured on the Effect clock (so
 * `TestClock` drives it). The timer restarts at every pull. It races two fibers against each pull,
 * which is fine for scripted streams (`TestModel`); the HTTP transport, where it would cost more
 * than the decoding, watches its reads with the one watchdog of `watch.ts` instead.
 */
const idle =
  <E2>(duration: Duration.DurationInput, onTimeout: () => E2) =>
  <A, E, R>(self: Stream.Stream<A, E, R>): Stream.Stream<A, E | E2, R> => Stream.timeoutFail(self, onTimeout, duration)

/** Fails with `onTimeout()` when `self` has not ended after `duration`. */
const total =
  <E2>(duration: Duration.DurationInput, onTimeout: () => E2) =>
  <A, E, R>(self: Stream.Stream<A, E, R>): Stream.Stream<A, E | E2, R> =>
    Stream.interruptWhen(self, Effect.zipRight(Clock.sleep(Duration.decode(duration)), Effect.failSync(onTimeout)))

const describe = (d: Duration.DurationInput): string => Duration.format(Duration.decode(d))

/** Applies idle and total timeouts with the standard `timeout` errors. */
export const apply =
  (timeouts: Timeouts | undefined, provider?: string) =>
  <A, E, R>(self: Stream.Stream<A, E, R>): Stream.Stream<A, E | LlmError.LlmError, R> => {
    let out: Stream.Stream<A, E | LlmError.LlmError, R> = self
    const idleLimit = timeouts?.idle
    if (idleLimit !== undefined && Duration.isFinite(Duration.decode(idleLimit))) {
      out = idle(
        idleLimit,
        () => LlmError.make({ code: "timeout", message: `Idle timeout: nothing for ${describe(idleLimit)}`, provider })
      )(out)
    }
    const totalLimit = timeouts?.total
    // An infinite limit is no limit (and a timer cannot hold one: Node would fire it at once).
    if (totalLimit !== undefined && Duration.isFinite(Duration.decode(totalLimit))) {
      out = total(
        totalLimit,
        () =>
          LlmError.make({
            code: "timeout",
            message: `Total timeout: the stream took longer than ${describe(totalLimit)}`,
            provider
          })
      )(out)
    }
    return out
  }
