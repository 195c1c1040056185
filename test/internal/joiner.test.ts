import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { blockPieces, Joiner } from "../../src/internal/joiner.js"
import * as Response from "../../src/Response.js"
import * as StreamChunk from "../../src/StreamChunk.js"

const joined = (pieces: ReadonlyArray<string>): Joiner => {
  const j = new Joiner()
  for (const p of pieces) j.push(p)
  return j
}

describe("Joiner", () => {
  it("joins what was appended, in order, for any pieces (empty ones too)", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 3 }), { maxLength: 200 }), (pieces) => {
        const j = joined(pieces)
        expect(j.join()).toBe(pieces.join(""))
        expect(j.pieces).toBe(pieces.length)
      })
    )
  })

  it("is exact around and past its blocks", () => {
    for (const n of [blockPieces - 1, blockPieces, blockPieces + 1, 2 * blockPieces, 2 * blockPieces + 7]) {
      const pieces = Array.from({ length: n }, (_, i) => `${i},`)
      const j = joined(pieces)
      expect(j.join()).toBe(pieces.join(""))
      expect(j.pieces).toBe(n)
    }
  })

  it("gives Response.collect the exact text and reasoning of an answer of many small deltas", async () => {
    const n = 3 * blockPieces + 5
    const chunks: Array<StreamChunk.StreamChunk> = [StreamChunk.metadata("test", "m")]
    for (let i = 0; i < n; i++) chunks.push(StreamChunk.reasoningDelta(`r${i}`, ""), StreamChunk.textDelta(`t${i}`))
    chunks.push(StreamChunk.finish("stop"))
    const r = await Effect.runPromise(Response.collect(Stream.fromIterable(chunks)))
    expect(r.text).toBe(Array.from({ length: n }, (_, i) => `t${i}`).join(""))
    expect(r.reasoning).toBe(Array.from({ length: n }, (_, i) => `r${i}`).join(""))
    expect(r.reasoningParts).toStrictEqual([{ text: r.reasoning }])
    expect(r.finishReason).toBe("stop")
  })
})
