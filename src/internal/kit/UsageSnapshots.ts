/**
 * The decoder kit's usage snapshots: providers repeat their running totals (Perplexity on every
 * chunk, Groq in two fields, Anthropic in `message_start` and `message_delta`), and a snapshot whose
 * counts equal the last one's says nothing new, so it is dropped.
 *
 * @since 0.1.0
 */
import * as StreamChunk from "../../StreamChunk.js"
import * as Usage from "../../Usage.js"
import type { Emitter, Out } from "./Emitter.js"

/** Whether two snapshots hold the same counts (`raw` aside). */
export const sameCounts = (a: Usage.Usage, b: Usage.Usage): boolean =>
  a.inputTokens === b.inputTokens && a.outputTokens === b.outputTokens && a.totalTokens === b.totalTokens &&
  a.cacheReadTokens === b.cacheReadTokens && a.cacheWriteTokens === b.cacheWriteTokens &&
  a.reasoningTokens === b.reasoningTokens

/** The usage snapshots of one response: each new one emitted once, repeats dropped. */
export class UsageSnapshots {
  /** The last snapshot emitted (with the provider's object as `raw` when it could be kept). */
  last: Usage.Usage | undefined = undefined

  constructor(private readonly emitter: Emitter) {}

  /**
   * Emits a `usage` chunk for a normalized snapshot unless its counts repeat the last one's. `raw`
   * is the provider's usage object, checked (depth, `Infinity`) only when the snapshot is kept.
   */
  push(out: Out, usage: Usage.Usage, raw: unknown): void {
    if (this.last !== undefined && sameCounts(this.last, usage)) return
    const kept = Usage.keepableRaw(raw)
    this.last = kept === undefined ? usage : { ...usage, raw: kept }
    this.emitter.emit(out, StreamChunk.usage(this.last))
  }

  /** Emits `cache-read` / `cache-write` chunks for the last snapshot's non-zero cache counts. */
  cache(out: Out): void {
    const read = this.last?.cacheReadTokens ?? 0
    const write = this.last?.cacheWriteTokens ?? 0
    if (read > 0) this.emitter.emit(out, StreamChunk.cacheRead(read))
    if (write > 0) this.emitter.emit(out, StreamChunk.cacheWrite(write))
  }
}
