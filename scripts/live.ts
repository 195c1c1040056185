/**
 * `npm run test:live`: runs the demo conversation against every real provider whose key is set in the
 * environment, each named by its `provider:model` string through `Registry` — the Chat Completions
 * hosts (OPENAI_API_KEY, GROQ_API_KEY …), Anthropic, the Responses API, Gemini, Cohere, Bedrock and a
 * local Ollama — and says which it skipped and why (the registry's error names the variable to set).
 * A model string can be replaced through `LIVE_<NAME>_MODEL` (e.g. `LIVE_GROQ_MODEL`). Never part of
 * `npm test`: it needs keys and the network. Exits non-zero when a live run ends in an error.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Scenario from "../demo/scenario.js"
import * as LanguageModel from "../src/LanguageModel.js"
import * as Registry from "../src/Registry.js"
import type * as Response from "../src/Response.js"
import * as UsageMeter from "../src/UsageMeter.js"

/** The model each provider runs, by its name in the registry. */
const models: ReadonlyArray<readonly [name: string, model: string]> = [
  ["openai", "gpt-4.1-mini"],
  ["groq", "llama-3.3-70b-versatile"],
  ["deepseek", "deepseek-chat"],
  ["mistral", "mistral-small-latest"],
  ["xai", "grok-3-mini"],
  ["openrouter", "openai/gpt-4.1-mini"],
  ["together", "meta-llama/Llama-3.3-70B-Instruct-Turbo"],
  ["fireworks", "accounts/fireworks/models/llama-v3p3-70b-instruct"],
  ["cerebras", "llama-3.3-70b"],
  ["perplexity", "sonar"],
  ["moonshot", "kimi-k2-0711-preview"],
  ["alibaba", "qwen-plus"],
  ["anthropic", "claude-sonnet-4-5"],
  ["openai-responses", "gpt-4.1-mini"],
  ["gemini", "gemini-2.5-flash"],
  ["cohere", "command-a-03-2025"],
  ["bedrock", "us.anthropic.claude-sonnet-4-20250514-v1:0"],
  ["ollama", "qwen3:8b"]
]

/** The model strings to run: `LIVE_<NAME>_MODEL` replaces a default. */
const targets = models.map(([name, model]) => {
  const variable = `LIVE_${name.toUpperCase().replace(/-/g, "_")}_MODEL`
  return `${name}:${process.env[variable] ?? model}`
})

/** Local servers answer without a key; they run only when asked for by their base URL variable. */
const localOnlyWhenSet: Readonly<Record<string, string>> = { ollama: "OLLAMA_HOST" }

const main = async (): Promise<number> => {
  let ran = 0
  let failed = 0
  for (const spec of targets) {
    const name = spec.slice(0, spec.indexOf(":"))
    const gate = localOnlyWhenSet[name]
    if (gate !== undefined && (process.env[gate] ?? "") === "") {
      process.stdout.write(`skipped ${spec}: ${gate} is not set\n`)
      continue
    }
    const built = await Effect.runPromise(
      Effect.either(Effect.scoped(Layer.build(Registry.layer(spec).pipe(Layer.provide(FetchHttpClient.layer)))))
    )
    if (Either.isLeft(built)) {
      process.stdout.write(`skipped ${spec}: ${built.left.message}\n`)
      continue
    }
    ran++
    process.stdout.write(`\n=== ${spec} ===\n`)
    const layer = Layer.mergeAll(Registry.layer(spec), UsageMeter.layer).pipe(Layer.provide(FetchHttpClient.layer))
    const check = LanguageModel.chat("Reply with the single word: pong").pipe(
      Effect.map((r: Response.Response) => r.text),
      Effect.either
    )
    const result = await Effect.runPromise(
      Effect.zipRight(Scenario.run, check).pipe(Effect.provide(layer), Effect.either)
    )
    if (Either.isLeft(result) || Either.isLeft(result.right)) {
      failed++
      process.stdout.write(`FAILED ${spec}\n`)
    }
  }
  process.stdout.write(`\nlive: ${ran} target(s) run, ${failed} failed, ${targets.length - ran} skipped\n`)
  return failed > 0 ? 1 : 0
}

main().then((code) => {
  process.exitCode = code
}, (e: unknown) => {
  process.stderr.write(`live failed: ${e instanceof Error ? e.message : String(e)}\n`)
  process.exitCode = 1
})
