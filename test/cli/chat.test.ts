/**
 * `effect-llm-stream chat`, run as users run it: a separate `node` process on src/cli/main.ts (the
 * source condition, through tsx's loader), its stdout, stderr and exit code checked exactly. Not a
 * TTY, so there is no spinner and no ANSI code. The runs are independent and spawn in parallel.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import * as Weather from "../../src/cli/weather.js"
import * as LanguageModel from "../../src/LanguageModel.js"
import * as Registry from "../../src/Registry.js"
import * as StreamChunk from "../../src/StreamChunk.js"
import * as ReplayServer from "../../src/testing/ReplayServer.js"

const root = fileURLToPath(new URL("../..", import.meta.url))

/** The environment without any provider's key, base URL or default model: the run is hermetic. */
const cleanEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (!/API_KEY|_BASE_URL$|^AWS_|BEDROCK|OLLAMA|EFFECT_LLM_MODEL|NO_COLOR|FORCE_COLOR/.test(k)) env[k] = v
  }
  return { ...env, ...extra }
}

interface Run {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs the CLI; `whileRunning` may act on the live process (e.g. send SIGINT once output shows). */
const cli = (
  args: ReadonlyArray<string>,
  env: NodeJS.ProcessEnv = cleanEnv(),
  whileRunning?: (child: ReturnType<typeof spawn>, stdout: () => string) => void
): Promise<Run> =>
  new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--conditions=effect-llm-stream/source", "--import", "tsx", "src/cli/main.ts", ...args],
      { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] }
    )
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()))
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()))
    child.on("error", reject)
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }))
    whileRunning?.(child, () => stdout)
  })

/** The footer's times vary from run to run; everything else in it is exact. */
const times = / · first token \d+ ms · \d+\.\d tokens\/s$/m

// Each run starts a Node process through tsx's loader and the replayed runs play two paced turns: on a
// loaded two-core machine that alone has come near the suite's 30 s default.
describe.concurrent("effect-llm-stream chat", { timeout: 90_000 }, () => {
  it("with no key, replays our recorded conversation through the real Gemini layer and the agent loop, and says so", async () => {
    const run = await cli(
      ["chat", "What's the weather in Paris?"],
      cleanEnv({ EFFECT_LLM_MODEL: "gemini:gemini-2.5-flash" })
    )
    expect(run.stderr).toBe(
      "GEMINI_API_KEY is not set: replaying our recorded conversation with the demo get_weather tool (gemini:gemini-demo-1 over loopback; your prompt is not sent anywhere)\n"
    )
    expect(run.stdout).toMatch(times)
    expect(run.stdout.replace(times, " · TIMES")).toBe(
      "reasoning: The user wants the current weather in Paris. I should call get_weather with city Paris.\n" +
        "Let me look up the weather in Paris.\n" +
        "tool call: get_weather({\"city\":\"Paris\"})\n" +
        "tool result: get_weather → {\"city\":\"Paris\",\"temperature\":18,\"unit\":\"celsius\",\"conditions\":\"light rain\"}\n" +
        "── step 1 · tool_calls · in 70 out 61\n" +
        "It's 18 °C with light rain in Paris right now: mild, but take an umbrella if you head out.\n" +
        "── step 2 · stop · in 140 out 19\n" +
        "── finish: stop · google:gemini-demo-1 · input 210 (cache read 192, cache write 0) · output 80 (reasoning 40)" +
        " · cost unknown · TIMES\n"
    )
    expect(run.code).toBe(0)
  })

  it("--replay with --model runs Anthropic's conversation through the loop: call, result, steps and answer exact", async () => {
    const run = await cli(["chat", "--replay", "--model", "anthropic:claude-sonnet-4-5", "hi"])
    expect(run.stderr).toBe(
      "--replay: replaying our recorded conversation with the demo get_weather tool (anthropic:claude-demo-1 over loopback; your prompt is not sent anywhere)\n"
    )
    expect(run.stdout.replace(times, " · TIMES")).toBe(
      "reasoning: The user wants current weather in Paris. I should call get_weather with city Paris.\n" +
        "Let me look up the weather in Paris.\n" +
        "tool call: get_weather({\"city\":\"Paris\",\"unit\":\"celsius\"})\n" +
        "tool result: get_weather → {\"city\":\"Paris\",\"temperature\":18,\"unit\":\"celsius\",\"conditions\":\"light rain\"}\n" +
        "── step 1 · tool_calls · in 198 out 61\n" +
        "It's 18 °C with light rain in Paris right now: mild, but take an umbrella if you head out.\n" +
        "── step 2 · stop · in 268 out 29\n" +
        "── finish: stop · anthropic:claude-demo-1 · input 466 (cache read 256, cache write 0) · output 90 (reasoning 0)" +
        " · cost unknown · TIMES\n"
    )
    expect(run.code).toBe(0)
  })

  it("--json prints each chunk of the loop as one JSON line: the chunks streamWithTools streams, nothing else", async () => {
    const run = await cli(["chat", "--json", "--replay", "-m", "gemini:gemini-2.5-flash", "hi"])
    expect(run.code).toBe(0)
    const decoded = StreamChunk.decodeJsonLines(run.stdout.split("\n").filter((l) => l !== ""))
    // The same two transcripts through the same layer and the same tool, in this process: the first
    // request gets the tool-call turn, the second (which must carry the tool's result) the answer.
    const fixture = (name: string) => readFileSync(new URL(`../fixtures/gemini/${name}`, import.meta.url), "utf8")
    const turns = [fixture("demo-weather-tool-call.sse"), fixture("demo-weather-answer.sse")]
    const { bodies, expected } = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const server = yield* ReplayServer.make({
        "/v1beta/models/gemini-demo-1:streamGenerateContent": (_body, n) => ({ reads: [turns[Math.min(n, 1)]!] })
      })
      const model = Registry.layer("gemini:gemini-demo-1", {
        apiKey: Redacted.make("test"),
        baseUrl: `${server.url}/v1beta`
      })
      const chunks = Chunk.toArray(
        yield* Stream.runCollect(LanguageModel.streamWithTools("hi", Weather.toolkit)).pipe(
          Effect.provide(Layer.provide(model, FetchHttpClient.layer))
        )
      )
      return {
        bodies: server.requests.map((r) => JSON.parse(r.body) as { contents: ReadonlyArray<unknown> }),
        expected: chunks
      }
    })))
    expect(decoded).toStrictEqual(Either.right(expected))
    expect(bodies.length).toBe(2)
    expect(bodies[1]!.contents.at(-1)).toStrictEqual({
      role: "user",
      parts: [{
        functionResponse: {
          name: "get_weather",
          response: { city: "Paris", temperature: 18, unit: "celsius", conditions: "light rain" }
        }
      }]
    })
    expect(expected.filter((c) => c.type === "tool-result" || c.type === "step-finish" || c.type === "finish"))
      .toStrictEqual([
        StreamChunk.toolResult({
          toolCallId: "resp_demo_1_call_0",
          name: "get_weather",
          result: { city: "Paris", temperature: 18, unit: "celsius", conditions: "light rain" },
          isError: false,
          step: 1
        }),
        StreamChunk.stepFinish(1, "tool_calls", {
          rawReason: "STOP",
          usage: {
            inputTokens: 70,
            outputTokens: 61,
            totalTokens: 131,
            cacheReadTokens: 64,
            reasoningTokens: 40,
            raw: {
              promptTokenCount: 70,
              cachedContentTokenCount: 64,
              candidatesTokenCount: 21,
              totalTokenCount: 131,
              thoughtsTokenCount: 40
            }
          }
        }),
        StreamChunk.stepFinish(2, "stop", {
          rawReason: "STOP",
          usage: {
            inputTokens: 140,
            outputTokens: 19,
            totalTokens: 159,
            cacheReadTokens: 128,
            raw: { promptTokenCount: 140, cachedContentTokenCount: 128, candidatesTokenCount: 19, totalTokenCount: 159 }
          }
        }),
        StreamChunk.finish("stop", "STOP")
      ])
    // The last usage chunk sums both steps.
    expect(expected.filter((c) => c.type === "usage").at(-1)).toStrictEqual(StreamChunk.usage({
      inputTokens: 210,
      outputTokens: 80,
      totalTokens: 290,
      cacheReadTokens: 192,
      reasoningTokens: 40
    }))
    expect(expected.filter((c) => c.type === "text-delta").map((c) => c.delta).join("")).toBe(
      "Let me look up the weather in Paris." +
        "It's 18 °C with light rain in Paris right now: mild, but take an umbrella if you head out."
    )
  })

  it("an unknown provider exits 2 with the registry's message, nothing on stdout", async () => {
    const run = await cli(["chat", "--model", "nope:some-model", "hi"])
    expect(run.stdout).toBe("")
    expect(run.stderr).toBe(
      `Unknown provider "nope" in "nope:some-model"; known: ${Registry.providers.join(", ")}\n`
    )
    expect(run.code).toBe(2)
  })

  it("a stream that ends in an error chunk exits 1, its code and message on stderr", async () => {
    const server = await ReplayServer.start({
      "/v1/chat/completions": {
        reads: [readFileSync(new URL("../fixtures/openai-chat/error-midstream.sse", import.meta.url), "utf8")]
      }
    })
    try {
      const run = await cli(
        ["chat", "-m", "openai:gpt-4o-mini", "Tell me about octopuses"],
        cleanEnv({ OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: `${server.url}/v1` })
      )
      expect(run.stderr).toBe(
        "error: server: The server had an error while processing your request. Sorry about that!\n"
      )
      expect(run.stdout).toMatch(/\n── error: server · openai:gpt-4o-mini-2024-07-18 · usage unknown · cost unknown · /)
      expect(run.code).toBe(1)
      // A live run is a plain chat: the prompt alone, no tools offered.
      expect(server.requests.length).toBe(1)
      expect(JSON.parse(server.requests[0]!.body)).toStrictEqual({
        model: "gpt-4o-mini",
        messages: [{ role: "user", content: "Tell me about octopuses" }],
        stream: true,
        stream_options: { include_usage: true }
      })
    } finally {
      await server.close()
    }
  })

  it("Ctrl-C during a paced answer aborts the request, prints \"interrupted\" and exits 130", async () => {
    const text = readFileSync(new URL("../fixtures/openai-chat/weather-answer.sse", import.meta.url), "utf8")
    const events = text.split("\n\n").filter((e) => e !== "").map((e) => `${e}\n\n`)
    // One event every 300 ms: the answer is mid-stream when SIGINT arrives after the first output.
    const server = await ReplayServer.start({ "/v1/chat/completions": { reads: events, paceMs: 300 } })
    try {
      const run = await cli(
        ["chat", "-m", "openai:gpt-4.1-mini", "hi"],
        cleanEnv({ OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: `${server.url}/v1` }),
        (child, stdout) => {
          const poll = setInterval(() => {
            if (stdout() !== "") {
              clearInterval(poll)
              child.kill("SIGINT")
            }
          }, 20)
        }
      )
      expect(run.code).toBe(130)
      expect(run.stdout).toMatch(/\n── interrupted · /)
      expect(run.stderr).toBe("")
      expect(events.length).toBeGreaterThan(30)
      expect(server.requests.length).toBe(1)
      expect(server.requests[0]!.completed).toBe(false)
      expect(server.requests[0]!.closedAtMs).toBeTypeOf("number")
    } finally {
      await server.close()
    }
  })
})
