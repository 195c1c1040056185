/** The pure Bedrock decoder, fed frames as the event-stream framer hands them over. */
import { describe, expect, it } from "vitest"
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
        { type: "finish", reason: "stop", rawReason: "end_turn" }
      ])
  })
})
