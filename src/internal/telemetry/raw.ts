/**
 * Where a provider built with `debug: true` hands its raw wire events: the observer that
 * `Telemetry.debug` installs for one stream, if any (read once per stream, never per event).
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type { RawEvent } from "../../Telemetry.js"

/** What a wire event reads as: its name (SSE `event:`, event-stream `:event-type`) and its text. */
export interface Raw {
  readonly name: string | undefined
  readonly data: string
}

/** Takes the raw events of one network read, just before its chunks go downstream. */
export type Observer = (events: ReadonlyArray<RawEvent>) => void

/** The observer of the current stream; none by default (a debug provider then logs at Debug level). */
export class RawObserver extends Context.Reference<RawObserver>()("effect-llm-stream/Telemetry/RawObserver", {
  defaultValue: (): Observer | undefined => undefined
}) {}
