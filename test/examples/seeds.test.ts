/**
 * The seed documents' host loops (examples/seeds.ts, shown in docs/seeds.md) run against real
 * provider layers answered by Replay with our own transcripts: exact text, finish, tool calls (with
 * every fragment buffered under the call's id) and usage.
 */
import { Effect, Layer, Redacted } from "effect"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import * as Seeds from "../../examples/seeds.js"
import * as Anthropic from "../../src/providers/anthropic/index.js"
import * as OpenAiChat from "../../src/providers/openai-chat/index.js"
import * as Replay from "../../src/testing/Replay.js"
import type * as ToolCall from "../../src/ToolCall.js"

const transcript = (family: string, name: string) =>
  readFileSync(fileURLToPath(new URL(`../fixtures/${family}/${name}`, import.meta.url)), "utf8")

const key = Redacted.make("test-seeds-key-0123456789")

/** OpenAI Chat answering with our plain-text transcript, split into small reads. */
const chatModel: Seeds.Model = Layer.orDie(Layer.provide(
  OpenAiChat.layer({ model: "gpt-test", apiKey: key, baseUrl: "http://replay.invalid/v1" }),
  Replay.layer({ body: transcript("openai-chat", "text.sse"), split: { seed: 3, maxRead: 40 } })
))

/** Anthropic answering with our tool-call transcript. */
const toolModel: Seeds.Model = Layer.orDie(Layer.provide(
  Anthropic.layer({ model: "claude-test", apiKey: key, baseUrl: "http://replay.invalid" }),
  Replay.layer({ body: transcript("anthropic", "demo-weather-tool-call.sse"), split: { seed: 5, maxRead: 64 } })
))

const sky = "The sky looks blue because the air scatters short, blue wavelengths of sunlight far more than long " +
  "red ones. That scattered light reaches your eyes from every direction, so the whole sky glows. At sunset " +
  "the light crosses more air, and reds and oranges win."

describe("the seed documents' loops", () => {
  it("ExAgent: write each text delta, then the finish reason; collect gives the same Response", async () => {
    let out = ""
    await Effect.runPromise(Seeds.exAgent(chatModel, (text) => (out += text)))
    expect(out).toBe(`${sky}\n[stop]\n`)
    const response = await Effect.runPromise(Seeds.exAgentCollect(chatModel))
    expect(response.text).toBe(sky)
    expect(response.finishReason).toBe("stop")
    expect(response.usage).toMatchObject({ inputTokens: 14, outputTokens: 52, totalTokens: 66 })
  })

  it("ExAgent: a failed stream still ends with its one terminal chunk", async () => {
    const refused: Seeds.Model = Layer.orDie(Layer.provide(
      OpenAiChat.layer({ model: "gpt-test", apiKey: key, baseUrl: "http://replay.invalid/v1", retry: { times: 0 } }),
      Replay.layer({ status: 401, body: "{\"error\":{\"message\":\"bad key\",\"type\":\"invalid_request_error\"}}" })
    ))
    let out = ""
    await Effect.runPromise(Seeds.exAgent(refused, (text) => (out += text)))
    expect(out).toBe("\n[error authentication]\n")
  })

  it("ReqLLM: only the :content text, then join_stream", async () => {
    let out = ""
    await Effect.runPromise(Seeds.reqLlm(chatModel, (text) => (out += text)))
    expect(out).toBe(sky)
    expect(await Effect.runPromise(Seeds.reqLlmJoin(chatModel))).toStrictEqual({
      text: sky,
      finishReason: "stop",
      tokensUsed: 66
    })
  })

  it("AIPlug: for await with a switch, fragments buffered by the call's id, the final call dispatched", async () => {
    const dispatched: Array<ToolCall.ToolCall> = []
    const badges: Array<{ promptTokens: number; completionTokens: number }> = []
    const completed: Array<[string, string]> = []
    const buffered = await Seeds.aiPlug(toolModel, {
      updateCostBadge: (usage) => badges.push(usage),
      onComplete: (text, reason) => completed.push([text, reason]),
      onError: (error) => expect.fail(`unexpected error ${error.code}`),
      dispatchToolCall: (call) => dispatched.push(call)
    })
    expect([...buffered.values()]).toStrictEqual([
      { id: "toolu_demo_1", name: "get_weather", args: "{\"city\": \"Paris\", \"unit\": \"celsius\"}" }
    ])
    expect(dispatched.map((c) => [c.id, c.name, c.arguments])).toStrictEqual([
      ["toolu_demo_1", "get_weather", { city: "Paris", unit: "celsius" }]
    ])
    expect(completed).toStrictEqual([["Let me look up the weather in Paris.", "tool_calls"]])
    // Input includes the 128 cache reads (70 + 128); the last badge is the final usage.
    expect(badges.at(-1)).toStrictEqual({ promptTokens: 198, completionTokens: 61 })
  })

  it("AIPlug: a pre-stream failure (no key) reaches onError, never a throw", async () => {
    const noKey: Seeds.Model = Layer.orDie(Layer.provide(
      Anthropic.layer({ model: "claude-test", baseUrl: "http://replay.invalid" }),
      Replay.layer({ body: "" })
    ))
    const errors: Array<string> = []
    await Seeds.aiPlug(noKey, {
      updateCostBadge: () => undefined,
      onComplete: () => expect.fail("no answer expected"),
      onError: (error) => errors.push(`${error.code}: ${error.message}`),
      dispatchToolCall: () => undefined
    })
    expect(errors).toStrictEqual(["authentication: No API key for anthropic: pass apiKey or set ANTHROPIC_API_KEY"])
  })
})
