import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { decodeAll } from "../../../src/internal/ChunkDecoder.js"
import type * as Sse from "../../../src/internal/framing/Sse.js"
import * as LlmError from "../../../src/LlmError.js"
import * as Decode from "../../../src/providers/openai-chat/decode.js"
import * as Response from "../../../src/Response.js"
import * as StreamChunk from "../../../src/StreamChunk.js"
import { argDelta, call, DONE, event, finish, META } from "../../support/chat.js"

// --- input helpers -------------------------------------------------------------------------------

const data = (payload: unknown): Sse.Event => event(JSON.stringify(payload))
const chunk = (delta: object, finish: string | null = null, extra: object = {}) =>
  data({
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    model: "gpt-test",
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...extra
  })
const usageChunk = (usage: object) => data({ id: "chatcmpl-1", model: "gpt-test", choices: [], usage })
const decode = (events: Array<Sse.Event>, provider = "openai") => decodeAll(Decode.make({ provider }), events)

// --- expected chunks, written out ---------------------------------------------------------------

const text = (delta: string) => ({ type: "text-delta", delta })
const thinking = (delta: string, accumulated: string) => ({ type: "reasoning-delta", delta, accumulated })

/** Reads one of our own transcripts as the SSE decoder would frame it (LF-only files, no multi-line data). */
const readSse = (name: string): Array<Sse.Event> =>
  readFileSync(new URL(`../../fixtures/openai-chat/${name}`, import.meta.url), "utf8")
    .split("\n\n")
    .filter((block) => block.trim() !== "" && !block.startsWith(":"))
    .map((block) => event(block.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n")))

describe("OpenAiChat decoder: text and usage", () => {
  it("emits text, the usage chunk that follows the finish, then finish at [DONE]", () => {
    const usage = {
      prompt_tokens: 5,
      completion_tokens: 2,
      total_tokens: 7,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 }
    }
    expect(decode([
      chunk({ role: "assistant", content: "" }),
      chunk({ content: "Hel" }),
      event(""), // an empty data line is ignored
      chunk({ content: "lo" }),
      chunk({}, "stop"),
      usageChunk(usage),
      DONE
    ])).toStrictEqual([
      META,
      text("Hel"),
      text("lo"),
      {
        type: "usage",
        usage: { inputTokens: 5, outputTokens: 2, totalTokens: 7, cacheReadTokens: 0, reasoningTokens: 0, raw: usage }
      },
      finish("stop", "stop")
    ])
  })

  it("reads DeepSeek usage from the finish chunk and reports its cache hits", () => {
    const usage = {
      prompt_tokens: 20,
      completion_tokens: 4,
      total_tokens: 24,
      prompt_cache_hit_tokens: 16,
      prompt_cache_miss_tokens: 4
    }
    expect(decode([chunk({ content: "Hi" }), chunk({ content: "" }, "stop", { usage }), DONE])).toStrictEqual([
      META,
      text("Hi"),
      { type: "usage", usage: { inputTokens: 20, outputTokens: 4, totalTokens: 24, cacheReadTokens: 16, raw: usage } },
      { type: "cache-read", cacheReadTokens: 16, accumulated: 16 },
      finish("stop", "stop")
    ])
  })

  it("emits one usage for Groq's usage + x_groq.usage, and reads x_groq.usage alone", () => {
    const usage = { queue_time: 0.04, prompt_tokens: 45, completion_tokens: 3, total_tokens: 48, total_time: 0.1 }
    const expected = { type: "usage", usage: { inputTokens: 45, outputTokens: 3, totalTokens: 48, raw: usage } }
    expect(decode([chunk({}, "stop", { x_groq: { id: "req_1", usage }, usage }), DONE])).toStrictEqual([
      META,
      expected,
      finish("stop", "stop")
    ])
    expect(decode([chunk({}, "stop", { x_groq: { id: "req_1", usage } }), DONE])).toStrictEqual([
      META,
      expected,
      finish("stop", "stop")
    ])
  })

  it("normalizes xAI usage, whose completion_tokens leave reasoning out (found from the sum)", () => {
    const usage = {
      prompt_tokens: 12,
      completion_tokens: 1,
      total_tokens: 303,
      prompt_tokens_details: { cached_tokens: 11 },
      completion_tokens_details: { reasoning_tokens: 290 }
    }
    expect(decode([usageChunk(usage), DONE]).slice(1, 3)).toStrictEqual([
      {
        type: "usage",
        usage: {
          inputTokens: 12,
          outputTokens: 291,
          totalTokens: 303,
          cacheReadTokens: 11,
          reasoningTokens: 290,
          raw: usage
        }
      },
      { type: "cache-read", cacheReadTokens: 11, accumulated: 11 }
    ])
    // OpenAI's convention (reasoning inside completion_tokens) is left alone.
    const openai = {
      prompt_tokens: 15,
      completion_tokens: 78,
      total_tokens: 93,
      completion_tokens_details: { reasoning_tokens: 64 }
    }
    expect(decode([usageChunk(openai), DONE])[1]).toStrictEqual({
      type: "usage",
      usage: { inputTokens: 15, outputTokens: 78, totalTokens: 93, reasoningTokens: 64, raw: openai }
    })
  })

  it("reports OpenRouter cache writes, and drops a repeated identical snapshot", () => {
    const usage = {
      prompt_tokens: 100,
      completion_tokens: 5,
      total_tokens: 105,
      prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 90 }
    }
    expect(decode([usageChunk(usage), usageChunk({ ...usage }), DONE])).toStrictEqual([
      META,
      {
        type: "usage",
        usage: {
          inputTokens: 100,
          outputTokens: 5,
          totalTokens: 105,
          cacheReadTokens: 0,
          cacheWriteTokens: 90,
          raw: usage
        }
      },
      { type: "cache-write", cacheWriteTokens: 90, accumulated: 90 },
      finish("stop")
    ])
  })

  it("waits for Azure's first chunk (empty id and model) before the metadata", () => {
    expect(decode([
      data({ choices: [], created: 0, id: "", model: "", object: "", prompt_filter_results: [{ prompt_index: 0 }] }),
      chunk({ content: "Hi" }, null, { content_filter_results: {} }),
      chunk({}, "stop"),
      DONE
    ])).toStrictEqual([META, text("Hi"), finish("stop", "stop")])
  })

  it("emits metadata with the provider alone when no chunk names a model or id", () => {
    expect(decode([data({ choices: [{ delta: { content: "x" } }] }), DONE], "llamacpp")).toStrictEqual([
      { type: "metadata", provider: "llamacpp" },
      text("x"),
      finish("stop")
    ])
    expect(decode([DONE], "lmstudio")).toStrictEqual([{ type: "metadata", provider: "lmstudio" }, finish("stop")])
  })

  it("reports only the first choice when n > 1", () => {
    expect(decode([
      data({
        id: "chatcmpl-1",
        model: "gpt-test",
        choices: [{ index: 0, delta: { content: "A" } }, { index: 1, delta: { content: "B" } }]
      }),
      DONE
    ])).toStrictEqual([META, text("A"), finish("stop")])
  })

  it("emits Perplexity citations and search results as sources, each once, at the end", () => {
    const citations = ["https://a.example/1", "https://b.example/2"]
    const search_results = [{ title: "Page B", url: "https://b.example/2", date: null }]
    expect(decode([
      chunk({ content: "Yes[1]" }, null, { citations }),
      chunk({ content: "" }, "stop", { citations, search_results }),
      DONE
    ])).toStrictEqual([
      META,
      text("Yes[1]"),
      {
        type: "content-part",
        part: { type: "source", sourceType: "url", url: "https://b.example/2", title: "Page B" }
      },
      { type: "content-part", part: { type: "source", sourceType: "url", url: "https://a.example/1" } },
      finish("stop", "stop")
    ])
  })
})

describe("OpenAiChat decoder: tool calls", () => {
  it("reads a whole call from one chunk (Groq, xAI)", () => {
    expect(decode([
      chunk({
        tool_calls: [{
          id: "tk1",
          type: "function",
          function: { name: "weather", arguments: "{\"city\":\"Paris\"}" },
          index: 0
        }]
      }),
      chunk({}, "tool_calls"),
      DONE
    ])).toStrictEqual([
      META,
      argDelta(0, "{\"city\":\"Paris\"}", { id: "tk1", name: "weather" }),
      call(0, "tk1", "weather", "{\"city\":\"Paris\"}", { city: "Paris" }),
      finish("tool_calls", "tool_calls")
    ])
  })

  it("reads Mistral's whole calls without index, in the finish chunk, as separate calls", () => {
    const usage = { prompt_tokens: 124, total_tokens: 146, completion_tokens: 22 }
    expect(decode([
      chunk(
        {
          content: null,
          tool_calls: [
            { id: "a1", function: { name: "weather", arguments: "{\"city\":\"Paris\"}" } },
            { id: "b2", function: { name: "time", arguments: "{\"tz\":\"CET\"}" } }
          ]
        },
        "tool_calls",
        { usage }
      ),
      DONE
    ])).toStrictEqual([
      META,
      argDelta(0, "{\"city\":\"Paris\"}", { id: "a1", name: "weather" }),
      argDelta(1, "{\"tz\":\"CET\"}", { id: "b2", name: "time" }),
      call(0, "a1", "weather", "{\"city\":\"Paris\"}", { city: "Paris" }),
      call(1, "b2", "time", "{\"tz\":\"CET\"}", { tz: "CET" }),
      { type: "usage", usage: { inputTokens: 124, outputTokens: 22, totalTokens: 146, raw: usage } },
      finish("tool_calls", "tool_calls")
    ])
  })

  it("holds fragments until the name arrives, then emits them as one delta with name and id", () => {
    expect(decode([
      chunk({ tool_calls: [{ index: 0, function: { arguments: "{\"a\"" } }] }),
      chunk({ tool_calls: [{ index: 0, id: "call_x", function: { name: "calc", arguments: ":1" } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: "}" } }] }),
      chunk({}, "tool_calls"),
      DONE
    ])).toStrictEqual([
      META,
      argDelta(0, "{\"a\":1", { id: "call_x", name: "calc" }),
      argDelta(0, "}"),
      call(0, "call_x", "calc", "{\"a\":1}", { a: 1 }),
      finish("tool_calls", "tool_calls")
    ])
  })

  it("never renames a call with Mistral's empty continuation name", () => {
    expect(decode([
      chunk({ tool_calls: [{ index: 0, id: "c1", function: { name: "calc", arguments: "{\"a\"" } }] }),
      chunk({ tool_calls: [{ index: 0, id: "", function: { name: "", arguments: ":2}" } }] }),
      DONE
    ])).toStrictEqual([
      META,
      argDelta(0, "{\"a\"", { id: "c1", name: "calc" }),
      argDelta(0, ":2}"),
      call(0, "c1", "calc", "{\"a\":2}", { a: 2 }),
      finish("tool_calls")
    ])
  })

  it("maps provider indices starting at 1 (after a text block) to our index 0", () => {
    expect(decode([
      chunk({ content: "Let me check." }),
      chunk({
        tool_calls: [{ index: 1, id: "toolu_1", type: "function", function: { name: "weather", arguments: "" } }]
      }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: "{}" } }] }),
      chunk({}, "tool_calls"),
      DONE
    ])).toStrictEqual([
      META,
      text("Let me check."),
      argDelta(0, "{}", { id: "toolu_1", name: "weather" }),
      call(0, "toolu_1", "weather", "{}", {}),
      finish("tool_calls", "tool_calls")
    ])
  })

  it("keeps interleaved parallel calls apart", () => {
    const piece = (index: number, args: string) => chunk({ tool_calls: [{ index, function: { arguments: args } }] })
    expect(decode([
      chunk({ tool_calls: [{ index: 0, id: "c0", type: "function", function: { name: "a", arguments: "" } }] }),
      chunk({ tool_calls: [{ index: 1, id: "c1", type: "function", function: { name: "b", arguments: "" } }] }),
      piece(0, "{\"x\":"),
      piece(1, "{\"y\":"),
      piece(0, "1}"),
      piece(1, "2}"),
      chunk({}, "tool_calls"),
      DONE
    ])).toStrictEqual([
      META,
      argDelta(0, "{\"x\":", { id: "c0", name: "a" }),
      argDelta(1, "{\"y\":", { id: "c1", name: "b" }),
      argDelta(0, "1}"),
      argDelta(1, "2}"),
      call(0, "c0", "a", "{\"x\":1}", { x: 1 }),
      call(1, "c1", "b", "{\"y\":2}", { y: 2 }),
      finish("tool_calls", "tool_calls")
    ])
  })

  it("decodes a call with no arguments to {}", () => {
    expect(decode([
      chunk({ tool_calls: [{ index: 0, id: "c0", type: "function", function: { name: "now", arguments: "" } }] }),
      chunk({}, "tool_calls"),
      DONE
    ])).toStrictEqual([META, call(0, "c0", "now", "", {}), finish("tool_calls", "tool_calls")])
  })

  it("keeps invalid arguments as { raw } with the parse error", () => {
    const raw = "{\"city\": Par"
    const parseError = (() => {
      try {
        JSON.parse(raw)
        return ""
      } catch (e) {
        return (e as Error).message
      }
    })()
    expect(
      decode([
        chunk({ tool_calls: [{ index: 0, id: "c0", function: { name: "weather", arguments: raw } }] }, "tool_calls"),
        DONE
      ])
    )
      .toStrictEqual([
        META,
        argDelta(0, raw, { id: "c0", name: "weather" }),
        {
          type: "tool-call",
          toolCall: { index: 0, id: "c0", name: "weather", arguments: { raw }, rawArguments: raw, parseError }
        },
        finish("tool_calls", "tool_calls")
      ])
  })

  it("treats a new id under a known index as a new call, and reads the deprecated function_call", () => {
    expect(
      decode([
        chunk({ tool_calls: [{ index: 0, id: "a", function: { name: "f", arguments: "{}" } }] }),
        chunk({ tool_calls: [{ index: 0, id: "b", function: { name: "g", arguments: "{}" } }] }),
        DONE
      ]).slice(3, 5)
    ).toStrictEqual([call(0, "a", "f", "{}", {}), call(1, "b", "g", "{}", {})])
    expect(decode([
      chunk({ function_call: { name: "f", arguments: "{\"a" } }),
      chunk({ function_call: { arguments: "\":1}" } }),
      chunk({}, "function_call"),
      DONE
    ])).toStrictEqual([
      META,
      argDelta(0, "{\"a", { id: "chatcmpl-1_call_0", name: "f" }),
      argDelta(0, "\":1}"),
      call(0, "chatcmpl-1_call_0", "f", "{\"a\":1}", { a: 1 }),
      finish("tool_calls", "function_call")
    ])
  })

  it("reports tool_calls when a host says stop after a call (Ollama), keeping the raw reason", () => {
    expect(
      decode([
        chunk({ tool_calls: [{ index: 0, id: "call_1", function: { name: "f", arguments: "{}" } }] }),
        chunk({}, "stop"),
        DONE
      ]).at(-1)
    )
      .toStrictEqual(finish("tool_calls", "stop"))
  })
})

describe("OpenAiChat decoder: reasoning and refusals", () => {
  it("streams reasoning_content with the running total and closes the run at the first text", () => {
    expect(decode([
      chunk({ role: "assistant", content: null, reasoning_content: "" }),
      chunk({ content: null, reasoning_content: "Let me" }),
      chunk({ content: null, reasoning_content: " think." }),
      chunk({ content: "Answer.", reasoning_content: null }),
      chunk({ content: "" }, "stop"),
      DONE
    ])).toStrictEqual([
      META,
      thinking("Let me", "Let me"),
      thinking(" think.", "Let me think."),
      { type: "reasoning", text: "Let me think." },
      text("Answer."),
      finish("stop", "stop")
    ])
  })

  it("reads delta.reasoning, accumulating over separate runs, and closes a run at the finish", () => {
    expect(decode([
      chunk({ reasoning: "A" }),
      chunk({ content: "x" }),
      chunk({ reasoning: "B" }),
      chunk({ tool_calls: [{ index: 0, id: "c", function: { name: "f", arguments: "{}" } }] }),
      chunk({ reasoning: "C" }),
      chunk({}, "tool_calls"),
      DONE
    ])).toStrictEqual([
      META,
      thinking("A", "A"),
      { type: "reasoning", text: "A" },
      text("x"),
      thinking("B", "AB"),
      { type: "reasoning", text: "B" },
      argDelta(0, "{}", { id: "c", name: "f" }),
      thinking("C", "ABC"),
      { type: "reasoning", text: "C" },
      call(0, "c", "f", "{}", {}),
      finish("tool_calls", "tool_calls")
    ])
  })

  it("reads Mistral's thinking and text content arrays", () => {
    expect(decode([
      chunk({ role: "assistant", content: [{ type: "thinking", thinking: [{ type: "text", text: "2+2" }] }] }),
      chunk({ content: [{ type: "thinking", thinking: [{ type: "text", text: " is 4." }] }] }),
      chunk({ content: [{ type: "text", text: "4" }] }),
      chunk({ content: "" }, "stop"),
      DONE
    ])).toStrictEqual([
      META,
      thinking("2+2", "2+2"),
      thinking(" is 4.", "2+2 is 4."),
      { type: "reasoning", text: "2+2 is 4." },
      text("4"),
      finish("stop", "stop")
    ])
  })

  it("keeps OpenRouter's reasoning signature and encrypted blocks, without doubling the text", () => {
    expect(decode([
      chunk({
        reasoning: "Hmm",
        reasoning_details: [{ type: "reasoning.text", text: "Hmm", format: "anthropic-claude-v1", index: 0 }]
      }),
      chunk({
        reasoning: "",
        reasoning_details: [{
          type: "reasoning.text",
          text: "",
          signature: "sig-1",
          format: "anthropic-claude-v1",
          index: 0
        }]
      }),
      chunk({ content: "Hi" }),
      chunk({
        reasoning: null,
        reasoning_details: [{ type: "reasoning.encrypted", data: "enc==", format: "openai-responses-v1" }]
      }),
      chunk({ reasoning_details: [{ type: "reasoning.summary", summary: "Summed up." }] }),
      chunk({}, "stop"),
      DONE
    ], "openrouter")).toStrictEqual([
      { ...META, provider: "openrouter" },
      thinking("Hmm", "Hmm"),
      { type: "reasoning", text: "Hmm", signature: "sig-1" },
      text("Hi"),
      thinking("Summed up.", "HmmSummed up."),
      { type: "reasoning", text: "Summed up.", redacted: "enc==" },
      finish("stop", "stop")
    ])
  })

  it("emits a refusal as one content part and finishes with content_filter", () => {
    const chunks = decode([
      chunk({ refusal: "I can't" }),
      chunk({ refusal: " help with that." }),
      chunk({}, "stop"),
      DONE
    ])
    expect(chunks).toStrictEqual([
      META,
      { type: "content-part", part: { type: "refusal", text: "I can't help with that." } },
      finish("content_filter", "stop")
    ])
    expect(Response.fromChunks(chunks).message).toStrictEqual({
      role: "assistant",
      content: "",
      refusal: "I can't help with that."
    })
  })
})

describe("OpenAiChat decoder: errors and the end of the stream", () => {
  it("ends with one error chunk on an in-band OpenAI error, and nothing after it", () => {
    const body = { error: { message: "The server had an error while processing your request.", type: "server_error" } }
    const decoder = Decode.make({ provider: "openai" })
    const out: Parameters<typeof decoder.push>[1] = []
    for (const e of [chunk({ content: "Hi" }), data(body), chunk({ content: "late" }), DONE]) decoder.push(e, out)
    decoder.end(out)
    expect(out).toStrictEqual([
      META,
      text("Hi"),
      {
        type: "error",
        error: { code: "server", message: body.error.message, retryable: true, provider: "openai", details: body }
      }
    ])
  })

  it("maps vLLM's numeric error code as a status", () => {
    const body = { error: { message: "max_tokens is too large", type: "BadRequestError", param: null, code: 400 } }
    expect(decode([data(body), DONE], "vllm")).toStrictEqual([
      { type: "metadata", provider: "vllm" },
      {
        type: "error",
        error: {
          code: "invalid_request",
          message: "max_tokens is too large",
          status: 400,
          retryable: false,
          provider: "vllm",
          details: body
        }
      }
    ])
  })

  it("reads OpenRouter's error chunk with finish_reason \"error\"", () => {
    const body = {
      id: "cmpl-abc123",
      object: "chat.completion.chunk",
      created: 1234567890,
      model: "gpt-3.5-turbo",
      provider: "openai",
      error: { code: "server_error", message: "Provider disconnected unexpectedly" },
      choices: [{ index: 0, delta: { content: "" }, finish_reason: "error" }]
    }
    expect(decode([data(body), DONE], "openrouter")).toStrictEqual([
      { type: "metadata", provider: "openrouter", model: "gpt-3.5-turbo", responseId: "cmpl-abc123" },
      {
        type: "error",
        error: {
          code: "server",
          message: "Provider disconnected unexpectedly",
          retryable: true,
          provider: "openrouter",
          details: body
        }
      }
    ])
  })

  it("reads old llama.cpp's `error:` SSE field and `event: error` events", () => {
    const value =
      "{\"code\":400,\"message\":\"the request exceeds the available context size\",\"type\":\"exceed_context_size_error\",\"n_ctx\":4096}"
    expect(decode([event("", { error: value }), DONE], "llamacpp")).toStrictEqual([
      { type: "metadata", provider: "llamacpp" },
      {
        type: "error",
        error: {
          code: "context_length",
          message: "the request exceeds the available context size",
          status: 400,
          retryable: false,
          provider: "llamacpp",
          details: JSON.parse(value)
        }
      }
    ])
    const body = { error: { message: "Overloaded", type: "overloaded_error" } }
    expect(decode([event(JSON.stringify(body), { event: "error" })])[1]).toStrictEqual({
      type: "error",
      error: { code: "overloaded", message: "Overloaded", retryable: true, provider: "openai", details: body }
    })
  })

  it("an event: error whose JSON was cut short is a protocol error; plain text is the provider's own error", () => {
    expect(decode([event("{\"error\":{\"message\":\"overl", { event: "error" })])[1]).toStrictEqual({
      type: "error",
      error: {
        code: "protocol",
        message: "The stream sent an event that is not a JSON object: \"{\\\"error\\\":{\\\"message\\\":\\\"overl\"",
        retryable: false,
        provider: "openai"
      }
    })
    const text = decode([event("upstream timed out", { event: "error" })])[1]
    expect(text?.type === "error" && [text.error.code, text.error.message]).toStrictEqual([
      "unknown",
      "upstream timed out"
    ])
  })

  it("turns data that is not a JSON object into a protocol error quoting at most 200 characters", () => {
    const html = "<html>" + "x".repeat(500)
    expect(decode([event(html), DONE])).toStrictEqual([
      { type: "metadata", provider: "openai" },
      {
        type: "error",
        error: {
          code: "protocol",
          message: `The stream sent an event that is not a JSON object: ${JSON.stringify(html.slice(0, 200) + "…")}`,
          retryable: false,
          provider: "openai"
        }
      }
    ])
    expect(decode([event("[1,2]")])[1]).toStrictEqual({
      type: "error",
      error: {
        code: "protocol",
        message: "The stream sent an event that is not a JSON object: \"[1,2]\"",
        retryable: false,
        provider: "openai"
      }
    })
  })

  it("appends no terminal chunk when [DONE] never came, and nothing at all for an empty body", () => {
    const usage = { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 }
    expect(decode([chunk({ content: "Hi" }), chunk({}, "stop"), usageChunk(usage)])).toStrictEqual([
      META,
      text("Hi"),
      { type: "usage", usage: { inputTokens: 3, outputTokens: 1, totalTokens: 4, raw: usage } }
    ])
    expect(decode([])).toStrictEqual([])
  })

  it("ignores everything after [DONE]", () => {
    const decoder = Decode.make({ provider: "openai" })
    const out: Parameters<typeof decoder.push>[1] = []
    decoder.push(chunk({ content: "Hi" }), out)
    decoder.push(DONE, out)
    decoder.push(chunk({ content: "again" }), out)
    decoder.push(data({ error: { message: "late" } }), out)
    decoder.push(DONE, out)
    decoder.end(out)
    expect(out).toStrictEqual([META, text("Hi"), finish("stop")])
  })
})

describe("OpenAiChat decoder: our own transcripts", () => {
  it("text.sse: an answer in twenty deltas, usage after the finish", () => {
    const chunks = decode(readSse("text.sse"))
    const answer =
      "The sky looks blue because the air scatters short, blue wavelengths of sunlight far more than long red ones. " +
      "That scattered light reaches your eyes from every direction, so the whole sky glows. " +
      "At sunset the light crosses more air, and reds and oranges win."
    expect(chunks.map((c) => c.type)).toStrictEqual(["metadata", ...Array(20).fill("text-delta"), "usage", "finish"])
    const response = Response.fromChunks(chunks)
    expect(response.text).toBe(answer)
    expect(response.metadata).toStrictEqual({
      provider: "openai",
      model: "gpt-4o-mini-2024-07-18",
      responseId: "chatcmpl-Bq7demoTextSky01"
    })
    expect({ ...response.usage, raw: undefined }).toStrictEqual({
      inputTokens: 14,
      outputTokens: 52,
      totalTokens: 66,
      cacheReadTokens: 0,
      reasoningTokens: 0,
      raw: undefined
    })
    expect([response.finishReason, response.rawFinishReason, response.error]).toStrictEqual(["stop", "stop", undefined])
  })

  it("tool-call.sse: a sentence, then get_weather in six fragments, with cached prompt tokens", () => {
    const chunks = decode(readSse("tool-call.sse"))
    expect(chunks.map((c) => c.type)).toStrictEqual([
      "metadata",
      ...Array(4).fill("text-delta"),
      ...Array(6).fill("tool-call-delta"),
      "tool-call",
      "usage",
      "cache-read",
      "finish"
    ])
    expect(chunks[5]).toStrictEqual(argDelta(0, "{\"ci", { id: "call_demo_weather_01", name: "get_weather" }))
    const response = Response.fromChunks(chunks)
    expect(response.text).toBe("Let me check the weather in Paris for you.")
    expect(response.toolCalls).toStrictEqual([{
      index: 0,
      id: "call_demo_weather_01",
      name: "get_weather",
      arguments: { city: "Paris", unit: "celsius" },
      rawArguments: "{\"city\":\"Paris\",\"unit\":\"celsius\"}"
    }])
    expect(chunks.at(-2)).toStrictEqual({ type: "cache-read", cacheReadTokens: 64, accumulated: 64 })
    expect([response.usage?.inputTokens, response.usage?.outputTokens, response.usage?.totalTokens]).toStrictEqual([
      92,
      27,
      119
    ])
    expect([response.finishReason, response.rawFinishReason]).toStrictEqual(["tool_calls", "tool_calls"])
  })

  it("reasoning.sse: DeepSeek reasoning, a keep-alive, the answer, usage on the finish chunk", () => {
    const chunks = decode(readSse("reasoning.sse"))
    const thought =
      "97 is odd, so 2 does not divide it. Its square root is just under 10, so only 3, 5 and 7 need checking. " +
      "9 + 7 = 16 is not a multiple of 3; it does not end in 0 or 5; 7 × 13 = 91 and 7 × 14 = 98. No divisor works."
    expect(chunks.map((c) => c.type)).toStrictEqual([
      "metadata",
      ...Array(14).fill("reasoning-delta"),
      "reasoning",
      ...Array(7).fill("text-delta"),
      "usage",
      "cache-read",
      "finish"
    ])
    expect(chunks[14]).toStrictEqual(thinking(" No divisor works.", thought))
    expect(chunks[15]).toStrictEqual({ type: "reasoning", text: thought })
    const response = Response.fromChunks(chunks)
    expect([response.text, response.reasoning]).toStrictEqual([
      "Yes, 97 is prime: no whole number from 2 to 9 divides it evenly.",
      thought
    ])
    expect({ ...response.usage, raw: undefined }).toStrictEqual({
      inputTokens: 21,
      outputTokens: 118,
      totalTokens: 139,
      cacheReadTokens: 16,
      reasoningTokens: 96,
      raw: undefined
    })
    expect(response.message.reasoning).toStrictEqual([{ text: thought }])
  })

  it("error-midstream.sse: three deltas, then an in-band server_error and the connection closes", () => {
    const chunks = decode(readSse("error-midstream.sse"))
    expect(chunks.map((c) => c.type)).toStrictEqual(["metadata", "text-delta", "text-delta", "text-delta", "error"])
    const response = Response.fromChunks(chunks)
    expect(response.text).toBe("Here are three facts about octopuses:")
    expect(response.error).toStrictEqual({
      code: "server",
      message: "The server had an error while processing your request. Sorry about that!",
      retryable: true,
      provider: "openai",
      details: {
        error: {
          message: "The server had an error while processing your request. Sorry about that!",
          type: "server_error",
          param: null,
          code: null
        }
      }
    })
  })
})

describe("OpenAiChat decoder: finish reasons that mean failure", () => {
  const run = (raw: string) =>
    decodeAll(Decode.make({ provider: "mistral" }), [
      {
        event: "message",
        data: JSON.stringify({
          id: "x1",
          model: "m",
          choices: [{ index: 0, delta: { content: "Hi" }, finish_reason: null }]
        }),
        id: undefined
      },
      {
        event: "message",
        data: JSON.stringify({ id: "x1", model: "m", choices: [{ index: 0, delta: {}, finish_reason: raw }] }),
        id: undefined
      },
      { event: "message", data: "[DONE]", id: undefined }
    ])

  it("a bare finish_reason \"error\" (Mistral) ends in an error chunk, not a finish", () => {
    expect(run("error")).toStrictEqual([
      StreamChunk.metadata("mistral", "m", "x1"),
      StreamChunk.textDelta("Hi"),
      StreamChunk.error(
        LlmError.info({
          code: "server",
          message: "The provider ended the response with finish_reason \"error\"",
          provider: "mistral"
        })
      )
    ])
  })

  it("DeepSeek's insufficient_system_resource is an overload error", () => {
    const last = run("insufficient_system_resource").at(-1)
    expect(last).toStrictEqual(StreamChunk.error(LlmError.info({
      code: "overloaded",
      message: "The provider ended the response with finish_reason \"insufficient_system_resource\"",
      provider: "mistral"
    })))
  })
})

describe("OpenAiChat decoder: a tool call that never gets a name", () => {
  it("ends in a protocol error that keeps the arguments, instead of a nameless call", () => {
    const chunks = decodeAll(Decode.make({ provider: "openai" }), [
      {
        event: "message",
        data: JSON.stringify({
          id: "c9",
          model: "m",
          choices: [{
            index: 0,
            delta: { tool_calls: [{ index: 0, id: "call_x", function: { arguments: "{\"q\":" } }] },
            finish_reason: null
          }]
        }),
        id: undefined
      },
      {
        event: "message",
        data: JSON.stringify({
          id: "c9",
          model: "m",
          choices: [{
            index: 0,
            delta: { tool_calls: [{ index: 0, function: { arguments: "1}" } }] },
            finish_reason: "tool_calls"
          }]
        }),
        id: undefined
      },
      { event: "message", data: "[DONE]", id: undefined }
    ])
    expect(chunks).toStrictEqual([
      StreamChunk.metadata("openai", "m", "c9"),
      StreamChunk.error(LlmError.info({
        code: "protocol",
        message: "A tool call ended without a name",
        provider: "openai",
        details: { index: 0, id: "call_x", rawArguments: "{\"q\":1}" }
      }))
    ])
  })

  it("a finish_reason that names an Object method is just an unknown reason", () => {
    const chunks = decodeAll(Decode.make({ provider: "openai" }), [
      {
        event: "message",
        data: JSON.stringify({
          id: "c9",
          model: "m",
          choices: [{ index: 0, delta: { content: "x" }, finish_reason: "constructor" }]
        }),
        id: undefined
      },
      { event: "message", data: "[DONE]", id: undefined }
    ])
    expect(chunks.at(-1)).toStrictEqual(StreamChunk.finish("stop", "constructor"))
  })
})
