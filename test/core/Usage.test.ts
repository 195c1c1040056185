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
    expect(
      Usage.normalize({ input: Number.NaN, output: 7, cacheRead: Number.POSITIVE_INFINITY, inputExcludesCache: true })
    )
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
    const older = {
      inputTokens: 10,
      outputTokens: 5,
      totalTokens: 15,
      cacheReadTokens: 4,
      reasoningTokens: 2,
      raw: { n: 1 }
    }
    const newer = {
      inputTokens: 12,
      outputTokens: 20,
      totalTokens: 32,
      cacheReadTokens: 6,
      reasoningTokens: 9,
      raw: { n: 2 }
    }
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
    const u = {
      inputTokens: 10,
      outputTokens: 5,
      totalTokens: 15,
      cacheReadTokens: 4,
      cacheWriteTokens: 1,
      reasoningTokens: 2
    }
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

// --- hostile numbers ---------------------------------------------------------------------------

const MAX = Number.MAX_SAFE_INTEGER
/** Nests `[` 100,000 deep: V8's JSON.parse reads it, JSON.stringify overflows the stack on it. */
const deepArray = (): unknown => JSON.parse("[".repeat(100_000) + "]".repeat(100_000))
/** What a snapshot must survive: JSON.stringify without throwing, and reading back unchanged. */
const roundTrips = (u: unknown): void => expect(JSON.parse(JSON.stringify(u))).toStrictEqual(u)

describe("Usage.count and Usage.addCounts", () => {
  it("count accepts only safe non-negative integers", () => {
    expect([0, 1, 12, MAX].map(Usage.count)).toStrictEqual([0, 1, 12, MAX])
    const hostile: Array<unknown> = [
      -1,
      0.5,
      MAX + 1,
      2 ** 53,
      1e300,
      1e308,
      Infinity,
      -Infinity,
      NaN,
      "12",
      null,
      undefined,
      {},
      [3],
      true
    ]
    expect(hostile.map(Usage.count)).toStrictEqual(hostile.map(() => undefined))
    // JSON.parse reads "-0" as -0; JSON.stringify writes it as 0: the count is a plain 0.
    expect(Object.is(Usage.count(JSON.parse("-0")), 0)).toBe(true)
  })

  it("addCounts saturates at Number.MAX_SAFE_INTEGER and skips what is not a count", () => {
    expect(Usage.addCounts(2, 3)).toBe(5)
    expect(Usage.addCounts(MAX, 1)).toBe(MAX)
    expect(Usage.addCounts(MAX, MAX)).toBe(MAX)
    expect(Usage.addCounts(5, 1e308)).toBe(5)
    expect(Usage.addCounts(Number.NaN, 4)).toBe(4)
    expect(Usage.addCounts(-3, 0.5)).toBe(0)
  })
})

describe("Usage.normalize with hostile counts", () => {
  it("reads 1e308, strings, negatives, fractions and non-finite values as absent", () => {
    const u = Usage.normalize({
      input: 1e308,
      output: "12",
      total: -5,
      cacheRead: 0.5,
      cacheWrite: Number.NaN,
      reasoning: Number.POSITIVE_INFINITY,
      inputExcludesCache: true,
      outputExcludesReasoning: true
    })
    expect(u).toStrictEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 })
    roundTrips(u)
  })

  it("saturates sums of huge counts instead of overflowing past 2^53", () => {
    const u = Usage.normalize({
      input: MAX,
      output: MAX,
      cacheRead: MAX,
      cacheWrite: MAX,
      reasoning: MAX,
      inputExcludesCache: true,
      outputExcludesReasoning: true
    })
    expect(u).toStrictEqual({
      inputTokens: MAX,
      outputTokens: MAX,
      totalTokens: MAX,
      cacheReadTokens: MAX,
      cacheWriteTokens: MAX,
      reasoningTokens: MAX
    })
    roundTrips(u)
  })

  it("keeps the provider's own total only when it is a count covering input + output", () => {
    expect(Usage.normalize({ input: 10, output: 5, total: 1e308 })).toStrictEqual({
      inputTokens: 10,
      outputTokens: 5,
      totalTokens: 15
    })
    expect(Usage.normalize({ input: 10, output: 5, total: 20.5 })).toStrictEqual({
      inputTokens: 10,
      outputTokens: 5,
      totalTokens: 15
    })
    expect(Usage.normalize({ input: 10, output: 5, total: "99" })).toStrictEqual({
      inputTokens: 10,
      outputTokens: 5,
      totalTokens: 15
    })
    expect(Usage.normalize({ input: 10, output: 5, total: MAX })).toStrictEqual({
      inputTokens: 10,
      outputTokens: 5,
      totalTokens: MAX
    })
  })

  it("drops a raw object nested 100,000 deep, or holding Infinity, and keeps the counts", () => {
    const deep = { prompt_tokens: 5, completion_tokens: 2, nested: deepArray() }
    const u = Usage.normalize({ input: 5, output: 2, total: 7, raw: deep })
    expect(u).toStrictEqual({ inputTokens: 5, outputTokens: 2, totalTokens: 7 })
    roundTrips(u)
    const huge = JSON.parse("{\"prompt_tokens\":1e999,\"completion_tokens\":2}") as unknown
    expect(Usage.normalize({ input: 1, output: 2, raw: huge })).toStrictEqual({
      inputTokens: 1,
      outputTokens: 2,
      totalTokens: 3
    })
  })

  it("keeps a raw object up to 64 levels deep, as the same object", () => {
    const raw = { prompt_tokens: 5, nested: JSON.parse("[".repeat(63) + "]".repeat(63)) as unknown }
    expect(Usage.normalize({ input: 5, raw }).raw).toBe(raw)
    const deeper = { prompt_tokens: 5, nested: JSON.parse("[".repeat(64) + "]".repeat(64)) as unknown }
    expect(Usage.normalize({ input: 5, raw: deeper })).toStrictEqual({
      inputTokens: 5,
      outputTokens: 0,
      totalTokens: 5
    })
  })
})

describe("Usage.merge with hostile snapshots", () => {
  it("reads counts that are not safe non-negative integers as absent, on either side", () => {
    const older = {
      inputTokens: 10,
      outputTokens: Number.NaN,
      totalTokens: 10,
      cacheReadTokens: 4,
      reasoningTokens: -1
    }
    const newer = {
      inputTokens: Infinity,
      outputTokens: 7,
      totalTokens: 1e308,
      cacheReadTokens: 0.5,
      cacheWriteTokens: 2 ** 53
    }
    const merged = Usage.merge(older, newer)
    expect(merged).toStrictEqual({ inputTokens: 10, outputTokens: 7, totalTokens: 17, cacheReadTokens: 4 })
    roundTrips(merged)
  })

  it("cleans a lone snapshot too (no older one)", () => {
    expect(Usage.merge(undefined, { inputTokens: -4, outputTokens: 1.5, totalTokens: Number.NaN })).toStrictEqual(
      Usage.empty
    )
    expect(Usage.merge(undefined, { inputTokens: 3, outputTokens: 4, totalTokens: 2 })).toStrictEqual({
      inputTokens: 3,
      outputTokens: 4,
      totalTokens: 7
    })
  })

  it("saturates the total of huge counts", () => {
    expect(
      Usage.merge({ inputTokens: MAX, outputTokens: 0, totalTokens: MAX }, {
        inputTokens: 0,
        outputTokens: MAX,
        totalTokens: 0
      })
    )
      .toStrictEqual({ inputTokens: MAX, outputTokens: MAX, totalTokens: MAX })
  })

  it("property: whatever numbers arrive, every count is a safe non-negative integer and total >= input + output", () => {
    const anything = fc.oneof(
      fc.nat({ max: 1_000 }),
      fc.constantFrom(MAX, MAX - 1, 2 ** 53, 1e300, 1e308, -1, -0, 0.5, Infinity, -Infinity, NaN),
      fc.double(),
      fc.string({ maxLength: 3 })
    )
    const counts = fc.record({
      input: anything,
      output: anything,
      total: anything,
      cacheRead: anything,
      cacheWrite: anything,
      reasoning: anything,
      inputExcludesCache: fc.boolean(),
      outputExcludesReasoning: fc.boolean()
    }, { noNullPrototype: true })
    const valid = (u: Usage.Usage): void => {
      for (
        const v of [
          u.inputTokens,
          u.outputTokens,
          u.totalTokens,
          u.cacheReadTokens,
          u.cacheWriteTokens,
          u.reasoningTokens
        ]
      ) {
        if (v !== undefined) expect(Usage.count(v)).toBe(v)
      }
      expect(u.totalTokens).toBeGreaterThanOrEqual(Math.min(MAX, u.inputTokens + u.outputTokens))
      roundTrips(u)
    }
    fc.assert(
      fc.property(counts, counts, (a, b) => {
        const older = Usage.normalize(a)
        const newer = Usage.normalize(b)
        valid(older)
        valid(newer)
        valid(Usage.merge(older, newer))
        // Snapshots built by hand with the same hostile numbers: merge cleans them.
        const hand = {
          inputTokens: b.input,
          outputTokens: b.output,
          totalTokens: b.total,
          cacheReadTokens: b.cacheRead
        } as unknown as Usage.Usage
        valid(Usage.merge(undefined, hand))
        valid(Usage.merge(older, hand))
      }),
      { numRuns: 300 }
    )
  })
})
