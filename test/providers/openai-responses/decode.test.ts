import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { decodeAll } from "../../../src/internal/ChunkDecoder.js"
import * as Sse from "../../../src/internal/framing/Sse.js"
import * as Decode from "../../../src/providers/openai-responses/decode.js"
import * as Response from "../../../src/Response.js"
import * as StreamChunk from "../../../src/StreamChunk.js"

// --- input helpers -------------------------------------------------------------------------------

/** One event as the SSE framer hands it over: `event:` is the payload's `type`. */
const ev = (payload: { readonly type: string } & Record<string, unknown>): Sse.Event => ({
  event: payload.type,
  data: JSON.stringify(payload),
  id: undefined
})
const decode = (events: ReadonlyArray<Sse.Event>, provider = "openai") => decodeAll(Decode.make({ provider }), events)

const created = ev({
  type: "response.created",
  response: { id: "resp_1", model: "gpt-test", status: "in_progress", usage: null }
})
const usage = {
  input_tokens: 10,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 5,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 15
}
const terminal = (type: string, fields: Record<string, unknown> = {}) =>
  ev({ type, response: { id: "resp_1", model: "gpt-test", status: "completed", usage, ...fields } })
const completed = terminal("response.completed")
const added = (output_index: number, item: Record<string, unknown>) =>
  ev({ type: "response.output_item.added", output_index, item })
const itemDone = (output_index: number, item: Record<string, unknown>) =>
  ev({ type: "response.output_item.done", output_index, item })
const textDelta = (delta: string, output_index = 0, item_id = "msg_1") =>
  ev({ type: "response.output_text.delta", item_id, output_index, content_index: 0, delta })
const argsDelta = (output_index: number, delta: string) =>
  ev({ type: "response.function_call_arguments.delta", item_id: `fc_${output_index}`, output_index, delta })
const argsDone = (output_index: number, args: string) =>
  ev({ type: "response.function_call_arguments.done", item_id: `fc_${output_index}`, output_index, arguments: args })
const fnItem = (output_index: number, name: string, call_id: string | undefined, args = "") => ({
  id: `fc_${output_index}`,
  type: "function_call",
  status: "in_progress",
  arguments: args,
  name,
  ...(call_id === undefined ? {} : { call_id })
})

// --- expected chunks, written out ----------------------------------------------------------------

const META = { type: "metadata", provider: "openai", model: "gpt-test", responseId: "resp_1" }
const text = (delta: string) => ({ type: "text-delta", delta })
const thinking = (delta: string, accumulated: string) => ({ type: "reasoning-delta", delta, accumulated })
const USAGE = {
  type: "usage",
  usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15, cacheReadTokens: 0, reasoningTokens: 0, raw: usage }
}
const finish = (reason: string, rawReason = "completed") => ({ type: "finish", reason, rawReason })
const call = (index: number, id: string, name: string, rawArguments: string, args: unknown) => ({
  type: "tool-call",
  toolCall: { index, id, name, arguments: args, rawArguments }
})

describe("OpenAiResponses decoder: text, usage and the end", () => {
  it("emits metadata from response.created, text deltas, then usage, cache-read and finish at completion", () => {
    const cachedUsage = { ...usage, input_tokens_details: { cached_tokens: 8 } }
    expect(decode([
      created,
      ev({ type: "response.in_progress", response: { id: "resp_1", model: "gpt-test", status: "in_progress" } }),
      added(0, { id: "msg_1", type: "message", status: "in_progress", content: [], role: "assistant" }),
      textDelta("Hel"),
      textDelta(""),
      textDelta("lo"),
      ev({ type: "response.output_text.done", item_id: "msg_1", output_index: 0, content_index: 0, text: "Hello" }),
      terminal("response.completed", { usage: cachedUsage })
    ])).toStrictEqual([
      META,
      text("Hel"),
      text("lo"),
      {
        type: "usage",
        usage: {
          inputTokens: 10,
          outputTokens: 5,
          totalTokens: 15,
          cacheReadTokens: 8,
          reasoningTokens: 0,
          raw: cachedUsage
        }
      },
      { type: "cache-read", cacheReadTokens: 8, accumulated: 8 },
      finish("stop")
    ])
  })

  it("takes the text of a .done whose part streamed no deltas, once", () => {
    expect(decode([
      created,
      ev({ type: "response.output_text.done", item_id: "msg_1", output_index: 0, content_index: 0, text: "Whole" }),
      ev({ type: "response.output_text.done", item_id: "msg_1", output_index: 0, content_index: 0, text: "Whole" }),
      completed
    ])).toStrictEqual([META, text("Whole"), USAGE, finish("stop")])
  })

  it("keys items by output_index, so a proxy that rotates item_id on every event (GitHub Copilot) loses nothing", () => {
    expect(decode([
      created,
      textDelta("a", 1, "id-1"),
      textDelta("b", 1, "id-2"),
      ev({ type: "response.output_text.done", item_id: "id-3", output_index: 1, content_index: 0, text: "ab" }),
      completed
    ])).toStrictEqual([META, text("a"), text("b"), USAGE, finish("stop")])
  })

  it("maps response.incomplete by its reason", () => {
    const incomplete = (reason: string | undefined) =>
      decode([
        created,
        textDelta("Once"),
        terminal("response.incomplete", { incomplete_details: reason === undefined ? null : { reason } })
      ]).at(-1)
    expect(incomplete("max_output_tokens")).toStrictEqual(finish("length", "max_output_tokens"))
    expect(incomplete("content_filter")).toStrictEqual(finish("content_filter", "content_filter"))
    expect(incomplete(undefined)).toStrictEqual(finish("length", "incomplete"))
  })

  it("ends without a terminal chunk when no terminal event came; ensureTerminal reports truncated", () => {
    const chunks = decode([created, textDelta("The answer is")])
    expect(chunks).toStrictEqual([META, text("The answer is")])
    const ended = Effect.runSync(Stream.runCollect(StreamChunk.ensureTerminal(Stream.fromIterable(chunks))))
    expect([...ended].at(-1)).toMatchObject({ type: "error", error: { code: "truncated" } })
  })

  it("skips unknown events and ignores everything after the terminal chunk", () => {
    expect(decode([
      created,
      ev({ type: "response.queued" }),
      ev({ type: "response.web_search_call.searching", output_index: 0, item_id: "ws_1" }),
      ev({ type: "response.something_new", delta: "x" }),
      textDelta("ok"),
      completed,
      textDelta("late"),
      completed
    ])).toStrictEqual([META, text("ok"), USAGE, finish("stop")])
  })

  it("ends with a protocol error on an event that is not a JSON object", () => {
    const chunks = decode([created, { event: "response.output_text.delta", data: "{not json", id: undefined }])
    expect(chunks[1]).toMatchObject({ type: "error", error: { code: "protocol", provider: "openai" } })
    expect(chunks).toHaveLength(2)
    expect(decode([{ event: "message", data: "[1]", id: undefined }])[1])
      .toMatchObject({ type: "error", error: { code: "protocol" } })
  })

  it("reads output tokens that leave reasoning out from the total, so outputTokens includes reasoning", () => {
    const u = {
      input_tokens: 10,
      output_tokens: 5,
      output_tokens_details: { reasoning_tokens: 20 },
      total_tokens: 35
    }
    expect(decode([created, terminal("response.completed", { usage: u })])[1]).toStrictEqual({
      type: "usage",
      usage: { inputTokens: 10, outputTokens: 25, totalTokens: 35, reasoningTokens: 20, raw: u }
    })
  })
})

describe("OpenAiResponses decoder: reasoning", () => {
  it("joins summary parts with a paragraph break and closes the item with its encrypted content", () => {
    const s = (summary_index: number, delta: string) =>
      ev({ type: "response.reasoning_summary_text.delta", item_id: "rs_1", output_index: 0, summary_index, delta })
    expect(decode([
      created,
      added(0, { id: "rs_1", type: "reasoning", encrypted_content: "enc_added", summary: [] }),
      s(0, "**Plan**"),
      ev({
        type: "response.reasoning_summary_text.done",
        item_id: "rs_1",
        output_index: 0,
        summary_index: 0,
        text: "**Plan**"
      }),
      s(1, "Call it."),
      itemDone(0, { id: "rs_1", type: "reasoning", encrypted_content: "enc_final", summary: [] }),
      completed
    ])).toStrictEqual([
      META,
      thinking("**Plan**", "**Plan**"),
      thinking("\n\n", "**Plan**\n\n"),
      thinking("Call it.", "**Plan**\n\nCall it."),
      { type: "reasoning", text: "**Plan**\n\nCall it.", signature: "rs_1", redacted: "enc_final" },
      USAGE,
      finish("stop")
    ])
  })

  it("reads raw reasoning text (LM Studio, vLLM), and reasoning sent only on the finished item", () => {
    expect(decode([
      created,
      added(0, { id: "rs_1", type: "reasoning", summary: [], content: [] }),
      ev({ type: "response.reasoning_text.delta", item_id: "rs_1", output_index: 0, content_index: 0, delta: "Think" }),
      itemDone(0, { id: "rs_1", type: "reasoning", summary: [], content: [{ type: "reasoning_text", text: "Think" }] }),
      itemDone(1, { id: "rs_2", type: "reasoning", summary: [{ type: "summary_text", text: "Late" }] }),
      textDelta("Answer", 2),
      completed
    ])).toStrictEqual([
      META,
      thinking("Think", "Think"),
      { type: "reasoning", text: "Think" },
      thinking("Late", "ThinkLate"),
      { type: "reasoning", text: "Late" },
      text("Answer"),
      USAGE,
      finish("stop")
    ])
  })

  it("emits nothing for an empty reasoning item, and a reasoning chunk for encrypted content alone", () => {
    expect(decode([
      created,
      itemDone(0, { id: "rs_1", type: "reasoning", summary: [] }),
      itemDone(1, { id: "rs_2", type: "reasoning", summary: [], encrypted_content: "enc" }),
      completed
    ])).toStrictEqual([
      META,
      { type: "reasoning", text: "", signature: "rs_2", redacted: "enc" },
      USAGE,
      finish("stop")
    ])
  })
})

describe("OpenAiResponses decoder: function calls", () => {
  it("streams a call with call_id as its id, name on the first fragment, and finishes it at .done", () => {
    expect(decode([
      created,
      added(0, fnItem(0, "get_weather", "call_1")),
      argsDelta(0, "{\"city\":"),
      argsDelta(0, "\"Paris\"}"),
      argsDone(0, "{\"city\":\"Paris\"}"),
      itemDone(0, { ...fnItem(0, "get_weather", "call_1", "{\"city\":\"Paris\"}"), status: "completed" }),
      completed
    ])).toStrictEqual([
      META,
      { type: "tool-call-delta", index: 0, argumentsDelta: "{\"city\":", id: "call_1", name: "get_weather" },
      { type: "tool-call-delta", index: 0, argumentsDelta: "\"Paris\"}" },
      call(0, "call_1", "get_weather", "{\"city\":\"Paris\"}", { city: "Paris" }),
      USAGE,
      finish("tool_calls")
    ])
  })

  it("numbers parallel calls by first appearance; a call with no arguments is {}", () => {
    expect(decode([
      created,
      added(3, fnItem(3, "lookup", "call_a")),
      added(5, fnItem(5, "now", "call_b")),
      argsDelta(3, "{\"q\":1}"),
      argsDone(5, ""),
      argsDone(3, "{\"q\":1}"),
      completed
    ])).toStrictEqual([
      META,
      { type: "tool-call-delta", index: 0, argumentsDelta: "{\"q\":1}", id: "call_a", name: "lookup" },
      call(1, "call_b", "now", "", {}),
      call(0, "call_a", "lookup", "{\"q\":1}", { q: 1 }),
      USAGE,
      finish("tool_calls")
    ])
  })

  it("takes arguments sent only on .done (LM Studio) or whole on the added item, and synthesizes a missing id", () => {
    expect(decode([
      created,
      added(0, fnItem(0, "weather", undefined)),
      argsDone(0, "{\"location\":\"SF\"}"),
      added(1, fnItem(1, "echo", "call_e", "{\"x\":true}")),
      itemDone(1, { ...fnItem(1, "echo", "call_e", "{\"x\":true}"), status: "completed" }),
      completed
    ])).toStrictEqual([
      META,
      {
        type: "tool-call-delta",
        index: 0,
        argumentsDelta: "{\"location\":\"SF\"}",
        id: "resp_1_call_0",
        name: "weather"
      },
      call(0, "resp_1_call_0", "weather", "{\"location\":\"SF\"}", { location: "SF" }),
      { type: "tool-call-delta", index: 1, argumentsDelta: "{\"x\":true}", id: "call_e", name: "echo" },
      call(1, "call_e", "echo", "{\"x\":true}", { x: true }),
      USAGE,
      finish("tool_calls")
    ])
  })

  it("an item announced twice is one item: one call", () => {
    expect(decode([
      created,
      added(0, fnItem(0, "f", "call_f")),
      added(0, fnItem(0, "f", "call_f")),
      argsDone(0, "{}"),
      completed
    ])).toStrictEqual([
      META,
      { type: "tool-call-delta", index: 0, argumentsDelta: "{}", id: "call_f", name: "f" },
      call(0, "call_f", "f", "{}", {}),
      USAGE,
      finish("tool_calls")
    ])
  })

  it("finishes a call the stream never closed at response.completed, invalid arguments kept raw", () => {
    const chunks = decode([created, added(0, fnItem(0, "f", "call_f")), argsDelta(0, "{\"a\":"), completed])
    expect(chunks[2]).toMatchObject({
      type: "tool-call",
      toolCall: { index: 0, id: "call_f", name: "f", arguments: { raw: "{\"a\":" }, rawArguments: "{\"a\":" }
    })
    expect(chunks.at(-1)).toStrictEqual(finish("tool_calls"))
  })

  it("holds fragments of a call whose name is not known yet, and reports a call that never gets one", () => {
    const chunks = decode([created, argsDelta(0, "{}"), argsDone(0, "{}"), completed])
    expect(chunks).toMatchObject([META, { type: "error", error: { code: "protocol", provider: "openai" } }])
  })
})

describe("OpenAiResponses decoder: refusals, hosted tools, errors", () => {
  it("reports a refusal as a refusal part once complete, and finish content_filter", () => {
    const r = (delta: string) =>
      ev({ type: "response.refusal.delta", item_id: "msg_1", output_index: 0, content_index: 0, delta })
    const chunks = decode([
      created,
      r("I can't"),
      r(" help."),
      ev({ type: "response.refusal.done", item_id: "msg_1", output_index: 0, content_index: 0, refusal: "x" }),
      completed
    ])
    expect(chunks).toStrictEqual([
      META,
      { type: "content-part", part: { type: "refusal", text: "I can't help." } },
      USAGE,
      finish("content_filter")
    ])
    // Without its .done, the refusal goes out at the end.
    expect(decode([created, r("No."), completed])).toStrictEqual([
      META,
      { type: "content-part", part: { type: "refusal", text: "No." } },
      USAGE,
      finish("content_filter")
    ])
    expect(Response.fromChunks(chunks).message).toStrictEqual({
      role: "assistant",
      content: "",
      refusal: "I can't help."
    })
  })

  it("turns hosted tool items into call and result parts, and citations into sources (each once)", () => {
    const citation = { type: "url_citation", url: "https://effect.website", title: "Effect", start_index: 0 }
    expect(decode([
      created,
      itemDone(0, {
        id: "ws_1",
        type: "web_search_call",
        status: "completed",
        action: { type: "search", query: "effect", sources: [{ type: "url", url: "https://effect.website" }] }
      }),
      itemDone(1, { id: "ci_1", type: "code_interpreter_call", status: "failed", code: "1/0", outputs: null }),
      itemDone(2, {
        id: "mcp_1",
        type: "mcp_call",
        name: "add",
        server_label: "calc",
        arguments: "{\"a\":1}",
        output: "2",
        error: null
      }),
      itemDone(3, { id: "mcpl_1", type: "mcp_list_tools", server_label: "calc", tools: [] }),
      ev({ type: "response.output_text.annotation.added", output_index: 4, annotation: citation }),
      ev({ type: "response.output_text.annotation.added", output_index: 4, annotation: citation }),
      ev({
        type: "response.output_text.annotation.added",
        output_index: 4,
        annotation: { type: "file_citation", file_id: "file-1", filename: "a.pdf", index: 3 }
      }),
      completed
    ])).toStrictEqual([
      META,
      {
        type: "content-part",
        part: {
          type: "provider-tool",
          kind: "call",
          id: "ws_1",
          name: "web_search",
          input: { type: "search", query: "effect" }
        }
      },
      {
        type: "content-part",
        part: {
          type: "provider-tool",
          kind: "result",
          id: "ws_1",
          name: "web_search",
          output: { status: "completed", sources: [{ type: "url", url: "https://effect.website" }] }
        }
      },
      {
        type: "content-part",
        part: { type: "provider-tool", kind: "call", id: "ci_1", name: "code_interpreter", input: { code: "1/0" } }
      },
      {
        type: "content-part",
        part: {
          type: "provider-tool",
          kind: "result",
          id: "ci_1",
          name: "code_interpreter",
          output: { status: "failed" },
          isError: true
        }
      },
      {
        type: "content-part",
        part: {
          type: "provider-tool",
          kind: "call",
          id: "mcp_1",
          name: "add",
          input: { a: 1 },
          providerMetadata: { serverLabel: "calc" }
        }
      },
      {
        type: "content-part",
        part: {
          type: "provider-tool",
          kind: "result",
          id: "mcp_1",
          name: "add",
          output: "2",
          providerMetadata: { serverLabel: "calc" }
        }
      },
      {
        type: "content-part",
        part: { type: "source", sourceType: "url", url: "https://effect.website", title: "Effect" }
      },
      { type: "content-part", part: { type: "source", sourceType: "document", id: "file-1", title: "a.pdf" } },
      USAGE,
      finish("stop")
    ])
  })

  it("reads error events in the flat and the nested shape, with the right code", () => {
    const flat = decode([
      created,
      ev({ type: "error", code: "rate_limit_exceeded", message: "Slow down", param: null, sequence_number: 1 })
    ])
    expect(flat[1]).toMatchObject({
      type: "error",
      error: { code: "rate_limit", message: "Slow down", retryable: true, provider: "openai" }
    })
    const nested = decode([
      created,
      ev({ type: "error", error: { type: "insufficient_quota", code: "insufficient_quota", message: "No quota" } }),
      terminal("response.failed", { status: "failed", error: { code: "insufficient_quota", message: "No quota" } })
    ])
    expect(nested).toHaveLength(2)
    expect(nested[1]).toMatchObject({ type: "error", error: { code: "quota", message: "No quota", retryable: false } })
    const overloaded = decode([ev({ type: "error", code: "server_is_overloaded", message: "Busy" })])
    expect(overloaded).toMatchObject([
      { type: "metadata", provider: "openai" },
      { type: "error", error: { code: "overloaded", retryable: true } }
    ])
  })

  it("turns response.failed into an error chunk from response.error", () => {
    const failed = (error: unknown) =>
      decode([created, terminal("response.failed", { status: "failed", usage: null, error })]).at(-1)
    expect(failed({ code: "server_error", message: "Boom" })).toMatchObject({
      type: "error",
      error: { code: "server", message: "Boom", retryable: true, provider: "openai" }
    })
    expect(failed({ code: "rate_limit_exceeded", message: "Later" })).toMatchObject({
      type: "error",
      error: { code: "rate_limit", message: "Later" }
    })
    expect(failed({ code: "vector_store_timeout", message: "Slow store" })).toMatchObject({
      type: "error",
      error: { code: "timeout" }
    })
    expect(failed(null)).toMatchObject({ type: "error", error: { code: "server", message: "The response failed" } })
  })
})

describe("OpenAiResponses decoder: hostile input", () => {
  it("reads an output_index that is not a non-negative safe integer as none: calls key by item_id, never merge", () => {
    const chunks = decode([
      created,
      ev({ type: "response.output_item.added", output_index: -1, item: { ...fnItem(0, "a", "call_a"), id: "fc_a" } }),
      ev({ type: "response.output_item.added", output_index: "0", item: { ...fnItem(0, "b", "call_b"), id: "fc_b" } }),
      ev({ type: "response.function_call_arguments.delta", output_index: 1e308, item_id: "fc_a", delta: "{\"x\":1}" }),
      ev({ type: "response.function_call_arguments.delta", output_index: 0.5, item_id: "fc_b", delta: "{\"y\":2}" }),
      completed
    ])
    expect(Response.fromChunks(chunks).toolCalls.map((c) => [c.index, c.id, c.name, c.arguments])).toStrictEqual([
      [0, "call_a", "a", { x: 1 }],
      [1, "call_b", "b", { y: 2 }]
    ])
  })

  it("keeps values from the wire only when they always serialize; __proto__ stays an ordinary key", () => {
    const deep = "[".repeat(200) + "]".repeat(200)
    const chunks = decode([
      created,
      {
        event: "response.output_item.done",
        data: `{"type":"response.output_item.done","output_index":0,"item":{"id":"mcp_1","type":"mcp_call",` +
          `"name":"f","arguments":"{\\"__proto__\\":{\\"polluted\\":true}}","output":${deep},"error":null}}`,
        id: undefined
      },
      {
        event: "response.completed",
        data: `{"type":"response.completed","response":{"id":"resp_1","usage":{"input_tokens":1e999,` +
          `"output_tokens":3,"total_tokens":3,"output_tokens_details":{"reasoning_tokens":-1}}}}`,
        id: undefined
      }
    ])
    const [callPart, resultPart] = Response.fromChunks(chunks).contentParts
    const input = callPart?.type === "provider-tool" ? callPart.input : undefined
    expect(Object.getPrototypeOf(input)).toBe(Object.prototype)
    expect(JSON.stringify(input)).toBe("{\"__proto__\":{\"polluted\":true}}")
    expect(resultPart?.type === "provider-tool" ? resultPart.output : undefined).toBe(deep)
    // 1e999 reads as Infinity: not a count, and a usage object holding it is not kept as raw.
    expect(chunks.find((c) => c.type === "usage")).toStrictEqual({
      type: "usage",
      usage: { inputTokens: 0, outputTokens: 3, totalTokens: 3 }
    })
    for (const chunk of chunks) expect(() => JSON.stringify(chunk)).not.toThrow()
  })
})

describe("OpenAiResponses decoder: custom (freeform) tool calls", () => {
  const patch = "*** Begin Patch\n*** Update File: hello.py\n-print(\"hi\")\n+print(\"hello\")\n*** End Patch"
  const customCall = (index: number, id: string, name: string, input: string) => ({
    type: "tool-call",
    toolCall: { index, id, name, arguments: input, rawArguments: input, kind: "custom" }
  })

  it("custom-tool-call.sse: input deltas keyed by call_id, one finished call of raw text, finish tool_calls", () => {
    const body = readFileSync(new URL("../../fixtures/openai-responses/custom-tool-call.sse", import.meta.url), "utf8")
    const framer = new Sse.Framer()
    const events = [...framer.push(new TextEncoder().encode(body)), ...framer.end()]
    expect(decode(events)).toStrictEqual([
      { type: "metadata", provider: "openai", model: "gpt-5-demo", responseId: "resp_demo_ct" },
      thinking("**Patching the greeting**", "**Patching the greeting**"),
      { type: "reasoning", text: "**Patching the greeting**", signature: "rs_demo_ct", redacted: "enc_ct_final" },
      text("Applying the patch."),
      {
        type: "tool-call-delta",
        index: 0,
        argumentsDelta: "*** Begin Patch\n*** Update File: hel",
        id: "call_demo_patch",
        name: "apply_patch"
      },
      { type: "tool-call-delta", index: 0, argumentsDelta: "lo.py\n-print(\"hi\")\n+print(\"hel" },
      { type: "tool-call-delta", index: 0, argumentsDelta: "lo\")\n*** End Patch" },
      customCall(0, "call_demo_patch", "apply_patch", patch),
      {
        type: "usage",
        usage: {
          inputTokens: 212,
          outputTokens: 96,
          totalTokens: 308,
          cacheReadTokens: 0,
          reasoningTokens: 48,
          raw: {
            input_tokens: 212,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: 96,
            output_tokens_details: { reasoning_tokens: 48 },
            total_tokens: 308
          }
        }
      },
      finish("tool_calls")
    ])
  })

  it("input that reads as JSON stays text; input only on .done or on the finished item is one fragment", () => {
    const item = (output_index: number, input: string) => ({
      id: `ctc_${output_index}`,
      type: "custom_tool_call",
      status: "in_progress",
      call_id: `call_${output_index}`,
      name: "run",
      input
    })
    const chunks = decode([
      created,
      added(0, item(0, "")),
      ev({ type: "response.custom_tool_call_input.done", item_id: "ctc_0", output_index: 0, input: "{\"a\":1}" }),
      added(1, item(1, "")),
      itemDone(1, { ...item(1, "ls -la"), status: "completed" }),
      added(2, item(2, "")),
      completed
    ])
    expect(chunks).toStrictEqual([
      META,
      { type: "tool-call-delta", index: 0, argumentsDelta: "{\"a\":1}", id: "call_0", name: "run" },
      customCall(0, "call_0", "run", "{\"a\":1}"),
      { type: "tool-call-delta", index: 1, argumentsDelta: "ls -la", id: "call_1", name: "run" },
      customCall(1, "call_1", "run", "ls -la"),
      // A call the stream never finished, with no input: finished at the end, its input "".
      customCall(2, "call_2", "run", ""),
      USAGE,
      finish("tool_calls")
    ])
    // Reassembly keeps the finished call, raw string and kind included.
    expect(Response.fromChunks(chunks).toolCalls.map((c) => [c.arguments, c.kind])).toStrictEqual([
      ["{\"a\":1}", "custom"],
      ["ls -la", "custom"],
      ["", "custom"]
    ])
  })
})
