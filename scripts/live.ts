/**
 * `npm run test:live`: runs the demo conversation against every real host whose key is set in the
 * environment — Chat Completions hosts (OPENAI_API_KEY, GROQ_API_KEY …), Anthropic (ANTHROPIC_API_KEY),
 * the Responses API (OPENAI_API_KEY, XAI_API_KEY) — and says which it skipped. Never part
 * of `npm test`: it needs keys and the network. Exits non-zero when a live run ends in an error.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import type { HttpClient } from "@effect/platform/HttpClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Scenario from "../demo/scenario.js"
import * as LanguageModel from "../src/LanguageModel.js"
import * as Anthropic from "../src/providers/anthropic/index.js"
import * as OpenAiChat from "../src/providers/openai-chat/index.js"
import * as Presets from "../src/providers/openai-chat/presets.js"
import * as OpenAiResponses from "../src/providers/openai-responses/index.js"
import type * as Response from "../src/Response.js"
import * as UsageMeter from "../src/UsageMeter.js"

const models: Partial<Record<Presets.PresetName, string>> = {
  openai: "gpt-4.1-mini",
  groq: "llama-3.3-70b-versatile",
  deepseek: "deepseek-chat",
  mistral: "mistral-small-latest",
  xai: "grok-3-mini",
  openrouter: "openai/gpt-4.1-mini",
  together: "meta-llama/Llama-3.3-70B-Instruct-Turbo",
  fireworks: "accounts/fireworks/models/llama-v3p3-70b-instruct",
  cerebras: "llama-3.3-70b",
  perplexity: "sonar",
  moonshot: "kimi-k2-0711-preview",
  alibaba: "qwen-plus"
}

/** One live target: a name, the variable its key lives in, and its layer. */
interface Target {
  readonly name: string
  readonly envKey: string | undefined
  readonly layer: () => Layer.Layer<LanguageModel.LanguageModel, unknown, HttpClient>
}

const targets: ReadonlyArray<Target> = [
  ...(Object.entries(models) as Array<[Presets.PresetName, string]>).map(([name, model]): Target => ({
    name: `chat · ${name} · ${model}`,
    envKey: Presets.presets[name].apiKeyEnv,
    layer: () => OpenAiChat.layerConfig({ preset: name, model })
  })),
  {
    name: "anthropic · claude-sonnet-4-5",
    envKey: "ANTHROPIC_API_KEY",
    layer: () => Anthropic.layerConfig({ model: "claude-sonnet-4-5" })
  },
  {
    name: "responses · openai · gpt-4.1-mini",
    envKey: "OPENAI_API_KEY",
    layer: () => OpenAiResponses.layerConfig({ model: "gpt-4.1-mini" })
  },
  {
    name: "responses · xai · grok-3-mini",
    envKey: "XAI_API_KEY",
    layer: () => OpenAiResponses.layerConfig({ preset: "xai", model: "grok-3-mini" })
  }
]

const main = async (): Promise<number> => {
  let ran = 0
  let failed = 0
  for (const target of targets) {
    if (target.envKey === undefined || (process.env[target.envKey] ?? "") === "") {
      process.stdout.write(`skipped ${target.name}: ${target.envKey ?? "no key variable"} is not set\n`)
      continue
    }
    ran++
    process.stdout.write(`\n=== ${target.name} ===\n`)
    const layer = Layer.mergeAll(target.layer(), UsageMeter.layer).pipe(Layer.provide(FetchHttpClient.layer))
    const check = LanguageModel.chat("Reply with the single word: pong").pipe(
      Effect.map((r: Response.Response) => r.text),
      Effect.either
    )
    const result = await Effect.runPromise(
      Effect.zipRight(Scenario.run, check).pipe(Effect.provide(layer), Effect.either)
    )
    if (result._tag === "Left" || result.right._tag === "Left") {
      failed++
      process.stdout.write(`FAILED ${target.name}\n`)
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
