/**
 * ChatRequest → the exact v2 chat body, including the round trip of a collected response.
 */
import * as Either from "effect/Either"
import { describe, expect, it } from "vitest"
import type * as ChatRequest from "../../../src/ChatRequest.js"
import * as Request from "../../../src/providers/cohere/request.js"
import * as Response from "../../../src/Response.js"
import { foreignReasoning, step2, timeError } from "../agentStep.js"
import { decode, frame, own } from "./support.js"

const encode = (request: ChatRequest.ChatRequest) => Request.encode(request, { model: "command-test" })
const body = (request: ChatRequest.ChatRequest) => Either.getOrThrow(encode(request))
const problem = (request: ChatRequest.ChatRequest) => Either.flip(encode(request)).pipe(Either.getOrThrow)

const weatherTool = {
  name: "get_weather",
  description: "Weather for a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
}
const cohereWeather = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Weather for a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
  }
}

describe("the v2 chat body", () => {
  it("a bare prompt: model, messages, stream", () => {
    expect(body({ messages: [{ role: "user", content: "Hello" }] })).toStrictEqual({
      model: "command-test",
      messages: [{ role: "user", content: "Hello" }],
      stream: true
    })
  })

  it("system messages stay in place; options map to their Cohere names", () => {
    expect(body({
      messages: [
        { role: "system", content: "Be terse." },
        { role: "user", content: "Weather in Paris?" }
      ],
      tools: [weatherTool, { name: "now", parameters: { type: "object" } }],
      toolChoice: "required",
      maxTokens: 300,
      temperature: 0.2,
      topP: 0.9,
      stop: ["END"]
    })).toStrictEqual({
      model: "command-test",
      messages: [{ role: "system", content: "Be terse." }, { role: "user", content: "Weather in Paris?" }],
      tools: [cohereWeather, { type: "function", function: { name: "now", parameters: { type: "object" } } }],
      tool_choice: "REQUIRED",
      max_tokens: 300,
      temperature: 0.2,
      p: 0.9,
      stop_sequences: ["END"],
      stream: true
    })
  })

  it("tool choice: auto sends nothing, none is NONE, a named tool is that tool alone with REQUIRED", () => {
    const tools = [weatherTool, { name: "now", parameters: { type: "object" } }]
    const pick = (toolChoice: ChatRequest.ToolChoice) => {
      const b = body({ messages: [], tools, toolChoice })
      return [b.tool_choice, (b.tools as Array<{ function: { name: string } }>).map((t) => t.function.name)]
    }
    expect([pick("auto"), pick("none"), pick({ type: "tool", name: "get_weather" })]).toStrictEqual([
      [undefined, ["get_weather", "now"]],
      ["NONE", ["get_weather", "now"]],
      ["REQUIRED", ["get_weather"]]
    ])
  })

  it("a named tool that is not among the tools is refused with a clear message", () => {
    expect(problem({ messages: [], tools: [weatherTool], toolChoice: { type: "tool", name: "nope" } })).toBe(
      "toolChoice names the tool \"nope\", which is not among the request's tools"
    )
    expect(problem({ messages: [], toolChoice: { type: "tool", name: "nope" } })).toBe(
      "toolChoice names the tool \"nope\", which is not among the request's tools"
    )
  })

  it("a strict tool turns on strict_tools", () => {
    expect(body({ messages: [], tools: [{ ...weatherTool, strict: true }] }).strict_tools).toBe(true)
    expect(body({ messages: [], tools: [{ ...weatherTool, strict: false }] }).strict_tools).toBeUndefined()
  })

  it("response formats: json, json_schema, text", () => {
    const schema = { type: "object", properties: { a: { type: "number" } } }
    expect([
      body({ messages: [], responseFormat: { type: "json" } }).response_format,
      body({ messages: [], responseFormat: { type: "json_schema", name: "out", schema } }).response_format,
      body({ messages: [], responseFormat: { type: "text" } }).response_format
    ]).toStrictEqual([{ type: "json_object" }, { type: "json_object", json_schema: schema }, undefined])
  })

  it("reasoning: a budget is thinking with token_budget; an effort alone turns thinking on", () => {
    expect(body({ messages: [], reasoning: { budgetTokens: 2048 } }).thinking).toStrictEqual({
      type: "enabled",
      token_budget: 2048
    })
    expect(body({ messages: [], reasoning: { effort: "high" } }).thinking).toStrictEqual({ type: "enabled" })
  })

  it("providerOptions are merged last, replacing what the encoder wrote", () => {
    const b = body({
      messages: [{ role: "user", content: "x" }],
      temperature: 0.5,
      providerOptions: { temperature: 0.1, documents: [{ data: { text: "doc" } }], k: 40, stream: true }
    })
    expect(b).toStrictEqual({
      model: "command-test",
      messages: [{ role: "user", content: "x" }],
      temperature: 0.1,
      stream: true,
      documents: [{ data: { text: "doc" } }],
      k: 40
    })
  })

  it("user parts: text, images by URL, base64, bytes and data URL, with detail", () => {
    const m = body({
      messages: [{
        role: "user",
        content: [
          { type: "text", text: "Look:" },
          { type: "image", url: "https://example.org/cat.png", detail: "high" },
          { type: "image", data: "aGVsbG8=", mediaType: "image/jpeg" },
          { type: "image", data: new Uint8Array([104, 105]) },
          { type: "file", data: "data:image/webp;base64,AAAA", mediaType: "image/webp" }
        ]
      }]
    }).messages
    expect(m).toStrictEqual([{
      role: "user",
      content: [
        { type: "text", text: "Look:" },
        { type: "image_url", image_url: { url: "https://example.org/cat.png", detail: "high" } },
        { type: "image_url", image_url: { url: "data:image/jpeg;base64,aGVsbG8=" } },
        { type: "image_url", image_url: { url: "data:image/png;base64,aGk=" } },
        { type: "image_url", image_url: { url: "data:image/webp;base64,AAAA" } }
      ]
    }])
  })

  it("a file that is not an image is refused, pointing at providerOptions.documents", () => {
    expect(problem({
      messages: [{ role: "user", content: [{ type: "file", data: "JVBERi0=", mediaType: "application/pdf" }] }]
    })).toBe("Cohere takes no application/pdf file in a message: pass documents as providerOptions.documents")
  })

  it("assistant turns: text as content; with calls, text as tool_plan and arguments as a string; tool results", () => {
    expect(
      body({
        messages: [
          { role: "assistant", content: "Plain answer." },
          {
            role: "assistant",
            content: "I will check.",
            toolCalls: [
              {
                index: 0,
                id: "w_1",
                name: "get_weather",
                arguments: { city: "Paris" },
                rawArguments: "{\"city\": \"Paris\"}"
              },
              { index: 1, id: "t_2", name: "now", arguments: {}, rawArguments: "" },
              { index: 2, id: "b_3", name: "bad", arguments: { raw: "{oops" }, rawArguments: "{oops", parseError: "x" }
            ]
          },
          {
            role: "assistant",
            content: "",
            toolCalls: [{ index: 0, id: "n", name: "now", arguments: {}, rawArguments: "" }]
          },
          { role: "tool", toolCallId: "w_1", content: "18 °C" },
          { role: "tool", toolCallId: "t_2", content: [{ type: "text", text: "12:00" }], isError: true }
        ]
      }).messages
    ).toStrictEqual([
      { role: "assistant", content: "Plain answer." },
      {
        role: "assistant",
        tool_plan: "I will check.",
        tool_calls: [
          { id: "w_1", type: "function", function: { name: "get_weather", arguments: "{\"city\":\"Paris\"}" } },
          { id: "t_2", type: "function", function: { name: "now", arguments: "{}" } },
          { id: "b_3", type: "function", function: { name: "bad", arguments: "{oops" } }
        ]
      },
      { role: "assistant", tool_calls: [{ id: "n", type: "function", function: { name: "now", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "w_1", content: "18 °C" },
      { role: "tool", tool_call_id: "t_2", content: [{ type: "text", text: "12:00" }] }
    ])
  })

  it("reasoning goes back as thinking content; another provider's signed or redacted blobs are left out", () => {
    const reasoning = [
      { text: "Cohere's own thought." },
      { text: "signed elsewhere", signature: "sig", provider: "anthropic" },
      { text: "", redacted: "opaque" },
      { text: "tagged as ours", provider: "cohere" }
    ]
    expect(
      body({
        messages: [
          { role: "assistant", content: "4.", reasoning },
          {
            role: "assistant",
            content: "",
            reasoning,
            toolCalls: [{ index: 0, id: "c", name: "f", arguments: {}, rawArguments: "{}" }]
          }
        ]
      }).messages
    ).toStrictEqual([
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "Cohere's own thought." },
          { type: "thinking", thinking: "tagged as ours" },
          { type: "text", text: "4." }
        ]
      },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "Cohere's own thought." },
          { type: "thinking", thinking: "tagged as ours" }
        ],
        tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }]
      }
    ])
  })

  it("round trip: a collected tool turn is the next request's assistant message, plan and calls as Cohere sent them", () => {
    const r = Response.fromChunks(decode(frame(own("tool-call.sse"))))
    expect(body({ messages: [{ role: "user", content: "Weather and time?" }, r.message] }).messages).toStrictEqual([
      { role: "user", content: "Weather and time?" },
      {
        role: "assistant",
        tool_plan: "I will check the weather and the time.",
        tool_calls: [
          {
            id: "get_weather_k2x9q1",
            type: "function",
            function: { name: "get_weather", arguments: "{\"city\":\"Paris\",\"unit\":\"celsius\"}" }
          },
          { id: "current_time_p7d3m0", type: "function", function: { name: "current_time", arguments: "{}" } }
        ]
      }
    ])
  })

  it("round trip: a collected thinking turn sends its reasoning back as thinking content", () => {
    const r = Response.fromChunks(decode(frame(own("thinking.sse"))))
    expect(body({ messages: [r.message] }).messages).toStrictEqual([{
      role: "assistant",
      content: [{ type: "thinking", thinking: "925 ÷ 5 = 185" }, { type: "text", text: "185" }]
    }])
  })

  it("an agent step-2 request", () => {
    // Cohere's thinking arrives unsigned and untagged; another provider's signed block stays out.
    const request = step2([{ text: "Two lookups: weather, then time." }, foreignReasoning])
    expect(body(request)).toStrictEqual({
      model: "command-test",
      messages: [
        { role: "system", content: "Answer in one sentence." },
        { role: "user", content: "Weather and time in Paris?" },
        {
          role: "assistant",
          content: [{ type: "thinking", thinking: "Two lookups: weather, then time." }],
          tool_plan: "Checking.",
          tool_calls: [
            { id: "call_1", type: "function", function: { name: "get_weather", arguments: "{\"city\":\"Paris\"}" } },
            { id: "call_2", type: "function", function: { name: "get_time", arguments: "{\"zone\":\"CET\"}" } }
          ]
        },
        // Cohere has no error flag: the error is the result's text.
        { role: "tool", tool_call_id: "call_1", content: "{\"temperatureC\":18}" },
        { role: "tool", tool_call_id: "call_2", content: timeError }
      ],
      tools: [
        {
          type: "function",
          function: {
            name: "get_weather",
            description: "Current weather in a city",
            parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
          }
        },
        {
          type: "function",
          function: {
            name: "get_time",
            description: "Current time in a time zone",
            parameters: { type: "object", properties: { zone: { type: "string" } }, required: ["zone"] }
          }
        }
      ],
      stream: true
    })
  })

  it("structured output: the native mechanism", () => {
    const schema = { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
    expect(body({
      messages: [{ role: "user", content: "Capital of France?" }],
      responseFormat: { type: "json_schema", name: "answer", schema }
    })).toStrictEqual({
      model: "command-test",
      messages: [{ role: "user", content: "Capital of France?" }],
      response_format: { type: "json_object", json_schema: schema },
      stream: true
    })
  })
})
