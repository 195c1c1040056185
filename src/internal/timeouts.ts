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

const timeoutError = (what: string, d: Duration.DurationInput, provider?: string): LlmError.LlmError =>
  LlmError.make({
    code: "timeout",
    message: `${what} timeout: nothing for ${Duration.format(Duration.decode(d))}`,
    provider
  })

/** Applies idle and total timeouts to a stream, measured on the Effect clock (so `TestClock` drives them). */
export const apply = (timeouts: Timeouts | undefined, provider?: string) =>
<A, E, R>(self: Stream.Stream<A, E, R>): Stream.Stream<A, E | LlmError.LlmError, R> => {
  let out: Stream.Stream<A, E | LlmError.LlmError, R> = self
  if (timeouts?.idle !== undefined) {
    const idle = timeouts.idle
    out = Stream.timeoutFail(out, () => timeoutError("Idle", idle, provider), idle)
  }
  if (timeouts?.total !== undefined) {
    const total = timeouts.total
    out = Stream.interruptWhen(
      out,
      Effect.zipRight(Effect.sleep(total), Effect.fail(LlmError.make({
        code: "timeout",
        message: `Total timeout: the stream took longer than ${Duration.format(Duration.decode(total))}`,
        provider
      })))
    )
  }
  return out
}
