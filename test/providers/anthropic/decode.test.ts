/**
 * The Anthropic decoder driven with plain arrays of events: every chunk written out.
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { describe, expect, it } from "vitest"
import * as Response from "../../../src/Response.js"
import * as StreamChunk from "../../../src/StreamChunk.js"
import {
  blockStart,
  blockStop,
  decode,
  delta,
  ev,
  frame,
  messageDelta,
  META,
  own,
  ping,
  start,
  stop
} from "./support.js"

const usage = (fields: Record<string, unknown>) => ({ type: "usage", usage: fields })

describe("text", () => {
  it("streams text between the metadata/usage of message_start and the finish of message_stop", () => {
    expect(decode(frame(own("text.sse")))).toStrictEqual([
      { type: "metadata", provider: "anthropic", model: "claude-sonnet-4-5-20250929", responseId: "msg_text_1" },
      usage({
        inputTokens: 1049,
        outputTokens: 1,
        totalTokens: 1050,
        cacheReadTokens: 1024,
        cacheWriteTokens: 0,
        raw: {
          input_tokens: 25,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 1024,
          cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
          output_tokens: 1,
          service_tier: "standard"
        }
      }),
      { type: "cache-read", cacheReadTokens: 1024, accumulated: 1024 },
      { type: "text-delta", delta: "Bonjour" },
      { type: "text-delta", delta: " ! Comment ça va" },
      { type: "text-delta", delta: " aujourd'hui ?" },
      usage({
        inputTokens: 1049,
        outputTokens: 12,
        totalTokens: 1061,
        cacheReadTokens: 1024,
        cacheWriteTokens: 0,
        raw: {
          input_tokens: 25,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 1024,
          cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
          output_tokens: 12,
          service_tier: "standard"
        }
      }),
      { type: "finish", reason: "stop", rawReason: "end_turn" }
    ])
  })

  it("text sent whole in content_block_start, and a text delta for a block never started, are text", () => {
    const chunks = decode([
      start(),
      blockStart(0, { type: "text", text: "Hello" }),
      delta(0, { type: "text_delta", text: " there" }),
      delta(5, { type: "text_delta", text: "!" }),
      blockStop(0),
      messageDelta("end_turn"),
      stop
    ])
    expect(chunks.filter((c) => c.type === "text-delta")).toStrictEqual([
      { type: "text-delta", delta: "Hello" },
      { type: "text-delta", delta: " there" },
      { type: "text-delta", delta: "!" }
    ])
  })
})

describe("reasoning", () => {
  it("thinking deltas, then a reasoning chunk with the signature; redacted thinking whole", () => {
    const chunks = decode(frame(own("thinking.sse")))
    expect(chunks.filter((c) => c.type !== "usage")).toStrictEqual([
      { type: "metadata", provider: "anthropic", model: "claude-opus-4-1-20250805", responseId: "msg_think_1" },
      { type: "cache-write", cacheWriteTokens: 300, accumulated: 300 },
      { type: "reasoning-delta", delta: "925 ÷ 5", accumulated: "925 ÷ 5" },
      { type: "reasoning-delta", delta: " = 185", accumulated: "925 ÷ 5 = 185" },
      { type: "reasoning", text: "925 ÷ 5 = 185", signature: "EvQBCkYIsig0001" },
      { type: "reasoning", text: "", redacted: "EmwKAhgBEgyRedacted0001" },
      { type: "text-delta", delta: "185" },
      { type: "finish", reason: "length", rawReason: "max_tokens" }
    ])
    const { raw: _raw, ...last } = chunks.filter((c) => c.type === "usage").at(-1)!.usage
    expect(last).toStrictEqual({
      inputTokens: 369,
      outputTokens: 53,
      totalTokens: 422,
      cacheReadTokens: 0,
      cacheWriteTokens: 300,
      reasoningTokens: 40
    })
  })

  it("accumulated runs across blocks; a block the server never closed is closed at message_stop", () => {
    const chunks = decode([
      start(),
      blockStart(0, { type: "thinking", thinking: "", signature: "" }),
      delta(0, { type: "thinking_delta", thinking: "one" }),
      delta(0, { type: "signature_delta", signature: "s1" }),
      blockStop(0),
      blockStart(1, { type: "thinking", thinking: "two", signature: "" }),
      messageDelta("end_turn"),
      stop
    ])
    expect(chunks.filter((c) => c.type.startsWith("reasoning"))).toStrictEqual([
      { type: "reasoning-delta", delta: "one", accumulated: "one" },
      { type: "reasoning", text: "one", signature: "s1" },
      { type: "reasoning-delta", delta: "two", accumulated: "onetwo" },
      { type: "reasoning", text: "two" }
    ])
  })
})

describe("tool calls", () => {
  it("fragments keyed by block, the id and name on the first, a no-argument call as {}", () => {
    const chunks = decode(frame(own("tool-use.sse")))
    expect(chunks.filter((c) => c.type !== "usage" && c.type !== "metadata")).toStrictEqual([
      { type: "text-delta", delta: "Checking both." },
      {
        type: "tool-call-delta",
        index: 0,
        argumentsDelta: "{\"city\": \"Par",
        id: "toolu_01Weather",
        name: "get_weather"
      },
      { type: "tool-call-delta", index: 0, argumentsDelta: "is\", \"unit\": \"celsius\"}" },
      {
        type: "tool-call",
        toolCall: {
          index: 0,
          id: "toolu_01Weather",
          name: "get_weather",
          arguments: { city: "Paris", unit: "celsius" },
          rawArguments: "{\"city\": \"Paris\", \"unit\": \"celsius\"}"
        }
      },
      {
        type: "tool-call",
        toolCall: { index: 1, id: "toolu_02Clock", name: "current_time", arguments: {}, rawArguments: "" }
      },
      { type: "finish", reason: "tool_calls", rawReason: "tool_use" }
    ])
  })

  it("input sent whole at the start (no deltas) is the arguments; invalid JSON is kept raw", () => {
    const chunks = decode([
      start(),
      blockStart(0, { type: "tool_use", id: "toolu_a", name: "a", input: { q: 1 } }),
      blockStop(0),
      blockStart(1, { type: "tool_use", id: "toolu_b", name: "b", input: {} }),
      delta(1, { type: "input_json_delta", partial_json: "{\"x\":" }),
      blockStop(1),
      messageDelta("tool_use"),
      stop
    ])
    expect(chunks.filter((c) => c.type === "tool-call-delta" || c.type === "tool-call")).toStrictEqual([
      { type: "tool-call-delta", index: 0, argumentsDelta: "{\"q\":1}", id: "toolu_a", name: "a" },
      {
        type: "tool-call",
        toolCall: { index: 0, id: "toolu_a", name: "a", arguments: { q: 1 }, rawArguments: "{\"q\":1}" }
      },
      { type: "tool-call-delta", index: 1, argumentsDelta: "{\"x\":", id: "toolu_b", name: "b" },
      {
        type: "tool-call",
        toolCall: {
          index: 1,
          id: "toolu_b",
          name: "b",
          arguments: { raw: "{\"x\":" },
          rawArguments: "{\"x\":",
          parseError: "Unexpected end of JSON input"
        }
      }
    ])
  })
})

describe("the JSON answer tool (responseFormat)", () => {
  it("json-response.sse: thinking, then json_response's input as text deltas; no tool call; tool_use is a stop", () => {
    expect(decode(frame(own("json-response.sse")))).toStrictEqual([
      { type: "metadata", provider: "anthropic", model: "claude-sonnet-4-5-20250929", responseId: "msg_json_1" },
      usage({
        inputTokens: 512,
        outputTokens: 3,
        totalTokens: 515,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        raw: {
          input_tokens: 512,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          output_tokens: 3
        }
      }),
      { type: "reasoning-delta", delta: "Paris is the capital;", accumulated: "Paris is the capital;" },
      {
        type: "reasoning-delta",
        delta: " answer through json_response.",
        accumulated: "Paris is the capital; answer through json_response."
      },
      {
        type: "reasoning",
        text: "Paris is the capital; answer through json_response.",
        signature: "EqQBCkYIsigJson0001"
      },
      { type: "text-delta", delta: "{\"city\": \"Par" },
      { type: "text-delta", delta: "is\", \"population\": 2102650" },
      { type: "text-delta", delta: "}" },
      usage({
        inputTokens: 512,
        outputTokens: 61,
        totalTokens: 573,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        raw: {
          input_tokens: 512,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          output_tokens: 61
        }
      }),
      { type: "finish", reason: "stop", rawReason: "tool_use" }
    ])
    const response = Response.fromChunks(decode(frame(own("json-response.sse"))))
    expect([response.text, response.toolCalls, response.finishReason]).toStrictEqual([
      "{\"city\": \"Paris\", \"population\": 2102650}",
      [],
      "stop"
    ])
  })

  it("input sent whole at the start is the answer; beside a call of the caller's the finish stays tool_calls", () => {
    const chunks = decode([
      start(),
      blockStart(0, { type: "tool_use", id: "toolu_j", name: "json_response", input: { n: 1 } }),
      blockStop(0),
      blockStart(1, { type: "tool_use", id: "toolu_w", name: "get_weather", input: {} }),
      delta(1, { type: "input_json_delta", partial_json: "{}" }),
      blockStop(1),
      messageDelta("tool_use"),
      stop
    ])
    expect(chunks.filter((c) => c.type !== "usage" && c.type !== "metadata")).toStrictEqual([
      { type: "text-delta", delta: "{\"n\":1}" },
      { type: "tool-call-delta", index: 0, argumentsDelta: "{}", id: "toolu_w", name: "get_weather" },
      {
        type: "tool-call",
        toolCall: { index: 0, id: "toolu_w", name: "get_weather", arguments: {}, rawArguments: "{}" }
      },
      { type: "finish", reason: "tool_calls", rawReason: "tool_use" }
    ])
  })
})

describe("server tools and citations", () => {
  it("server_tool_use → provider-tool call, its result → provider-tool result, citations → sources", () => {
    const chunks = decode(frame(own("web-search.sse")))
    expect(chunks.filter((c) => c.type === "content-part" || c.type === "text-delta")).toStrictEqual([
      {
        type: "content-part",
        part: {
          type: "provider-tool",
          kind: "call",
          id: "srvtoolu_01Search",
          name: "web_search",
          input: { query: "effect ts" }
        }
      },
      {
        type: "content-part",
        part: {
          type: "provider-tool",
          kind: "result",
          id: "srvtoolu_01Search",
          name: "web_search",
          output: [{
            type: "web_search_result",
            title: "Effect",
            url: "https://effect.website",
            encrypted_content: "EqgfCioIARgB",
            page_age: null
          }]
        }
      },
      {
        type: "content-part",
        part: {
          type: "source",
          sourceType: "url",
          url: "https://effect.website",
          title: "Effect",
          providerMetadata: {
            type: "web_search_result_location",
            cited_text: "Effect is a TypeScript library",
            url: "https://effect.website",
            title: "Effect",
            encrypted_index: "Eo8BCioI"
          }
        }
      },
      { type: "text-delta", delta: "Effect is a TypeScript library." }
    ])
    expect(chunks.at(-1)).toStrictEqual({ type: "finish", reason: "stop", rawReason: "end_turn" })
  })

  it("an error result, an MCP call and result, and a document citation", () => {
    const chunks = decode([
      start(),
      blockStart(0, { type: "server_tool_use", id: "srvtoolu_x", name: "web_fetch", input: {} }),
      blockStop(0),
      blockStart(1, {
        type: "web_fetch_tool_result",
        tool_use_id: "srvtoolu_x",
        content: { type: "web_fetch_tool_result_error", error_code: "url_not_accessible" }
      }),
      blockStop(1),
      blockStart(2, { type: "mcp_tool_use", id: "mcptoolu_1", name: "echo", server_name: "tools", input: { a: 1 } }),
      blockStop(2),
      blockStart(3, { type: "mcp_tool_result", tool_use_id: "mcptoolu_1", is_error: true, content: [] }),
      blockStop(3),
      blockStart(4, { type: "text", text: "" }),
      delta(4, {
        type: "citations_delta",
        citation: {
          type: "page_location",
          cited_text: "x",
          document_index: 0,
          document_title: "Spec",
          start_page_number: 2,
          end_page_number: 3
        }
      }),
      blockStop(4),
      messageDelta("pause_turn"),
      stop
    ])
    expect(chunks.filter((c) => c.type === "content-part").map((c) => c.type === "content-part" && c.part))
      .toStrictEqual([
        { type: "provider-tool", kind: "call", id: "srvtoolu_x", name: "web_fetch", input: {} },
        {
          type: "provider-tool",
          kind: "result",
          id: "srvtoolu_x",
          name: "web_fetch",
          output: { type: "web_fetch_tool_result_error", error_code: "url_not_accessible" },
          isError: true
        },
        {
          type: "provider-tool",
          kind: "call",
          id: "mcptoolu_1",
          name: "echo",
          input: { a: 1 },
          providerMetadata: { serverName: "tools" }
        },
        { type: "provider-tool", kind: "result", id: "mcptoolu_1", name: "echo", output: [], isError: true },
        {
          type: "source",
          sourceType: "document",
          title: "Spec",
          providerMetadata: {
            type: "page_location",
            cited_text: "x",
            document_index: 0,
            document_title: "Spec",
            start_page_number: 2,
            end_page_number: 3
          }
        }
      ])
    expect(chunks.at(-1)).toStrictEqual({ type: "finish", reason: "stop", rawReason: "pause_turn" })
  })
})

describe("usage", () => {
  it("message_delta is cumulative: last value per field, input including cache, a changed cache count reported again", () => {
    const chunks = decode([
      start({ input_tokens: 2, cache_creation_input_tokens: 3068, cache_read_input_tokens: 0, output_tokens: 69 }),
      blockStart(0, { type: "text", text: "" }),
      delta(0, { type: "text_delta", text: "ok" }),
      blockStop(0),
      messageDelta("end_turn", {
        input_tokens: 6,
        cache_creation_input_tokens: 3337,
        cache_read_input_tokens: 6289,
        output_tokens: 198
      }),
      messageDelta("end_turn", {
        input_tokens: 6,
        cache_creation_input_tokens: 3337,
        cache_read_input_tokens: 6289,
        output_tokens: 198
      }),
      stop
    ])
    expect(chunks.map((c) => (c.type === "usage" ? { ...c, usage: { ...c.usage, raw: undefined } } : c))).toStrictEqual(
      [
        META,
        usage({
          inputTokens: 3070,
          outputTokens: 69,
          totalTokens: 3139,
          cacheReadTokens: 0,
          cacheWriteTokens: 3068,
          raw: undefined
        }),
        { type: "cache-write", cacheWriteTokens: 3068, accumulated: 3068 },
        { type: "text-delta", delta: "ok" },
        usage({
          inputTokens: 9632,
          outputTokens: 198,
          totalTokens: 9830,
          cacheReadTokens: 6289,
          cacheWriteTokens: 3337,
          raw: undefined
        }),
        { type: "cache-read", cacheReadTokens: 6289, accumulated: 6289 },
        { type: "cache-write", cacheWriteTokens: 3337, accumulated: 3337 },
        { type: "finish", reason: "stop", rawReason: "end_turn" }
      ]
    )
  })

  it("a message_delta with output only keeps the input of message_start; raw merges both objects", () => {
    const chunks = decode([
      start({ input_tokens: 17, output_tokens: 1 }),
      messageDelta("end_turn", { output_tokens: 227 }),
      stop
    ])
    expect(chunks.filter((c) => c.type === "usage").at(-1)).toStrictEqual(
      usage({ inputTokens: 17, outputTokens: 227, totalTokens: 244, raw: { input_tokens: 17, output_tokens: 227 } })
    )
  })
})

describe("stop reasons", () => {
  const cases: ReadonlyArray<readonly [string, StreamChunk.FinishReason]> = [
    ["end_turn", "stop"],
    ["max_tokens", "length"],
    ["stop_sequence", "stop"],
    ["tool_use", "tool_calls"],
    ["pause_turn", "stop"],
    ["refusal", "content_filter"],
    ["model_context_window_exceeded", "length"],
    ["some_future_reason", "stop"]
  ]
  for (const [raw, reason] of cases) {
    it(`${raw} → ${reason}`, () => {
      expect(decode([start(), messageDelta(raw), stop]).at(-1)).toStrictEqual({
        type: "finish",
        reason,
        rawReason: raw
      })
    })
  }

  it("a refusal with stop_details and no content: a refusal part with the explanation", () => {
    const details = { type: "refusal", category: "cyber", explanation: "Blocked under the Usage Policy." }
    const chunks = decode([
      start(),
      ping,
      messageDelta("refusal", { output_tokens: 5 }, { stop_details: details }),
      stop
    ])
    expect(chunks.filter((c) => c.type !== "usage")).toStrictEqual([
      META,
      {
        type: "content-part",
        part: { type: "refusal", text: "Blocked under the Usage Policy.", providerMetadata: details }
      },
      { type: "finish", reason: "content_filter", rawReason: "refusal" }
    ])
    expect(Response.fromChunks(chunks).message).toStrictEqual({
      role: "assistant",
      content: "",
      refusal: "Blocked under the Usage Policy."
    })
  })

  it("message_stop without message_delta still finishes (stop, no raw reason)", () => {
    expect(decode([start(), stop]).at(-1)).toStrictEqual({ type: "finish", reason: "stop" })
  })
})

describe("errors inside a 200 stream", () => {
  const overloaded = ev({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } })

  it("overloaded_error → overloaded, retryable, no status", () => {
    expect(decode([start(), overloaded])).toStrictEqual([
      META,
      usage({ inputTokens: 10, outputTokens: 1, totalTokens: 11, raw: { input_tokens: 10, output_tokens: 1 } }),
      {
        type: "error",
        error: {
          code: "overloaded",
          message: "Overloaded",
          retryable: true,
          provider: "anthropic",
          details: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }
        }
      }
    ])
  })

  it("other error types keep their meaning; nothing follows the error", () => {
    const chunks = decode([
      start(),
      ev({ type: "error", error: { type: "api_error", message: "Internal server error" } }),
      blockStart(0, { type: "text", text: "late" }),
      stop
    ])
    const last = chunks.at(-1)
    expect(last?.type === "error" && [last.error.code, last.error.message, last.error.retryable])
      .toStrictEqual(["server", "Internal server error", true])
    expect(chunks.filter((c) => c.type === "text-delta" || c.type === "finish")).toStrictEqual([])
  })

  it("an event: error whose data is not JSON is an error with that text", () => {
    const chunks = decode([start(), ev("upstream exploded", "error")])
    const last = chunks.at(-1)
    expect(last?.type === "error" && [last.error.code, last.error.message]).toStrictEqual([
      "unknown",
      "upstream exploded"
    ])
  })

  it("an event: error whose JSON was cut is a protocol error, not an error of unknown kind", () => {
    const chunks = decode([start(), ev("{\"type\": \"error\", \"error\": {\"type\": \"overl", "error")])
    const last = chunks.at(-1)
    expect(last?.type === "error" && last.error.code).toBe("protocol")
  })

  it("a data line that is not JSON is a protocol error quoting it", () => {
    const chunks = decode([start(), ev("{not json", "content_block_delta")])
    const last = chunks.at(-1)
    expect(last?.type === "error" && [last.error.code, last.error.message]).toStrictEqual([
      "protocol",
      "The stream sent an event that is not a JSON object: \"{not json\""
    ])
  })
})

describe("what is skipped", () => {
  it("ping, unknown events, unknown blocks and their deltas, empty data: nothing, never fatal", () => {
    const chunks = decode([
      start(),
      ping,
      ev({ type: "future_event", x: 1 }),
      ev(""),
      blockStart(0, { type: "fallback", from: { model: "a" }, to: { model: "b" } }),
      delta(0, { type: "future_delta", y: 2 }),
      blockStop(0),
      blockStart(1, { type: "text", text: "" }),
      delta(1, { type: "text_delta", text: "Hi" }),
      delta(1, { type: "text_delta", text: "" }),
      blockStop(1),
      messageDelta("end_turn"),
      stop
    ])
    expect(chunks.filter((c) => c.type !== "usage")).toStrictEqual([
      META,
      { type: "text-delta", delta: "Hi" },
      { type: "finish", reason: "stop", rawReason: "end_turn" }
    ])
  })
})

describe("the end of the stream", () => {
  it("without message_stop the decoder emits no terminal chunk, and ensureTerminal reports truncated", () => {
    const chunks = decode([
      start(),
      blockStart(0, { type: "text", text: "" }),
      delta(0, { type: "text_delta", text: "Hi" })
    ])
    expect(chunks.some(StreamChunk.isTerminal)).toBe(false)
    const all = Effect.runSync(Stream.runCollect(StreamChunk.ensureTerminal(Stream.fromIterable(chunks))))
    const last = [...all].at(-1)
    expect(last?.type === "error" && last.error.code).toBe("truncated")
  })

  it("after the finish nothing more is emitted", () => {
    const chunks = decode([start(), stop, blockStart(0, { type: "text", text: "more" }), stop])
    expect(chunks.at(-1)).toStrictEqual({ type: "finish", reason: "stop" })
    expect(chunks.filter(StreamChunk.isTerminal).length).toBe(1)
  })

  it("events before any message_start still decode, behind a provider-only metadata chunk", () => {
    expect(decode([blockStart(0, { type: "text", text: "" }), delta(0, { type: "text_delta", text: "x" }), stop]))
      .toStrictEqual([
        { type: "metadata", provider: "anthropic" },
        { type: "text-delta", delta: "x" },
        { type: "finish", reason: "stop" }
      ])
  })
})

describe("a second message_start", () => {
  it("the same start repeated before any block is ignored (its usage merged)", () => {
    const chunks = decode([
      start(),
      start(),
      blockStart(0, { type: "text", text: "" }),
      delta(0, { type: "text_delta", text: "Hello" }),
      blockStop(0),
      messageDelta("end_turn", { output_tokens: 7 }),
      stop
    ])
    expect(chunks.map((c) => c.type)).toStrictEqual(["metadata", "usage", "text-delta", "usage", "finish"])
  })

  it("another message after content: truncated there, naming both ids, not retryable, nothing of the second", () => {
    const chunks = decode(frame(own("spliced.sse")))
    expect(chunks.filter((c) => c.type !== "usage")).toStrictEqual([
      { type: "metadata", provider: "anthropic", model: "claude-sonnet-4-5-20250929", responseId: "msg_cut" },
      { type: "text-delta", delta: "The answer is" },
      {
        type: "error",
        error: {
          code: "truncated",
          message:
            "The response msg_cut was cut off: a second message_start (msg_whole) arrived before its message_stop, as when a proxy splices two responses",
          retryable: false,
          provider: "anthropic",
          details: { responseId: "msg_cut", nextResponseId: "msg_whole" }
        }
      }
    ])
  })

  it("another message before any content: truncated and retryable, so the transport retries", () => {
    const chunks = decode([start(), start(undefined, "msg_2"), stop])
    const last = chunks.at(-1)
    expect(last?.type === "error" && [last.error.code, last.error.retryable, last.error.details])
      .toStrictEqual(["truncated", true, { responseId: "msg_1", nextResponseId: "msg_2" }])
  })

  it("the same id again once blocks have started is a splice too (content would repeat)", () => {
    const chunks = decode([start(), blockStart(0, { type: "text", text: "" }), blockStop(0), start(), stop])
    const last = chunks.at(-1)
    expect(last?.type === "error" && [last.error.code, last.error.retryable]).toStrictEqual(["truncated", true])
  })
})
