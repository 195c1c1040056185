import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as Usage from "../../src/Usage.js"

describe("Usage.normalize", () => {
  it("adds cache reads and writes to input when the provider leaves them out (Anthropic, Bedrock)", () => {
    const raw = { input_tokens: 10, cache_read_input_tokens: 80, cache_creation_input_tokens: 20, output_tokens: 5 }
    expect(Usage.normalize({ input: 10, output: 5, cacheRead: 80, cacheWrite: 20, inputExcludesCache: true, raw }))
      .toStrictEqual({
        inputTokens: 110,
        outputTokens: 5,
        totalTokens: 115,
        cacheReadTokens: 80,
        cacheWriteTokens: 20,
        raw
      })
  })

  it("adds reasoning to output when the provider leaves it out (Gemini, xAI)", () => {
    const raw = { promptTokenCount: 100, candidatesTokenCount: 40, thoughtsTokenCount: 30, totalTokenCount: 170 }
    expect(Usage.normalize({ input: 100, output: 40, reasoning: 30, total: 170, outputExcludesReasoning: true, raw }))
      .toStrictEqual({ inputTokens: 100, outputTokens: 70, totalTokens: 170, reasoningTokens: 30, raw })
  })

  it("keeps counts that already include cache and reasoning (OpenAI)", () => {
    expect(Usage.normalize({ input: 100, output: 50, total: 150, cacheRead: 80, reasoning: 10 })).toStrictEqual({
      inputTokens: 100,
      outputTokens: 50,
      totalTokens: 150,
      cacheReadTokens: 80,
      reasoningTokens: 10
    })
  })

  it("does not add cache to input or reasoning to output unless told to", () => {
    expect(Usage.normalize({ input: 10, output: 5, cacheRead: 80, cacheWrite: 20, reasoning: 3 })).toStrictEqual({
      inputTokens: 10,
      outputTokens: 5,
      totalTokens: 15,
      cacheReadTokens: 80,
      cacheWriteTokens: 20,
      reasoningTokens: 3
    })
  })

  it("uses the provider's own total only when it covers input + output", () => {
    expect(Usage.normalize({ input: 10, output: 5, total: 20 })).toStrictEqual({
      inputTokens: 10,
      outputTokens: 5,
      totalTokens: 20
    })
    expect(Usage.normalize({ input: 10, output: 5, total: 12 })).toStrictEqual({
      inputTokens: 10,
      outputTokens: 5,
      totalTokens: 15
    })
  })

  it("treats missing and non-finite counts as zero and leaves absent optional counts out", () => {
    expect(Usage.normalize({})).toStrictEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 })
    expect(Usage.normalize({ input: Number.NaN, output: 7, cacheRead: Number.POSITIVE_INFINITY, inputExcludesCache: true }))
      .toStrictEqual({ inputTokens: 0, outputTokens: 7, totalTokens: 7 })
  })

  it("empty is all zero", () => {
    expect(Usage.empty).toStrictEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 })
  })
})

describe("Usage.merge", () => {
  it("returns the newer snapshot when there is no older one", () => {
    const u = { inputTokens: 3, outputTokens: 4, totalTokens: 7, reasoningTokens: 1 }
    expect(Usage.merge(undefined, u)).toStrictEqual(u)
  })

  it("is last-wins per field, never summed", () => {
    const older = { inputTokens: 10, outputTokens: 5, totalTokens: 15, cacheReadTokens: 4, reasoningTokens: 2, raw: { n: 1 } }
    const newer = { inputTokens: 12, outputTokens: 20, totalTokens: 32, cacheReadTokens: 6, reasoningTokens: 9, raw: { n: 2 } }
    expect(Usage.merge(older, newer)).toStrictEqual(newer)
  })

  it("keeps fields the newer snapshot leaves out (Anthropic message_start then message_delta)", () => {
    const start = {
      inputTokens: 110,
      outputTokens: 1,
      totalTokens: 111,
      cacheReadTokens: 80,
      cacheWriteTokens: 20,
      raw: { start: true }
    }
    const delta = { inputTokens: 0, outputTokens: 50, totalTokens: 50 }
    expect(Usage.merge(start, delta)).toStrictEqual({
      inputTokens: 110,
      outputTokens: 50,
      totalTokens: 160,
      cacheReadTokens: 80,
      cacheWriteTokens: 20,
      raw: { start: true }
    })
  })

  it("keeps the newer provider total when it exceeds input + output", () => {
    expect(Usage.merge({ inputTokens: 10, outputTokens: 5, totalTokens: 15 }, {
      inputTokens: 10,
      outputTokens: 6,
      totalTokens: 20
    })).toStrictEqual({ inputTokens: 10, outputTokens: 6, totalTokens: 20 })
  })

  it("merging the same snapshot again changes nothing", () => {
    const u = { inputTokens: 10, outputTokens: 5, totalTokens: 15, cacheReadTokens: 4, cacheWriteTokens: 1, reasoningTokens: 2 }
    expect(Usage.merge(u, u)).toStrictEqual(u)
    expect(Usage.merge(Usage.merge(u, u), u)).toStrictEqual(u)
  })

  it("property: each count comes from one snapshot (newer if it has it), never a sum", () => {
    const count = fc.nat({ max: 100_000 })
    const usage = fc.record(
      {
        inputTokens: count,
        outputTokens: count,
        totalTokens: count,
        cacheReadTokens: count,
        cacheWriteTokens: count,
        reasoningTokens: count
      },
      { noNullPrototype: true, requiredKeys: ["inputTokens", "outputTokens", "totalTokens"] }
    )
    fc.assert(
      fc.property(usage, usage, (older, newer) => {
        const merged = Usage.merge(older, newer)
        const inputTokens = newer.inputTokens !== 0 ? newer.inputTokens : older.inputTokens
        const outputTokens = newer.outputTokens !== 0 ? newer.outputTokens : older.outputTokens
        expect(merged.inputTokens).toBe(inputTokens)
        expect(merged.outputTokens).toBe(outputTokens)
        expect(merged.totalTokens).toBe(Math.max(newer.totalTokens, inputTokens + outputTokens))
        expect(merged.cacheReadTokens).toBe(newer.cacheReadTokens ?? older.cacheReadTokens)
        expect(merged.cacheWriteTokens).toBe(newer.cacheWriteTokens ?? older.cacheWriteTokens)
        expect(merged.reasoningTokens).toBe(newer.reasoningTokens ?? older.reasoningTokens)
        expect(Usage.merge(merged, newer)).toStrictEqual(merged)
      }),
      { numRuns: 200 }
    )
  })
})
