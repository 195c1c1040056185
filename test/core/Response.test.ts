import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as fc from "fast-check"
import type * as ContentPart from "../../src/ContentPart.js"
import * as LlmError from "../../src/LlmError.js"
import * as Response from "../../src/Response.js"
import * as StreamChunk from "../../src/StreamChunk.js"
import * as Arb from "./arbitraries.js"

const jsonParseError = (s: string): string => {
  try {
    JSON.parse(s)
  } catch (e) {
    return e instanceof Error ? e.message : String(e)
  }
  throw new Error(`expected ${s} not to parse`)
}

const source: ContentPart.ContentPart = {
  type: "source",
  sourceType: "url",
  url: "https://example.com",
  title: "Example"
}
const preview: ContentPart.ContentPart = { type: "image", mediaType: "image/png", data: "iVBOR" }
const refusal: ContentPart.ContentPart = { type: "refusal", text: "I won't share that." }
const serverCall = { index: 2, id: "srv_1", name: "lookup", arguments: { q: "x" }, rawArguments: "{\"q\":\"x\"}" }

const fullSequence: ReadonlyArray<StreamChunk.StreamChunk> = [
  StreamChunk.metadata("anthropic", "claude-x", "msg_1"),
  StreamChunk.usage({ inputTokens: 110, outputTokens: 1, totalTokens: 111, cacheReadTokens: 80, cacheWriteTokens: 20 }),
  StreamChunk.cacheRead(80),
  StreamChunk.cacheWrite(20),
  StreamChunk.reasoningDelta("Let me ", "Let me "),
  StreamChunk.reasoningDelta("think.", "Let me think."),
  StreamChunk.reasoning("Let me think.", { signature: "sig-1" }),
  StreamChunk.reasoning("", { redacted: "opaque-blob" }),
  StreamChunk.textDelta("The answer"),
  StreamChunk.textDelta(" is 4."),
  StreamChunk.contentPart(source),
  StreamChunk.contentPart(preview, true),
  StreamChunk.contentPart(refusal),
  StreamChunk.toolCallDelta(0, "{\"a\":", { id: "toolu_1", name: "sum" }),
  StreamChunk.toolCallDelta(1, "{}", { name: "now" }),
  StreamChunk.toolCallDelta(0, "2,\"b\":2}"),
  StreamChunk.toolCall(serverCall),
  StreamChunk.metadata("other", "ignored"),
  StreamChunk.usage({ inputTokens: 0, outputTokens: 50, totalTokens: 50 }),
  StreamChunk.finish("tool_calls", "tool_use")
]

const expectedToolCalls = [
  { index: 0, id: "toolu_1", name: "sum", arguments: { a: 2, b: 2 }, rawArguments: "{\"a\":2,\"b\":2}" },
  { index: 1, id: "msg_1_call_1", name: "now", arguments: {}, rawArguments: "{}" },
  serverCall
]

// Tagged with the provider that signed them, from the stream's metadata.
const expectedReasoningParts = [
  { text: "Let me think.", signature: "sig-1", provider: "anthropic" },
  { text: "", redacted: "opaque-blob", provider: "anthropic" }
]

const expectedMessage = {
  role: "assistant",
  content: "The answer is 4.",
  toolCalls: expectedToolCalls,
  reasoning: expectedReasoningParts,
  refusal: "I won't share that."
} as const

const expectedFull: Response.Response = {
  text: "The answer is 4.",
  reasoning: "Let me think.",
  reasoningParts: expectedReasoningParts,
  toolCalls: expectedToolCalls,
  contentParts: [source, refusal],
  usage: { inputTokens: 110, outputTokens: 50, totalTokens: 160, cacheReadTokens: 80, cacheWriteTokens: 20 },
  finishReason: "tool_calls",
  rawFinishReason: "tool_use",
  error: undefined,
  metadata: { provider: "anthropic", model: "claude-x", responseId: "msg_1" },
  message: expectedMessage,
  toolResults: [],
  steps: [],
  messages: [expectedMessage],
  cost: undefined
}

const partialMessage = {
  role: "assistant",
  content: "Hel",
  toolCalls: [
    {
      index: 0,
      id: "c0",
      name: "weather",
      arguments: { raw: "{\"city\":\"Pa" },
      rawArguments: "{\"city\":\"Pa",
      parseError: jsonParseError("{\"city\":\"Pa")
    }
  ],
  reasoning: [{ text: "hmm" }]
} as const

describe("Response", () => {
  it("reassembles a full sequence exactly", () => {
    expect(Response.fromChunks(fullSequence)).toStrictEqual(expectedFull)
  })

  it.effect("sink and collect give the same Response as fromChunks", () =>
    Effect.gen(function*() {
      expect(yield* Stream.run(Stream.fromIterable(fullSequence).pipe(Stream.rechunk(3)), Response.sink))
        .toStrictEqual(expectedFull)
      expect(yield* Response.collect(Stream.fromIterable(fullSequence))).toStrictEqual(expectedFull)
      // the same sink value reused: no state shared between runs
      expect(yield* Stream.run(Stream.make(StreamChunk.textDelta("x"), StreamChunk.finish("stop")), Response.sink))
        .toStrictEqual({
          text: "x",
          reasoning: "",
          reasoningParts: [],
          toolCalls: [],
          contentParts: [],
          usage: undefined,
          finishReason: "stop",
          rawFinishReason: undefined,
          error: undefined,
          metadata: undefined,
          message: { role: "assistant", content: "x" },
          toolResults: [],
          steps: [],
          messages: [{ role: "assistant", content: "x" }],
          cost: undefined
        })
    }))

  it.effect("collectWith hands every chunk to its callback, in order, and gives collect's Response", () =>
    Effect.gen(function*() {
      for (const size of [1, 3, 100]) {
        const seen: Array<StreamChunk.StreamChunk> = []
        const response = yield* Stream.fromIterable(fullSequence).pipe(
          Stream.rechunk(size),
          Response.collectWith((chunk) => seen.push(chunk))
        )
        expect(seen).toStrictEqual(fullSequence)
        expect(response).toStrictEqual(expectedFull)
      }
    }))

  it("keeps the partial content of a stream that ended in an error, plus the error", () => {
    const info = LlmError.info({ code: "network", message: "connection reset", provider: "openai" })
    const chunks = [
      StreamChunk.metadata("openai", "gpt-4o"),
      StreamChunk.textDelta("Hel"),
      StreamChunk.reasoningDelta("hmm", "hmm"),
      StreamChunk.toolCallDelta(0, "{\"city\":\"Pa", { id: "c0", name: "weather" }),
      StreamChunk.usage({ inputTokens: 9, outputTokens: 3, totalTokens: 12 }),
      StreamChunk.error(info)
    ]
    expect(Response.fromChunks(chunks)).toStrictEqual({
      text: "Hel",
      reasoning: "hmm",
      reasoningParts: [{ text: "hmm" }],
      toolCalls: [
        {
          index: 0,
          id: "c0",
          name: "weather",
          arguments: { raw: "{\"city\":\"Pa" },
          rawArguments: "{\"city\":\"Pa",
          parseError: jsonParseError("{\"city\":\"Pa")
        }
      ],
      contentParts: [],
      usage: { inputTokens: 9, outputTokens: 3, totalTokens: 12 },
      finishReason: "error",
      rawFinishReason: undefined,
      error: { code: "network", message: "connection reset", retryable: true, provider: "openai" },
      metadata: { provider: "openai", model: "gpt-4o" },
      message: partialMessage,
      toolResults: [],
      steps: [],
      messages: [partialMessage],
      // gpt-4o's list price: 9 input tokens at $2.50 and 3 output tokens at $10 per million.
      cost: 0.0000525
    })
  })

  it("ignores chunks after the terminal chunk", () => {
    const chunks = [
      StreamChunk.textDelta("a"),
      StreamChunk.finish("length", "max_tokens"),
      StreamChunk.textDelta("b"),
      StreamChunk.toolCallDelta(0, "{}", { name: "f" }),
      StreamChunk.usage({ inputTokens: 1, outputTokens: 1, totalTokens: 2 }),
      StreamChunk.metadata("late"),
      StreamChunk.error(LlmError.info({ code: "server", message: "late" }))
    ]
    expect(Response.fromChunks(chunks)).toStrictEqual({
      text: "a",
      reasoning: "",
      reasoningParts: [],
      toolCalls: [],
      contentParts: [],
      usage: undefined,
      finishReason: "length",
      rawFinishReason: "max_tokens",
      error: undefined,
      metadata: undefined,
      message: { role: "assistant", content: "a" },
      toolResults: [],
      steps: [],
      messages: [{ role: "assistant", content: "a" }],
      cost: undefined
    })
  })

  it("turns reasoning deltas without a closing reasoning chunk into a part", () => {
    const chunks = [
      StreamChunk.reasoningDelta("x", "x"),
      StreamChunk.reasoning("x", { signature: "s1" }),
      StreamChunk.reasoningDelta("y", "xy"),
      StreamChunk.reasoningDelta("z", "xyz"),
      StreamChunk.textDelta("done"),
      StreamChunk.finish("stop")
    ]
    const r = Response.fromChunks(chunks)
    expect(r.reasoning).toBe("xyz")
    expect(r.reasoningParts).toStrictEqual([{ text: "x", signature: "s1" }, { text: "yz" }])
    expect(r.message).toStrictEqual({
      role: "assistant",
      content: "done",
      reasoning: [{ text: "x", signature: "s1" }, { text: "yz" }]
    })
  })

  it("takes the reasoning text from reasoning chunks when no deltas were streamed", () => {
    const r = Response.fromChunks([
      StreamChunk.reasoning("first. ", { signature: "a" }),
      StreamChunk.reasoning("second."),
      StreamChunk.finish("stop")
    ])
    expect(r.reasoning).toBe("first. second.")
    expect(r.reasoningParts).toStrictEqual([{ text: "first. ", signature: "a" }, { text: "second." }])
  })

  it("an empty stream gives an empty Response without a finish reason", () => {
    expect(Response.fromChunks([])).toStrictEqual({
      text: "",
      reasoning: "",
      reasoningParts: [],
      toolCalls: [],
      contentParts: [],
      usage: undefined,
      finishReason: undefined,
      rawFinishReason: undefined,
      error: undefined,
      metadata: undefined,
      message: { role: "assistant", content: "" },
      toolResults: [],
      steps: [],
      messages: [{ role: "assistant", content: "" }],
      cost: undefined
    })
  })

  it("property: Response.sink over any chunk boundaries agrees with fromChunks", () => {
    fc.assert(
      fc.property(fc.array(Arb.chunk, { maxLength: 30 }), fc.integer({ min: 1, max: 8 }), (raw, size) => {
        const chunks = Arb.withConsistentAccumulation(raw)
        const viaSink = Effect.runSync(
          Stream.run(Stream.fromIterable(chunks).pipe(Stream.rechunk(size)), Response.sink)
        )
        expect(viaSink).toStrictEqual(Response.fromChunks(chunks))
      }),
      { numRuns: 200 }
    )
  })
})

describe("Response from hostile chunks", () => {
  const MAX = Number.MAX_SAFE_INTEGER
  const deepText = "[".repeat(100_000) + "]".repeat(100_000)
  const tooDeep = "The arguments' JSON is nested too deeply (more than 64 levels of arrays and objects)"

  it("keeps arguments nested 100,000 deep as raw text, and the Response stays serializable", () => {
    const chunks = [
      StreamChunk.toolCallDelta(0, deepText.slice(0, 100_000), { id: "c1", name: "deep" }),
      StreamChunk.toolCallDelta(0, deepText.slice(100_000)),
      StreamChunk.toolCallDelta(1, "{\"a\":".repeat(100_000) + "1" + "}".repeat(100_000), { id: "c2", name: "deeper" }),
      StreamChunk.finish("tool_calls")
    ]
    const response = Response.fromChunks(chunks)
    const objects = "{\"a\":".repeat(100_000) + "1" + "}".repeat(100_000)
    expect(response.toolCalls).toStrictEqual([
      { index: 0, id: "c1", name: "deep", arguments: { raw: deepText }, rawArguments: deepText, parseError: tooDeep },
      { index: 1, id: "c2", name: "deeper", arguments: { raw: objects }, rawArguments: objects, parseError: tooDeep }
    ])
    // toEqual: the Response's `undefined` fields (error, metadata) are left out by JSON, as they should be.
    expect(JSON.parse(JSON.stringify(response))).toEqual(response)
    expect(StreamChunk.finalizeToolCalls(chunks)).toStrictEqual(response.toolCalls)
  })

  it("merges usage chunks with 1e308, NaN, negative and fractional counts into clean totals", () => {
    const response = Response.fromChunks([
      StreamChunk.usage({ inputTokens: MAX, outputTokens: 1e308, totalTokens: Number.NaN, cacheReadTokens: -3 }),
      StreamChunk.usage({ inputTokens: 0.5, outputTokens: MAX, totalTokens: Infinity, reasoningTokens: 2 }),
      StreamChunk.finish("stop")
    ])
    expect(response.usage).toStrictEqual({ inputTokens: MAX, outputTokens: MAX, totalTokens: MAX, reasoningTokens: 2 })
    expect(JSON.parse(JSON.stringify(response))).toEqual(response)
  })
})
