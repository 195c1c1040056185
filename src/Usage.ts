/**
 * Token usage of one response, normalized across providers.
 *
 * Normalization: `inputTokens` includes cache reads and writes, `outputTokens` includes reasoning,
 * and `totalTokens` is their sum unless the provider reported its own total. `raw` keeps the
 * provider's object so nothing is lost.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/** Schema of a normalized usage snapshot. */
export const Usage = Schema.Struct({
  inputTokens: Schema.Number,
  outputTokens: Schema.Number,
  totalTokens: Schema.Number,
  cacheReadTokens: Schema.optional(Schema.Number),
  cacheWriteTokens: Schema.optional(Schema.Number),
  reasoningTokens: Schema.optional(Schema.Number),
  raw: Schema.optional(Schema.Unknown)
})

/** A normalized usage snapshot (this response's running totals). */
export type Usage = typeof Usage.Type

/** A usage under construction (the same fields, writable). */
type Draft = { -readonly [K in keyof Usage]: Usage[K] }

/** An all-zero usage. */
export const empty: Usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 }

/** The counts a provider reports, in its own convention, before normalization. */
export interface ProviderCounts {
  /** Prompt tokens as the provider reports them. */
  readonly input?: number | undefined
  /** Completion tokens as the provider reports them. */
  readonly output?: number | undefined
  /** The provider's own total, when it sends one. */
  readonly total?: number | undefined
  readonly cacheRead?: number | undefined
  readonly cacheWrite?: number | undefined
  readonly reasoning?: number | undefined
  /** `true` when the provider's `input` leaves out cache reads and writes (Anthropic, Bedrock). */
  readonly inputExcludesCache?: boolean
  /** `true` when the provider's `output` leaves out reasoning tokens (Gemini, xAI). */
  readonly outputExcludesReasoning?: boolean
  /** The provider's usage object, kept verbatim. */
  readonly raw?: unknown
}

const num = (n: number | undefined): number => (typeof n === "number" && Number.isFinite(n) ? n : 0)

/** Folds a provider's counts into the normalized shape (cache inside input, reasoning inside output). */
export const normalize = (counts: ProviderCounts): Usage => {
  const cacheRead = counts.cacheRead
  const cacheWrite = counts.cacheWrite
  const reasoning = counts.reasoning
  const inputTokens = num(counts.input) + (counts.inputExcludesCache === true ? num(cacheRead) + num(cacheWrite) : 0)
  const outputTokens = num(counts.output) + (counts.outputExcludesReasoning === true ? num(reasoning) : 0)
  const ownTotal = counts.total
  const usage: Draft = {
    inputTokens,
    outputTokens,
    totalTokens:
      typeof ownTotal === "number" && Number.isFinite(ownTotal) && ownTotal >= inputTokens + outputTokens
        ? ownTotal
        : inputTokens + outputTokens
  }
  if (typeof cacheRead === "number" && Number.isFinite(cacheRead)) usage.cacheReadTokens = cacheRead
  if (typeof cacheWrite === "number" && Number.isFinite(cacheWrite)) usage.cacheWriteTokens = cacheWrite
  if (typeof reasoning === "number" && Number.isFinite(reasoning)) usage.reasoningTokens = reasoning
  if (counts.raw !== undefined) usage.raw = counts.raw
  return usage
}

/**
 * Merges a newer cumulative snapshot into an older one, last wins per field: a field the newer
 * snapshot leaves out keeps its older value, and nothing is ever added up twice.
 */
export const merge = (older: Usage | undefined, newer: Usage): Usage => {
  if (older === undefined) return newer
  const out: Draft = {
    inputTokens: newer.inputTokens !== 0 ? newer.inputTokens : older.inputTokens,
    outputTokens: newer.outputTokens !== 0 ? newer.outputTokens : older.outputTokens,
    totalTokens: 0
  }
  out.totalTokens = Math.max(newer.totalTokens, out.inputTokens + out.outputTokens)
  const cacheRead = newer.cacheReadTokens ?? older.cacheReadTokens
  const cacheWrite = newer.cacheWriteTokens ?? older.cacheWriteTokens
  const reasoning = newer.reasoningTokens ?? older.reasoningTokens
  if (cacheRead !== undefined) out.cacheReadTokens = cacheRead
  if (cacheWrite !== undefined) out.cacheWriteTokens = cacheWrite
  if (reasoning !== undefined) out.reasoningTokens = reasoning
  const raw = newer.raw ?? older.raw
  if (raw !== undefined) out.raw = raw
  return out
}
