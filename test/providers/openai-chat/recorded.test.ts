/**
 * Every recording in `../shared/fixtures/recorded/openai-chat/`, decoded and checked against values
 * written by hand from reading the recording (texts, calls, usage numbers, finish reasons, ids).
 */
import * as Either from "effect/Either"
import { expect, it } from "vitest"
import { decodeAll } from "../../../src/internal/ChunkDecoder.js"
import type * as Sse from "../../../src/internal/framing/Sse.js"
import * as Decode from "../../../src/providers/openai-chat/decode.js"
import * as Response from "../../../src/Response.js"
import * as StreamChunk from "../../../src/StreamChunk.js"
import { expectText, type Long, shapeOf } from "../../support/expectations.js"
import { describeRecorded, listRecorded, readRecorded } from "../../support/recorded.js"

interface Expected {
  readonly provider: string
  readonly model: string
  readonly responseId: string
  /** The chunk types in order, runs written `type×n`. */
  readonly shape: string
  readonly text: string | Long
  readonly reasoning?: string | Long
  readonly toolCalls?: ReadonlyArray<{ readonly id: string; readonly name: string; readonly arguments: unknown }>
  readonly usage: {
    readonly inputTokens: number
    readonly outputTokens: number
    readonly totalTokens: number
    readonly cacheReadTokens?: number
    readonly reasoningTokens?: number
  }
  readonly finish: readonly [StreamChunk.FinishReason, string]
  readonly sources?: ReadonlyArray<string>
}

const sf = { location: "San Francisco" }

const expectations: Record<string, Expected> = {
  "alibaba-text.chunks.txt": {
    provider: "alibaba",
    model: "qwen3-max",
    responseId: "chatcmpl-d2d6aab7-cbca-970f-8aa6-7d58c9724733",
    shape: "metadata text-delta×171 usage finish",
    text: {
      prefix: "## The Festival of Shared Stories: \"Tale",
      suffix: " story matters. We are woven together.\"*",
      length: 3771
    },
    usage: { inputTokens: 18, outputTokens: 779, totalTokens: 797, cacheReadTokens: 0 },
    finish: ["stop", "stop"]
  },
  // Continuation pieces carry `"id":""`, and a last empty piece follows the arguments.
  "alibaba-tool-call.chunks.txt": {
    provider: "alibaba",
    model: "qwen3-max",
    responseId: "chatcmpl-8e243c57-23b3-9db2-a02e-e3c53929c368",
    shape: "metadata tool-call-delta×2 tool-call usage finish",
    text: "",
    toolCalls: [{ id: "call_eee11723464a4b9eb8cee71d", name: "weather", arguments: sf }],
    usage: { inputTokens: 295, outputTokens: 22, totalTokens: 317, cacheReadTokens: 0 },
    finish: ["tool_calls", "tool_calls"]
  },
  // The first chunk has id "", model "" and no choices.
  "azure-model-router.1.chunks.txt": {
    provider: "azure",
    model: "gpt-5-nano-2025-08-07",
    responseId: "chatcmpl-CYPS1lijGoK8gd9lYzY3r9Sx50nbt",
    shape: "metadata text-delta×4 usage finish",
    text: "Capital of Denmark.",
    usage: { inputTokens: 15, outputTokens: 78, totalTokens: 93, cacheReadTokens: 0, reasoningTokens: 64 },
    finish: ["stop", "stop"]
  },
  "deepseek-reasoning.chunks.txt": {
    provider: "deepseek",
    model: "deepseek-reasoner",
    responseId: "cac7192e-e619-40c6-96b0-ed4276bc03ac",
    shape: "metadata reasoning-delta×205 reasoning text-delta×13 usage finish",
    text: "The word \"strawberry\" contains three \"r\"s.",
    reasoning: {
      prefix: "We need to count the number of the lette",
      suffix: "nd 9. So yes, 3.\n\nThus, the answer is 3.",
      length: 606
    },
    usage: { inputTokens: 18, outputTokens: 219, totalTokens: 237, cacheReadTokens: 0, reasoningTokens: 205 },
    finish: ["stop", "stop"]
  },
  "deepseek-text.chunks.txt": {
    provider: "deepseek",
    model: "deepseek-chat",
    responseId: "f6117a0b-129d-46fa-b239-78f01c2c5df9",
    shape: "metadata text-delta×400 usage finish",
    text: {
      prefix: "## **Holiday Name:** Starlight Remembran",
      suffix: " observe 15 minutes of silent looking at",
      length: 1855
    },
    usage: { inputTokens: 13, outputTokens: 400, totalTokens: 413, cacheReadTokens: 0 },
    finish: ["length", "length"]
  },
  "groq-text.chunks.txt": {
    provider: "groq",
    model: "llama-3.3-70b-versatile",
    responseId: "chatcmpl-7eb08824-fb8d-47af-a1f0-3aa786f2d1f3",
    shape: "metadata text-delta×661 usage finish",
    text: {
      prefix: "Introducing \"Luminaria\" - a new holiday ",
      suffix: "per appreciation for the magic of light.",
      length: 3189
    },
    usage: { inputTokens: 45, outputTokens: 662, totalTokens: 707 },
    finish: ["stop", "stop"]
  },
  "groq-tool-call.chunks.txt": {
    provider: "groq",
    model: "llama-3.3-70b-versatile",
    responseId: "chatcmpl-b610d559-f156-4aca-8827-24b4fe6af54f",
    shape: "metadata tool-call-delta tool-call usage finish",
    text: "",
    toolCalls: [{ id: "tk85n1k4m", name: "weather", arguments: {} }],
    usage: { inputTokens: 210, outputTokens: 15, totalTokens: 225 },
    finish: ["tool_calls", "tool_calls"]
  },
  "mistral-reasoning.chunks.txt": {
    provider: "mistral",
    model: "magistral-medium-2507",
    responseId: "a4e29c5b82f94d67b23e108a7c9df6e1",
    shape: "metadata reasoning-delta×2 reasoning text-delta usage finish",
    text: "2 + 2 = 4",
    reasoning: "The user is asking for 2+2. This is basic arithmetic. 2+2=4.",
    usage: { inputTokens: 10, outputTokens: 46, totalTokens: 56 },
    finish: ["stop", "stop"]
  },
  "mistral-text.chunks.txt": {
    provider: "mistral",
    model: "mistral-small-latest",
    responseId: "5319bd0299614c679a0068a4f2c8ffd0",
    shape: "metadata text-delta×6 usage finish",
    text: "Hello, world! This is a test response.",
    usage: { inputTokens: 13, outputTokens: 8, totalTokens: 21 },
    finish: ["stop", "stop"]
  },
  // A whole call without `index`, on the finish chunk, with usage.
  "mistral-tool-call.chunks.txt": {
    provider: "mistral",
    model: "mistral-small-latest",
    responseId: "b3999b8c93e04e11bcbff7bcab829667",
    shape: "metadata tool-call-delta tool-call usage finish",
    text: "",
    toolCalls: [{ id: "gSIMJiOkT", name: "weather", arguments: sf }],
    usage: { inputTokens: 124, outputTokens: 22, totalTokens: 146 },
    finish: ["tool_calls", "tool_calls"]
  },
  "moonshotai-stream.chunks.txt": {
    provider: "moonshot",
    model: "kimi-k3",
    responseId: "chatcmpl-stream",
    shape: "metadata reasoning-delta×2 reasoning text-delta×2 usage finish",
    text: "Hello!",
    reasoning: "Thinking aloud. ",
    usage: { inputTokens: 9, outputTokens: 12, totalTokens: 21, reasoningTokens: 7 },
    finish: ["stop", "stop"]
  },
  "openai-text.chunks.txt": {
    provider: "openai",
    model: "gpt-4.1-nano-2025-04-14",
    responseId: "chatcmpl-D8Z5oo6uDh67AD85p73ksdT1KxhE0",
    shape: "metadata text-delta×300 usage finish",
    text: {
      prefix: "**Holiday Name:** Harmony Day\n\n**Date:**",
      suffix: "ed human experiences and mutual respect.",
      length: 1724
    },
    usage: { inputTokens: 16, outputTokens: 300, totalTokens: 316, cacheReadTokens: 0, reasoningTokens: 0 },
    finish: ["stop", "stop"]
  },
  // Running usage on every chunk (the last two equal), the full citation list on every chunk.
  "perplexity-citations.chunks.txt": {
    provider: "perplexity",
    model: "sonar",
    responseId: "58cb9740-f356-49e9-b71e-a02a1376c1b9",
    shape: "metadata " + "text-delta usage ".repeat(7) + "content-part×7 finish",
    text: "The current population of **[2][3]",
    usage: { inputTokens: 10, outputTokens: 336, totalTokens: 346 },
    finish: ["stop", "stop"],
    sources: [
      "https://populationstat.com/united-states/san-francisco",
      "https://en.wikipedia.org/wiki/San_Francisco",
      "https://fred.stlouisfed.org/graph/?g=4K5j",
      "https://www.california-demographics.com/cities_by_population",
      "https://worldpopulationreview.com/us-cities/california/san-francisco",
      "https://worldpopulationreview.com/us-counties/california/san-francisco-county",
      "https://www.worldometers.info/world-population/us-population/"
    ]
  },
  "perplexity-text.chunks.txt": {
    provider: "perplexity",
    model: "sonar",
    responseId: "a3d55d44-63f9-4704-bb26-e17be1ddab3a",
    shape: "metadata " + "text-delta usage ".repeat(7) + "content-part×5 finish",
    text: "**EcoVista Day**[1][5]",
    usage: { inputTokens: 11, outputTokens: 434, totalTokens: 445 },
    finish: ["stop", "stop"],
    sources: [
      "https://www.modernchristmastrees.com/innovative-approaches-holiday-decor-modern-interior-design/",
      "https://camillestyles.com/design/modern-christmas-decorating-ideas/",
      "https://www.elledecor.com/design-decorate/interior-designers/advice/g2833/christmas-decorating-ideas/",
      "https://www.youtube.com/watch?v=GVxMMHAwzIU",
      "https://www.jjonesdesignco.com/blogs/modern-industrial-christmas-decor-joshuas-must-have-holiday-picks"
    ]
  },
  // completion_tokens 2 leaves out reasoning 340: 12 + 2 + 340 = 354 = total.
  "xai-compat-text.chunks.txt": {
    provider: "xai",
    model: "grok-3-mini",
    responseId: "f0f0f217-c24d-1fee-5fe3-28fa1d3c8c94",
    shape: "metadata reasoning-delta×340 reasoning text-delta×2 usage cache-read finish",
    text: "Grok",
    reasoning: {
      prefix: "First, the user said: \"Say a single word",
      suffix: "possible, just the word.\n\nResponse: Grok",
      length: 1455
    },
    usage: { inputTokens: 12, outputTokens: 342, totalTokens: 354, cacheReadTokens: 11, reasoningTokens: 340 },
    finish: ["stop", "stop"]
  },
  // 307 + 26 + 227 = 560 = total.
  "xai-compat-tool-call.chunks.txt": {
    provider: "xai",
    model: "grok-3-mini",
    responseId: "7027d986-3c59-a37a-9a5f-50713e01c8a6",
    shape: "metadata reasoning-delta×227 reasoning tool-call-delta tool-call usage cache-read finish",
    text: "",
    reasoning: {
      prefix: "First, the user is asking about the weat",
      suffix: " for now, this is the logical next step.",
      length: 1069
    },
    toolCalls: [{ id: "call_79382389", name: "weather", arguments: sf }],
    usage: { inputTokens: 307, outputTokens: 253, totalTokens: 560, cacheReadTokens: 306, reasoningTokens: 227 },
    finish: ["tool_calls", "tool_calls"]
  },
  // 12 + 1 + 290 = 303 = total.
  "xai-text.chunks.txt": {
    provider: "xai",
    model: "grok-3-mini",
    responseId: "7327b9f5-1c2f-0a15-3fef-c14a71c460d3",
    shape: "metadata reasoning-delta×5 reasoning text-delta usage cache-read finish",
    text: "Hello",
    reasoning: "First, the user said",
    usage: { inputTokens: 12, outputTokens: 291, totalTokens: 303, cacheReadTokens: 11, reasoningTokens: 290 },
    finish: ["stop", "stop"]
  }
}

/** Each line framed as `data: <line>`, then `data: [DONE]`, as the SSE decoder would hand them over. */
const events = (lines: ReadonlyArray<string>): Array<Sse.Event> =>
  [...lines, "[DONE]"].map((data) => ({ event: "message", data, id: undefined }))

/** The chunk types in order, runs of one type written `type×n`. */
describeRecorded("openai-chat", () => {
  it("has an expectation for every recording, and a recording for every expectation", () => {
    expect(listRecorded("openai-chat")).toStrictEqual(Object.keys(expectations).sort())
  })

  for (const [file, expected] of Object.entries(expectations)) {
    it(file, () => {
      const chunks = decodeAll(Decode.make({ provider: expected.provider }), events(readRecorded("openai-chat", file)))
      for (const chunk of chunks) expect(Either.isRight(StreamChunk.validate(chunk))).toBe(true)
      expect(shapeOf(chunks)).toBe(expected.shape.trim())

      const response = Response.fromChunks(chunks)
      expect(response.metadata).toStrictEqual({
        provider: expected.provider,
        model: expected.model,
        responseId: expected.responseId
      })
      expectText(response.text, expected.text)
      expectText(response.reasoning, expected.reasoning ?? "")
      expect(response.reasoningParts.map((p) => p.text)).toStrictEqual(
        expected.reasoning === undefined ? [] : [response.reasoning]
      )
      expect(
        response.toolCalls.map(({ arguments: args, id, name, parseError }) => ({
          id,
          name,
          arguments: args,
          parseError
        }))
      )
        .toStrictEqual((expected.toolCalls ?? []).map((call) => ({ ...call, parseError: undefined })))
      const { raw, ...usage } = response.usage ?? { raw: undefined }
      expect(usage).toStrictEqual(expected.usage)
      expect(raw).toBeTypeOf("object")
      expect([response.finishReason, response.rawFinishReason, response.error])
        .toStrictEqual([...expected.finish, undefined])
      expect(response.contentParts).toStrictEqual(
        (expected.sources ?? []).map((url) => ({ type: "source", sourceType: "url", url }))
      )
      const cacheRead = chunks.find((c) => c.type === "cache-read")
      expect(cacheRead).toStrictEqual(
        (expected.usage.cacheReadTokens ?? 0) > 0
          ? {
            type: "cache-read",
            cacheReadTokens: expected.usage.cacheReadTokens,
            accumulated: expected.usage.cacheReadTokens
          }
          : undefined
      )
    })
  }
})
