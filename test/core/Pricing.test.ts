/**
 * `Pricing`: exact costs (cache reads and writes priced apart, reasoning as output, long-context
 * rates), lookups by `provider:model` and dated snapshot, no cost for what the table cannot price,
 * and the cost a `Response` and the `UsageMeter` carry under a user's own table.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as LanguageModel from "../../src/LanguageModel.js"
import * as Pricing from "../../src/Pricing.js"
import * as Response from "../../src/Response.js"
import * as StreamChunk from "../../src/StreamChunk.js"
import * as TestModel from "../../src/testing/TestModel.js"
import * as UsageMeter from "../../src/UsageMeter.js"

const price = (provider: string, model: string) => Pricing.lookup(Pricing.defaults, provider, model)

describe("Pricing.lookup", () => {
  it("finds provider:model, a dated snapshot of it, and a bare model key", () => {
    expect(price("openai", "gpt-4.1-mini")).toEqual({ input: 0.4, output: 1.6, cacheRead: 0.1 })
    expect(price("openai", "gpt-4.1-mini-2025-04-14")).toEqual({ input: 0.4, output: 1.6, cacheRead: 0.1 })
    expect(price("anthropic", "claude-haiku-4-5-20251001")).toEqual({
      input: 1,
      output: 5,
      cacheRead: 0.1,
      cacheWrite: 1.25
    })
    const table: Pricing.Table = { "my-model": { input: 1, output: 2 } }
    expect(Pricing.lookup(table, "anyone", "my-model")).toEqual({ input: 1, output: 2 })
  })

  it("knows nothing it was not told: other hosts of a model, unknown models, prototype keys", () => {
    expect(price("azure", "gpt-4.1-mini")).toBeUndefined()
    expect(price("openai", "gpt-4.1-mini-fine-tuned")).toBeUndefined()
    expect(price("openai", "constructor")).toBeUndefined()
    expect(Pricing.lookup(Pricing.defaults, "__proto__", "x")).toBeUndefined()
    expect(Pricing.lookup({}, "toString", "valueOf")).toBeUndefined()
  })
})

describe("Pricing.cost", () => {
  it("prices cache reads apart from the rest of the input, reasoning as output", () => {
    // 200 plain input × 0.40 + 800 cache reads × 0.10 + 100 output (40 of them reasoning) × 1.60
    expect(
      Pricing.cost(
        { inputTokens: 1000, outputTokens: 100, totalTokens: 1100, cacheReadTokens: 800, reasoningTokens: 40 },
        price("openai", "gpt-4.1-mini")!
      )
    ).toBe(0.00032)
  })

  it("prices cache writes (Anthropic)", () => {
    // 100 plain × 1 + 600 reads × 0.10 + 300 writes × 1.25 + 50 output × 5
    expect(
      Pricing.cost(
        { inputTokens: 1000, outputTokens: 50, totalTokens: 1050, cacheReadTokens: 600, cacheWriteTokens: 300 },
        price("anthropic", "claude-haiku-4-5")!
      )
    ).toBe(0.000785)
  })

  it("uses long-context rates for every token of a request over the threshold", () => {
    const sonnet = price("anthropic", "claude-sonnet-4-5")!
    expect(Pricing.cost({ inputTokens: 200_000, outputTokens: 1000, totalTokens: 201_000 }, sonnet)).toBe(0.615)
    expect(Pricing.cost({ inputTokens: 250_000, outputTokens: 1000, totalTokens: 251_000 }, sonnet)).toBe(1.5225)
  })

  it("a reasoning price of its own applies to the reasoning part of the output", () => {
    // 20 plain output × 2 + 10 reasoning × 10 per million
    const p: Pricing.Price = { input: 1, output: 2, reasoning: 10 }
    expect(Pricing.cost({ inputTokens: 0, outputTokens: 30, totalTokens: 30, reasoningTokens: 10 }, p)).toBe(0.00014)
  })

  it("no cost when the usage holds tokens the price does not list", () => {
    const flash = price("google", "gemini-2.5-flash")!
    expect(Pricing.cost({ inputTokens: 100, outputTokens: 10, totalTokens: 110, cacheReadTokens: 64 }, flash))
      .toBeUndefined()
    expect(Pricing.cost({ inputTokens: 100, outputTokens: 10, totalTokens: 110, cacheWriteTokens: 5 }, {
      input: 1,
      output: 1,
      cacheRead: 0.1
    })).toBeUndefined()
    expect(Pricing.cost({ inputTokens: 100, outputTokens: 10, totalTokens: 110 }, flash)).toBe(0.000055)
  })
})

const script = (provider: string, model: string) => [
  StreamChunk.metadata(provider, model, "r1"),
  StreamChunk.textDelta("hi"),
  StreamChunk.usage({ inputTokens: 1000, outputTokens: 500, totalTokens: 1500 }),
  StreamChunk.finish("stop")
]

describe("costs in responses and the meter", () => {
  it("Response.fromChunks prices by the metadata's provider and model", () => {
    // 1000 × 2 + 500 × 8 per million
    expect(Response.fromChunks(script("openai", "gpt-4.1-2025-04-14")).cost).toBe(0.006)
    expect(Response.fromChunks(script("acme", "big-1")).cost).toBeUndefined()
    expect(Response.fromChunks(script("acme", "big-1"), { "acme:big-1": { input: 1, output: 1 } }).cost).toBe(0.0015)
  })

  it.effect("a user's table (extending ours) prices chat responses and the meter's totals", () =>
    Effect.gen(function*() {
      const first = yield* LanguageModel.chat("one")
      const second = yield* LanguageModel.chat("two")
      // 1000 × 3 + 500 × 12 per million, twice
      expect(first.cost).toBe(0.009)
      expect(second.cost).toBe(0.009)
      const totals = yield* UsageMeter.snapshot
      expect(totals.cost).toBe(0.018)
      expect(totals.byModel["acme:big-1"]?.cost).toBe(0.018)
    }).pipe(
      Effect.provide(Layer.mergeAll(
        TestModel.layer({ provider: "acme", model: "big-1", responses: script("acme", "big-1") }),
        UsageMeter.layer,
        Pricing.layer({ "acme:big-1": { input: 3, output: 12 } }, { extend: true })
      ))
    ))

  it.effect("a model the table does not know has no cost in the meter (never a guess)", () =>
    Effect.gen(function*() {
      const response = yield* LanguageModel.chat("one")
      expect(response.cost).toBeUndefined()
      const totals = yield* UsageMeter.snapshot
      expect(totals.cost).toBeUndefined()
      expect(totals.byModel["acme:big-1"]).toStrictEqual({
        ...UsageMeter.zeroCounters,
        requests: 1,
        inputTokens: 1000,
        outputTokens: 500
      })
    }).pipe(
      Effect.provide(Layer.mergeAll(
        TestModel.layer({ provider: "acme", model: "big-1", responses: script("acme", "big-1") }),
        UsageMeter.layer
      ))
    ))

  it.effect("a table given alone replaces ours", () =>
    Effect.gen(function*() {
      const response = yield* LanguageModel.chat("one")
      expect(response.cost).toBeUndefined()
    }).pipe(
      Effect.provide(Layer.mergeAll(
        TestModel.layer({ provider: "openai", model: "gpt-4.1", responses: script("openai", "gpt-4.1") }),
        Pricing.layer({ "acme:big-1": { input: 3, output: 12 } })
      ))
    ))
})
