/**
 * Observability: one span per request with the OpenTelemetry GenAI attribute names, Effect
 * `Metric`s (tokens by kind, time to first chunk, stream duration, errors by code), and the raw wire
 * events of a provider built with `debug: true`, beside its chunks.
 *
 * Every `LanguageModel` service (every provider layer, `TestModel`) is instrumented by
 * `LanguageModel.make`: nothing to turn on. Spans go to the tracer in the context (Effect's own,
 * which records nothing, unless a layer such as `@effect/opentelemetry`'s `NodeSdk.layer` installs
 * one); metrics go to Effect's metric registry, which the same layer exports.
 *
 * @example
 * ```ts
 * import { Effect, Metric, Redacted, Stream } from "effect"
 * import { Anthropic, LanguageModel, Telemetry } from "effect-llm-stream"
 *
 * // Totals of this process's metrics, e.g. for a status page:
 * const outputTokens = Metric.value(Telemetry.tokens.pipe(Metric.tagged("kind", "output")))
 *
 * // The wire events beside the chunks, in order: the layer must be built with `debug: true`.
 * const Debugging = Anthropic.layer({ model: "claude-sonnet-4-5", apiKey: Redacted.make("sk-ant-…"), debug: true })
 * const program = Telemetry.debug(LanguageModel.stream("Hello")).pipe(
 *   Stream.runForEach((item) =>
 *     Effect.log(item.type === "raw" ? `wire  ${item.name ?? ""} ${item.data}` : `chunk ${item.type}`)
 *   )
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as Arr from "effect/Array"
import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import * as Metric from "effect/Metric"
import * as MetricBoundaries from "effect/MetricBoundaries"
import * as MetricLabel from "effect/MetricLabel"
import * as Stream from "effect/Stream"
import * as Tracer from "effect/Tracer"
import type * as ChatRequest from "./ChatRequest.js"
import * as QuickError from "./internal/llmError.js"
import * as Lite from "./internal/scope.js"
import * as Source from "./internal/source.js"
import * as Raw from "./internal/telemetry/raw.js"
import * as Tracing from "./internal/telemetry/tracing.js"
import * as Unwrap from "./internal/unwrap.js"
import type * as LlmError from "./LlmError.js"
import * as Pricing from "./Pricing.js"
import * as StreamChunk from "./StreamChunk.js"
import * as Usage from "./Usage.js"

// ---------------------------------------------------------------------------------------------
// Metrics
// ---------------------------------------------------------------------------------------------

/**
 * Tokens used, tagged `kind` (`input`, `output`, `cache_read`, `cache_write`, `reasoning`),
 * `provider` and `model` (the requested model). Input includes cache reads and writes, output
 * includes reasoning (see `Usage`). Counted once per request, at its end.
 *
 * @since 0.1.0
 * @category metrics
 */
export const tokens: Metric.Metric.Counter<number> = Metric.counter("effect_llm_stream.tokens", {
  description: "Tokens used, by kind (input, output, cache_read, cache_write, reasoning), provider and model",
  incremental: true
})

/**
 * Milliseconds from the start of a request to its first content chunk (text, reasoning, tool call,
 * content part), retries included; tagged `provider` and `model`. Not recorded for a request that
 * produced no content.
 *
 * @since 0.1.0
 * @category metrics
 */
export const timeToFirstChunk: Metric.Metric.Histogram<number> = Metric.histogram(
  "effect_llm_stream.time_to_first_chunk_ms",
  MetricBoundaries.fromIterable([10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000]),
  "Milliseconds from the request to its first content chunk"
)

/**
 * Milliseconds from the start of a request to its end (terminal chunk, or the consumer stopping);
 * tagged `provider` and `model`.
 *
 * @since 0.1.0
 * @category metrics
 */
export const streamDuration: Metric.Metric.Histogram<number> = Metric.histogram(
  "effect_llm_stream.duration_ms",
  MetricBoundaries.fromIterable([50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000, 120000, 300000]),
  "Milliseconds from the request to the end of its stream"
)

/**
 * Requests that ended in an `error` chunk, tagged `code` (the `LlmError` code), `provider` and `model`.
 *
 * @since 0.1.0
 * @category metrics
 */
export const errors: Metric.Metric.Counter<number> = Metric.counter("effect_llm_stream.errors", {
  description: "Requests that ended in an error, by LlmError code, provider and model",
  incremental: true
})

// ---------------------------------------------------------------------------------------------
// Spans
// ---------------------------------------------------------------------------------------------

/**
 * The span attribute holding a response's cost in US dollars, when the price table in use
 * (`Pricing`) knows the model. The GenAI conventions name no cost attribute, hence our own name.
 *
 * @since 0.1.0
 * @category constants
 */
export const costAttribute = "effect_llm_stream.cost_usd"

/** What one request saw, gathered a chunk batch at a time. */
interface Seen {
  usage: Usage.Usage | undefined
  cacheRead: number | undefined
  cacheWrite: number | undefined
  responseId: string | undefined
  responseModel: string | undefined
  finish: string | undefined
  error: LlmError.ErrorInfo | undefined
  firstChunkNanos: bigint | undefined
}

const kinds = [
  ["input", "inputTokens"],
  ["output", "outputTokens"],
  ["cache_read", "cacheReadTokens"],
  ["cache_write", "cacheWriteTokens"],
  ["reasoning", "reasoningTokens"]
] as const

/** The usage a request ends with: its last snapshot, with cache counts only cache chunks reported. */
const finalUsage = (seen: Seen): Usage.Usage | undefined => {
  const { cacheRead, cacheWrite, usage } = seen
  if (usage === undefined && cacheRead === undefined && cacheWrite === undefined) return undefined
  const base = usage ?? Usage.empty
  return {
    ...base,
    ...(base.cacheReadTokens === undefined && cacheRead !== undefined ? { cacheReadTokens: cacheRead } : {}),
    ...(base.cacheWriteTokens === undefined && cacheWrite !== undefined ? { cacheWriteTokens: cacheWrite } : {})
  }
}

/** Reads one batch into `seen`: a plain loop, no Effect. */
const observe = (seen: Seen, chunk: Chunk.Chunk<StreamChunk.StreamChunk>, clock: Clock.Clock): void => {
  for (const c of chunk) {
    switch (c.type) {
      case "metadata":
        if (c.responseId !== undefined) seen.responseId = c.responseId
        if (c.model !== undefined) seen.responseModel = c.model
        break
      case "usage":
        seen.usage = Usage.merge(seen.usage, c.usage)
        break
      case "cache-read":
        seen.cacheRead = Usage.count(c.cacheReadTokens)
        break
      case "cache-write":
        seen.cacheWrite = Usage.count(c.cacheWriteTokens)
        break
      case "finish":
        seen.finish = c.reason
        break
      case "error":
        seen.error = c.error
        break
      default:
        if (seen.firstChunkNanos === undefined && StreamChunk.isContent(c)) {
          seen.firstChunkNanos = clock.unsafeCurrentTimeNanos()
        }
    }
  }
}

/**
 * Instruments a response stream: one span `chat <model>` per run (kind `client`, the parent of the
 * transport's `http.client POST` spans) with the OpenTelemetry GenAI attributes, and the
 * {@link tokens}, {@link timeToFirstChunk}, {@link streamDuration} and {@link errors} metrics
 * recorded once, when the run ends.
 *
 * Span attributes, and nothing else (never a request body, header or key):
 * `gen_ai.operation.name` (`chat`), `gen_ai.system` and `gen_ai.provider.name` (the provider),
 * `gen_ai.request.model`, `gen_ai.request.max_tokens` / `temperature` / `top_p` when set;
 * from the response `gen_ai.response.id`, `gen_ai.response.model`, `gen_ai.response.finish_reasons`
 * (an array of one), `gen_ai.response.time_to_first_chunk` (seconds), `gen_ai.usage.input_tokens`,
 * `gen_ai.usage.output_tokens`, `gen_ai.usage.cache_read.input_tokens`,
 * `gen_ai.usage.cache_creation.input_tokens`, `gen_ai.usage.reasoning.output_tokens`, and
 * {@link costAttribute} when the price table knows the model. An event `gen_ai.first_chunk` marks
 * the first content chunk. A run ending in an `error` chunk sets `error.type` to its code and ends
 * the span as failed, with the error. `LanguageModel.make` applies this to every service.
 *
 * The span is made only where it can be seen: with a tracer other than Effect's built-in one (which
 * records and exports nothing) installed, or inside a span of the caller's own, and not under
 * `Effect.withTracerEnabled(false)`. The metrics are recorded either way.
 *
 * The work per chunk batch is one plain loop over its chunks; the span and the metrics cost a few
 * Effects per request.
 *
 * @since 0.1.0
 * @category combinators
 */
export const instrument =
  (provider: string, model: string, request?: ChatRequest.ChatRequest | undefined) =>
  <E, R>(self: Stream.Stream<StreamChunk.StreamChunk, E, R>): Stream.Stream<StreamChunk.StreamChunk, E, R> =>
    Source.toStream((scope) =>
      // The clock, the price table and whether a span could be seen are read in one Effect step.
      Effect.withFiberRuntime((fiber) => {
        const run = (span: Tracer.Span | undefined): Run => ({
          provider,
          model,
          clock: Context.get(fiber.currentDefaultServices, Clock.Clock),
          prices: Context.get(fiber.currentContext, Pricing.Prices),
          span
        })
        // No span where none could be seen (Effect's built-in tracer, no span around the request).
        if (!Tracing.spansSeen(fiber)) return opened(scope, self, run(undefined))
        return Effect.flatMap(
          Effect.makeSpan(`chat ${model}`, { kind: "client", captureStackTrace: false }),
          (span) => {
            startSpan(span, provider, model, request)
            return opened(scope, self, run(span))
          }
        )
      })
    )

/** What one run of {@link instrument} records against: its model, clock, price table and span (if any). */
interface Run {
  readonly provider: string
  readonly model: string
  readonly clock: Clock.Clock
  readonly prices: Context.Tag.Service<Pricing.Prices>
  readonly span: Tracer.Span | undefined
}

/** The request's attributes on a stream's span (see {@link instrument}). */
const startSpan = (
  span: Tracer.Span,
  provider: string,
  model: string,
  request: ChatRequest.ChatRequest | undefined
): void => {
  span.attribute("gen_ai.operation.name", "chat")
  span.attribute("gen_ai.system", provider)
  span.attribute("gen_ai.provider.name", provider)
  span.attribute("gen_ai.request.model", model)
  if (typeof request?.maxTokens === "number") span.attribute("gen_ai.request.max_tokens", request.maxTokens)
  if (typeof request?.temperature === "number") span.attribute("gen_ai.request.temperature", request.temperature)
  if (typeof request?.topP === "number") span.attribute("gen_ai.request.top_p", request.topP)
}

/** {@link instrument}'s stream opened: its source opened in `scope`, its end recorded when `scope` closes. */
const opened = <E, R>(
  scope: Lite.Lite,
  self: Stream.Stream<StreamChunk.StreamChunk, E, R>,
  run: Run
): Effect.Effect<Source.Take<StreamChunk.StreamChunk, E, R>, E, R> => {
  const { clock, span } = run
  const started = clock.unsafeCurrentTimeNanos()
  const seen: Seen = {
    usage: undefined,
    cacheRead: undefined,
    cacheWrite: undefined,
    responseId: undefined,
    responseModel: undefined,
    finish: undefined,
    error: undefined,
    firstChunkNanos: undefined
  }
  // Run when the stream ends, however it ends: one Effect step (the fiber's metric labels).
  const finish = Effect.withFiberRuntime((fiber) => {
    const ended = clock.unsafeCurrentTimeNanos()
    const usage = finalUsage(seen)
    const ttfcMs = seen.firstChunkNanos === undefined ? undefined : Number(seen.firstChunkNanos - started) / 1e6
    if (span !== undefined) endSpan(span, seen, usage, ttfcMs, ended, run)
    record(run, usage, seen.error, ttfcMs, Number(ended - started) / 1e6, fiber)
    return Effect.void
  })
  // The span is the parent of what the stream does: opening it (the HTTP request) and each
  // take, unless the take uses nothing from the context (our transport's).
  const withSpan = <A, E2, R2>(effect: Effect.Effect<A, E2, R2>) =>
    span === undefined ? effect : Effect.provideService(effect, Tracer.ParentSpan, span)
  return Lite.addThen(
    scope,
    () => finish,
    Effect.map(
      withSpan(Source.of(self)(scope)),
      (take) =>
        Effect.map(Source.isContextFree(take) ? take : withSpan(take), (chunk) => {
          if (chunk !== undefined) observe(seen, chunk, clock)
          return chunk
        })
    )
  )
}

/** Ends a stream's span with what the stream showed (see {@link instrument}). */
const endSpan = (
  span: Tracer.Span,
  seen: Seen,
  usage: Usage.Usage | undefined,
  ttfcMs: number | undefined,
  ended: bigint,
  run: Run
): void => {
  if (seen.responseId !== undefined) span.attribute("gen_ai.response.id", seen.responseId)
  if (seen.responseModel !== undefined) span.attribute("gen_ai.response.model", seen.responseModel)
  const reason = seen.error !== undefined ? "error" : seen.finish
  if (reason !== undefined) span.attribute("gen_ai.response.finish_reasons", [reason])
  if (seen.firstChunkNanos !== undefined && ttfcMs !== undefined) {
    span.event("gen_ai.first_chunk", seen.firstChunkNanos, {
      "gen_ai.response.time_to_first_chunk": ttfcMs / 1e3
    })
    span.attribute("gen_ai.response.time_to_first_chunk", ttfcMs / 1e3)
  }
  if (usage !== undefined) {
    span.attribute("gen_ai.usage.input_tokens", usage.inputTokens)
    span.attribute("gen_ai.usage.output_tokens", usage.outputTokens)
    if (usage.cacheReadTokens !== undefined) {
      span.attribute("gen_ai.usage.cache_read.input_tokens", usage.cacheReadTokens)
    }
    if (usage.cacheWriteTokens !== undefined) {
      span.attribute("gen_ai.usage.cache_creation.input_tokens", usage.cacheWriteTokens)
    }
    if (usage.reasoningTokens !== undefined) {
      span.attribute("gen_ai.usage.reasoning.output_tokens", usage.reasoningTokens)
    }
    const price = Pricing.lookup(run.prices, run.provider, run.model)
    const dollars = price === undefined ? undefined : Pricing.cost(usage, price)
    if (dollars !== undefined) span.attribute(costAttribute, dollars)
  }
  if (seen.error !== undefined) span.attribute("error.type", seen.error.code)
  span.end(ended, seen.error === undefined ? Exit.void : Exit.fail(QuickError.fromInfo(seen.error)))
}

/**
 * The metric labels of one provider and model, each set built once. A metric updated with the same
 * label array finds its registry entry in Effect's per-array cache; `Metric.taggedWithLabels` joins
 * its labels into a new array on every update, which hashes the whole metric key (a histogram's
 * boundaries included) again each time: more than recording the values cost.
 */
interface Labels {
  readonly model: ReadonlyArray<MetricLabel.MetricLabel>
  /** With `kind` (token kind) or `code` (error code) added, built when first used. */
  readonly by: Map<string, ReadonlyArray<MetricLabel.MetricLabel>>
}

/** The labels of the models in use, kept while there are at most {@link maxModels} of them. */
const labelsByModel = new Map<string, Labels>()

/** How many models' labels are kept (a process naming more models starts the cache over). */
const maxModels = 256

const labelsFor = (provider: string, model: string): Labels => {
  const key = `${provider}\u0000${model}`
  const known = labelsByModel.get(key)
  if (known !== undefined) return known
  if (labelsByModel.size >= maxModels) labelsByModel.clear()
  const labels: Labels = {
    model: [MetricLabel.make("provider", provider), MetricLabel.make("model", model)],
    by: new Map()
  }
  labelsByModel.set(key, labels)
  return labels
}

/** The model's labels with `name: value` added, built once per value. */
const labelsBy = (labels: Labels, name: string, value: string): ReadonlyArray<MetricLabel.MetricLabel> => {
  const key = `${name}\u0000${value}`
  const known = labels.by.get(key)
  if (known !== undefined) return known
  const made = [...labels.model, MetricLabel.make(name, value)]
  labels.by.set(key, made)
  return made
}

/** Our labels joined with the fiber's own (`Effect.tagMetrics`), once per pair of label arrays. */
const joined = new WeakMap<
  ReadonlyArray<MetricLabel.MetricLabel>,
  WeakMap<ReadonlyArray<MetricLabel.MetricLabel>, ReadonlyArray<MetricLabel.MetricLabel>>
>()

const withFiberLabels = (
  ours: ReadonlyArray<MetricLabel.MetricLabel>,
  fiber: ReadonlyArray<MetricLabel.MetricLabel>
): ReadonlyArray<MetricLabel.MetricLabel> => {
  if (fiber.length === 0) return ours
  let byFiber = joined.get(ours)
  if (byFiber === undefined) joined.set(ours, byFiber = new WeakMap())
  let labels = byFiber.get(fiber)
  if (labels === undefined) byFiber.set(fiber, labels = Arr.union(ours, fiber))
  return labels
}

/** Records a finished request's metrics, with the fiber's metric labels as `Metric.update` would. */
const record = (
  { model, provider }: Run,
  usage: Usage.Usage | undefined,
  error: LlmError.ErrorInfo | undefined,
  ttfcMs: number | undefined,
  durationMs: number,
  running: Fiber.RuntimeFiber<unknown, unknown>
): void => {
  const fiberLabels = running.getFiberRef(FiberRef.currentMetricLabels)
  const labels = labelsFor(provider, model)
  if (usage !== undefined) {
    for (const [kind, field] of kinds) {
      const n = Usage.count(usage[field])
      if (n !== undefined && n > 0) {
        tokens.unsafeUpdate(n, withFiberLabels(labelsBy(labels, "kind", kind), fiberLabels))
      }
    }
  }
  if (error !== undefined) errors.unsafeUpdate(1, withFiberLabels(labelsBy(labels, "code", error.code), fiberLabels))
  const forModel = withFiberLabels(labels.model, fiberLabels)
  if (ttfcMs !== undefined) timeToFirstChunk.unsafeUpdate(ttfcMs, forModel)
  streamDuration.unsafeUpdate(durationMs, forModel)
}

// ---------------------------------------------------------------------------------------------
// Raw events (the debug option)
// ---------------------------------------------------------------------------------------------

/**
 * One framed wire event of a provider built with `debug: true`: an SSE event, an NDJSON line or an
 * AWS event-stream frame, with the configured credentials masked, and the chunks the provider's
 * decoder made of it (before the stream's guarantees, metering and retries apply, so a retried
 * attempt's events show too, with its `attempt` number).
 *
 * @since 0.1.0
 * @category models
 */
export interface RawEvent {
  readonly type: "raw"
  /** The provider's name, as in chunks. */
  readonly provider: string
  /** The attempt it belongs to: 1, then 2 … for retries. */
  readonly attempt: number
  /** The SSE `event:` name (`"message"` when none), the event-stream `:event-type` (or exception type); undefined for NDJSON. */
  readonly name: string | undefined
  /** The event's text: SSE data, the NDJSON line, the frame's payload. */
  readonly data: string
  /** The chunks the decoder produced from this event, in order. */
  readonly chunks: ReadonlyArray<StreamChunk.StreamChunk>
}

/**
 * A response stream with the provider's raw wire events passed through beside its chunks: each
 * network read's events (as {@link RawEvent}s, `type: "raw"`) come just before the chunks decoded
 * from it, so `switch (item.type)` sees the wire and the chunks in order. The chunk stream itself is
 * unchanged (take the items that are not `"raw"` and you have it).
 *
 * Only providers built with `debug: true` emit raw events; any other stream passes through as it
 * is. A `debug: true` provider whose stream is not wrapped here logs each raw event with
 * `Effect.logDebug` instead (shown once the minimum log level is `Debug`).
 *
 * @since 0.1.0
 * @category debugging
 */
export const debug = <E, R>(
  self: Stream.Stream<StreamChunk.StreamChunk, E, R>
): Stream.Stream<StreamChunk.StreamChunk | RawEvent, E, R> =>
  Stream.suspend(() => {
    let pending: Array<StreamChunk.StreamChunk | RawEvent> = []
    const observer: Raw.Observer = (events) => {
      for (const e of events) pending.push(e)
    }
    const take = (): Chunk.Chunk<StreamChunk.StreamChunk | RawEvent> => {
      const out = pending
      pending = []
      return Chunk.unsafeFromArray(out)
    }
    const items: Stream.Stream<StreamChunk.StreamChunk | RawEvent, E, R> = Stream.mapChunks(
      self,
      (chunk): Chunk.Chunk<StreamChunk.StreamChunk | RawEvent> => {
        if (pending.length === 0) return chunk
        const out = take()
        return Chunk.appendAll(out, chunk)
      }
    )
    return Unwrap.provideService(
      Stream.concat(items, Stream.suspend(() => Stream.fromChunk(take()))),
      Raw.RawObserver,
      observer
    )
  })
