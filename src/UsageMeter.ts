/**
 * Usage and cache counters across responses, held in a `SubscriptionRef` so a UI can watch them.
 *
 * Each response adds its *final* usage once, at its terminal chunk (or, stopped early, the usage it
 * saw), under the `provider:model` its service was built with. Providers use the meter when it is in
 * the context and work the same without it.
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import { LanguageModel, UsageMeter } from "effect-llm-stream"
 *
 * const program = Effect.gen(function*() {
 *   yield* LanguageModel.chat("Hello")
 *   const totals = yield* UsageMeter.snapshot
 *   return totals.inputTokens + totals.outputTokens
 * })
 * // Provide UsageMeter.layer next to the model layer: Layer.mergeAll(model, UsageMeter.layer)
 * const withMeter = (model: Layer.Layer<LanguageModel.LanguageModel>) => program.pipe(Effect.provide(Layer.mergeAll(model, UsageMeter.layer)))
 * ```
 *
 * @since 0.1.0
 */
import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import * as Lite from "./internal/scope.js"
import * as Source from "./internal/source.js"
import * as Pricing from "./Pricing.js"
import * as StreamChunk from "./StreamChunk.js"
import * as Usage from "./Usage.js"

/**
 * Counters for one scope (all responses, or one `provider:model`).
 *
 * @since 0.1.0
 * @category models
 */
export interface Counters {
  readonly requests: number
  readonly errors: number
  readonly inputTokens: number
  readonly outputTokens: number
  readonly cacheReadTokens: number
  readonly cacheWriteTokens: number
  readonly reasoningTokens: number
  /**
   * US dollars of the responses the price table in use (`Pricing`) could price, present once one
   * could. Responses of a model the table does not know add nothing (never a guessed cost): compare
   * `byModel` entries with and without a `cost` to see which models are not priced.
   */
  readonly cost?: number
}

/**
 * All counters: the totals plus the same per `provider:model`, keyed by the model each service was
 * built with (the requested one), not the model name a response reports.
 *
 * @since 0.1.0
 * @category models
 */
export interface Totals extends Counters {
  readonly byModel: Readonly<Record<string, Counters>>
}

/**
 * Counters at zero.
 *
 * @since 0.1.0
 * @category constants
 */
export const zeroCounters: Counters = {
  requests: 0,
  errors: 0,
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0
}

/**
 * Totals at zero.
 *
 * @since 0.1.0
 * @category constants
 */
export const emptyTotals: Totals = { ...zeroCounters, byModel: {} }

/**
 * The meter service: a `SubscriptionRef` of {@link Totals}.
 *
 * @since 0.1.0
 * @category tags
 */
export class UsageMeter extends Context.Tag("effect-llm-stream/UsageMeter")<
  UsageMeter,
  { readonly totals: SubscriptionRef.SubscriptionRef<Totals> }
>() {}

/**
 * Builds a fresh meter (no shared state: each call makes its own ref).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<UsageMeter["Type"]> = Effect.map(
  SubscriptionRef.make(emptyTotals),
  (totals) => ({ totals })
)

/**
 * A layer providing a fresh meter.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<UsageMeter> = Layer.effect(UsageMeter, make)

/**
 * The current totals.
 *
 * @since 0.1.0
 * @category accessors
 */
export const snapshot: Effect.Effect<Totals, never, UsageMeter> = Effect.flatMap(
  UsageMeter,
  (m) => SubscriptionRef.get(m.totals)
)

/**
 * The totals now and after every update.
 *
 * @since 0.1.0
 * @category accessors
 */
export const changes: Stream.Stream<Totals, never, UsageMeter> = Stream.unwrap(
  Effect.map(UsageMeter, (m) => m.totals.changes)
)

/**
 * Sets every counter back to zero.
 *
 * @since 0.1.0
 * @category accessors
 */
export const reset: Effect.Effect<void, never, UsageMeter> = Effect.flatMap(
  UsageMeter,
  (m) => SubscriptionRef.set(m.totals, emptyTotals)
)

// Every addition saturates and skips what is not a count: a hostile usage (hand-built, or from a
// provider with `1e308` in it) can never turn a long-lived total into Infinity or NaN.
const addCounters = (
  c: Counters,
  usage: Usage.Usage | undefined,
  failed: boolean,
  dollars: number | undefined
): Counters => {
  const out: { -readonly [K in keyof Counters]: Counters[K] } = {
    requests: Usage.addCounts(c.requests, 1),
    errors: Usage.addCounts(c.errors, failed ? 1 : 0),
    inputTokens: Usage.addCounts(c.inputTokens, usage?.inputTokens ?? 0),
    outputTokens: Usage.addCounts(c.outputTokens, usage?.outputTokens ?? 0),
    cacheReadTokens: Usage.addCounts(c.cacheReadTokens, usage?.cacheReadTokens ?? 0),
    cacheWriteTokens: Usage.addCounts(c.cacheWriteTokens, usage?.cacheWriteTokens ?? 0),
    reasoningTokens: Usage.addCounts(c.reasoningTokens, usage?.reasoningTokens ?? 0)
  }
  const priced = dollars !== undefined && Number.isFinite(dollars) && dollars >= 0 ? dollars : undefined
  if (c.cost !== undefined || priced !== undefined) out.cost = Pricing.round((c.cost ?? 0) + (priced ?? 0))
  return out
}

/**
 * Adds one finished response to totals (pure). Token counts that are not safe non-negative
 * integers add nothing, and every counter saturates at `Number.MAX_SAFE_INTEGER`. With the model's
 * `price`, the response's cost (`Pricing.cost`) is added to `cost`.
 *
 * @since 0.1.0
 * @category utils
 */
export const add = (
  totals: Totals,
  key: string,
  usage: Usage.Usage | undefined,
  failed: boolean,
  price?: Pricing.Price | undefined
): Totals => {
  const dollars = usage === undefined || price === undefined ? undefined : Pricing.cost(usage, price)
  const previous = Object.hasOwn(totals.byModel, key) ? totals.byModel[key] : undefined
  return {
    ...addCounters(totals, usage, failed, dollars),
    byModel: { ...totals.byModel, [key]: addCounters(previous ?? zeroCounters, usage, failed, dollars) }
  }
}

/**
 * Records one finished response in the meter.
 *
 * @since 0.1.0
 * @category utils
 */
export const record = (
  key: string,
  usage: Usage.Usage | undefined,
  failed: boolean,
  price?: Pricing.Price | undefined
): Effect.Effect<void, never, UsageMeter> =>
  Effect.flatMap(UsageMeter, (m) => SubscriptionRef.update(m.totals, (t) => add(t, key, usage, failed, price)))

const needsMeter = (c: StreamChunk.StreamChunk): boolean =>
  c.type === "usage" || c.type === "cache-read" || c.type === "cache-write" || StreamChunk.isTerminal(c)

/**
 * Meters a response stream when a {@link UsageMeter} is in the context; without one the stream
 * passes through untouched.
 *
 * - Every run of the stream is one request, filed under the key `provider:model` built from the
 *   arguments: the model the service was built with (the one requested), known before any chunk,
 *   never the model name a response reports in its `metadata` chunk. So one configured model has one
 *   key, whether its responses succeed or fail. Behind `LanguageModel.fallback` each model meters its
 *   own attempts, so an answer's tokens are filed under the model that gave it.
 * - A response is recorded once: at its terminal chunk with its final usage (an `error` chunk also
 *   counts an error), or, when the consumer stops early (`Stream.take`, interruption), when the
 *   stream closes, with the usage it saw so far and no error.
 * - `cache-read` / `cache-write` chunks get the meter's running total in `accumulated`.
 * - The response's cost is added at the price the price table in use (`Pricing.Prices`) gives the
 *   requested `provider:model` (see `Pricing.lookup`); a model it does not know adds no cost.
 *
 * Only chunk batches holding usage, cache or terminal chunks cost an Effect.
 *
 * @since 0.1.0
 * @category combinators
 */
export const track =
  (provider: string, model: string) =>
  <E, R>(self: Stream.Stream<StreamChunk.StreamChunk, E, R>): Stream.Stream<StreamChunk.StreamChunk, E, R> =>
    Source.toStream(
      (scope) =>
        // The context read in one Effect step (`Effect.contextWithEffect` took three).
        Effect.withFiberRuntime((fiber) => {
          const context = fiber.currentContext
          const source = Source.of(self)
          const maybe = Context.getOption(context, UsageMeter)
          if (Option.isNone(maybe)) return source(scope)
          const meter = maybe.value
          const prices = Context.get(context, Pricing.Prices)
          const key = `${provider}:${model}`
          const price = Pricing.lookup(prices, provider, model)
          let usage: Usage.Usage | undefined = undefined
          let cacheRead: number | undefined = undefined
          let cacheWrite: number | undefined = undefined
          let recorded = false
          // A provider may report cache use only in cache chunks: the meter must count what they said.
          const final = (): Usage.Usage | undefined => {
            if (usage === undefined) {
              return cacheRead === undefined && cacheWrite === undefined
                ? undefined
                : {
                  ...Usage.empty,
                  ...(cacheRead !== undefined ? { cacheReadTokens: cacheRead } : {}),
                  ...(cacheWrite !== undefined ? { cacheWriteTokens: cacheWrite } : {})
                }
            }
            return {
              ...usage,
              ...(usage.cacheReadTokens === undefined && cacheRead !== undefined ? { cacheReadTokens: cacheRead } : {}),
              ...(usage.cacheWriteTokens === undefined && cacheWrite !== undefined
                ? { cacheWriteTokens: cacheWrite }
                : {})
            }
          }
          const recordOnce = (failed: boolean): Effect.Effect<void> =>
            Effect.suspend(() => {
              if (recorded) return Effect.void
              recorded = true
              return SubscriptionRef.update(meter.totals, (t) => add(t, key, final(), failed, price))
            })
          const step = (
            totals: Totals | undefined,
            c: StreamChunk.StreamChunk
          ): Effect.Effect<StreamChunk.StreamChunk> => {
            switch (c.type) {
              case "usage":
                usage = Usage.merge(usage, c.usage)
                return Effect.succeed(c)
              case "cache-read": {
                const n = Usage.count(c.cacheReadTokens) ?? 0
                cacheRead = n
                return Effect.succeed(StreamChunk.cacheRead(n, Usage.addCounts(totals?.cacheReadTokens ?? 0, n)))
              }
              case "cache-write": {
                const n = Usage.count(c.cacheWriteTokens) ?? 0
                cacheWrite = n
                return Effect.succeed(StreamChunk.cacheWrite(n, Usage.addCounts(totals?.cacheWriteTokens ?? 0, n)))
              }
              case "finish":
              case "error":
                return Effect.as(recordOnce(c.type === "error"), c)
              default:
                return Effect.succeed(c)
            }
          }
          const meterBatch = (chunk: Chunk.Chunk<StreamChunk.StreamChunk> | undefined) => {
            if (chunk === undefined || !Chunk.some(chunk, needsMeter)) return Effect.succeed(chunk)
            return Effect.flatMap(
              SubscriptionRef.get(meter.totals),
              (totals) => Effect.map(Effect.forEach(chunk, (c) => step(totals, c)), Chunk.unsafeFromArray)
            )
          }
          // Stopped before its terminal chunk: the request was sent all the same.
          return Lite.addThen(
            scope,
            () => (recorded ? undefined : recordOnce(false)),
            Effect.map(source(scope), (take) => Source.derive(take, Effect.flatMap(take, meterBatch)))
          )
        })
    )
