/**
 * The Chat Completions decoder against hostile JSON: counts that are not counts, JSON nested
 * 100,000 deep, and tool-call indices that would collide. Everything it emits must be exact, and
 * must survive `JSON.stringify` and `StreamChunk.encodeJson`.
 */
import * as Either from "effect/Either"
import { describe, expect, it } from "vitest"
import { decodeAll } from "../../../src/internal/ChunkDecoder.js"
import type * as Sse from "../../../src/internal/framing/Sse.js"
import * as Decode from "../../../src/providers/openai-chat/decode.js"
import * as Response from "../../../src/Response.js"
import * as StreamChunk from "../../../src/StreamChunk.js"
import * as UsageMeter from "../../../src/UsageMeter.js"
import { argDelta, call, DONE, event, META } from "../../support/chat.js"

const MAX = Number.MAX_SAFE_INTEGER
const head = "\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"model\":\"gpt-test\""
/** A chunk written as text, so it can hold what JSON.stringify cannot write (1e999, 100,000 levels). */
const rawChunk = (rest: string): Sse.Event => event(`{${head},${rest}}`)
const delta = (d: object, finish: string | null = null): Sse.Event =>
  rawChunk(`"choices":[${JSON.stringify({ index: 0, delta: d, finish_reason: finish })}]`)
const decode = (events: Array<Sse.Event>) => decodeAll(Decode.make({ provider: "openai" }), events)

const tooDeep = "The arguments' JSON is nested too deeply (more than 64 levels of arrays and objects)"
const deepArrays = "[".repeat(100_000) + "]".repeat(100_000)
const deepObjects = "{\"a\":".repeat(100_000) + "1" + "}".repeat(100_000)

/** Every chunk, and the Response, survive JSON.stringify and the chunk codec unchanged. */
const serializable = (chunks: Array<StreamChunk.StreamChunk>): void => {
  expect(JSON.parse(JSON.stringify(chunks))).toStrictEqual(chunks)
  expect(StreamChunk.decodeJsonLines(chunks.map(StreamChunk.encodeJson))).toStrictEqual(Either.right(chunks))
  const response = Response.fromChunks(chunks)
  expect(JSON.parse(JSON.stringify(response))).toEqual(response)
}

describe("OpenAiChat decoder: hostile usage numbers", () => {
  it("reads 1e999, 1e308, negatives, fractions and strings as absent counts, and drops a raw holding Infinity", () => {
    const out = decode([
      rawChunk(
        "\"choices\":[],\"usage\":{\"prompt_tokens\":1e999,\"completion_tokens\":1e308,\"total_tokens\":-5," +
          "\"prompt_tokens_details\":{\"cached_tokens\":0.5},\"completion_tokens_details\":{\"reasoning_tokens\":\"7\"}}"
      ),
      DONE
    ])
    expect(out).toStrictEqual([
      META,
      { type: "usage", usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } },
      { type: "finish", reason: "stop" }
    ])
    serializable(out)
  })

  it("keeps a raw object whose bad counts are finite, with clean counts", () => {
    const usage = {
      prompt_tokens: "12",
      completion_tokens: -3,
      total_tokens: 12.5,
      completion_tokens_details: { reasoning_tokens: 2 ** 53 }
    }
    const out = decode([rawChunk(`"choices":[],"usage":${JSON.stringify(usage)}`), DONE])
    expect(out).toStrictEqual([
      META,
      { type: "usage", usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0, raw: usage } },
      { type: "finish", reason: "stop" }
    ])
    serializable(out)
  })

  it("saturates huge counts at Number.MAX_SAFE_INTEGER in the chunk, the Response and the meter", () => {
    const usage = {
      prompt_tokens: MAX,
      completion_tokens: MAX,
      total_tokens: MAX,
      prompt_tokens_details: { cached_tokens: MAX },
      completion_tokens_details: { reasoning_tokens: MAX }
    }
    const out = decode([
      delta({ content: "hi" }, "stop"),
      rawChunk(`"choices":[],"usage":${JSON.stringify(usage)}`),
      DONE
    ])
    const clean = { inputTokens: MAX, outputTokens: MAX, totalTokens: MAX, cacheReadTokens: MAX, reasoningTokens: MAX }
    expect(out).toStrictEqual([
      META,
      { type: "text-delta", delta: "hi" },
      { type: "usage", usage: { ...clean, raw: usage } },
      { type: "cache-read", cacheReadTokens: MAX, accumulated: MAX },
      { type: "finish", reason: "stop", rawReason: "stop" }
    ])
    serializable(out)
    expect(Response.fromChunks(out).usage).toStrictEqual({ ...clean, raw: usage })
    const u = Response.fromChunks(out).usage
    const twice = UsageMeter.add(
      UsageMeter.add(UsageMeter.emptyTotals, "openai:gpt-test", u, false),
      "openai:gpt-test",
      u,
      false
    )
    const counters = {
      requests: 2,
      errors: 0,
      inputTokens: MAX,
      outputTokens: MAX,
      cacheReadTokens: MAX,
      cacheWriteTokens: 0,
      reasoningTokens: MAX
    }
    expect(twice).toStrictEqual({ ...counters, byModel: { "openai:gpt-test": counters } })
  })

  it("keeps the counts and drops raw when the usage object nests 100,000 deep", () => {
    const out = decode([
      rawChunk(`"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7,"extra":${deepArrays}}`),
      DONE
    ])
    expect(out).toStrictEqual([
      META,
      { type: "usage", usage: { inputTokens: 5, outputTokens: 2, totalTokens: 7 } },
      { type: "finish", reason: "stop" }
    ])
    serializable(out)
  })
})

describe("OpenAiChat decoder: arguments nested 100,000 deep", () => {
  it("keeps string arguments as raw text with a parse error that says so", () => {
    const out = decode([
      delta({
        tool_calls: [{ index: 0, id: "c0", function: { name: "deep", arguments: deepArrays.slice(0, 100_000) } }]
      }),
      delta({ tool_calls: [{ index: 0, function: { arguments: deepArrays.slice(100_000) } }] }),
      delta(
        { tool_calls: [{ index: 1, id: "c1", function: { name: "deeper", arguments: deepObjects } }] },
        "tool_calls"
      ),
      DONE
    ])
    expect(out).toStrictEqual([
      META,
      argDelta(0, deepArrays.slice(0, 100_000), { id: "c0", name: "deep" }),
      argDelta(0, deepArrays.slice(100_000)),
      argDelta(1, deepObjects, { id: "c1", name: "deeper" }),
      {
        type: "tool-call",
        toolCall: {
          index: 0,
          id: "c0",
          name: "deep",
          arguments: { raw: deepArrays },
          rawArguments: deepArrays,
          parseError: tooDeep
        }
      },
      {
        type: "tool-call",
        toolCall: {
          index: 1,
          id: "c1",
          name: "deeper",
          arguments: { raw: deepObjects },
          rawArguments: deepObjects,
          parseError: tooDeep
        }
      },
      { type: "finish", reason: "tool_calls", rawReason: "tool_calls" }
    ])
    serializable(out)
  })

  it("writes object arguments (whole-call servers) back as text without overflowing, and keeps them raw", () => {
    const piece = `{"index":0,"id":"c0","type":"function","function":{"name":"deep","arguments":${deepObjects}}}`
    const out = decode([
      rawChunk(`"choices":[{"index":0,"delta":{"tool_calls":[${piece}]},"finish_reason":"tool_calls"}]`),
      DONE
    ])
    expect(out).toStrictEqual([
      META,
      argDelta(0, deepObjects, { id: "c0", name: "deep" }),
      {
        type: "tool-call",
        toolCall: {
          index: 0,
          id: "c0",
          name: "deep",
          arguments: { raw: deepObjects },
          rawArguments: deepObjects,
          parseError: tooDeep
        }
      },
      { type: "finish", reason: "tool_calls", rawReason: "tool_calls" }
    ])
    serializable(out)
  })

  it("writes shallow object arguments exactly as JSON.stringify would", () => {
    const args = { city: "Paris", days: [1, 2], opts: { ["__proto__"]: { x: 1 }, u: "\u2028" } }
    const text = JSON.stringify(args)
    const out = decode([
      delta(
        { tool_calls: [{ index: 0, id: "c0", function: { name: "w", arguments: JSON.parse(text) as unknown } }] },
        "tool_calls"
      ),
      DONE
    ])
    expect(out).toStrictEqual([
      META,
      argDelta(0, text, { id: "c0", name: "w" }),
      call(0, "c0", "w", text, JSON.parse(text)),
      { type: "finish", reason: "tool_calls", rawReason: "tool_calls" }
    ])
    serializable(out)
  })
})

describe("OpenAiChat decoder: hostile tool-call indices", () => {
  it("keeps a call with index -1 apart from the deprecated function_call in the same delta", () => {
    const out = decode([
      delta({
        tool_calls: [{ index: -1, id: "call_a", function: { name: "a", arguments: "{\"x\":1}" } }],
        function_call: { name: "legacy", arguments: "{\"y\":2}" }
      }, "tool_calls"),
      DONE
    ])
    expect(out).toStrictEqual([
      META,
      argDelta(0, "{\"x\":1}", { id: "call_a", name: "a" }),
      argDelta(1, "{\"y\":2}", { id: "chatcmpl-1_call_1", name: "legacy" }),
      call(0, "call_a", "a", "{\"x\":1}", { x: 1 }),
      call(1, "chatcmpl-1_call_1", "legacy", "{\"y\":2}", { y: 2 }),
      { type: "finish", reason: "tool_calls", rawReason: "tool_calls" }
    ])
    serializable(out)
  })

  it("keeps streamed pieces of an index -1 call and of function_call apart across events", () => {
    const out = decode([
      delta({
        tool_calls: [{ index: -1, id: "call_a", function: { name: "a", arguments: "{\"x\"" } }],
        function_call: { name: "legacy", arguments: "{\"y\"" }
      }),
      delta({ function_call: { arguments: ":2}" }, tool_calls: [{ index: -1, function: { arguments: ":1}" } }] }),
      delta({}, "tool_calls"),
      DONE
    ])
    expect(out).toStrictEqual([
      META,
      argDelta(0, "{\"x\"", { id: "call_a", name: "a" }),
      argDelta(1, "{\"y\"", { id: "chatcmpl-1_call_1", name: "legacy" }),
      argDelta(0, ":1}"),
      argDelta(1, ":2}"),
      call(0, "call_a", "a", "{\"x\":1}", { x: 1 }),
      call(1, "chatcmpl-1_call_1", "legacy", "{\"y\":2}", { y: 2 }),
      { type: "finish", reason: "tool_calls", rawReason: "tool_calls" }
    ])
  })

  it("gives every call with an out-of-range index its own call, numbered 0, 1, 2 … in order of appearance", () => {
    // 2^53, 1e308, 0.5 and "0" are not indices; a real 0 sits among them. JSON cannot carry NaN.
    const pieces = [
      ["9007199254740992", "big"],
      ["1e308", "huge"],
      ["0.5", "half"],
      ["\"0\"", "text"],
      ["0", "real"],
      ["-1", "negative"],
      ["null", "none"]
    ]
    const list = pieces.map(([index, name], i) =>
      `{"index":${index},"id":"id_${i}","type":"function","function":{"name":"${name}","arguments":"{\\"n\\":${i}}"}}`
    ).join(",")
    const out = decode([
      rawChunk(
        `"choices":[{"index":0,"delta":{"tool_calls":[${list}],"function_call":{"name":"legacy","arguments":"{}"}}}]`
      ),
      delta({}, "tool_calls"),
      DONE
    ])
    const calls = pieces.map(([, name], i) => call(i, `id_${i}`, name, `{"n":${i}}`, { n: i }))
    expect(out).toStrictEqual([
      META,
      ...pieces.map(([, name], i) => argDelta(i, `{"n":${i}}`, { id: `id_${i}`, name })),
      argDelta(7, "{}", { id: "chatcmpl-1_call_7", name: "legacy" }),
      ...calls,
      call(7, "chatcmpl-1_call_7", "legacy", "{}", {}),
      { type: "finish", reason: "tool_calls", rawReason: "tool_calls" }
    ])
    serializable(out)
  })
})
