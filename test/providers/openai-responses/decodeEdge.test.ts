import { describe, expect, it } from "vitest"
import { decodeAll } from "../../../src/internal/ChunkDecoder.js"
import type * as Sse from "../../../src/internal/framing/Sse.js"
import * as Decode from "../../../src/providers/openai-responses/decode.js"

// Edge cases of the Responses decoder: error events without `type`, items keyed inconsistently,
// arguments sent twice, a reasoning blob cut off by the end, and OpenAI's generic in-band error.

const ev = (payload: { readonly type: string } & Record<string, unknown>): Sse.Event => ({
  event: payload.type,
  data: JSON.stringify(payload),
  id: undefined
})
const raw = (event: string, data: string): Sse.Event => ({ event, data, id: undefined })
const decode = (events: ReadonlyArray<Sse.Event>) => decodeAll(Decode.make({ provider: "openai" }), events)

const created = ev({
  type: "response.created",
  response: { id: "resp_1", model: "gpt-test", status: "in_progress", usage: null }
})
const completed = ev({ type: "response.completed", response: { id: "resp_1", model: "gpt-test", status: "completed" } })
const META = { type: "metadata", provider: "openai", model: "gpt-test", responseId: "resp_1" }

describe("OpenAiResponses decoder: `event: error` without a `type`", () => {
  it("reads a JSON body named only by the SSE event as the error it is", () => {
    expect(decode([created, raw("error", `{"error":{"code":"server_error","message":"boom"}}`)])).toStrictEqual([
      META,
      {
        type: "error",
        error: {
          code: "server",
          message: "boom",
          retryable: true,
          provider: "openai",
          details: { error: { code: "server_error", message: "boom" } }
        }
      }
    ])
  })

  it("reads a plain-text body as the proxy's error, not a malformed stream", () => {
    expect(decode([created, raw("error", "upstream failure")])).toStrictEqual([
      META,
      {
        type: "error",
        error: {
          code: "server",
          message: "upstream failure",
          retryable: true,
          provider: "openai",
          details: "upstream failure"
        }
      }
    ])
  })

  it("takes the type from the SSE event name when the payload has none", () => {
    expect(decode([
      created,
      raw("response.output_text.delta", `{"output_index":0,"item_id":"msg_1","content_index":0,"delta":"Hi"}`),
      raw("response.completed", `{"response":{"id":"resp_1","model":"gpt-test","status":"completed"}}`)
    ])).toStrictEqual([META, { type: "text-delta", delta: "Hi" }, {
      type: "finish",
      reason: "stop",
      rawReason: "completed"
    }])
  })

  it("still treats broken JSON under `event: error` as a malformed stream", () => {
    expect(decode([created, raw("error", `{"error":`)]).at(-1)).toMatchObject({
      type: "error",
      error: { code: "protocol" }
    })
  })
})

describe("OpenAiResponses decoder: items keyed by index on some events and by id on others", () => {
  it("finds a call announced without output_index by its item_id, and remembers its index", () => {
    expect(decode([
      created,
      ev({
        type: "response.output_item.added",
        item: { id: "fc_1", type: "function_call", call_id: "call_1", name: "f", arguments: "" }
      }),
      ev({ type: "response.function_call_arguments.delta", output_index: 0, item_id: "fc_1", delta: `{"a":` }),
      ev({ type: "response.function_call_arguments.delta", output_index: 0, item_id: "fc_rotated", delta: "1}" }),
      ev({ type: "response.function_call_arguments.done", output_index: 0, item_id: "fc_1", arguments: `{"a":1}` }),
      completed
    ])).toStrictEqual([
      META,
      { type: "tool-call-delta", index: 0, argumentsDelta: `{"a":`, id: "call_1", name: "f" },
      // The decoder names the id on the first fragment; the stream repeats it on every one.
      { type: "tool-call-delta", index: 0, argumentsDelta: "1}" },
      {
        type: "tool-call",
        toolCall: { index: 0, id: "call_1", name: "f", arguments: { a: 1 }, rawArguments: `{"a":1}` }
      },
      { type: "finish", reason: "tool_calls", rawReason: "completed" }
    ])
  })

  it("closes reasoning streamed by item_id once when output_item.done names it by output_index", () => {
    expect(decode([
      created,
      ev({ type: "response.reasoning_summary_text.delta", item_id: "rs_1", summary_index: 0, delta: "Think" }),
      ev({
        type: "response.output_item.done",
        output_index: 0,
        item: { id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: "Think" }] }
      }),
      completed
    ])).toStrictEqual([
      META,
      { type: "reasoning-delta", delta: "Think", accumulated: "Think" },
      { type: "reasoning", text: "Think" },
      { type: "finish", reason: "stop", rawReason: "completed" }
    ])
  })
})

describe("OpenAiResponses decoder: arguments on output_item.added", () => {
  const fn = (args: string) => ({ id: "fc_1", type: "function_call", call_id: "call_1", name: "f", arguments: args })

  it("does not double arguments sent whole on added and then streamed", () => {
    expect(decode([
      created,
      ev({ type: "response.output_item.added", output_index: 0, item: fn(`{"a":1}`) }),
      ev({ type: "response.function_call_arguments.delta", output_index: 0, item_id: "fc_1", delta: `{"a":1}` }),
      ev({ type: "response.function_call_arguments.done", output_index: 0, item_id: "fc_1", arguments: `{"a":1}` }),
      ev({ type: "response.output_item.done", output_index: 0, item: fn(`{"a":1}`) }),
      completed
    ])).toStrictEqual([
      META,
      { type: "tool-call-delta", index: 0, argumentsDelta: `{"a":1}`, id: "call_1", name: "f" },
      {
        type: "tool-call",
        toolCall: { index: 0, id: "call_1", name: "f", arguments: { a: 1 }, rawArguments: `{"a":1}` }
      },
      { type: "finish", reason: "tool_calls", rawReason: "completed" }
    ])
  })

  it("still uses arguments sent only on added when nothing else brings them", () => {
    expect(decode([
      created,
      ev({ type: "response.output_item.added", output_index: 0, item: fn(`{"a":1}`) }),
      completed
    ])).toStrictEqual([
      META,
      { type: "tool-call-delta", index: 0, argumentsDelta: `{"a":1}`, id: "call_1", name: "f" },
      {
        type: "tool-call",
        toolCall: { index: 0, id: "call_1", name: "f", arguments: { a: 1 }, rawArguments: `{"a":1}` }
      },
      { type: "finish", reason: "tool_calls", rawReason: "completed" }
    ])
  })
})

describe("OpenAiResponses decoder: a reasoning item cut off before its done", () => {
  it("keeps the blob and id from added when the response ends during reasoning", () => {
    expect(decode([
      created,
      ev({
        type: "response.output_item.added",
        output_index: 0,
        item: { id: "rs_1", type: "reasoning", encrypted_content: "enc_added", summary: [] }
      }),
      ev({
        type: "response.reasoning_summary_text.delta",
        output_index: 0,
        item_id: "rs_1",
        summary_index: 0,
        delta: "Hm"
      }),
      ev({
        type: "response.incomplete",
        response: {
          id: "resp_1",
          model: "gpt-test",
          status: "incomplete",
          incomplete_details: { reason: "max_output_tokens" }
        }
      })
    ])).toStrictEqual([
      META,
      { type: "reasoning-delta", delta: "Hm", accumulated: "Hm" },
      { type: "reasoning", text: "Hm", signature: "rs_1", redacted: "enc_added" },
      { type: "finish", reason: "length", rawReason: "max_output_tokens" }
    ])
  })
})

describe("OpenAiResponses decoder: OpenAI's generic in-band error", () => {
  it("reads code null with no status as a retryable server error", () => {
    const message = "An error occurred while processing your request. You can retry your request."
    const body = { type: "error", code: null, message, param: null, sequence_number: 3 }
    expect(decode([created, ev(body)])).toStrictEqual([
      META,
      { type: "error", error: { code: "server", message, retryable: true, provider: "openai", details: body } }
    ])
  })
})
