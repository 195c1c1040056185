/**
 * `npm run bench`: replays 6,000-event (~1.2 MB) streams from the loopback replay server — one per
 * provider family — alternately through our provider layer collected with `Response.collect` and
 * through a hand-written floor for that wire format, in the same process, after a warm-up. Prints
 * both medians and the ratio per family, then memory figures from a fresh process (bench/memory.ts).
 * A benchmark, not a test: it asserts nothing about time, only that both clients decode the same.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import type { HttpClient } from "@effect/platform/HttpClient"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { deepStrictEqual } from "node:assert"
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import * as LanguageModel from "../src/LanguageModel.js"
import * as Anthropic from "../src/providers/anthropic/index.js"
import * as OpenAiChat from "../src/providers/openai-chat/index.js"
import * as Response from "../src/Response.js"
import * as ReplayServer from "../src/testing/ReplayServer.js"
import * as AnthropicStream from "./anthropic-stream.js"
import * as FloorAnthropic from "./floor-anthropic.js"
import * as Floor from "./floor.js"
import * as ChatStream from "./openai-chat-stream.js"
import type { Expected } from "./openai-chat-stream.js"

const warmup = Number(process.env.BENCH_WARMUP ?? 30)
const runs = Number(process.env.BENCH_RUNS ?? 60)
const readSize = 16 * 1024
/** A key of real length, so masking it in every read is part of what is measured. */
const apiKey = Redacted.make("sk-bench-0123456789abcdef")

const median = (xs: ReadonlyArray<number>): number => {
  const s = [...xs].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

/** One family's stream, our layer for it and its hand-written floor. */
interface Scenario {
  readonly name: string
  readonly path: string
  readonly build: () => { readonly body: string; readonly expected: Expected }
  readonly layer: (baseUrl: string) => Layer.Layer<LanguageModel.LanguageModel, unknown, HttpClient>
  readonly floor: (url: string) => Promise<Floor.FloorResult>
  readonly finishReason: string
}

const scenarios: ReadonlyArray<Scenario> = [
  {
    name: "OpenAI Chat",
    path: "/v1/chat/completions",
    build: () => ChatStream.build(),
    layer: (baseUrl) => OpenAiChat.layer({ model: "gpt-4.1-mini", baseUrl, apiKey }),
    floor: Floor.run,
    finishReason: "tool_calls"
  },
  {
    name: "Anthropic Messages",
    path: "/v1/messages",
    build: () => AnthropicStream.build(),
    // The Anthropic host's base URL leaves out /v1.
    layer: (baseUrl) => Anthropic.layer({ model: "claude-sonnet-4-5", baseUrl: baseUrl.replace(/\/v1$/, ""), apiKey }),
    floor: FloorAnthropic.run,
    finishReason: "tool_use"
  }
]

const measure = async (scenario: Scenario): Promise<Array<string>> => {
  const { body, expected } = scenario.build()
  const bytes = new TextEncoder().encode(body)
  const reads: Array<Uint8Array> = []
  for (let i = 0; i < bytes.length; i += readSize) reads.push(bytes.subarray(i, i + readSize))
  const server = await ReplayServer.start({ [scenario.path]: { reads } })
  const model = scenario.layer(`${server.url}/v1`)
  const ours = (): Promise<Response.Response> =>
    LanguageModel.stream("benchmark").pipe(
      (s) => Response.collect(s),
      Effect.provide(model),
      Effect.provide(FetchHttpClient.layer),
      Effect.runPromise
    )
  const floor = (): Promise<Floor.FloorResult> => scenario.floor(`${server.url}${scenario.path}`)

  // Both must decode the same thing before their times mean anything.
  const a = await ours()
  const b = await floor()
  deepStrictEqual(a.text, expected.text)
  deepStrictEqual(b.text, expected.text)
  deepStrictEqual(a.toolCalls[0]?.arguments, expected.toolArguments)
  deepStrictEqual(b.toolCalls[0]?.arguments, expected.toolArguments)
  deepStrictEqual([a.usage?.inputTokens, a.usage?.outputTokens], [expected.inputTokens, expected.outputTokens])
  deepStrictEqual([b.inputTokens, b.outputTokens], [expected.inputTokens, expected.outputTokens])
  deepStrictEqual([a.finishReason, b.finishReason], ["tool_calls", scenario.finishReason])

  for (let i = 0; i < warmup; i++) {
    await ours()
    await floor()
  }
  const times = { ours: [] as Array<number>, floor: [] as Array<number> }
  for (let i = 0; i < runs; i++) {
    for (
      const [name, fn] of i % 2 === 0
        ? ([["ours", ours], ["floor", floor]] as const)
        : ([["floor", floor], ["ours", ours]] as const)
    ) {
      const t0 = performance.now()
      await fn()
      times[name].push(performance.now() - t0)
    }
  }
  await server.close()
  const mo = median(times.ours)
  const mf = median(times.floor)
  const events = body.split("\n\n").length - 1
  return [
    `${scenario.name} stream: ${(bytes.length / 1024 / 1024).toFixed(2)} MB, ${events} events, reads of ${
      readSize / 1024
    } KiB, ${runs} runs after ${warmup} warm-up`,
    `  floor (fetch + indexOf + JSON.parse)   median ${mf.toFixed(1)} ms`,
    `  ours  (layer + Response.collect)       median ${mo.toFixed(1)} ms`,
    `  ratio ours / floor: ${(mo / mf).toFixed(2)}x (target <= 1.30x)`
  ]
}

const main = async (): Promise<void> => {
  const lines: Array<string> = []
  for (const scenario of scenarios) lines.splice(lines.length, 0, ...(await measure(scenario)))
  lines.push(`process peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(1)} MB`, "")
  process.stdout.write(lines.join("\n"))
}

/** The memory figures, from a fresh process (bench/memory.ts): a peak means something only there. */
const memory = (): void => {
  if (process.env.BENCH_MEMORY === "0") return
  const script = fileURLToPath(new URL("./memory.ts", import.meta.url))
  const child = spawnSync(process.execPath, [...process.execArgv, "--expose-gc", script], { stdio: "inherit" })
  if (child.status !== 0) process.exitCode = 1
}

main().then(memory).catch((e: unknown) => {
  process.stderr.write(`bench failed: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`)
  process.exitCode = 1
})
