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

describe.concurrent("effect-llm-stream chat", () => {
  it("with no key, replays our recorded answer through the real Gemini layer and says so", async () => {
    const run = await cli(
      ["chat", "What's the weather in Paris?"],
      cleanEnv({ EFFECT_LLM_MODEL: "gemini:gemini-2.5-flash" })
    )
    expect(run.stderr).toBe(
      "GEMINI_API_KEY is not set: replaying our recorded answer (gemini:gemini-demo-1 over loopback; your prompt is not sent anywhere)\n"
    )
    expect(run.stdout).toMatch(times)
    expect(run.stdout.replace(times, " · TIMES")).toBe(
      "reasoning: The user wants the current weather in Paris. I should call get_weather with city Paris.\n" +
        "Let me look up the weather in Paris.\n" +
        "tool call: get_weather({\"city\":\"Paris\"})\n" +
        "── finish: tool_calls · google:gemini-demo-1 · input 70 (cache read 64, cache write 0) · output 61 (reasoning 40)" +
        " · cost unknown · TIMES\n"
    )
    expect(run.code).toBe(0)
  })

  it("--replay with --model plays Anthropic's transcript, the answer and its tool call exact", async () => {
    const run = await cli(["chat", "--replay", "--model", "anthropic:claude-sonnet-4-5", "hi"])
    expect(run.stderr).toBe(
      "--replay: replaying our recorded answer (anthropic:claude-demo-1 over loopback; your prompt is not sent anywhere)\n"
    )
    expect(run.stdout.replace(times, " · TIMES")).toBe(
      "reasoning: The user wants current weather in Paris. I should call get_weather with city Paris.\n" +
        "Let me look up the weather in Paris.\n" +
        "tool call: get_weather({\"city\":\"Paris\",\"unit\":\"celsius\"})\n" +
        "── finish: tool_calls · anthropic:claude-demo-1 · input 198 (cache read 128, cache write 0) · output 61 (reasoning 0)" +
        " · cost unknown · TIMES\n"
    )
    expect(run.code).toBe(0)
  })

  it("--json prints each chunk as one JSON line: the chunks the provider layer streams, nothing else", async () => {
    const run = await cli(["chat", "--json", "--replay", "-m", "gemini:gemini-2.5-flash", "hi"])
    expect(run.code).toBe(0)
    const decoded = StreamChunk.decodeJsonLines(run.stdout.split("\n").filter((l) => l !== ""))
    // The same transcript through the same layer, in this process.
    const expected = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const text = readFileSync(new URL("../fixtures/gemini/demo-weather-tool-call.sse", import.meta.url), "utf8")
      const server = yield* ReplayServer.make({
        "/v1beta/models/gemini-demo-1:streamGenerateContent": { reads: [text] }
      })
      const model = Registry.layer("gemini:gemini-demo-1", {
        apiKey: Redacted.make("test"),
        baseUrl: `${server.url}/v1beta`
      })
      return Chunk.toArray(
        yield* Stream.runCollect(LanguageModel.stream("hi")).pipe(
          Effect.provide(Layer.provide(model, FetchHttpClient.layer))
        )
      )
    })))
    expect(decoded).toStrictEqual(Either.right(expected))
    expect(expected.filter((c) => c.type === "text-delta").map((c) => c.delta).join("")).toBe(
      "Let me look up the weather in Paris."
    )
    expect(expected.at(-1)).toStrictEqual({ type: "finish", reason: "tool_calls", rawReason: "STOP" })
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
