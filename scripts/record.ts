/**
 * `npm run record -- <preset> "<prompt>" [model]`: calls a real Chat Completions host with your key and
 * saves the raw response — every network read with its original boundaries and timing — as a
 * recording that `Replay.fromRecording` plays back exactly. Needs the preset's key variable
 * (e.g. OPENAI_API_KEY); request headers (and so the key) are never written to the file.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import * as ChatRequest from "../src/ChatRequest.js"
import * as Presets from "../src/providers/openai-chat/presets.js"
import * as Request from "../src/providers/openai-chat/request.js"
import type * as Replay from "../src/testing/Replay.js"

const defaultModels: Partial<Record<Presets.PresetName, string>> = {
  openai: "gpt-4.1-mini",
  groq: "llama-3.3-70b-versatile",
  deepseek: "deepseek-chat",
  mistral: "mistral-small-latest",
  xai: "grok-3-mini",
  openrouter: "openai/gpt-4.1-mini"
}

const keptHeaders = ["content-type", "x-request-id", "openai-processing-ms", "x-ratelimit-remaining-requests"]

const main = async (): Promise<number> => {
  const [presetName, prompt, modelArg] = process.argv.slice(2)
  if (presetName === undefined || prompt === undefined || !(presetName in Presets.presets)) {
    process.stderr.write(`usage: npm run record -- <${Object.keys(Presets.presets).join("|")}> "<prompt>" [model]\n`)
    return 2
  }
  const preset: Presets.Preset = Presets.presets[presetName as Presets.PresetName]
  const key = preset.apiKeyEnv === undefined ? undefined : process.env[preset.apiKeyEnv]
  if (preset.requiresKey && (key === undefined || key === "")) {
    process.stderr.write(`record: set ${preset.apiKeyEnv} to record from ${preset.provider}; nothing was recorded\n`)
    return 1
  }
  const model = modelArg ?? defaultModels[presetName as Presets.PresetName]
  if (model === undefined) {
    process.stderr.write(`record: name a model for ${presetName}\n`)
    return 2
  }
  const baseUrl = (preset.baseUrlEnv !== undefined ? process.env[preset.baseUrlEnv] : undefined) ?? preset.baseUrl
  const body = Request.encode(ChatRequest.make(prompt), {
    model,
    maxTokensField: preset.maxTokensField,
    includeUsage: preset.includeUsage
  })
  const headers: Record<string, string> = { "content-type": "application/json", accept: "text/event-stream" }
  if (key !== undefined && key !== "") {
    if (preset.authHeader === "api-key") headers["api-key"] = key
    else headers.authorization = `Bearer ${key}`
  }
  const response = await fetch(`${baseUrl.replace(/\/+$/, "")}/chat/completions`, {
    method: "POST",
    headers,
    body: JSON.stringify(body)
  })
  const t0 = performance.now()
  const reads: Array<{ atMs: number; base64: string }> = []
  const reader = response.body?.getReader()
  if (reader !== undefined) {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      reads.push({
        atMs: Math.round((performance.now() - t0) * 10) / 10,
        base64: Buffer.from(value).toString("base64")
      })
    }
  }
  const kept: Record<string, string> = {}
  for (const name of keptHeaders) {
    const v = response.headers.get(name)
    if (v !== null) kept[name] = v
  }
  const recording: Replay.Recording = {
    version: 1,
    provider: preset.provider,
    status: response.status,
    headers: kept,
    reads
  }
  mkdirSync("recordings", { recursive: true })
  const file = `recordings/${preset.provider}-${new Date().toISOString().replace(/[:.]/g, "-")}.json`
  writeFileSync(file, JSON.stringify(recording, null, 2) + "\n")
  process.stdout.write(`recorded ${reads.length} reads (HTTP ${response.status}) to ${file}\n`)
  return 0
}

main().then((code) => {
  process.exitCode = code
}, (e: unknown) => {
  process.stderr.write(`record failed: ${e instanceof Error ? e.message : String(e)}\n`)
  process.exitCode = 1
})
