/**
 * The shape every provider decoder has: a pure, synchronous state machine fed one framed event at a
 * time, appending the chunks it produces to an array. No Effect, I/O or time inside: the transport
 * drives it a network read at a time, and tests drive it with plain arrays.
 *
 * @since 0.1.0
 */
import type * as StreamChunk from "../StreamChunk.js"

/**
 * A provider decoder for events of type `In` (an SSE event, an NDJSON line, an AWS event frame).
 *
 * Write one as a class (its state in fields, its helpers as methods) whose instance `make` returns,
 * not as closures made per response: a closure made per response is a new function object, which
 * V8 optimizes anew for every response (and a call compiled for the last response's closure
 * deoptimizes on the next one's), where a method is one function optimized once. The transport's
 * per-read code follows the same rule.
 */
export interface ChunkDecoder<In> {
  /** Decodes one event, appending any chunks it yields to `out`. */
  readonly push: (event: In, out: Array<StreamChunk.StreamChunk>) => void
  /**
   * The body ended: appends what is still owed (a held finish …). When the provider's end marker
   * never came, it appends no terminal chunk, and `StreamChunk.ensureTerminal` reports `truncated`.
   */
  readonly end: (out: Array<StreamChunk.StreamChunk>) => void
}

/** Runs a decoder over events in memory (for tests and scripts): all chunks, in order. */
export const decodeAll = <In>(decoder: ChunkDecoder<In>, events: Iterable<In>): Array<StreamChunk.StreamChunk> => {
  const out: Array<StreamChunk.StreamChunk> = []
  for (const event of events) decoder.push(event, out)
  decoder.end(out)
  return out
}
