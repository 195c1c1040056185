/** The pure Bedrock decoder, fed frames as the event-stream framer hands them over. */
import { describe, expect, it } from "vitest"
import * as Events from "../../../src/providers/bedrock/events.js"
import { blockStop, decode, delta, ev, exception, META, metadata, start, stop, toolStart } from "./support.js"

describe("Bedrock decoder", () => {
  it("holds the finish until metadata, and reports cache reads and writes inside inputTokens", () => {
    expect(decode([
      start,
      delta(0, { text: "Hi" }),
      blockStop(0),
      stop("end_turn"),
      metadata({
        inputTokens: 10,
        outputTokens: 2,
        totalTokens: 42,
        cacheReadInputTokens: 20,
        cacheWriteInputTokens: 10
      })
    ])).toStrictEqual([
      META,
      { type: "text-delta", delta: "Hi" },
      {
        type: "usage",
        usage: {
          inputTokens: 40,
          outputTokens: 2,
          totalTokens: 42,
          cacheReadTokens: 20,
          cacheWriteTokens: 10,
          raw: {
            inputTokens: 10,
            outputTokens: 2,
            totalTokens: 42,
            cacheReadInputTokens: 20,
            cacheWriteInputTokens: 10,
            metrics: { latencyMs: 10 }
          }
        }
      },
      { type: "cache-read", cacheReadTokens: 20, accumulated: 20 },
      { type: "cache-write", cacheWriteTokens: 10, accumulated: 10 },
      { type: "finish", reason: "stop", rawReason: "end_turn" }
    ])
  })

  it("no messageStop: no terminal chunk (ensureTerminal reports truncated); messageStop without metadata finishes at the end", () => {
    expect(decode([start, delta(0, { text: "Hi" })])).toStrictEqual([META, { type: "text-delta", delta: "Hi" }])
    expect(decode([start, stop("max_tokens")])).toStrictEqual([
      META,
      { type: "finish", reason: "length", rawReason: "max_tokens" }
    ])
  })

  it("maps every stop reason, keeping the raw one", () => {
    const reasons = [
      ["end_turn", "stop"],
      ["stop_sequence", "stop"],
      ["tool_use", "tool_calls"],
      ["max_tokens", "length"],
      ["model_context_window_exceeded", "length"],
      ["guardrail_intervened", "content_filter"],
      ["content_filtered", "content_filter"],
      ["malformed_model_output", "error"],
      ["malformed_tool_use", "error"]
    ] as const
    for (const [raw, reason] of reasons) {
      expect(decode([stop(raw), metadata({ inputTokens: 1, outputTokens: 1, totalTokens: 2 })]).at(-1))
        .toStrictEqual({ type: "finish", reason, rawReason: raw })
    }
  })

  it("reasoning: text and signature in one chunk; redacted content as its own block", () => {
    expect(decode([
      delta(0, { reasoningContent: { redactedContent: "b64==" } }),
      blockStop(0),
      delta(1, { reasoningContent: { text: "Hmm" } }),
      delta(1, { reasoningContent: { text: "" } }),
      delta(1, { reasoningContent: { signature: "sig" } }),
      blockStop(1),
      stop("end_turn")
    ])).toStrictEqual([
      META,
      { type: "reasoning", text: "", redacted: "b64==" },
      { type: "reasoning-delta", delta: "Hmm", accumulated: "Hmm" },
      { type: "reasoning", text: "Hmm", signature: "sig" },
      { type: "finish", reason: "stop", rawReason: "end_turn" }
    ])
  })

  it("tool calls: id and name on the first delta (the service repeats the id); no input → {}; input without a start still a call", () => {
    expect(decode([
      toolStart(0, "tooluse_a", "get_weather"),
      delta(0, { toolUse: { input: "{\"city\":" } }),
      delta(0, { toolUse: { input: "\"Paris\"}" } }),
      blockStop(0),
      toolStart(1, "tooluse_b", "noop"),
      delta(1, { toolUse: { input: "" } }),
      blockStop(1),
      delta(2, { toolUse: { input: "{}" } }),
      stop("tool_use")
    ])).toStrictEqual([
      META,
      { type: "tool-call-delta", index: 0, id: "tooluse_a", name: "get_weather", argumentsDelta: "{\"city\":" },
      { type: "tool-call-delta", index: 0, argumentsDelta: "\"Paris\"}" },
      {
        type: "tool-call",
        toolCall: {
          index: 0,
          id: "tooluse_a",
          name: "get_weather",
          arguments: { city: "Paris" },
          rawArguments: "{\"city\":\"Paris\"}"
        }
      },
      { type: "tool-call", toolCall: { index: 1, id: "tooluse_b", name: "noop", arguments: {}, rawArguments: "" } },
      { type: "tool-call-delta", index: 2, id: "call_2", argumentsDelta: "{}" },
      { type: "tool-call", toolCall: { index: 2, id: "call_2", name: "", arguments: {}, rawArguments: "{}" } },
      { type: "finish", reason: "tool_calls", rawReason: "tool_use" }
    ])
  })

  it("exception and error messages end the stream; nothing after", () => {
    expect(decode([
      delta(0, { text: "x" }),
      exception("throttlingException", { message: "Slow down" }),
      delta(0, { text: "never" })
    ])).toStrictEqual([
      META,
      { type: "text-delta", delta: "x" },
      {
        type: "error",
        error: {
          code: "rate_limit",
          message: "Slow down",
          provider: "bedrock",
          retryable: true,
          details: { type: "throttlingException", body: { message: "Slow down" } }
        }
      }
    ])
    const errorFrame = {
      ...ev("", ""),
      messageType: "error",
      eventType: undefined,
      errorCode: "InternalFailure",
      errorMessage: "Broke"
    }
    expect(decode([errorFrame]).at(-1)).toMatchObject({ type: "error", error: { code: "server", message: "Broke" } })
  })

  it("a payload that is not a JSON object is a protocol error; unknown events are skipped", () => {
    expect(decode([ev("contentBlockDelta", "{not json")]).at(-1)).toMatchObject({
      type: "error",
      error: { code: "protocol", message: "The stream sent an event that is not a JSON object: \"{not json\"" }
    })
    expect(decode([ev("somethingNew", { a: 1 }), delta(0, { citation: { title: "t" } }), stop("end_turn")]))
      .toStrictEqual([
        META,
        {
          type: "content-part",
          part: { type: "source", sourceType: "document", title: "t", providerMetadata: { citation: { title: "t" } } }
        },
        { type: "finish", reason: "stop", rawReason: "end_turn" }
      ])
  })
})

describe("Bedrock decoder: nothing the stream carries is lost", () => {
  const docCitation = {
    location: { documentPage: { documentIndex: 0, start: 1, end: 2 } },
    sourceContent: [{ text: "Generative AI predicts outputs." }],
    title: "document"
  }
  const webCitation = {
    location: { web: { url: "https://example.com/a", domain: "example.com" } },
    sourceContent: [{ text: "A quoted line." }],
    title: "Example A"
  }

  it("a citation delta becomes a source part (document, or url for a web location), its text kept in the block", () => {
    expect(decode([
      start,
      delta(0, { text: "Based on it, " }),
      blockStop(0),
      delta(1, { citation: docCitation }),
      delta(1, { text: "AI predicts" }),
      blockStop(1),
      delta(2, { citation: webCitation }),
      delta(2, { text: "." }),
      blockStop(2),
      stop("end_turn")
    ])).toStrictEqual([
      META,
      { type: "text-delta", delta: "Based on it, " },
      {
        type: "content-part",
        part: { type: "source", sourceType: "document", title: "document", providerMetadata: { citation: docCitation } }
      },
      { type: "text-delta", delta: "AI predicts" },
      {
        type: "content-part",
        part: {
          type: "source",
          sourceType: "url",
          url: "https://example.com/a",
          title: "Example A",
          providerMetadata: { citation: webCitation }
        }
      },
      { type: "text-delta", delta: "." },
      { type: "finish", reason: "stop", rawReason: "end_turn" }
    ])
  })

  it("a server tool call and its result become provider-tool parts, not client tool calls", () => {
    expect(decode([
      start,
      ev("contentBlockStart", {
        contentBlockIndex: 0,
        start: { toolUse: { toolUseId: "tooluse_s1", name: "nova_grounding", type: "server_tool_use" } }
      }),
      delta(0, { toolUse: { input: "{\"query\":" } }),
      delta(0, { toolUse: { input: "\"weather Paris\"}" } }),
      blockStop(0),
      ev("contentBlockStart", {
        contentBlockIndex: 1,
        start: { toolResult: { toolUseId: "tooluse_s1", type: "nova_grounding_result", status: "success" } }
      }),
      delta(1, { toolResult: [{ text: "Sunny, " }] }),
      delta(1, { toolResult: [{ text: "22 C" }] }),
      blockStop(1),
      delta(2, { text: "Sunny." }),
      stop("end_turn")
    ])).toStrictEqual([
      META,
      {
        type: "content-part",
        part: {
          type: "provider-tool",
          kind: "call",
          id: "tooluse_s1",
          name: "nova_grounding",
          input: { query: "weather Paris" }
        }
      },
      {
        type: "content-part",
        part: {
          type: "provider-tool",
          kind: "result",
          id: "tooluse_s1",
          name: "nova_grounding",
          output: "Sunny, 22 C",
          isError: false,
          providerMetadata: { type: "nova_grounding_result", status: "success" }
        }
      },
      { type: "text-delta", delta: "Sunny." },
      { type: "finish", reason: "stop", rawReason: "end_turn" }
    ])
  })

  it("a tool result of JSON deltas keeps each value; an error status is isError; an image block is an image part", () => {
    expect(decode([
      start,
      ev("contentBlockStart", { contentBlockIndex: 0, start: { toolResult: { toolUseId: "t1", status: "error" } } }),
      delta(0, { toolResult: [{ json: { a: 1 } }] }),
      delta(0, { toolResult: [{ json: { b: 2 } }] }),
      blockStop(0),
      ev("contentBlockStart", { contentBlockIndex: 1, start: { image: { format: "png" } } }),
      delta(1, { image: { source: { bytes: "iVBO" } } }),
      delta(1, { image: { source: { bytes: "Rw0K" } } }),
      blockStop(1),
      stop("end_turn")
    ])).toStrictEqual([
      META,
      {
        type: "content-part",
        part: {
          type: "provider-tool",
          kind: "result",
          id: "t1",
          name: "tool",
          output: [{ json: { a: 1 } }, { json: { b: 2 } }],
          isError: true,
          providerMetadata: { status: "error" }
        }
      },
      { type: "content-part", part: { type: "image", mediaType: "image/png", data: "iVBORw0K" } },
      { type: "finish", reason: "stop", rawReason: "end_turn" }
    ])
  })

  it("a tool call whose input never arrives, and calls interleaved by index, each decode on their own", () => {
    expect(
      decode([
        toolStart(0, "tooluse_a", "a"),
        toolStart(1, "tooluse_b", "b"),
        delta(1, { toolUse: { input: "{\"x\":" } }),
        delta(0, { toolUse: { input: "{\"y\":2}" } }),
        delta(1, { toolUse: { input: "1}" } }),
        blockStop(1),
        toolStart(2, "tooluse_c", "c"),
        blockStop(2),
        blockStop(0),
        stop("tool_use")
      ]).filter((c) => c.type === "tool-call")
    ).toStrictEqual([
      {
        type: "tool-call",
        toolCall: { index: 1, id: "tooluse_b", name: "b", arguments: { x: 1 }, rawArguments: "{\"x\":1}" }
      },
      { type: "tool-call", toolCall: { index: 2, id: "tooluse_c", name: "c", arguments: {}, rawArguments: "" } },
      {
        type: "tool-call",
        toolCall: { index: 0, id: "tooluse_a", name: "a", arguments: { y: 2 }, rawArguments: "{\"y\":2}" }
      }
    ])
  })

  it("metadata keeps trace, performanceConfig and serviceTier in usage.raw; metadata before messageStop still finishes once", () => {
    const trace = { guardrail: { modelOutput: ["x"] } }
    const chunks = decode([
      start,
      delta(0, { text: "Hi" }),
      ev("metadata", {
        usage: { inputTokens: 3, outputTokens: 1, totalTokens: 4 },
        metrics: { latencyMs: 7 },
        trace,
        performanceConfig: { latency: "optimized" },
        serviceTier: { type: "priority" }
      }),
      stop("end_turn"),
      stop("end_turn")
    ])
    expect(chunks.slice(2)).toStrictEqual([
      {
        type: "usage",
        usage: {
          inputTokens: 3,
          outputTokens: 1,
          totalTokens: 4,
          raw: {
            inputTokens: 3,
            outputTokens: 1,
            totalTokens: 4,
            metrics: { latencyMs: 7 },
            trace,
            performanceConfig: { latency: "optimized" },
            serviceTier: { type: "priority" }
          }
        }
      },
      { type: "finish", reason: "stop", rawReason: "end_turn" }
    ])
  })

  it("an unknown event type is skipped whatever its payload; a known one that is not JSON is a protocol error", () => {
    expect(
      decode([
        start,
        ev("somethingNew", "not json at all"),
        ev("futureEvent", ""),
        delta(0, { text: "ok" }),
        stop("end_turn")
      ])
    )
      .toStrictEqual([
        META,
        { type: "text-delta", delta: "ok" },
        { type: "finish", reason: "stop", rawReason: "end_turn" }
      ])
    expect(decode([start, ev("metadata", "")]).at(-1)).toMatchObject({ type: "error", error: { code: "protocol" } })
  })

  it("token counts that are strings, negative or absent count as absent, never NaN", () => {
    const chunks = decode([
      start,
      delta(0, { text: "Hi" }),
      stop("end_turn"),
      metadata({ inputTokens: "12", outputTokens: -3 })
    ])
    expect(chunks.at(-2)).toStrictEqual({
      type: "usage",
      usage: {
        inputTokens: 0,
        outputTokens: 0,
        totalTokens: 0,
        raw: { inputTokens: "12", outputTokens: -3, metrics: { latencyMs: 10 } }
      }
    })
  })

  it("the JSON response tool (responseFormat) streams its input as text, and its tool_use stop is a stop", () => {
    expect(decode([
      start,
      toolStart(0, "tooluse_j", Events.jsonToolName),
      delta(0, { toolUse: { input: "{\"city\":" } }),
      delta(0, { toolUse: { input: "\"Paris\"}" } }),
      blockStop(0),
      stop("tool_use")
    ])).toStrictEqual([
      META,
      { type: "text-delta", delta: "{\"city\":" },
      { type: "text-delta", delta: "\"Paris\"}" },
      { type: "finish", reason: "stop", rawReason: "tool_use" }
    ])
  })
})
