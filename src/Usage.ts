/**
 * Token usage of one response, normalized across providers.
 *
 * Normalization: `inputTokens` includes cache reads and writes, `outputTokens` includes reasoning,
 * and `totalTokens` is their sum unless the provider reported a larger total of its own. `raw` keeps
 * the provider's object so nothing is lost.
 *
 * Hostile numbers: a token count is a safe non-negative integer ({@link count}); anything else a
 * provider sends (a string, a negative, a fraction, `1e308`, `1e999`) counts as absent. Sums
 * saturate at `Number.MAX_SAFE_INTEGER` ({@link addCounts}), so no total is ever `Infinity`, `NaN`,
 * negative or fractional, and every snapshot round-trips through `JSON.stringify` exactly.
 *
 * @example
 * ```ts
 * import { Usage } from "effect-llm-stream"
 *
 * // Anthropic's convention (cache outside input) normalized: input includes the cache.
 * const usage = Usage.normalize({ input: 10, output: 5, cacheRead: 90, inputExcludesCache: true })
 * // usage.inputTokens === 100, usage.cacheReadTokens === 90
 * ```
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as Json from "./internal/json.js"

/**
 * Schema of one token count: a safe non-negative integer.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Count = Schema.NonNegativeInt.annotations({ identifier: "TokenCount" })

/**
 * Schema of a normalized usage snapshot.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Usage = Schema.Struct({
  inputTokens: Count,
  outputTokens: Count,
  totalTokens: Count,
  cacheReadTokens: Schema.optional(Count),
  cacheWriteTokens: Schema.optional(Count),
  reasoningTokens: Schema.optional(Count),
  raw: Schema.optional(Schema.Unknown)
})

/**
 * A normalized usage snapshot (this response's running totals).
 *
 * @since 0.1.0
 * @category models
 */
export type Usage = typeof Usage.Type

/** A usage under construction (the same fields, writable). */
type Draft = { -readonly [K in keyof Usage]: Usage[K] }

/**
 * An all-zero usage.
 *
 * @since 0.1.0
 * @category constructors
 */
export const empty: Usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 }

/**
 * A token count read from anywhere: the value when it is a safe non-negative integer, else
 * `undefined` (strings, negatives, fractions, `NaN`, anything past 2^53 − 1). The one rule every
 * provider's decoder, {@link normalize}, {@link merge} and the `UsageMeter` apply.
 *
 * @since 0.1.0
 * @category utils
 */
export const count = (u: unknown): number | undefined =>
  // `-0` (JSON.parse reads "-0" so) becomes 0: JSON writes it as 0, so it would not round-trip.
  typeof u === "number" && Number.isSafeInteger(u) && u >= 0 ? (u === 0 ? 0 : u) : undefined

/**
 * Adds two token counts, saturating at `Number.MAX_SAFE_INTEGER` (a sum of huge counts stays an
 * exact, finite integer); an argument that is not a {@link count} adds nothing.
 *
 * @since 0.1.0
 * @category utils
 */
export const addCounts = (a: number, b: number): number => {
  const sum = (count(a) ?? 0) + (count(b) ?? 0)
  return sum > Number.MAX_SAFE_INTEGER ? Number.MAX_SAFE_INTEGER : sum
}

/**
 * Whether a provider left reasoning out of its output count, which it says only through its own
 * total (xAI): the total is input + output + reasoning, and reasoning is not zero.
 *
 * @since 0.1.0
 * @category utils
 */
export const reasoningOutsideOutput = (
  input: number | undefined,
  output: number | undefined,
  reasoning: number | undefined,
  total: number | undefined
): boolean =>
  input !== undefined && output !== undefined && reasoning !== undefined && reasoning > 0 &&
  total === addCounts(addCounts(input, output), reasoning)

/**
 * The provider's usage object to keep as `raw`: the object itself, or `undefined` (dropped, the
 * counts stay) when it nests more than 64 levels deep or holds a number that reads as `Infinity`,
 * because `JSON.stringify` would throw on the one and write `null` for the other.
 *
 * @since 0.1.0
 * @category utils
 */
export const keepableRaw = (raw: unknown): unknown => (Json.check(raw) === undefined ? raw : undefined)

/**
 * The counts a provider reports, in its own convention, before normalization.
 *
 * @since 0.1.0
 * @category models
 */
export interface ProviderCounts {
  /** Prompt tokens as the provider reports them; anything that is not a {@link count} is absent. */
  readonly input?: unknown
  /** Completion tokens as the provider reports them. */
  readonly output?: unknown
  /** The provider's own total, when it sends one. */
  readonly total?: unknown
  readonly cacheRead?: unknown
  readonly cacheWrite?: unknown
  readonly reasoning?: unknown
  /** `true` when the provider's `input` leaves out cache reads and writes (Anthropic, Bedrock). */
  readonly inputExcludesCache?: boolean
  /** `true` when the provider's `output` leaves out reasoning tokens (Gemini, xAI). */
  readonly outputExcludesReasoning?: boolean
  /** The provider's usage object, kept verbatim when it is safe to keep (see {@link keepableRaw}). */
  readonly raw?: unknown
}

/**
 * Folds a provider's counts into the normalized shape (cache inside input, reasoning inside output).
 * Values that are not counts are absent; sums saturate; `totalTokens` is the provider's own total
 * only when it covers input + output.
 *
 * @since 0.1.0
 * @category utils
 */
export const normalize = (counts: ProviderCounts): Usage => {
  const cacheRead = count(counts.cacheRead)
  const cacheWrite = count(counts.cacheWrite)
  const reasoning = count(counts.reasoning)
  const input = count(counts.input) ?? 0
  const output = count(counts.output) ?? 0
  const inputTokens = counts.inputExcludesCache === true
    ? addCounts(addCounts(input, cacheRead ?? 0), cacheWrite ?? 0)
    : input
  const outputTokens = counts.outputExcludesReasoning === true ? addCounts(output, reasoning ?? 0) : output
  const sum = addCounts(inputTokens, outputTokens)
  const ownTotal = count(counts.total)
  const usage: Draft = {
    inputTokens,
    outputTokens,
    totalTokens: ownTotal !== undefined && ownTotal >= sum ? ownTotal : sum
  }
  if (cacheRead !== undefined) usage.cacheReadTokens = cacheRead
  if (cacheWrite !== undefined) usage.cacheWriteTokens = cacheWrite
  if (reasoning !== undefined) usage.reasoningTokens = reasoning
  const raw = counts.raw === undefined ? undefined : keepableRaw(counts.raw)
  if (raw !== undefined) usage.raw = raw
  return usage
}

/**
 * Merges a newer cumulative snapshot into an older one, last wins per field: a field the newer
 * snapshot leaves out keeps its older value, and nothing is ever added up twice. A field that is
 * not a {@link count} (a snapshot built by hand, or read from elsewhere) counts as absent, and
 * `totalTokens` is at least input + output, so the result is always a valid snapshot. `raw` is taken
 * as it is: it was checked where it was kept ({@link normalize}).
 *
 * @since 0.1.0
 * @category utils
 */
export const merge = (older: Usage | undefined, newer: Usage): Usage => {
  const old = older ?? empty
  const newInput = count(newer.inputTokens) ?? 0
  const newOutput = count(newer.outputTokens) ?? 0
  const out: Draft = {
    inputTokens: newInput !== 0 ? newInput : count(old.inputTokens) ?? 0,
    outputTokens: newOutput !== 0 ? newOutput : count(old.outputTokens) ?? 0,
    totalTokens: 0
  }
  out.totalTokens = Math.max(count(newer.totalTokens) ?? 0, addCounts(out.inputTokens, out.outputTokens))
  const cacheRead = count(newer.cacheReadTokens) ?? count(old.cacheReadTokens)
  const cacheWrite = count(newer.cacheWriteTokens) ?? count(old.cacheWriteTokens)
  const reasoning = count(newer.reasoningTokens) ?? count(old.reasoningTokens)
  if (cacheRead !== undefined) out.cacheReadTokens = cacheRead
  if (cacheWrite !== undefined) out.cacheWriteTokens = cacheWrite
  if (reasoning !== undefined) out.reasoningTokens = reasoning
  const raw = newer.raw ?? old.raw
  if (raw !== undefined) out.raw = raw
  return out
}

/**
 * Adds two responses' usage field by field (an agent loop's steps): a count present on either side
 * is summed, one absent on both stays absent; `raw` is left out, since no provider sent the sum
 * (each step's own usage, with its `raw`, stays on its `step-finish` chunk).
 *
 * @since 0.1.0
 * @category utils
 */
export const sum = (a: Usage, b: Usage): Usage => {
  const out: Draft = {
    inputTokens: addCounts(count(a.inputTokens) ?? 0, count(b.inputTokens) ?? 0),
    outputTokens: addCounts(count(a.outputTokens) ?? 0, count(b.outputTokens) ?? 0),
    totalTokens: addCounts(count(a.totalTokens) ?? 0, count(b.totalTokens) ?? 0)
  }
  const optional = (x: number | undefined, y: number | undefined): number | undefined => {
    const cx = count(x)
    const cy = count(y)
    return cx === undefined ? cy : cy === undefined ? cx : addCounts(cx, cy)
  }
  const cacheRead = optional(a.cacheReadTokens, b.cacheReadTokens)
  const cacheWrite = optional(a.cacheWriteTokens, b.cacheWriteTokens)
  const reasoning = optional(a.reasoningTokens, b.reasoningTokens)
  if (cacheRead !== undefined) out.cacheReadTokens = cacheRead
  if (cacheWrite !== undefined) out.cacheWriteTokens = cacheWrite
  if (reasoning !== undefined) out.reasoningTokens = reasoning
  return out
}
