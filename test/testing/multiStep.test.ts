import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as ChatRequest from "../../src/ChatRequest.js"
import * as LanguageModel from "../../src/LanguageModel.js"
import * as OpenAiChat from "../../src/providers/openai-chat/index.js"
import * as StreamChunk from "../../src/StreamChunk.js"
import * as Replay from "../../src/testing/Replay.js"
import * as TestModel from "../../src/testing/TestModel.js"
import type * as ToolCall from "../../src/ToolCall.js"

// An agent's two steps, driven by hand: step 1 asks the model, which calls `weather`; step 2 sends
// the call and its result back, and the model answers.
const weather: ChatRequest.Tool = {
  name: "weather",
  description: "Current weather",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
}
const call: ToolCall.ToolCall = {
  index: 0,
  id: "call_1",
  name: "weather",
  arguments: { city: "Paris" },
  rawArguments: "{\"city\":\"Paris\"}"
}
const step1: ChatRequest.ChatRequest = { messages: [ChatRequest.user("Weather in Paris?")], tools: [weather] }
const step2: ChatRequest.ChatRequest = {
  messages: [
    ...step1.messages,
    { role: "assistant", content: "", toolCalls: [call] },
    ChatRequest.toolResult("call_1", "{\"temperatureC\":21}", { name: "weather" })
  ],
  tools: [weather]
}

const collect = (request: ChatRequest.ChatRequest) =>
  Effect.map(Stream.runCollect(LanguageModel.stream(request)), Chunk.toArray)

/** The content of the request's tool results. */
const toolResults = (request: ChatRequest.ChatRequest): ReadonlyArray<string> =>
  request.messages.flatMap((m) => m.role === "tool" && typeof m.content === "string" ? [m.content] : [])

describe("TestModel.steps scripts an agent's requests", () => {
  const model = TestModel.layer({
    responses: TestModel.steps([
      [TestModel.toolCall("weather", { city: "Paris" }, { id: "call_1" }), StreamChunk.finish("tool_calls")],
      (request) => {
        const result = JSON.parse(toolResults(request)[0] ?? "{}") as { readonly temperatureC?: number }
        return [StreamChunk.textDelta(`It is ${result.temperatureC} °C in Paris.`), StreamChunk.finish("stop")]
      }
    ])
  })

  it.effect("step 1 calls the tool, step 2 answers from the tool result it was sent, and both are recorded", () =>
    Effect.gen(function*() {
      expect(yield* collect(step1)).toStrictEqual([
        { type: "tool-call", toolCall: call },
        { type: "finish", reason: "tool_calls" }
      ])
      expect(yield* collect(step2)).toStrictEqual([
        { type: "text-delta", delta: "It is 21 °C in Paris." },
        { type: "finish", reason: "stop" }
      ])
      expect(yield* TestModel.requests).toStrictEqual([step1, step2])
    }).pipe(Effect.provide(model)))

  it.effect("a request past the last script ends in an invalid_request error chunk, and is recorded too", () =>
    Effect.gen(function*() {
      yield* collect(step1)
      yield* collect(step2)
      expect(yield* collect(step2)).toStrictEqual([{
        type: "error",
        error: {
          code: "invalid_request",
          message: "TestModel.steps: request 3 came, but the conversation was scripted for 2 requests",
          retryable: false
        }
      }])
      expect(yield* TestModel.requests).toStrictEqual([step1, step2, step2])
    }).pipe(Effect.provide(model)))

  it("TestModel.toolCall fills in the index, the id and the raw arguments", () => {
    expect(TestModel.toolCall("lookup", { q: "x" })).toStrictEqual({
      type: "tool-call",
      toolCall: { index: 0, id: "call_0", name: "lookup", arguments: { q: "x" }, rawArguments: "{\"q\":\"x\"}" }
    })
    expect(TestModel.toolCall("lookup", {}, { index: 2 }).toolCall).toStrictEqual({
      index: 2,
      id: "call_2",
      name: "lookup",
      arguments: {},
      rawArguments: "{}"
    })
  })
})

describe("Replay answers an agent's requests through a real provider", () => {
  const model = OpenAiChat.layer({
    model: "gpt-4.1-mini",
    apiKey: Redacted.make("test-key"),
    baseUrl: "http://replay.invalid/v1"
  })
  const event = (id: string, rest: string) => `data: {"id":"${id}","model":"gpt-4.1-mini",${rest}}\n\n`
  const toolCallReply: Replay.Reply = {
    body: [
      event(
        "c1",
        "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"tool_calls\":[{\"index\":0,\"id\":\"call_1\"," +
          "\"type\":\"function\",\"function\":{\"name\":\"weather\",\"arguments\":\"\"}}]},\"finish_reason\":null}]"
      ),
      event(
        "c1",
        "\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":" +
          "\"{\\\"city\\\":\\\"Paris\\\"}\"}}]},\"finish_reason\":null}]"
      ),
      event("c1", "\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]"),
      "data: [DONE]\n\n"
    ]
  }
  const answerReply: Replay.Reply = {
    body: [
      event("c2", "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"It is 21 °C\"},\"finish_reason\":null}]"),
      event("c2", "\"choices\":[{\"index\":0,\"delta\":{\"content\":\" in Paris.\"},\"finish_reason\":\"stop\"}]"),
      "data: [DONE]\n\n"
    ]
  }
  const toolCallChunks: ReadonlyArray<StreamChunk.StreamChunk> = [
    { type: "metadata", provider: "openai", model: "gpt-4.1-mini", responseId: "c1" },
    // The decoder holds the name back until the call's first non-empty fragment.
    { type: "tool-call-delta", index: 0, id: "call_1", name: "weather", argumentsDelta: "{\"city\":\"Paris\"}" },
    { type: "tool-call", toolCall: call },
    { type: "finish", reason: "tool_calls", rawReason: "tool_calls" }
  ]
  const answerChunks: ReadonlyArray<StreamChunk.StreamChunk> = [
    { type: "metadata", provider: "openai", model: "gpt-4.1-mini", responseId: "c2" },
    { type: "text-delta", delta: "It is 21 °C" },
    { type: "text-delta", delta: " in Paris." },
    { type: "finish", reason: "stop", rawReason: "stop" }
  ]
  const tools = [{
    type: "function",
    function: {
      name: "weather",
      description: "Current weather",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
    }
  }]
  const body1 = {
    model: "gpt-4.1-mini",
    messages: [{ role: "user", content: "Weather in Paris?" }],
    tools,
    stream: true,
    stream_options: { include_usage: true }
  }
  const body2 = {
    model: "gpt-4.1-mini",
    messages: [
      { role: "user", content: "Weather in Paris?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{
          id: "call_1",
          type: "function",
          function: { name: "weather", arguments: "{\"city\":\"Paris\"}" }
        }]
      },
      { role: "tool", tool_call_id: "call_1", content: "{\"temperatureC\":21}" }
    ],
    tools,
    stream: true,
    stream_options: { include_usage: true }
  }
  const url = "http://replay.invalid/v1/chat/completions"
  const refused = (message: string): StreamChunk.StreamChunk => ({
    type: "error",
    error: {
      code: "invalid_request",
      message,
      retryable: false,
      status: 400,
      provider: "openai",
      details: { error: { type: "invalid_request_error", message }, message }
    }
  })

  it.effect("Replay.sequence: each request gets its reply in order, each body is logged, an extra one is refused", () =>
    Effect.gen(function*() {
      expect(yield* collect(step1)).toStrictEqual(toolCallChunks)
      expect(yield* collect(step2)).toStrictEqual(answerChunks)
      expect(yield* collect(step2)).toStrictEqual([
        refused("Replay: request 3 came, but the sequence has 2 replies")
      ])
      const requests = yield* Replay.requests
      expect(requests.map((r) => [r.method, r.url, r.body])).toStrictEqual([
        ["POST", url, body1],
        ["POST", url, body2],
        ["POST", url, body2]
      ])
    }).pipe(Effect.provide(model), Effect.provide(Replay.layer(Replay.sequence([toolCallReply, answerReply])))))

  const hasToolResult = (request: Replay.Received): boolean =>
    JSON.stringify(request.body).includes("\"role\":\"tool\"")

  it.effect("Replay.route: each request gets the reply its content calls for, whatever the order", () =>
    Effect.gen(function*() {
      expect(yield* collect(step2)).toStrictEqual(answerChunks)
      expect(yield* collect(step1)).toStrictEqual(toolCallChunks)
      expect((yield* Replay.requests).map((r) => r.body)).toStrictEqual([body2, body1])
    }).pipe(
      Effect.provide(model),
      Effect.provide(Replay.layer(Replay.route(
        { when: hasToolResult, reply: answerReply },
        { when: () => true, reply: toolCallReply }
      )))
    ))

  it.effect("Replay.route: a request no route takes is refused with its number, method and path", () =>
    Effect.gen(function*() {
      expect(yield* collect(step1)).toStrictEqual([
        refused("Replay: no route takes request 1 (POST /v1/chat/completions)")
      ])
    }).pipe(
      Effect.provide(model),
      Effect.provide(Replay.layer(Replay.route({ when: hasToolResult, reply: answerReply })))
    ))
})
