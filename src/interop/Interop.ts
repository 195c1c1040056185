/**
 * Chunk streams for hosts that do not run Effect: a `for await` loop ({@link toAsyncIterable}) or a
 * web `ReadableStream` ({@link toReadableStream}). Give what the stream needs as a `Layer` (built for
 * each run and released when it ends) or as a `ManagedRuntime` (built once, shared by every run, and
 * disposed by you). Leaving the loop early — `break`, `return`, a thrown exception — or cancelling the
 * reader interrupts the stream, which aborts the HTTP request.
 *
 * Nothing throws: the protocol's terminal chunk still ends every run, and a layer that cannot be
 * built (a missing key, an unknown `provider:model`) arrives as one `error` chunk (`invalid_request`,
 * or the `LlmError`'s own code) instead of a rejected promise.
 *
 * @example
 * ```ts
 * import { FetchHttpClient } from "@effect/platform"
 * import { Layer } from "effect"
 * import { Interop, LanguageModel, Registry } from "effect-llm-stream"
 *
 * const Model = Layer.provide(Registry.layer("anthropic:claude-sonnet-4-5"), FetchHttpClient.layer)
 *
 * export async function answer(question: string): Promise<string> {
 *   let text = ""
 *   for await (const chunk of Interop.toAsyncIterable(LanguageModel.stream(question), Model)) {
 *     if (chunk.type === "text-delta") text += chunk.delta
 *     if (chunk.type === "error") return `failed: ${chunk.error.message}`
 *   }
 *   return text
 * }
 * ```
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Layer from "effect/Layer"
import type * as ManagedRuntime from "effect/ManagedRuntime"
import * as Runtime from "effect/Runtime"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Lite from "../internal/scope.js"
import * as Source from "../internal/source.js"
import * as LlmError from "../LlmError.js"
import * as StreamChunk from "../StreamChunk.js"

/**
 * What a stream needs, given from outside Effect: a layer (built per run) or a managed runtime
 * (shared, disposed by its owner).
 *
 * @since 0.1.0
 * @category models
 */
export type Provided<R, E = unknown> = Layer.Layer<R, E> | ManagedRuntime.ManagedRuntime<R, E>

/**
 * The error chunk for a failure to provide the stream (a layer that could not be built): the
 * `LlmError`'s own data, else `invalid_request` with the failure's message, since a layer fails on
 * configuration.
 */
const provideFailure = <E>(cause: Cause.Cause<E>): StreamChunk.StreamChunk => {
  const failure = Cause.failureOption(cause)
  if (failure._tag === "Some") {
    const e: unknown = failure.value
    if (LlmError.isLlmError(e)) return StreamChunk.error(LlmError.toInfo(e))
    const message = typeof e === "object" && e !== null && "message" in e && typeof e.message === "string"
      ? e.message
      : String(e)
    return StreamChunk.error(
      LlmError.info({ code: "invalid_request", message: `Could not start the stream: ${message}`, retryable: false })
    )
  }
  return StreamChunk.error(StreamChunk.errorFromCause(cause))
}

/** The stream with its needs met by a layer, a failure to build it as its one error chunk. */
const provideLayer = <R, E>(
  stream: Stream.Stream<StreamChunk.StreamChunk, never, R>,
  layer: Layer.Layer<R, E>
): Stream.Stream<StreamChunk.StreamChunk> =>
  Stream.catchAllCause(
    Stream.provideLayer(stream, layer),
    (cause) =>
      Cause.isInterruptedOnly(cause) ? Stream.fromEffect(Effect.interrupt) : Stream.succeed(provideFailure(cause))
  )

/**
 * A runtime's build failure as the stream's one error chunk; otherwise the stream on that runtime.
 */
const onRuntime = <R, E>(
  stream: Stream.Stream<StreamChunk.StreamChunk, never, R>,
  runtime: ManagedRuntime.ManagedRuntime<R, E>
): Stream.Stream<StreamChunk.StreamChunk> =>
  Stream.unwrap(
    Effect.map(Effect.either(runtime.runtimeEffect), (built) =>
      built._tag === "Left"
        ? Stream.succeed(provideFailure(Cause.fail(built.left)))
        : Stream.provideContext(stream, built.right.context))
  )

const isLayer = <R, E>(provided: Provided<R, E>): provided is Layer.Layer<R, E> => Layer.isLayer(provided)

/**
 * The stream with what it needs provided, ready to run anywhere: a layer is built for the run and
 * released when it ends; a failure to build it (or the runtime's layer) is the stream's one `error`
 * chunk.
 *
 * @since 0.1.0
 * @category conversions
 */
export const provide = <R, E>(
  stream: Stream.Stream<StreamChunk.StreamChunk, never, R>,
  provided: Provided<R, E>
): Stream.Stream<StreamChunk.StreamChunk> =>
  isLayer(provided) ? provideLayer(stream, provided) : onRuntime(stream, provided)

/**
 * A chunk stream as an `AsyncIterable` for `for await`. Each iteration runs the stream afresh;
 * leaving the loop early interrupts it (aborting the request).
 *
 * @since 0.1.0
 * @category conversions
 */
export const toAsyncIterable = <R, E>(
  stream: Stream.Stream<StreamChunk.StreamChunk, never, R>,
  provided: Provided<R, E>
): AsyncIterable<StreamChunk.StreamChunk> => ({
  [Symbol.asyncIterator]: () => new Iterator(Source.of(stream), provided)
})

/** What a run holds once opened: its runtime, its scope and its take. */
interface Opened<R> {
  readonly runtime: Runtime.Runtime<R>
  readonly scope: Scope.CloseableScope
  readonly take: Source.Take<StreamChunk.StreamChunk, never, R>
}

/**
 * One run of {@link toAsyncIterable}: the source is pulled a batch (a network read) at a time, each
 * take run as one fiber, and the batch's chunks are handed out without Effect — where
 * `Stream.toAsyncIterable` runs an Effect and a promise hand-over per chunk.
 */
class Iterator<R, E> implements AsyncIterator<StreamChunk.StreamChunk> {
  private opened: Opened<R> | undefined = undefined
  private batch: ReadonlyArray<StreamChunk.StreamChunk> = []
  private index = 0
  private ended = false
  /** The fiber of the open or take under way. */
  private running: Fiber.RuntimeFiber<unknown, unknown> | undefined = undefined
  /** The step that waits for it. */
  private waiting: Promise<unknown> | undefined = undefined

  constructor(
    private readonly source: Source.Source<StreamChunk.StreamChunk, never, R>,
    private readonly provided: Provided<R, E>
  ) {}

  next(): Promise<IteratorResult<StreamChunk.StreamChunk>> {
    // A `next` called while one waits for a read (without awaiting it) goes after it, in order.
    const waiting = this.waiting
    if (waiting !== undefined) return waiting.then(() => this.next(), () => this.next())
    const step = this.step()
    if (this.running !== undefined) {
      this.waiting = step
      const done = () => {
        if (this.waiting === step) this.waiting = undefined
      }
      step.then(done, done)
    }
    return step
  }

  /** The next chunk: from the batch in hand, else from the next take (opening the source first). */
  private step(): Promise<IteratorResult<StreamChunk.StreamChunk>> {
    if (this.index < this.batch.length) return Promise.resolve({ done: false, value: this.batch[this.index++]! })
    if (this.ended) return Promise.resolve({ done: true, value: undefined })
    const opened = this.opened
    if (opened === undefined) return this.open()
    return this.await(Runtime.runFork(opened.runtime)(opened.take), (batch) => {
      if (batch !== undefined) {
        this.batch = Chunk.toReadonlyArray(batch)
        this.index = 0
        return this.step()
      }
      return this.finish(Exit.void)
    })
  }

  /** Leaving the loop early: the run under way stops and the scope closes, aborting the request. */
  return(): Promise<IteratorResult<StreamChunk.StreamChunk>> {
    this.batch = []
    if (this.ended) return Promise.resolve({ done: true, value: undefined })
    const running = this.running
    this.running = undefined
    const stop = running === undefined ? Promise.resolve() : Effect.runPromise(Fiber.interrupt(running))
    return stop.then(() => this.finish(Exit.interrupt(FiberId.none)))
  }

  /** Builds what the stream needs and opens the source; a failure to build is the one error chunk. */
  private open(): Promise<IteratorResult<StreamChunk.StreamChunk>> {
    const { provided, source } = this
    const opening: Effect.Effect<Opened<R> | StreamChunk.StreamChunk> = Effect.suspend(() => {
      const scope = Lite.make()
      const built: Effect.Effect<Runtime.Runtime<R>, E> = Layer.isLayer(provided)
        ? Scope.extend(Layer.toRuntime(provided as Layer.Layer<R, E>), scope)
        : (provided as ManagedRuntime.ManagedRuntime<R, E>).runtimeEffect
      return Effect.matchCauseEffect(built, {
        onFailure: (cause) =>
          Cause.isInterruptedOnly(cause)
            ? Effect.interrupt
            : Effect.as(Scope.close(scope, Exit.void), provideFailure(cause)),
        onSuccess: (runtime) =>
          Effect.map(
            // A source that fails to open (a defect) or is interrupted opening closes its scope.
            Effect.onExit(
              Effect.provide(source(scope), runtime),
              (exit) => Exit.isFailure(exit) ? Scope.close(scope, exit) : Effect.void
            ),
            (take): Opened<R> => ({ runtime, scope, take })
          )
      })
    })
    return this.await(Effect.runFork(opening), (result) => {
      if ("take" in result) {
        this.opened = result
        return this.step()
      }
      this.ended = true
      return Promise.resolve({ done: false, value: result })
    })
  }

  /** Waits for the fiber, then continues with its value; a defect rejects, as `Stream.toAsyncIterable` does. */
  private await<A>(
    fiber: Fiber.RuntimeFiber<A, never>,
    then: (a: A) => Promise<IteratorResult<StreamChunk.StreamChunk>>
  ): Promise<IteratorResult<StreamChunk.StreamChunk>> {
    this.running = fiber
    return new Promise((resolve, reject) => {
      fiber.addObserver((exit) => {
        if (this.running === fiber) this.running = undefined
        if (Exit.isSuccess(exit)) return resolve(then(exit.value))
        const ended = this.finish(exit)
        if (Cause.isInterruptedOnly(exit.cause)) return resolve(ended)
        ended.then(() => reject(Cause.squash(exit.cause)), reject)
      })
    })
  }

  /** The run is over: its scope closes (the layer is released). */
  private finish(exit: Exit.Exit<unknown, unknown>): Promise<IteratorResult<StreamChunk.StreamChunk>> {
    this.ended = true
    const opened = this.opened
    this.opened = undefined
    if (opened === undefined) return Promise.resolve({ done: true, value: undefined })
    return Effect.runPromise(Scope.close(opened.scope, exit)).then(() => ({ done: true, value: undefined }))
  }
}

/**
 * A chunk stream as a web `ReadableStream` of chunk objects; cancelling it interrupts the stream
 * (aborting the request). To send chunks to a browser as `text/event-stream`, see `Relay`.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toReadableStream = <R, E>(
  stream: Stream.Stream<StreamChunk.StreamChunk, never, R>,
  provided: Provided<R, E>
): ReadableStream<StreamChunk.StreamChunk> => Stream.toReadableStream(provide(stream, provided))
