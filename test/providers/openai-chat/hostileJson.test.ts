/**
 * Hostile JSON over real loopback HTTP, through the real `OpenAiChat` layer, `FetchHttpClient` and a
 * `UsageMeter`: counts that are not counts, JSON nested 100,000 deep and colliding tool-call indices
 * must give an exact, serializable answer, and finite totals in the meter.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as LanguageModel from "../../../src/LanguageModel.js"
import * as OpenAiChat from "../../../src/providers/openai-chat/index.js"
import * as Response from "../../../src/Response.js"
import * as StreamChunk from "../../../src/StreamChunk.js"
import * as UsageMeter from "../../../src/UsageMeter.js"
import { type Hostile, make } from "../../support/hostile.js"

const MAX = Number.MAX_SAFE_INTEGER
const head = "\"id\":\"chatcmpl-h\",\"object\":\"chat.completion.chunk\",\"model\":\"m\""
/** One SSE event written as text, so it can hold 1e999 and 100,000 levels. */
const event = (rest: string): string => `data: {${head},${rest}}\n\n`
const choice = (delta: string, finish = "null"): string =>
  event(`"choices":[{"index":0,"delta":${delta},"finish_reason":${finish}}]`)
const deepArrays = "[".repeat(100_000) + "]".repeat(100_000)
const tooDeep = "The arguments' JSON is nested too deeply (more than 64 levels of arrays and objects)"

const body = [
  choice("{\"role\":\"assistant\",\"content\":\"ok\"}"),
  // A call keyed -1 next to the legacy function_call, and a call whose arguments nest 100,000 deep.
  choice(
    `{"tool_calls":[{"index":-1,"id":"call_a","type":"function","function":{"name":"a","arguments":"{\\"x\\":1}"}}],` +
      `"function_call":{"name":"legacy","arguments":"{}"}}`
  ),
  choice(
    `{"tool_calls":[{"index":0,"id":"call_d","type":"function","function":{"name":"deep","arguments":${
      JSON.stringify(deepArrays)
    }}}]}`
  ),
  choice("{}", "\"tool_calls\""),
  event(
    `"choices":[],"usage":{"prompt_tokens":${MAX},"completion_tokens":1e999,"total_tokens":-1,` +
      `"prompt_tokens_details":{"cached_tokens":${MAX}},"extra":${deepArrays}}`
  ),
  "data: [DONE]\n\n"
].join("")

const run = (server: Hostile) =>
  Effect.gen(function*() {
    const chunks = [...yield* Stream.runCollect(LanguageModel.stream("hi"))]
    const second = [...yield* Stream.runCollect(LanguageModel.stream("hi"))]
    return { chunks, second, totals: yield* UsageMeter.snapshot }
  }).pipe(
    Effect.provide(Layer.merge(
      OpenAiChat.layer({
        model: "m",
        apiKey: Redacted.make("sk-test-0123456789"),
        baseUrl: `${server.url}/v1`,
        retry: { times: 0 }
      }),
      UsageMeter.layer
    )),
    Effect.provide(FetchHttpClient.layer)
  )

describe("hostile JSON from a real server", () => {
  it.scoped("gives exact, serializable chunks, Response and meter totals", () =>
    Effect.gen(function*() {
      const server = yield* make((_req, res) => {
        res.writeHead(200, { "content-type": "text/event-stream" })
        res.end(body)
      })
      const { chunks, second, totals } = yield* run(server)
      const response = Response.fromChunks(chunks)
      expect(response.text).toBe("ok")
      expect(response.toolCalls).toStrictEqual([
        { index: 0, id: "call_a", name: "a", arguments: { x: 1 }, rawArguments: "{\"x\":1}" },
        { index: 1, id: "chatcmpl-h_call_1", name: "legacy", arguments: {}, rawArguments: "{}" },
        {
          index: 2,
          id: "call_d",
          name: "deep",
          arguments: { raw: deepArrays },
          rawArguments: deepArrays,
          parseError: tooDeep
        }
      ])
      // 1e999 is not a count, and the usage object is too deep to keep: clean counts, no raw.
      expect(response.usage).toStrictEqual({
        inputTokens: MAX,
        outputTokens: 0,
        totalTokens: MAX,
        cacheReadTokens: MAX
      })
      expect(response.finishReason).toBe("tool_calls")
      expect(chunks.filter((c) => c.type === "cache-read")).toStrictEqual([
        { type: "cache-read", cacheReadTokens: MAX, accumulated: MAX }
      ])
      expect(second.filter((c) => c.type === "cache-read")).toStrictEqual([
        { type: "cache-read", cacheReadTokens: MAX, accumulated: MAX }
      ])
      expect(JSON.parse(JSON.stringify(response))).toEqual(response)
      expect(StreamChunk.decodeJsonLines(chunks.map(StreamChunk.encodeJson))).toStrictEqual(Either.right(chunks))
      const counters = {
        requests: 2,
        errors: 0,
        inputTokens: MAX,
        outputTokens: 0,
        cacheReadTokens: MAX,
        cacheWriteTokens: 0,
        reasoningTokens: 0
      }
      expect(totals).toStrictEqual({ ...counters, byModel: { "openai:m": counters } })
    }))
})
