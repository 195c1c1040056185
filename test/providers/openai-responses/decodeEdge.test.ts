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
