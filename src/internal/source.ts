/**
 * A stream in the form our own stages compose: a function that opens it in a given scope and gives
 * a `Take`, which pulls its next batch of elements (`undefined` once it ended).
 *
 * Every `Stream` stage (`unwrap`, `mapChunks`, `pipeTo`, `ensuring`, a change of context) costs a
 * few Effect steps on every batch and a few dozen per run, and `Response.collect` of any stream pays
 * the channel executor's own fixed cost. The stages `LanguageModel.make` applies to every provider's
 * stream (the transport, `ensureTerminal`, `UsageMeter.track`, `Telemetry.instrument`) compose as
 * sources instead, each returning a stream that remembers its source ({@link toStream}); the next
 * stage, `Response.collect` and `Interop.toAsyncIterable` take the source back ({@link of}) and pull
 * it directly. Any other stream becomes a source through its channel, so each stage still accepts
 * every stream.
 *
 * @since 0.1.0
 */
import * as Channel from "effect/Channel"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Stream from "effect/Stream"
import * as Lite from "./scope.js"
import * as Unwrap from "./unwrap.js"

/** Pulls the next batch: `undefined` once the stream ended. */
export type Take<A, E = never, R = never> = Effect.Effect<Chunk.Chunk<A> | undefined, E, R>

/**
 * Opens a stream in `scope` (closing the scope stops it) and gives its {@link Take}. The scope is
 * passed, not provided: providing a service costs about twenty Effect steps. It is one of ours
 * (`internal/scope.ts`), so a stage adds its cleanup without an Effect step.
 */
export type Source<A, E = never, R = never> = (scope: Lite.Lite) => Effect.Effect<Take<A, E, R>, E, R>

/**
 * Where a stream made by {@link toStream} keeps its source, and a take marked by
 * {@link markContextFree} its mark: own properties, where a `WeakMap` / `WeakSet` entry per
 * request cost several microseconds (and the garbage collector's ephemeron work) on every request.
 */
const sourceKey: unique symbol = Symbol.for("effect-llm-stream/Source")
const contextFreeKey: unique symbol = Symbol.for("effect-llm-stream/Source/contextFree")

/** A stream {@link toStream} made. */
interface WithSource {
  [sourceKey]?: Source<unknown, unknown, unknown>
}

/** A take {@link markContextFree} marked. */
interface Marked {
  [contextFreeKey]?: true
}

/**
 * The stream of a source (one channel loop), remembering the source for {@link of}. The channel is
 * built when the stream is run as a stream: a stage whose stream is only opened as a source by the
 * next one builds nothing.
 */
export const toStream = <A, E, R>(source: Source<A, E, R>): Stream.Stream<A, E, R> => {
  const stream = Stream.suspend(() => {
    const scope = Lite.make()
    return Stream.ensuringWith(
      Unwrap.unwrap(Effect.map(source(scope), (take) => Stream.fromChannel(loop(take)))),
      (exit) => scope.closeNow(exit) ?? Effect.void
    )
  })
  ;(stream as WithSource)[sourceKey] = source as Source<unknown, unknown, unknown>
  return stream
}

/** Writes each batch the take gives until it gives `undefined`. */
const loop = <A, E, R>(take: Take<A, E, R>): Channel.Channel<Chunk.Chunk<A>, unknown, E, unknown, void, unknown, R> => {
  const next: Channel.Channel<Chunk.Chunk<A>, unknown, E, unknown, void, unknown, R> = Channel.flatMap(
    Channel.fromEffect(take),
    (batch) => (batch === undefined ? Channel.void : Channel.zipRight(Channel.write(batch), next))
  )
  return next
}

/** The source of a stream: the one it was made from by {@link toStream}, else one pulling its channel. */
export const of = <A, E, R>(stream: Stream.Stream<A, E, R>): Source<A, E, R> =>
  ((stream as WithSource)[sourceKey] as Source<A, E, R> | undefined) ??
    ((scope) =>
      Effect.map(
        Channel.toPullIn(Stream.toChannel(stream), scope),
        (pull): Take<A, E, R> => Effect.map(pull, (next) => (Either.isLeft(next) ? undefined : next.right))
      ))

/**
 * Opens the source in a scope of its own, closed when `use` is done with its take, as `Effect.scoped`.
 * The scope is made outside the region that closes it (`Effect.onExit`: six Effect steps, where
 * `Effect.acquireUseRelease` took eight): an interruption between the two leaves an empty scope,
 * with nothing to close.
 */
export const use = <A, E, R, B, E2, R2>(
  source: Source<A, E, R>,
  f: (take: Take<A, E, R>) => Effect.Effect<B, E2, R2>
): Effect.Effect<B, E | E2, R | R2> =>
  Effect.suspend(() => {
    const scope = Lite.make()
    return Effect.onExit(Effect.flatMap(source(scope), f), (exit) => scope.closeNow(exit) ?? Effect.void)
  })

/**
 * Marks a take that uses nothing from the fiber's context, so a stage that changes the context for
 * what its source does (`Telemetry.instrument` providing its span) may skip that change (about
 * twenty Effect steps) around each take.
 */
export const markContextFree = <T extends Take<unknown, unknown, unknown>>(take: T): T => {
  ;(take as Marked)[contextFreeKey] = true
  return take
}

/** Whether the take was marked by {@link markContextFree}. */
export const isContextFree = (take: Take<unknown, unknown, unknown>): boolean =>
  (take as Marked)[contextFreeKey] === true

/** `take`, a stage's take over `from`, marked context-free when `from` is (and the stage's own work is). */
export const derive = <T extends Take<unknown, unknown, unknown>>(from: Take<unknown, unknown, unknown>, take: T): T =>
  isContextFree(from) ? markContextFree(take) : take

/** A stream whose source is made when it is opened, as `Stream.suspend`. */
export const suspend = <A, E, R>(f: () => Stream.Stream<A, E, R>): Stream.Stream<A, E, R> =>
  toStream((scope) => Effect.suspend(() => of(f())(scope)))

/** A take giving `first` (when it has elements), then what `rest` gives (nothing when undefined). */
export const prepend = <A, E, R>(first: Chunk.Chunk<A>, rest: Take<A, E, R> | undefined): Take<A, E, R> => {
  let held: Chunk.Chunk<A> | undefined = Chunk.isEmpty(first) ? undefined : first
  const take: Take<A, E, R> = Effect.suspend(() => {
    if (held !== undefined) {
      const out = held
      held = undefined
      return Effect.succeed(out)
    }
    return rest ?? Effect.succeed(undefined)
  })
  return rest === undefined ? markContextFree(take) : derive(rest, take)
}
