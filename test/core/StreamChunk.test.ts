import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import * as fc from "fast-check"
import * as LlmError from "../../src/LlmError.js"
import * as StreamChunk from "../../src/StreamChunk.js"
import * as ToolCall from "../../src/ToolCall.js"
import * as Usage from "../../src/Usage.js"
import * as Arb from "./arbitraries.js"

/** What `JSON.parse` says about a string, computed independently of the code under test. */
const jsonParseError = (s: string): string => {
  try {
    JSON.parse(s)
  } catch (e) {
    return e instanceof Error ? e.message : String(e)
  }
  throw new Error(`expected ${s} not to parse`)
}

const runAll = <E>(stream: Stream.Stream<StreamChunk.StreamChunk, E>): Effect.Effect<Array<StreamChunk.StreamChunk>> =>
  Effect.map(Stream.runCollect(StreamChunk.ensureTerminal(stream)), Chunk.toArray)

/** One sample of each of the twelve chunk types. */
const oneOfEach: ReadonlyArray<StreamChunk.StreamChunk> = [
  StreamChunk.metadata("openai", "gpt-4o", "resp_1"),
  StreamChunk.textDelta("Hi"),
  StreamChunk.reasoningDelta("Hm", "Hm"),
  StreamChunk.reasoning("Hm", { signature: "sig" }),
  StreamChunk.toolCallDelta(0, "{}", { id: "c1", name: "f" }),
  StreamChunk.toolCall({ index: 0, id: "c1", name: "f", arguments: {}, rawArguments: "{}" }),
  StreamChunk.contentPart({ type: "image", url: "https://x/y.png" }),
  StreamChunk.usage({ inputTokens: 1, outputTokens: 2, totalTokens: 3 }),
  StreamChunk.cacheRead(4),
  StreamChunk.cacheWrite(5),
  StreamChunk.finish("stop"),
  StreamChunk.error(LlmError.info({ code: "server", message: "boom" }))
]

/**
 * What ensureTerminal makes of chunks' call ids, modelled from its documented rule: the first id a
 * call's fragments carry (else `<responseId>_call_<index>`, or `call_<index>`) on every fragment and on
 * the finished call.
 */
const withCallIds = (chunks: ReadonlyArray<StreamChunk.StreamChunk>): Array<StreamChunk.StreamChunk> => {
  let responseId: string | undefined
  const ids = new Map<number, string>()
  return chunks.map((c) => {
    if (c.type === "metadata" && responseId === undefined) responseId = c.responseId
    if (c.type === "tool-call-delta") {
      if (!ids.has(c.index)) {
        ids.set(c.index, c.id ?? (responseId ? `${responseId}_call_${c.index}` : `call_${c.index}`))
      }
      return { ...c, id: ids.get(c.index)! }
    }
    if (c.type === "tool-call" && ids.has(c.toolCall.index)) {
      return { ...c, toolCall: { ...c.toolCall, id: ids.get(c.toolCall.index)! } }
    }
    return c
  })
}

describe("normalizeFinishReason", () => {
  it("maps the seed examples", () => {
    expect(StreamChunk.normalizeFinishReason("tool_calls")).toBe("tool_calls")
    expect(StreamChunk.normalizeFinishReason("MAX_TOKENS")).toBe("length")
  })

  const table: ReadonlyArray<readonly [string, StreamChunk.FinishReason]> = [
    ["stop", "stop"],
    ["end_turn", "stop"],
    ["complete", "stop"],
    ["stop_sequence", "stop"],
    ["STOP", "stop"],
    ["length", "length"],
    ["max_tokens", "length"],
    ["MAX_TOKENS", "length"],
    ["max_output_tokens", "length"],
    ["model_length", "length"],
    ["model_context_window_exceeded", "length"],
    ["tool_calls", "tool_calls"],
    ["tool_use", "tool_calls"],
    ["function_call", "tool_calls"],
    ["TOOL_CALL", "tool_calls"],
    ["content_filter", "content_filter"],
    ["safety", "content_filter"],
    ["recitation", "content_filter"],
    ["refusal", "content_filter"],
    ["blocklist", "content_filter"],
    ["prohibited_content", "content_filter"],
    ["spii", "content_filter"],
    ["guardrail_intervened", "content_filter"],
    ["content_filtered", "content_filter"],
    ["error", "error"]
  ]

  it.each(table)("%s → %s, in any case", (raw, expected) => {
    expect(StreamChunk.normalizeFinishReason(raw)).toBe(expected)
    expect(StreamChunk.normalizeFinishReason(raw.toLowerCase())).toBe(expected)
    expect(StreamChunk.normalizeFinishReason(raw.toUpperCase())).toBe(expected)
    const mixed = [...raw].map((ch, i) => (i % 2 === 0 ? ch.toUpperCase() : ch.toLowerCase())).join("")
    expect(StreamChunk.normalizeFinishReason(mixed)).toBe(expected)
  })

  it("maps anything unknown to stop (the stream did end)", () => {
    expect(StreamChunk.normalizeFinishReason("eos")).toBe("stop")
    expect(StreamChunk.normalizeFinishReason("FINISH_REASON_UNSPECIFIED")).toBe("stop")
    expect(StreamChunk.normalizeFinishReason("")).toBe("stop")
  })

  it("maps null and undefined to stop", () => {
    expect(StreamChunk.normalizeFinishReason(null)).toBe("stop")
    expect(StreamChunk.normalizeFinishReason(undefined)).toBe("stop")
  })

  it("finishFromRaw keeps the raw reason", () => {
    expect(StreamChunk.finishFromRaw("end_turn")).toStrictEqual({
      type: "finish",
      reason: "stop",
      rawReason: "end_turn"
    })
    expect(StreamChunk.finishFromRaw("MAX_TOKENS")).toStrictEqual({
      type: "finish",
      reason: "length",
      rawReason: "MAX_TOKENS"
    })
    expect(StreamChunk.finishFromRaw("weird")).toStrictEqual({ type: "finish", reason: "stop", rawReason: "weird" })
    expect(StreamChunk.finishFromRaw(null)).toStrictEqual({ type: "finish", reason: "stop" })
    expect(StreamChunk.finishFromRaw(undefined)).toStrictEqual({ type: "finish", reason: "stop" })
  })
})

describe("finalizeToolCalls", () => {
  it("reassembles the ExAgent example into exactly one call", () => {
    const chunks = [
      StreamChunk.toolCallDelta(0, "{\"a\":", { name: "sum" }),
      StreamChunk.toolCallDelta(0, "1}")
    ]
    expect(StreamChunk.finalizeToolCalls(chunks)).toStrictEqual([
      { index: 0, id: "call_0", name: "sum", arguments: { a: 1 }, rawArguments: "{\"a\":1}" }
    ])
  })

  it("keeps arguments that do not parse as { raw } with parseError set", () => {
    const chunks = [
      StreamChunk.toolCallDelta(0, "{\"a\":", { id: "t1", name: "sum" }),
      StreamChunk.finish("tool_calls")
    ]
    expect(StreamChunk.finalizeToolCalls(chunks)).toStrictEqual([
      {
        index: 0,
        id: "t1",
        name: "sum",
        arguments: { raw: "{\"a\":" },
        rawArguments: "{\"a\":",
        parseError: jsonParseError("{\"a\":")
      }
    ])
  })

  it("returns undefined when there were no calls", () => {
    expect(StreamChunk.finalizeToolCalls([])).toBe(undefined)
    expect(StreamChunk.finalizeToolCalls([StreamChunk.textDelta("hi"), StreamChunk.finish("stop")])).toBe(undefined)
  })

  it("decodes empty arguments to {}", () => {
    expect(StreamChunk.finalizeToolCalls([StreamChunk.toolCallDelta(0, "", { id: "t1", name: "now" })])).toStrictEqual([
      { index: 0, id: "t1", name: "now", arguments: {}, rawArguments: "" }
    ])
  })

  it("groups interleaved parallel calls by index, in order of first appearance", () => {
    const chunks = [
      StreamChunk.toolCallDelta(0, "{\"city\":", { id: "a", name: "weather" }),
      StreamChunk.toolCallDelta(1, "{\"tz\":", { id: "b", name: "time" }),
      StreamChunk.toolCallDelta(0, "\"Paris\"}"),
      StreamChunk.textDelta("ignored"),
      StreamChunk.toolCallDelta(1, "\"CET\"}"),
      StreamChunk.toolCallDelta(2, "", { name: "noop" })
    ]
    expect(StreamChunk.finalizeToolCalls(chunks)).toStrictEqual([
      { index: 0, id: "a", name: "weather", arguments: { city: "Paris" }, rawArguments: "{\"city\":\"Paris\"}" },
      { index: 1, id: "b", name: "time", arguments: { tz: "CET" }, rawArguments: "{\"tz\":\"CET\"}" },
      { index: 2, id: "call_2", name: "noop", arguments: {}, rawArguments: "" }
    ])
  })

  it("lets a finished tool-call chunk win over fragments of the same index", () => {
    const finished = { index: 0, id: "srv_1", name: "sum", arguments: { a: 2 }, rawArguments: "{\"a\":2}" }
    const before = [
      StreamChunk.toolCallDelta(0, "{\"a\":", { name: "sum" }),
      StreamChunk.toolCallDelta(0, "1}"),
      StreamChunk.toolCall(finished)
    ]
    expect(StreamChunk.finalizeToolCalls(before)).toStrictEqual([finished])
    const after = [StreamChunk.toolCall(finished), StreamChunk.toolCallDelta(0, "{\"a\":1}", { name: "sum" })]
    expect(StreamChunk.finalizeToolCalls(after)).toStrictEqual([finished])
    const mixed = [
      StreamChunk.toolCallDelta(1, "{}", { id: "x", name: "other" }),
      StreamChunk.toolCall(finished)
    ]
    expect(StreamChunk.finalizeToolCalls(mixed)).toStrictEqual([
      { index: 1, id: "x", name: "other", arguments: {}, rawArguments: "{}" },
      finished
    ])
  })
})

describe("validate", () => {
  it("validates a text delta to itself", () => {
    const chunk = StreamChunk.textDelta("Hello")
    const result = StreamChunk.validate(chunk)
    expect(result).toStrictEqual(Either.right({ type: "text-delta", delta: "Hello" }))
    expect(Either.getOrThrow(result)).toBe(chunk)
  })

  it("validates every well-formed chunk type to itself", () => {
    for (const chunk of oneOfEach) expect(StreamChunk.validate(chunk)).toStrictEqual(Either.right(chunk))
  })

  const invalid: ReadonlyArray<readonly [string, unknown, string]> = [
    ["text delta without text", { type: "text-delta" }, "text-delta chunks must have string text in delta"],
    ["text delta with a number", { type: "text-delta", delta: 3 }, "text-delta chunks must have string text in delta"],
    ["tool call without a name", {
      type: "tool-call",
      toolCall: { index: 0, id: "c", arguments: {}, rawArguments: "{}" }
    }, "tool-call chunks must have a non-empty name"],
    ["tool call with an empty name", {
      type: "tool-call",
      toolCall: { index: 0, id: "c", name: "", arguments: {}, rawArguments: "{}" }
    }, "tool-call chunks must have a non-empty name"],
    ["metadata without a provider", { type: "metadata", model: "m" }, "metadata chunks must name a provider"],
    ["metadata with an empty provider", { type: "metadata", provider: "" }, "metadata chunks must name a provider"],
    [
      "reasoning delta without accumulated",
      { type: "reasoning-delta", delta: "x" },
      "reasoning-delta chunks must have string delta and accumulated"
    ],
    ["reasoning without text", { type: "reasoning", signature: "s" }, "reasoning chunks must have string text"],
    [
      "tool-call delta with a negative index",
      { type: "tool-call-delta", index: -1, argumentsDelta: "" },
      "tool-call-delta chunks must have a non-negative integer index"
    ],
    [
      "tool-call delta with a fractional index",
      { type: "tool-call-delta", index: 1.5, argumentsDelta: "" },
      "tool-call-delta chunks must have a non-negative integer index"
    ],
    [
      "tool-call delta without argumentsDelta",
      { type: "tool-call-delta", index: 0 },
      "tool-call-delta chunks must have a string argumentsDelta"
    ],
    ["tool call without toolCall", { type: "tool-call" }, "tool-call chunks must carry a toolCall"],
    ["tool call without an id", {
      type: "tool-call",
      toolCall: { index: 0, name: "f", arguments: {}, rawArguments: "{}" }
    }, "tool-call chunks must have a non-empty id"],
    ["tool call without an index", {
      type: "tool-call",
      toolCall: { id: "c", name: "f", arguments: {}, rawArguments: "{}" }
    }, "tool-call chunks must have a non-negative integer index"],
    ["tool call without arguments", {
      type: "tool-call",
      toolCall: { index: 0, id: "c", name: "f", rawArguments: "{}" }
    }, "tool-call chunks must have arguments"],
    ["tool call without rawArguments", {
      type: "tool-call",
      toolCall: { index: 0, id: "c", name: "f", arguments: {} }
    }, "tool-call chunks must have string rawArguments"],
    ["content part without a part", { type: "content-part" }, "content-part chunks must carry a typed part"],
    [
      "content part with an untyped part",
      { type: "content-part", part: { url: "u" } },
      "content-part chunks must carry a typed part"
    ],
    ["usage without usage", { type: "usage" }, "usage chunks must carry a usage object"],
    ["usage with a negative count", {
      type: "usage",
      usage: { inputTokens: -1, outputTokens: 0, totalTokens: 0 }
    }, "usage chunks must have non-negative integer inputTokens, outputTokens and totalTokens"],
    ["usage without totalTokens", {
      type: "usage",
      usage: { inputTokens: 1, outputTokens: 1 }
    }, "usage chunks must have non-negative integer inputTokens, outputTokens and totalTokens"],
    ["usage with a fractional count", {
      type: "usage",
      usage: { inputTokens: 1.5, outputTokens: 0, totalTokens: 2 }
    }, "usage chunks must have non-negative integer inputTokens, outputTokens and totalTokens"],
    ["usage with a count past 2^53", {
      type: "usage",
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 1e308 }
    }, "usage chunks must have non-negative integer inputTokens, outputTokens and totalTokens"],
    [
      "tool-call delta with an index past 2^53",
      { type: "tool-call-delta", index: 2 ** 53, argumentsDelta: "" },
      "tool-call-delta chunks must have a non-negative integer index"
    ],
    [
      "cache read with a fractional count",
      { type: "cache-read", cacheReadTokens: 0.5, accumulated: 1 },
      "cache-read chunks must have non-negative integer cacheReadTokens and accumulated"
    ],
    [
      "cache read without accumulated",
      { type: "cache-read", cacheReadTokens: 3 },
      "cache-read chunks must have non-negative integer cacheReadTokens and accumulated"
    ],
    [
      "cache write with NaN",
      { type: "cache-write", cacheWriteTokens: Number.NaN, accumulated: 0 },
      "cache-write chunks must have non-negative integer cacheWriteTokens and accumulated"
    ],
    [
      "finish with a raw reason",
      { type: "finish", reason: "end_turn" },
      "finish chunks must have a reason among stop, length, tool_calls, content_filter, error"
    ],
    ["error without error", { type: "error" }, "error chunks must carry an error object"],
    [
      "error with an unknown code",
      { type: "error", error: { code: "oops", message: "m", retryable: false } },
      "error chunks must have a known error code"
    ],
    [
      "error without a message",
      { type: "error", error: { code: "server", retryable: true } },
      "error chunks must have a string message"
    ],
    ["an unknown type", { type: "banana" }, "unknown chunk type: banana"],
    ["a chunk without a type", { delta: "x" }, "unknown chunk type: undefined"],
    ["a non-object", "text-delta", "a chunk must be an object"],
    ["null", null, "a chunk must be an object"]
  ]

  it.each(invalid)("rejects %s with its message", (_name, chunk, message) => {
    expect(StreamChunk.validate(chunk)).toStrictEqual(Either.left(message))
  })

  it("validateOrThrow returns a valid chunk and throws the message otherwise", () => {
    const chunk = StreamChunk.textDelta("Hello")
    expect(StreamChunk.validateOrThrow(chunk)).toBe(chunk)
    expect(() => StreamChunk.validateOrThrow({ type: "text-delta" })).toThrowError(
      new Error("text-delta chunks must have string text in delta")
    )
    expect(() => StreamChunk.validateOrThrow({ type: "metadata" })).toThrowError(
      new Error("metadata chunks must name a provider")
    )
  })
})

describe("constructors", () => {
  it("build exactly the documented objects", () => {
    expect(StreamChunk.metadata("anthropic")).toStrictEqual({ type: "metadata", provider: "anthropic" })
    expect(StreamChunk.metadata("anthropic", "claude", "msg_1")).toStrictEqual({
      type: "metadata",
      provider: "anthropic",
      model: "claude",
      responseId: "msg_1"
    })
    expect(StreamChunk.metadata("anthropic", undefined, "msg_1")).toStrictEqual({
      type: "metadata",
      provider: "anthropic",
      responseId: "msg_1"
    })
    expect(StreamChunk.textDelta("Hello")).toStrictEqual({ type: "text-delta", delta: "Hello" })
    expect(StreamChunk.reasoningDelta("b", "ab")).toStrictEqual({
      type: "reasoning-delta",
      delta: "b",
      accumulated: "ab"
    })
    expect(StreamChunk.reasoning("why")).toStrictEqual({ type: "reasoning", text: "why" })
    expect(StreamChunk.reasoning("why", { signature: "sig" })).toStrictEqual({
      type: "reasoning",
      text: "why",
      signature: "sig"
    })
    expect(StreamChunk.reasoning("", { redacted: "opaque", signature: undefined })).toStrictEqual({
      type: "reasoning",
      text: "",
      redacted: "opaque"
    })
    expect(StreamChunk.toolCallDelta(1, "{")).toStrictEqual({ type: "tool-call-delta", index: 1, argumentsDelta: "{" })
    expect(StreamChunk.toolCallDelta(0, "", { id: "c", name: "f" })).toStrictEqual({
      type: "tool-call-delta",
      index: 0,
      argumentsDelta: "",
      id: "c",
      name: "f"
    })
    const call = { index: 0, id: "c", name: "f", arguments: { x: 1 }, rawArguments: "{\"x\":1}" }
    expect(StreamChunk.toolCall(call)).toStrictEqual({ type: "tool-call", toolCall: call })
    const part = { type: "source" as const, sourceType: "url" as const, url: "https://a.b" }
    expect(StreamChunk.contentPart(part)).toStrictEqual({ type: "content-part", part })
    expect(StreamChunk.contentPart(part, false)).toStrictEqual({ type: "content-part", part })
    expect(StreamChunk.contentPart(part, true)).toStrictEqual({ type: "content-part", part, streamOnly: true })
    const u = { inputTokens: 1, outputTokens: 2, totalTokens: 3 }
    expect(StreamChunk.usage(u)).toStrictEqual({ type: "usage", usage: u })
    expect(StreamChunk.cacheRead(80)).toStrictEqual({ type: "cache-read", cacheReadTokens: 80, accumulated: 80 })
    expect(StreamChunk.cacheRead(80, 200)).toStrictEqual({ type: "cache-read", cacheReadTokens: 80, accumulated: 200 })
    expect(StreamChunk.cacheWrite(20)).toStrictEqual({ type: "cache-write", cacheWriteTokens: 20, accumulated: 20 })
    expect(StreamChunk.cacheWrite(20, 30)).toStrictEqual({ type: "cache-write", cacheWriteTokens: 20, accumulated: 30 })
    expect(StreamChunk.finish("length")).toStrictEqual({ type: "finish", reason: "length" })
    expect(StreamChunk.finish("tool_calls", "tool_use")).toStrictEqual({
      type: "finish",
      reason: "tool_calls",
      rawReason: "tool_use"
    })
  })

  it("error accepts error data or an LlmError (dropping its attached response)", () => {
    const info = { code: "rate_limit" as const, message: "slow down", retryable: true, status: 429 }
    expect(StreamChunk.error(info)).toStrictEqual({ type: "error", error: info })
    const e = LlmError.make({
      code: "overloaded",
      message: "busy",
      status: 529,
      provider: "anthropic",
      requestId: "r1"
    })
    expect(StreamChunk.error(e)).toStrictEqual({
      type: "error",
      error: {
        code: "overloaded",
        message: "busy",
        status: 529,
        retryable: true,
        provider: "anthropic",
        requestId: "r1"
      }
    })
  })
})

describe("guards", () => {
  it("isTerminal is true exactly for finish and error", () => {
    expect(oneOfEach.map((c) => [c.type, StreamChunk.isTerminal(c)])).toStrictEqual([
      ["metadata", false],
      ["text-delta", false],
      ["reasoning-delta", false],
      ["reasoning", false],
      ["tool-call-delta", false],
      ["tool-call", false],
      ["content-part", false],
      ["usage", false],
      ["cache-read", false],
      ["cache-write", false],
      ["finish", true],
      ["error", true]
    ])
  })

  it("isContent is true exactly for text, reasoning, tool calls and content parts", () => {
    expect(oneOfEach.map((c) => [c.type, StreamChunk.isContent(c)])).toStrictEqual([
      ["metadata", false],
      ["text-delta", true],
      ["reasoning-delta", true],
      ["reasoning", true],
      ["tool-call-delta", true],
      ["tool-call", true],
      ["content-part", true],
      ["usage", false],
      ["cache-read", false],
      ["cache-write", false],
      ["finish", false],
      ["error", false]
    ])
  })

  it("is(type) filters one type", () => {
    expect(oneOfEach.filter(StreamChunk.is("text-delta"))).toStrictEqual([{ type: "text-delta", delta: "Hi" }])
  })
})

describe("JSON", () => {
  it("leaves reasoning-delta.accumulated out of the wire encoding", () => {
    expect(StreamChunk.encodeJson(StreamChunk.reasoningDelta("b", "ab"))).toBe(
      "{\"type\":\"reasoning-delta\",\"delta\":\"b\"}"
    )
    expect(StreamChunk.encodeJson(StreamChunk.textDelta("hi"))).toBe("{\"type\":\"text-delta\",\"delta\":\"hi\"}")
  })

  it("decodeJsonLines rebuilds accumulated", () => {
    const chunks = [
      StreamChunk.reasoningDelta("Let ", "Let "),
      StreamChunk.reasoningDelta("me ", "Let me "),
      StreamChunk.textDelta("x"),
      StreamChunk.reasoningDelta("think", "Let me think"),
      StreamChunk.finish("stop")
    ]
    expect(StreamChunk.decodeJsonLines(chunks.map(StreamChunk.encodeJson))).toStrictEqual(Either.right(chunks))
  })

  it("a bad JSON line gives a Left naming the line", () => {
    const lines = [StreamChunk.encodeJson(StreamChunk.textDelta("a")), "oops"]
    expect(StreamChunk.decodeJsonLines(lines)).toStrictEqual(
      Either.left(`line 2: not JSON: ${jsonParseError("oops")}`)
    )
  })

  it("a JSON line that is not a chunk gives a Left naming the line and the problem", () => {
    const bad = { type: "text-delta" }
    const lines = [
      StreamChunk.encodeJson(StreamChunk.textDelta("a")),
      StreamChunk.encodeJson(StreamChunk.finish("stop")),
      JSON.stringify(bad)
    ]
    const result = StreamChunk.decodeJsonLines(lines)
    expect(result).toStrictEqual(
      Either.left("line 3: { readonly type: \"text-delta\"; readonly delta: string }\n└─ [\"delta\"]\n   └─ is missing")
    )
    expect(StreamChunk.decodeJson(JSON.stringify({ type: "nope" }))).toStrictEqual(
      Either.left("unknown chunk type: \"nope\"")
    )
    expect(StreamChunk.decodeJsonLines([StreamChunk.encodeJson(StreamChunk.textDelta("a")), ""])).toStrictEqual(
      Either.right([StreamChunk.textDelta("a")])
    )
  })

  it("round-trips any sequence with consistent accumulation", () => {
    fc.assert(
      fc.property(fc.array(Arb.chunk, { maxLength: 25 }), (raw) => {
        const chunks = Arb.withConsistentAccumulation(raw)
        const lines = chunks.map(StreamChunk.encodeJson)
        chunks.forEach((c, i) => {
          if (c.type === "reasoning-delta") {
            expect(Object.keys(JSON.parse(lines[i]) as object)).toStrictEqual(["type", "delta"])
          }
        })
        expect(StreamChunk.decodeJsonLines(lines)).toStrictEqual(Either.right(chunks))
      }),
      { numRuns: 200 }
    )
  })
})

describe("JSON text: decodeJsonLines of a whole text, decodeJsonStream of text pieces", () => {
  const chunks: ReadonlyArray<StreamChunk.StreamChunk> = [
    StreamChunk.metadata("openai", "gpt-4.1-mini", "r1"),
    StreamChunk.reasoningDelta("Let ", "Let "),
    StreamChunk.reasoningDelta("me think", "Let me think"),
    StreamChunk.textDelta("Hi: there\nyou"),
    StreamChunk.toolCall({ index: 0, id: "c1", name: "f", arguments: { a: "b:c" }, rawArguments: "{\"a\":\"b:c\"}" }),
    StreamChunk.usage({ inputTokens: 3, outputTokens: 5, totalTokens: 8 }),
    StreamChunk.finish("tool_calls", "tool_calls")
  ]
  const ndjson = chunks.map((c) => StreamChunk.encodeJson(c) + "\n").join("")
  const sse = ": keep-alive\r\n\r\n" +
    chunks.map((c) => `event: chunk\r\nid: 1\r\ndata: ${StreamChunk.encodeJson(c)}\r\n\r\n`).join("")
  const decodeText = (pieces: ReadonlyArray<string>) =>
    Effect.either(
      Effect.map(Stream.runCollect(StreamChunk.decodeJsonStream(Stream.fromIterable(pieces))), Chunk.toArray)
    )
  /** Cuts text at the given offsets. */
  const cut = (text: string, at: ReadonlyArray<number>): Array<string> => {
    const out: Array<string> = []
    let prev = 0
    for (const i of [...at].sort((x, y) => x - y)) {
      out.push(text.slice(prev, i))
      prev = i
    }
    out.push(text.slice(prev))
    return out
  }

  it("decodeJsonLines takes a whole text: split into lines (LF, CRLF, CR), blank lines skipped", () => {
    expect(StreamChunk.decodeJsonLines(ndjson)).toStrictEqual(Either.right(chunks))
    const mixed = chunks.map(StreamChunk.encodeJson).join("\r\n\r\n") + "\r" + "\n\n"
    expect(StreamChunk.decodeJsonLines(mixed)).toStrictEqual(Either.right(chunks))
    expect(StreamChunk.decodeJsonLines(chunks.map(StreamChunk.encodeJson).join("\r"))).toStrictEqual(
      Either.right(chunks)
    )
    expect(StreamChunk.decodeJsonLines("")).toStrictEqual(Either.right([]))
    expect(StreamChunk.decodeJsonLines(`${StreamChunk.encodeJson(StreamChunk.textDelta("a"))}\n\noops\n`))
      .toStrictEqual(
        Either.left(`line 3: not JSON: ${jsonParseError("oops")}`)
      )
  })

  it("decodeJsonLines reads SSE data lines, as text or as lines", () => {
    expect(StreamChunk.decodeJsonLines(sse)).toStrictEqual(Either.right(chunks))
    expect(StreamChunk.decodeJsonLines(sse.split("\r\n"))).toStrictEqual(Either.right(chunks))
    // one chunk's JSON over several data lines, joined with a line break; the last event needs no blank line
    expect(StreamChunk.decodeJsonLines("data: {\"type\":\ndata:  \"text-delta\",\ndata:\"delta\":\"x\"}"))
      .toStrictEqual(
        Either.right([StreamChunk.textDelta("x")])
      )
    expect(StreamChunk.decodeJsonLines("data: {\"type\":\"text-delta\",\"delta\":\"a\"}\n\n\ndata: [DONE]\n\n"))
      .toStrictEqual(
        Either.left(`line 4: not JSON: ${jsonParseError("[DONE]")}`)
      )
  })

  it.effect("decodeJsonStream reads NDJSON and SSE text cut at every offset", () =>
    Effect.gen(function*() {
      for (const text of [ndjson, sse]) {
        expect(yield* decodeText([text])).toStrictEqual(Either.right(chunks))
        for (let i = 0; i <= text.length; i++) {
          expect(yield* decodeText(cut(text, [i]))).toStrictEqual(Either.right(chunks))
        }
        expect(yield* decodeText([...text])).toStrictEqual(Either.right(chunks))
      }
    }))

  it.effect("reads bytes decoded with Stream.decodeText, a character split across reads included", () =>
    Effect.gen(function*() {
      const emoji = [StreamChunk.textDelta("ça ☀️ 👋"), StreamChunk.finish("stop")]
      const bytes = new TextEncoder().encode(emoji.map((c) => `data: ${StreamChunk.encodeJson(c)}\n\n`).join(""))
      for (let i = 0; i <= bytes.length; i++) {
        const reads = Stream.make(bytes.slice(0, i), bytes.slice(i))
        expect(Chunk.toArray(yield* Stream.runCollect(StreamChunk.decodeJsonStream(Stream.decodeText(reads)))))
          .toStrictEqual(emoji)
      }
    }))

  it("property: decodeJsonStream reads any consistent sequence however its text is cut", () => {
    fc.assert(
      fc.property(
        fc.array(Arb.chunk, { maxLength: 12 }),
        fc.constantFrom("\n", "\r\n", "\r"),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 8 }),
        (raw, eol, asSse, offsets) => {
          const expected = Arb.withConsistentAccumulation(raw)
          const text = expected.map((c) =>
            asSse ? `data: ${StreamChunk.encodeJson(c)}${eol}${eol}` : StreamChunk.encodeJson(c) + eol
          ).join("")
          const pieces = cut(text, offsets.map((o) => o % (text.length + 1)))
          expect(Effect.runSync(decodeText(pieces))).toStrictEqual(Either.right(expected))
        }
      ),
      { numRuns: 200 }
    )
  })

  it.effect("a bad line fails decodeJsonStream with a protocol LlmError naming it, after the chunks before it", () =>
    Effect.gen(function*() {
      const seen: Array<StreamChunk.StreamChunk> = []
      const text = `${StreamChunk.encodeJson(StreamChunk.textDelta("a"))}\n\n{"type":"text-delta"}\n${
        StreamChunk.encodeJson(StreamChunk.finish("stop"))
      }\n`
      const error = yield* Effect.flip(
        Stream.runForEach(StreamChunk.decodeJsonStream(Stream.make(text)), (c) => Effect.sync(() => seen.push(c)))
      )
      expect(seen).toStrictEqual([StreamChunk.textDelta("a")])
      expect(error).toBeInstanceOf(LlmError.LlmError)
      expect(LlmError.toInfo(error)).toStrictEqual({
        code: "protocol",
        message: "line 3: { readonly type: \"text-delta\"; readonly delta: string }\n└─ [\"delta\"]\n   └─ is missing",
        retryable: false
      })
      // through ensureTerminal, the same failure is the terminal error chunk
      const guarded = yield* runAll(StreamChunk.decodeJsonStream(Stream.make("data: oops\n\n")))
      expect(guarded).toStrictEqual([
        {
          type: "error",
          error: { code: "protocol", message: `line 1: not JSON: ${jsonParseError("oops")}`, retryable: false }
        }
      ])
    }))

  it.effect("the source's own failure passes through after what was decoded; text without a terminal chunk is truncated", () =>
    Effect.gen(function*() {
      const line = StreamChunk.encodeJson(StreamChunk.textDelta("a"))
      const failing = Stream.concat(Stream.make(`${line}\n${line.slice(0, 5)}`), Stream.fail("socket closed" as const))
      const seen: Array<StreamChunk.StreamChunk> = []
      const error = yield* Effect.flip(
        Stream.runForEach(StreamChunk.decodeJsonStream(failing), (c) => Effect.sync(() => seen.push(c)))
      )
      expect([error, seen]).toStrictEqual(["socket closed", [StreamChunk.textDelta("a")]])
      expect(yield* runAll(StreamChunk.decodeJsonStream(Stream.make(line, "\n")))).toStrictEqual([
        StreamChunk.textDelta("a"),
        {
          type: "error",
          error: { code: "truncated", message: "The stream ended without the provider's end marker", retryable: false }
        }
      ])
    }))

  it.effect("each run starts afresh (reasoning accumulation included)", () =>
    Effect.gen(function*() {
      const decoded = StreamChunk.decodeJsonStream(Stream.make(ndjson))
      expect(Chunk.toArray(yield* Stream.runCollect(decoded))).toStrictEqual(chunks)
      expect(Chunk.toArray(yield* Stream.runCollect(decoded))).toStrictEqual(chunks)
    }))

  it.effect("a line longer than 16 Mi characters fails with protocol instead of growing without bound", () =>
    Effect.gen(function*() {
      const max = 16 * 1024 * 1024
      const error = yield* Effect.flip(Stream.runDrain(StreamChunk.decodeJsonStream(Stream.make("x".repeat(max), "y"))))
      expect(LlmError.toInfo(error)).toStrictEqual({
        code: "protocol",
        message: `a line is longer than ${max} characters`,
        retryable: false
      })
      const event = yield* Effect.flip(
        Stream.runDrain(
          StreamChunk.decodeJsonStream(Stream.make(`data: ${"x".repeat(max / 2)}\n`, `data: ${"x".repeat(max / 2)}\n`))
        )
      )
      expect(LlmError.toInfo(event)).toStrictEqual({
        code: "protocol",
        message: `line 1: the event is longer than ${max} characters`,
        retryable: false
      })
    }))
})

describe("JSON: hostile input", () => {
  const MAX = Number.MAX_SAFE_INTEGER
  const tooDeep = "The arguments' JSON is nested too deeply (more than 64 levels of arrays and objects)"

  it("encodeJson serializes the chunks built from 100,000-deep arguments and usage objects", () => {
    const raw = "[".repeat(100_000) + "]".repeat(100_000)
    const call = new ToolCall.Assembler()
    call.add(0, raw, "c1", "deep")
    const toolCall = call.finish(0)!
    const usage = Usage.normalize({ input: 5, output: 2, raw: { nested: JSON.parse(raw) as unknown } })
    const chunks = [
      StreamChunk.toolCallDelta(0, raw, { id: "c1", name: "deep" }),
      StreamChunk.toolCall(toolCall),
      StreamChunk.usage(usage)
    ]
    expect(chunks.slice(1)).toStrictEqual([
      {
        type: "tool-call",
        toolCall: { index: 0, id: "c1", name: "deep", arguments: { raw }, rawArguments: raw, parseError: tooDeep }
      },
      { type: "usage", usage: { inputTokens: 5, outputTokens: 2, totalTokens: 7 } }
    ])
    expect(StreamChunk.decodeJsonLines(chunks.map(StreamChunk.encodeJson))).toStrictEqual(Either.right(chunks))
  })

  it("decodeJson refuses a line nested deeper than any chunk we make", () => {
    const deep = "[".repeat(100_000) + "]".repeat(100_000)
    const line = `{"type":"tool-call","toolCall":{"index":0,"id":"c","name":"f","arguments":${deep},"rawArguments":""}}`
    expect(StreamChunk.decodeJson(line)).toStrictEqual(
      Either.left("the line is nested too deeply (more than 67 levels of arrays and objects)")
    )
    // 64 levels of arguments under the chunk's two levels still read back.
    const ok = {
      index: 0,
      id: "c",
      name: "f",
      arguments: JSON.parse("[".repeat(64) + "]".repeat(64)) as unknown,
      rawArguments: ""
    }
    expect(StreamChunk.decodeJson(StreamChunk.encodeJson(StreamChunk.toolCall(ok)))).toStrictEqual(
      Either.right(StreamChunk.toolCall(ok))
    )
  })

  it("decodeJson refuses counts that are not safe non-negative integers, and numbers that read as Infinity", () => {
    expect(
      StreamChunk.decodeJson(
        "{\"type\":\"usage\",\"usage\":{\"inputTokens\":1e999,\"outputTokens\":0,\"totalTokens\":0}}"
      )
    )
      .toStrictEqual(Either.left("the line holds a number too large for JSON (it reads as Infinity)"))
    const bad = [
      { type: "usage", usage: { inputTokens: 1.5, outputTokens: 0, totalTokens: 0 } },
      { type: "usage", usage: { inputTokens: 1, outputTokens: 0, totalTokens: -1 } },
      { type: "usage", usage: { inputTokens: 1, outputTokens: 0, totalTokens: 1, cacheReadTokens: MAX + 1 } },
      { type: "cache-read", cacheReadTokens: 1e308, accumulated: 0 },
      { type: "cache-write", cacheWriteTokens: 1, accumulated: 0.25 }
    ]
    expect(bad.map((c) => Either.isLeft(StreamChunk.decodeJson(JSON.stringify(c))))).toStrictEqual(bad.map(() => true))
    const fine = StreamChunk.usage({ inputTokens: MAX, outputTokens: 0, totalTokens: MAX })
    expect(StreamChunk.decodeJson(StreamChunk.encodeJson(fine))).toStrictEqual(Either.right(fine))
  })

  it("a \"__proto__\" key in provider metadata stays an own property through encodeJson and decodeJson", () => {
    const providerMetadata = JSON.parse("{\"__proto__\":{\"polluted\":true},\"k\":1}") as Record<string, unknown>
    const chunk = StreamChunk.contentPart({ type: "source", sourceType: "url", url: "u", providerMetadata })
    const line = StreamChunk.encodeJson(chunk)
    expect(line).toBe(
      "{\"type\":\"content-part\",\"part\":{\"type\":\"source\",\"sourceType\":\"url\",\"url\":\"u\",\"providerMetadata\":{\"__proto__\":{\"polluted\":true},\"k\":1}}}"
    )
    const decoded = StreamChunk.decodeJson(line)
    expect(decoded).toStrictEqual(Either.right(chunk))
    const meta = Either.getOrThrow(decoded).type === "content-part"
      ? (Either.getOrThrow(decoded) as StreamChunk.Of<"content-part">).part.providerMetadata!
      : {}
    expect(Object.getPrototypeOf(meta)).toBe(Object.prototype)
    expect(Object.keys(meta)).toStrictEqual(["__proto__", "k"])
    expect((meta as Record<string, unknown>).polluted).toBe(undefined)
  })
})

describe("ensureTerminal", () => {
  const a = StreamChunk.textDelta("a")
  const b = StreamChunk.textDelta("b")
  const meta = StreamChunk.metadata("openai", "gpt")

  it.effect("appends the exact error chunk after earlier chunks when the stream fails with an LlmError", () =>
    Effect.gen(function*() {
      const failure = LlmError.make({
        code: "rate_limit",
        message: "slow down",
        status: 429,
        retryAfterMs: 1500,
        provider: "openai"
      })
      const out = yield* runAll(Stream.concat(Stream.make(meta, a, b), Stream.fail(failure)))
      expect(out).toStrictEqual([
        meta,
        a,
        b,
        {
          type: "error",
          error: {
            code: "rate_limit",
            message: "slow down",
            status: 429,
            retryable: true,
            retryAfterMs: 1500,
            provider: "openai"
          }
        }
      ])
    }))

  it.effect("turns a failure that is not an LlmError into code unknown", () =>
    Effect.gen(function*() {
      const withError = yield* runAll(Stream.concat(Stream.make(a), Stream.fail(new Error("socket hang up"))))
      expect(withError).toStrictEqual([
        a,
        { type: "error", error: { code: "unknown", message: "socket hang up", retryable: false } }
      ])
      const withString = yield* Effect.map(
        Stream.runCollect(
          StreamChunk.ensureTerminal(Stream.concat(Stream.make(a), Stream.fail("nope")), { provider: "groq" })
        ),
        Chunk.toArray
      )
      expect(withString).toStrictEqual([
        a,
        {
          type: "error",
          error: { code: "unknown", message: "Stream failed: nope", retryable: false, provider: "groq" }
        }
      ])
    }))

  it.effect("turns a defect into an error chunk with code unknown", () =>
    Effect.gen(function*() {
      const out = yield* runAll(Stream.concat(Stream.make(a, b), Stream.die(new Error("kaput"))))
      expect(out).toStrictEqual([
        a,
        b,
        { type: "error", error: { code: "unknown", message: "Internal defect: kaput", retryable: false } }
      ])
      const thrown = yield* runAll(
        Stream.make(a).pipe(Stream.map((c) => {
          if (c.type === "text-delta") throw new TypeError("bad decoder")
          return c
        }))
      )
      expect(thrown).toStrictEqual([
        { type: "error", error: { code: "unknown", message: "Internal defect: bad decoder", retryable: false } }
      ])
    }))

  it.effect("ends a stream without a terminal chunk with truncated", () =>
    Effect.gen(function*() {
      expect(yield* runAll(Stream.make(a, b))).toStrictEqual([
        a,
        b,
        {
          type: "error",
          error: { code: "truncated", message: "The stream ended without the provider's end marker", retryable: false }
        }
      ])
      expect(
        yield* Effect.map(
          Stream.runCollect(StreamChunk.ensureTerminal(Stream.empty, { provider: "cohere" })),
          Chunk.toArray
        )
      )
        .toStrictEqual([
          {
            type: "error",
            error: {
              code: "truncated",
              message: "The stream ended without the provider's end marker",
              retryable: false,
              provider: "cohere"
            }
          }
        ])
    }))

  it.effect("drops chunks after the first terminal, including a duplicate terminal, and stops pulling", () =>
    Effect.gen(function*() {
      let pulledAfter = 0
      const after = Stream.fromEffect(Effect.sync(() => {
        pulledAfter++
        return b
      }))
      const out = yield* runAll(
        Stream.make(a, StreamChunk.finish("stop"), StreamChunk.textDelta("late"), StreamChunk.finish("length")).pipe(
          Stream.concat(after),
          Stream.concat(Stream.fail(new Error("late failure")))
        )
      )
      expect(out).toStrictEqual([a, { type: "finish", reason: "stop" }])
      expect(pulledAfter).toBe(0)
      const dup = yield* runAll(
        Stream.make(a, StreamChunk.error(LlmError.info({ code: "server", message: "x" })), StreamChunk.finish("stop"))
      )
      expect(dup).toStrictEqual([a, { type: "error", error: { code: "server", message: "x", retryable: true } }])
    }))

  describe("a model that called a tool but said stop reports tool_calls", () => {
    const call = StreamChunk.toolCall({ index: 0, id: "c1", name: "f", arguments: { x: 1 }, rawArguments: "{\"x\":1}" })
    const delta = StreamChunk.toolCallDelta(0, "{\"x\":", { id: "c1", name: "f" })

    it.effect("a tool-call chunk turns finish stop into tool_calls, keeping the raw reason", () =>
      Effect.gen(function*() {
        expect(yield* runAll(Stream.make(meta, a, call, StreamChunk.finish("stop", "end_turn")))).toStrictEqual([
          meta,
          a,
          call,
          { type: "finish", reason: "tool_calls", rawReason: "end_turn" }
        ])
        expect(yield* runAll(Stream.make(call, StreamChunk.finish("stop")))).toStrictEqual([
          call,
          { type: "finish", reason: "tool_calls" }
        ])
      }))

    it.effect("a tool-call-delta alone counts, and so does a call in an earlier network read", () =>
      Effect.gen(function*() {
        expect(yield* runAll(Stream.make(delta, StreamChunk.finish("stop", "STOP")))).toStrictEqual([
          delta,
          { type: "finish", reason: "tool_calls", rawReason: "STOP" }
        ])
        const oneByOne = Stream.make(call, a, b, StreamChunk.finish("stop", "stop")).pipe(Stream.rechunk(1))
        expect(yield* runAll(oneByOne)).toStrictEqual([call, a, b, {
          type: "finish",
          reason: "tool_calls",
          rawReason: "stop"
        }])
        // what follows the terminal is still dropped
        expect(yield* runAll(Stream.make(call, StreamChunk.finish("stop"), b))).toStrictEqual([
          call,
          { type: "finish", reason: "tool_calls" }
        ])
      }))

    it.effect("other reasons, error chunks and answers without a call are left alone", () =>
      Effect.gen(function*() {
        expect(yield* runAll(Stream.make(call, StreamChunk.finish("length", "max_tokens")))).toStrictEqual([
          call,
          { type: "finish", reason: "length", rawReason: "max_tokens" }
        ])
        expect(yield* runAll(Stream.make(call, StreamChunk.finish("content_filter")))).toStrictEqual([
          call,
          { type: "finish", reason: "content_filter" }
        ])
        const failed = StreamChunk.error(LlmError.info({ code: "server", message: "x" }))
        expect(yield* runAll(Stream.make(call, failed))).toStrictEqual([
          call,
          { type: "error", error: { code: "server", message: "x", retryable: true } }
        ])
        expect(yield* runAll(Stream.make(a, StreamChunk.finish("stop", "end_turn")))).toStrictEqual([
          a,
          { type: "finish", reason: "stop", rawReason: "end_turn" }
        ])
      }))

    it.effect("each run of the same stream starts afresh", () =>
      Effect.gen(function*() {
        let n = 0
        const source = Stream.suspend((): Stream.Stream<StreamChunk.StreamChunk> =>
          n++ === 0 ? Stream.make(call, StreamChunk.finish("stop")) : Stream.make(a, StreamChunk.finish("stop"))
        )
        const guarded = StreamChunk.ensureTerminal(source)
        expect(Chunk.toArray(yield* Stream.runCollect(guarded))).toStrictEqual([call, {
          type: "finish",
          reason: "tool_calls"
        }])
        expect(Chunk.toArray(yield* Stream.runCollect(guarded))).toStrictEqual([a, { type: "finish", reason: "stop" }])
      }))
  })

  it.effect("ends at the terminal chunk even when the source never completes after it", () =>
    Effect.gen(function*() {
      const out = yield* runAll(Stream.concat(Stream.make(a, StreamChunk.finish("stop", "end_turn")), Stream.never))
      expect(out).toStrictEqual([a, { type: "finish", reason: "stop", rawReason: "end_turn" }])
    }))

  it.effect("closes the source as the stream ends at its terminal chunk, before what follows the stream runs", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      // A source that would go on after its terminal chunk, with a finalizer of its own.
      const source = Stream.concat(Stream.make(a, StreamChunk.finish("stop")), Stream.never).pipe(
        Stream.ensuring(Effect.sync(() => void log.push("source closed")))
      )
      const then = Stream.fromEffect(Effect.sync(() => {
        log.push("next stream")
        return b
      }))
      const out = yield* Effect.map(
        Stream.runCollect(Stream.concat(StreamChunk.ensureTerminal(source), then)),
        Chunk.toArray
      )
      expect(out).toStrictEqual([a, { type: "finish", reason: "stop" }, b])
      expect(log).toStrictEqual(["source closed", "next stream"])
      // Collected, the same: closed by the time the collection is done.
      log.length = 0
      const collected = yield* Effect.map(Stream.runCollect(StreamChunk.ensureTerminal(source)), Chunk.toArray)
      expect(collected).toStrictEqual([a, { type: "finish", reason: "stop" }])
      expect(log).toStrictEqual(["source closed"])
    }))

  it.effect("gives a consumer that stops early no terminal chunk", () =>
    Effect.gen(function*() {
      const source = Stream.make(a, b, StreamChunk.textDelta("c"), StreamChunk.finish("stop"))
      const taken = yield* Effect.map(
        Stream.runCollect(StreamChunk.ensureTerminal(source).pipe(Stream.take(2))),
        Chunk.toArray
      )
      expect(taken).toStrictEqual([a, b])
      const unfinished = yield* Effect.map(
        Stream.runCollect(StreamChunk.ensureTerminal(Stream.make(a, b)).pipe(Stream.take(2))),
        Chunk.toArray
      )
      expect(unfinished).toStrictEqual([a, b])
    }))

  it.effect("a consumer that interrupts gets no terminal chunk", () =>
    Effect.gen(function*() {
      const seen = yield* Ref.make<ReadonlyArray<StreamChunk.StreamChunk>>([])
      const first = yield* Deferred.make<void>()
      const fiber = yield* StreamChunk.ensureTerminal(Stream.concat(Stream.make(a, b), Stream.never)).pipe(
        Stream.runForEach((c) =>
          Effect.zipRight(
            Ref.update(seen, (all) => [...all, c]),
            c === b ? Deferred.succeed(first, undefined) : Effect.void
          )
        ),
        Effect.fork
      )
      yield* Deferred.await(first)
      const exit = yield* Fiber.interrupt(fiber)
      expect(Exit.isInterrupted(exit)).toBe(true)
      expect(yield* Ref.get(seen)).toStrictEqual([a, b])
    }))

  // DESIGN invariant 1: the stream "cannot fail" and always ends with one terminal chunk. An
  // interruption raised *inside* the source (a provider joining an interrupted child fiber, an
  // `Effect.interrupt` in a decoder step) is not the consumer stopping early: it must become an
  // error chunk, not interrupt the consumer. (The consumer's own interruption never reaches the
  // source's catch handler, see the test above.)
  it.effect("an interruption raised inside the source becomes an error chunk", () =>
    Effect.gen(function*() {
      const interruptedChild = Stream.fromEffect(Effect.gen(function*() {
        const child = yield* Effect.fork(Effect.never)
        yield* Fiber.interrupt(child)
        return yield* Fiber.join(child)
      }))
      const exit = yield* Effect.exit(Stream.runCollect(
        StreamChunk.ensureTerminal(Stream.concat(Stream.make(a), interruptedChild), { provider: "p" })
      ))
      expect(Exit.map(exit, Chunk.toArray)).toStrictEqual(Exit.succeed([
        a,
        {
          type: "error",
          error: { code: "unknown", message: "The stream was interrupted", retryable: false, provider: "p" }
        }
      ]))
    }))

  type Ending =
    | { readonly _tag: "fail"; readonly error: LlmError.ErrorInfo; readonly llm: boolean }
    | { readonly _tag: "die"; readonly message: string }
    | { readonly _tag: "end" }
    | {
      readonly _tag: "terminal"
      readonly terminal: StreamChunk.StreamChunk
      readonly more: ReadonlyArray<StreamChunk.StreamChunk>
      readonly thenFail: boolean
    }

  const ending: fc.Arbitrary<Ending> = fc.oneof(
    fc.tuple(Arb.errorInfo, fc.boolean()).map(([error, llm]): Ending => ({ _tag: "fail", error, llm })),
    Arb.text.map((message): Ending => ({ _tag: "die", message })),
    fc.constant<Ending>({ _tag: "end" }),
    fc.record({ terminal: Arb.terminalChunk, more: fc.array(Arb.chunk, { maxLength: 5 }), thenFail: fc.boolean() })
      .map(({ more, terminal, thenFail }): Ending => ({ _tag: "terminal", terminal, more, thenFail }))
  )

  it("every fragment of a call carries the call's id, the same as its finished tool-call", () => {
    const call = (index: number, id: string) =>
      StreamChunk.toolCall({ index, id, name: "f", arguments: {}, rawArguments: "{}" })
    const run = (chunks: ReadonlyArray<StreamChunk.StreamChunk>, size: number) =>
      Chunk.toArray(Effect.runSync(Stream.runCollect(StreamChunk.ensureTerminal(
        Stream.fromIterable(chunks).pipe(Stream.rechunk(size))
      ))))
    const script = [
      StreamChunk.metadata("p", "m", "resp_9"),
      StreamChunk.toolCallDelta(0, "{", { id: "call_a", name: "f" }),
      StreamChunk.toolCallDelta(1, "{", { name: "g" }),
      StreamChunk.toolCallDelta(0, "}"),
      StreamChunk.toolCallDelta(1, "}"),
      call(0, "call_a"),
      call(1, "resp_9_call_1"),
      StreamChunk.toolCallDelta(2, "{}"),
      call(2, "server-said-late"),
      StreamChunk.finish("tool_calls")
    ]
    for (const size of [1, 2, 3, 100]) {
      expect(run(script, size)).toStrictEqual([
        StreamChunk.metadata("p", "m", "resp_9"),
        StreamChunk.toolCallDelta(0, "{", { id: "call_a", name: "f" }),
        StreamChunk.toolCallDelta(1, "{", { id: "resp_9_call_1", name: "g" }),
        StreamChunk.toolCallDelta(0, "}", { id: "call_a" }),
        StreamChunk.toolCallDelta(1, "}", { id: "resp_9_call_1" }),
        call(0, "call_a"),
        call(1, "resp_9_call_1"),
        // A call whose id came only with its end keeps the id its fragments went out with.
        StreamChunk.toolCallDelta(2, "{}", { id: "resp_9_call_2" }),
        call(2, "resp_9_call_2"),
        StreamChunk.finish("tool_calls")
      ])
    }
    // Without a response id: call_<index>, as decoders synthesize them.
    expect(run([StreamChunk.toolCallDelta(0, "{}", { name: "f" }), call(0, "call_0"), StreamChunk.finish("stop")], 1))
      .toStrictEqual([
        StreamChunk.toolCallDelta(0, "{}", { id: "call_0", name: "f" }),
        call(0, "call_0"),
        StreamChunk.finish("tool_calls")
      ])
  })

  it("property: any script ends with exactly one terminal chunk and keeps every earlier chunk in order", () => {
    fc.assert(
      fc.property(
        fc.array(Arb.nonTerminalChunk, { maxLength: 15 }),
        ending,
        fc.integer({ min: 1, max: 6 }),
        (prefix, end, chunkSize) => {
          let tail: Stream.Stream<StreamChunk.StreamChunk, unknown>
          let expectedLast: StreamChunk.StreamChunk
          switch (end._tag) {
            case "fail":
              if (end.llm) {
                const e = new LlmError.LlmError(end.error)
                tail = Stream.fail(e)
                expectedLast = { type: "error", error: LlmError.toInfo(e) }
              } else {
                tail = Stream.fail(end.error.message)
                expectedLast = {
                  type: "error",
                  error: {
                    code: "unknown",
                    message: `Stream failed: ${end.error.message}`,
                    retryable: false,
                    provider: "p"
                  }
                }
              }
              break
            case "die":
              tail = Stream.die(new Error(end.message))
              expectedLast = {
                type: "error",
                error: { code: "unknown", message: `Internal defect: ${end.message}`, retryable: false, provider: "p" }
              }
              break
            case "end":
              tail = Stream.empty
              expectedLast = {
                type: "error",
                error: {
                  code: "truncated",
                  message: "The stream ended without the provider's end marker",
                  retryable: false,
                  provider: "p"
                }
              }
              break
            case "terminal": {
              tail = Stream.concat(
                Stream.fromIterable([end.terminal, ...end.more]),
                end.thenFail ? Stream.fail("after the end") : Stream.empty
              )
              const calledTool = prefix.some((c) => c.type === "tool-call" || c.type === "tool-call-delta")
              // A model that called a tool but said "stop" reports tool_calls (raw reason kept).
              expectedLast = calledTool && end.terminal.type === "finish" && end.terminal.reason === "stop"
                ? { ...end.terminal, reason: "tool_calls" }
                : end.terminal
              break
            }
          }
          const source = Stream.concat(Stream.fromIterable(prefix), tail).pipe(Stream.rechunk(chunkSize))
          const out = Chunk.toArray(
            Effect.runSync(Stream.runCollect(StreamChunk.ensureTerminal(source, { provider: "p" })))
          )
          expect(out).toStrictEqual([...withCallIds(prefix), expectedLast])
          expect(out.filter(StreamChunk.isTerminal).length).toBe(1)
        }
      ),
      { numRuns: 200 }
    )
  })
})
