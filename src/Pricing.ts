/**
 * What a response cost, in US dollars, from a price table: per model, the price per million input,
 * output, cache-read, cache-write and reasoning tokens. The `UsageMeter` totals cost, and a collected
 * `Response` carries its own.
 *
 * Never a guessed cost: a model the table does not know has none (`undefined`), and so has a usage
 * that holds a kind of token the model's price does not list (cache writes on a model priced without
 * them), since the provider's price for it is unknown. Reasoning tokens are output tokens on every
 * provider's bill, so they cost the output price unless a price says otherwise.
 *
 * The built-in {@link defaults} hold list prices of a few widely used models as published when this
 * version was released; providers change prices, so give your own table (or add to ours) with
 * {@link layer}: `Pricing.layer({ "openai:gpt-4.1": { input: 2, output: 8, cacheRead: 0.5 } })`.
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import { LanguageModel, Pricing, UsageMeter } from "effect-llm-stream"
 *
 * // A price of our own, on top of the built-in table.
 * const Prices = Pricing.layer({ "openai:my-fine-tune": { input: 3, output: 12 } }, { extend: true })
 *
 * const program = Effect.gen(function*() {
 *   const response = yield* LanguageModel.chat("Hello")
 *   const totals = yield* UsageMeter.snapshot
 *   return { thisAnswer: response.cost, soFar: totals.cost } // US dollars, or undefined when unknown
 * }).pipe(Effect.provide(Layer.merge(UsageMeter.layer, Prices)))
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"
import type * as Usage from "./Usage.js"

/**
 * The prices of one kind of token and up, in US dollars per million tokens.
 *
 * @since 0.1.0
 * @category models
 */
export interface Rates {
  /** Input tokens not read from or written to the cache. */
  readonly input: number
  /** Output tokens (reasoning included, unless `reasoning` is given). */
  readonly output: number
  /** Input tokens read from the prompt cache. */
  readonly cacheRead?: number | undefined
  /** Input tokens written to the prompt cache. */
  readonly cacheWrite?: number | undefined
  /** Reasoning tokens, when they cost other than output tokens. */
  readonly reasoning?: number | undefined
}

/**
 * A model's price: its rates, and optionally other rates for every token of a request whose input
 * is longer than a threshold (long-context pricing: Claude Sonnet above 200k, Gemini 2.5 Pro).
 *
 * @since 0.1.0
 * @category models
 */
export interface Price extends Rates {
  readonly longContext?: { readonly above: number; readonly rates: Rates } | undefined
}

/**
 * Prices by model: keys are `provider:model` (`"anthropic:claude-sonnet-4-5"`), or a bare model id
 * for every provider serving it.
 *
 * @since 0.1.0
 * @category models
 */
export type Table = Readonly<Record<string, Price>>

const anthropicSonnet: Price = {
  input: 3,
  output: 15,
  cacheRead: 0.3,
  cacheWrite: 3.75,
  longContext: { above: 200_000, rates: { input: 6, output: 22.5, cacheRead: 0.6, cacheWrite: 7.5 } }
}

/**
 * List prices (US dollars per million tokens) of widely used models, as published by their
 * providers when this version was released. Anthropic's cache writes are the 5-minute cache's.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaults: Table = {
  "openai:gpt-4.1": { input: 2, output: 8, cacheRead: 0.5 },
  "openai:gpt-4.1-mini": { input: 0.4, output: 1.6, cacheRead: 0.1 },
  "openai:gpt-4.1-nano": { input: 0.1, output: 0.4, cacheRead: 0.025 },
  "openai:gpt-4o": { input: 2.5, output: 10, cacheRead: 1.25 },
  "openai:gpt-4o-mini": { input: 0.15, output: 0.6, cacheRead: 0.075 },
  "openai:o3": { input: 2, output: 8, cacheRead: 0.5 },
  "openai:o4-mini": { input: 1.1, output: 4.4, cacheRead: 0.275 },
  "openai:gpt-5": { input: 1.25, output: 10, cacheRead: 0.125 },
  "openai:gpt-5-mini": { input: 0.25, output: 2, cacheRead: 0.025 },
  "openai:gpt-5-nano": { input: 0.05, output: 0.4, cacheRead: 0.005 },
  "anthropic:claude-sonnet-4-5": anthropicSonnet,
  "anthropic:claude-sonnet-4-0": anthropicSonnet,
  "anthropic:claude-haiku-4-5": { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
  "anthropic:claude-opus-4-1": { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  "anthropic:claude-3-5-haiku": { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 },
  "google:gemini-2.5-pro": {
    input: 1.25,
    output: 10,
    longContext: { above: 200_000, rates: { input: 2.5, output: 15 } }
  },
  "google:gemini-2.5-flash": { input: 0.3, output: 2.5 },
  "google:gemini-2.5-flash-lite": { input: 0.1, output: 0.4 }
}

/**
 * The price table in use: {@link defaults} unless a {@link layer} provides another.
 *
 * @since 0.1.0
 * @category tags
 */
export class Prices extends Context.Reference<Prices>()("effect-llm-stream/Pricing/Prices", {
  defaultValue: (): Table => defaults
}) {}

/**
 * A layer setting the price table: `table` alone, or with `{ extend: true }` the built-in table
 * with `table`'s entries added (and replacing ours where both name a model).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (table: Table, options?: { readonly extend?: boolean | undefined }): Layer.Layer<never> =>
  Layer.succeed(Prices, options?.extend === true ? { ...defaults, ...table } : table)

/** A dated snapshot id (`gpt-4.1-mini-2025-04-14`, `claude-3-5-haiku-20241022`) without its date. */
const undated = (model: string): string => model.replace(/-(\d{4}-\d{2}-\d{2}|\d{8})$/, "")

/** An own entry of the table (never one inherited from `Object.prototype`). */
const entry = (table: Table, key: string): Price | undefined => Object.hasOwn(table, key) ? table[key] : undefined

/**
 * A model's price: `provider:model`, then the bare `model`, each also without a trailing snapshot
 * date (`-2025-04-14`, `-20241022`), since a dated snapshot costs what its model does. `undefined`
 * when the table does not know the model.
 *
 * @since 0.1.0
 * @category lookups
 */
export const lookup = (table: Table, provider: string, model: string): Price | undefined => {
  const plain = undated(model)
  return entry(table, `${provider}:${model}`) ?? entry(table, `${provider}:${plain}`) ?? entry(table, model) ??
    entry(table, plain)
}

/**
 * What a usage cost at a price, in US dollars (rounded, see {@link round}); `undefined` when the usage holds cache reads or writes
 * the price does not list (their cost is not known). Input tokens include cache reads and writes
 * (see `Usage`), which are priced apart; reasoning tokens are part of output.
 *
 * @since 0.1.0
 * @category costs
 */
export const cost = (usage: Usage.Usage, price: Price): number | undefined => {
  const rates = price.longContext !== undefined && usage.inputTokens > price.longContext.above
    ? price.longContext.rates
    : price
  const cacheRead = usage.cacheReadTokens ?? 0
  const cacheWrite = usage.cacheWriteTokens ?? 0
  if ((cacheRead > 0 && rates.cacheRead === undefined) || (cacheWrite > 0 && rates.cacheWrite === undefined)) {
    return undefined
  }
  const reasoning = Math.min(usage.reasoningTokens ?? 0, usage.outputTokens)
  const plainInput = Math.max(0, usage.inputTokens - cacheRead - cacheWrite)
  const dollars = plainInput * rates.input +
    cacheRead * (rates.cacheRead ?? 0) +
    cacheWrite * (rates.cacheWrite ?? 0) +
    (usage.outputTokens - reasoning) * rates.output +
    reasoning * (rates.reasoning ?? rates.output)
  return round(dollars / 1_000_000)
}

/**
 * A dollar amount rounded to 10⁻¹⁰ (a ten-thousandth of a micro-dollar), so sums of costs stay the
 * numbers they are on paper (`2 × $0.40 + 1 × $1.60` per million is `0.0000024`, not
 * `0.0000024000000000000003`).
 *
 * @since 0.1.0
 * @category costs
 */
export const round = (dollars: number): number => Math.round(dollars * 1e10) / 1e10

/**
 * What a model's usage cost with a table: {@link lookup} then {@link cost}; `undefined` for a model
 * the table does not know.
 *
 * @since 0.1.0
 * @category costs
 */
export const costOf = (table: Table, provider: string, model: string, usage: Usage.Usage): number | undefined => {
  const price = lookup(table, provider, model)
  return price === undefined ? undefined : cost(usage, price)
}
