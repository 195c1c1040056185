/**
 * `npm run test:live`: runs the demo conversation against every real Chat Completions host whose key
 * is set in the environment (OPENAI_API_KEY, GROQ_API_KEY …), and says which it skipped. Never part
 * of `npm test`: it needs keys and the network. Exits non-zero when a live run ends in an error.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Scenario from "../demo/scenario.js"
import * as LanguageModel from "../src/LanguageModel.js"
import * as OpenAiChat from "../src/providers/openai-chat/index.js"
import * as Presets from "../src/providers/openai-chat/presets.js"
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

const main = async (): Promise<number> => {
  let ran = 0
  let failed = 0
  for (const [name, model] of Object.entries(models) as Array<[Presets.PresetName, string]>) {
    const preset: Presets.Preset = Presets.presets[name]
    const envKey = preset.apiKeyEnv
    if (envKey === undefined || (process.env[envKey] ?? "") === "") {
      process.stdout.write(`skipped ${name}: ${envKey ?? "no key variable"} is not set\n`)
      continue
    }
    ran++
    process.stdout.write(`\n=== ${name} · ${model} ===\n`)
    const layer = Layer.mergeAll(OpenAiChat.layerConfig({ preset: name, model }), UsageMeter.layer).pipe(
      Layer.provide(FetchHttpClient.layer)
    )
    const check = LanguageModel.chat("Reply with the single word: pong").pipe(
      Effect.map((r: Response.Response) => r.text),
      Effect.either
    )
    const result = await Effect.runPromise(
      Effect.zipRight(Scenario.run, check).pipe(Effect.provide(layer), Effect.either)
    )
    if (result._tag === "Left" || result.right._tag === "Left") {
      failed++
      process.stdout.write(`FAILED ${name}\n`)
    }
  }
  process.stdout.write(
    `\nlive: ${ran} provider(s) run, ${failed} failed, ${Object.keys(models).length - ran} skipped\n`
  )
  return failed > 0 ? 1 : 0
}

main().then((code) => {
  process.exitCode = code
}, (e: unknown) => {
  process.stderr.write(`live failed: ${e instanceof Error ? e.message : String(e)}\n`)
  process.exitCode = 1
})
