/**
 * Output smoothing: providers send text in bursts (a whole paragraph in one read, then a pause); a
 * chat UI reads better when words arrive at a steady pace. {@link text} re-chunks `text-delta`s into
 * words or lines and paces them with a `Schedule` on the Effect clock, so `TestClock` drives it.
 *
 * Nothing is lost or reordered: the pieces join to exactly the text that came in, held text goes out
 * before any other chunk (a tool call, usage, the terminal chunk), and the stream still ends with its
 * one terminal chunk. Other chunks pass through at once.
 *
 * @example
 * ```ts
 * import { Schedule, Stream } from "effect"
 * import { LanguageModel, Smooth } from "effect-llm-stream"
 *
 * // Word by word, one every 20 ms.
 * const smooth = LanguageModel.stream("Tell me a story").pipe(
 *   Smooth.text({ chunking: "word", schedule: Schedule.spaced("20 millis") })
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import * as StreamChunk from "./StreamChunk.js"

/**
 * Options of {@link text}.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /**
   * Where a piece ends: `"word"` (default; a word and the spaces after it), `"line"` (up to and
   * including a line break), or a `RegExp` whose match ends a piece (searched from the start of the
   * held text; give it no `g` or `y` flag).
   */
  readonly chunking?: "word" | "line" | RegExp | undefined
  /**
   * The pace: the wait before each piece (default `Schedule.spaced("10 millis")`). When the schedule
   * ends, the rest goes out unpaced.
   */
  readonly schedule?: Schedule.Schedule<unknown> | undefined
}

/**
 * The default pace: a piece every 10 milliseconds.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultSchedule: Schedule.Schedule<number> = Schedule.spaced(Duration.millis(10))

const word = /\S+\s+/
const line = /\n/

/** Cuts complete pieces off the front of `held`: the pieces and what stays held. */
const cut = (held: string, boundary: RegExp): { readonly pieces: Array<string>; readonly rest: string } => {
  const pieces: Array<string> = []
  let rest = held
  while (rest !== "") {
    const match = boundary.exec(rest)
    if (match === null || match[0] === "") break
    const end = match.index + match[0].length
    pieces.push(rest.slice(0, end))
    rest = rest.slice(end)
  }
  return { pieces, rest }
}

/**
 * Re-chunks text deltas by word or line and paces them (see the module). Use it on any chunk stream:
 * `LanguageModel.stream(request).pipe(Smooth.text())`.
 *
 * @since 0.1.0
 * @category combinators
 */
export const text =
  (options?: Options) =>
  <E, R>(self: Stream.Stream<StreamChunk.StreamChunk, E, R>): Stream.Stream<StreamChunk.StreamChunk, E, R> => {
    const boundary = options?.chunking === "line" ? line : options?.chunking instanceof RegExp ? options.chunking : word
    const schedule = options?.schedule ?? defaultSchedule
    return Stream.unwrap(Effect.map(Schedule.driver(schedule), (driver) => {
      let held = ""
      let paced = true
      const flush = (): Array<StreamChunk.StreamChunk> => {
        if (held === "") return []
        const out = StreamChunk.textDelta(held)
        held = ""
        return [out]
      }
      const pieces = Stream.mapConcat(self, (chunk): Array<StreamChunk.StreamChunk> => {
        if (chunk.type !== "text-delta") return [...flush(), chunk]
        const { pieces: ready, rest } = cut(held + chunk.delta, boundary)
        held = rest
        return ready.map(StreamChunk.textDelta)
      })
      const rest = Stream.suspend(() => Stream.fromIterable(flush()))
      // Held text goes out at the end, and before a failure of the stream.
      const all = Stream.concat(
        Stream.catchAllCause(pieces, (cause) => Stream.concat(rest, Stream.failCause(cause))),
        rest
      )
      // Each text piece waits for the schedule's next step; once it is done, pieces go out at once.
      return Stream.mapEffect(all, (chunk) =>
        chunk.type !== "text-delta" || !paced
          ? Effect.succeed(chunk)
          : Effect.as(
            Effect.catchAll(driver.next(undefined), () =>
              Effect.sync(() => {
                paced = false
              })),
            chunk
          ))
    }))
  }
