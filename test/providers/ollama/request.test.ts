/**
 * `ChatRequest` → the exact `/api/chat` body, one request feature at a time: messages of every role,
 * images, assistant thinking and tool calls, tool results named by their call, tools and tool choice,
 * think, format, the model options merged in order, keep_alive, providerOptions, refusals.
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { describe, expect, it } from "vitest"
import * as ChatRequest from "../../../src/ChatRequest.js"
import * as Request from "../../../src/providers/ollama/request.js"
import * as Response from "../../../src/Response.js"
import { foreignReasoning, step2, timeError } from "../agentStep.js"
import { decode, line } from "./support.js"

const encode = (request: ChatRequest.ChatRequest, options: Partial<Request.EncodeOptions> = {}) =>
  Request.encode(request, { model: "qwen3:8b", ...options })

const body = (request: ChatRequest.ChatRequest, options: Partial<Request.EncodeOptions> = {}) =>
  Either.getOrThrow(encode(request, options))

const hi: ReadonlyArray<ChatRequest.Message> = [{ role: "user", content: "Hi" }]

describe("Ollama request body", () => {
  it("the smallest request: model, messages, stream", () => {
    expect(body({ messages: hi })).toStrictEqual({
      model: "qwen3:8b",
      messages: [{ role: "user", content: "Hi" }],
      stream: true
    })
  })

  it("a whole tool conversation: system, user, assistant with thinking and calls, tool results by name", () => {
    const request: ChatRequest.ChatRequest = {
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Weather in Paris and Lyon?" },
        {
          role: "assistant",
          content: "Checking.",
          reasoning: [{ text: "Two cities, " }, { text: "two calls.", provider: "ollama" }],
          toolCalls: [
            {
              index: 0,
              id: "call_k3d9x0qa",
              name: "get_weather",
              arguments: { city: "Paris" },
              rawArguments: "{\"city\":\"Paris\"}"
            },
            { index: 1, id: "call_1", name: "get_time", arguments: {}, rawArguments: "" }
          ]
        },
        { role: "tool", toolCallId: "call_k3d9x0qa", content: "{\"temperature\":18}" },
        {
          role: "tool",
          toolCallId: "call_1",
          name: "get_time",
          content: [{ type: "text", text: "09:" }, { type: "text", text: "00" }]
        },
        { role: "tool", toolCallId: "call_unknown", content: "orphan" }
      ]
    }
    expect(body(request).messages).toStrictEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Weather in Paris and Lyon?" },
      {
        role: "assistant",
        content: "Checking.",
        thinking: "Two cities, two calls.",
        tool_calls: [
          { function: { name: "get_weather", arguments: { city: "Paris" } } },
          { function: { name: "get_time", arguments: {} } }
        ]
      },
      { role: "tool", tool_name: "get_weather", content: "{\"temperature\":18}" },
      { role: "tool", tool_name: "get_time", content: "09:00" },
      { role: "tool", content: "orphan" }
    ])
  })

  it("arguments that did not parse go back as {raw}; an assistant turn with no reasoning has no thinking", () => {
    const request: ChatRequest.ChatRequest = {
      messages: [{
        role: "assistant",
        content: "",
        toolCalls: [{
          index: 0,
          id: "c",
          name: "f",
          arguments: { raw: "{\"a\":" },
          rawArguments: "{\"a\":",
          parseError: "Unexpected end"
        }, { index: 1, id: "d", name: "g", arguments: [1, 2], rawArguments: "[1,2]" }]
      }]
    }
    expect(body(request).messages).toStrictEqual([{
      role: "assistant",
      content: "",
      tool_calls: [
        { function: { name: "f", arguments: { raw: "{\"a\":" } } },
        { function: { name: "g", arguments: { raw: "[1,2]" } } }
      ]
    }])
  })

  it("user parts: texts joined by a blank line, images as base64 (bytes, base64 text, data URL, image files)", () => {
    const request: ChatRequest.ChatRequest = {
      messages: [{
        role: "user",
        content: [
          { type: "text", text: "What is in" },
          { type: "image", data: new Uint8Array([1, 2, 3]) },
          { type: "image", data: "iVBORw0KGgo=", mediaType: "image/png" },
          { type: "text", text: "these images?" },
          { type: "image", data: "data:image/jpeg;base64,/9j/4AAQ" },
          { type: "file", data: "R0lGODlh", mediaType: "image/gif" }
        ]
      }]
    }
    expect(body(request).messages).toStrictEqual([{
      role: "user",
      content: "What is in\n\nthese images?",
      images: ["AQID", "iVBORw0KGgo=", "/9j/4AAQ", "R0lGODlh"]
    }])
  })

  it("an image by URL, or a file that is not an image, cannot be sent: refused with the reason", () => {
    expect(encode({ messages: [{ role: "user", content: [{ type: "image", url: "https://x.example/a.png" }] }] }))
      .toStrictEqual(Either.left("Ollama cannot fetch an image by URL: pass its bytes (data) instead"))
    expect(encode({
      messages: [{ role: "user", content: [{ type: "file", data: "JVBERi0=", mediaType: "application/pdf" }] }]
    })).toStrictEqual(Either.left("Ollama takes images only, not application/pdf files"))
  })

  it("tools as functions; toolChoice none leaves them out, other choices are not sent", () => {
    const tools = [
      ChatRequest.tool({
        name: "get_weather",
        description: "Current weather",
        parameters: Schema.Struct({ city: Schema.String })
      }),
      { name: "ping", parameters: { type: "object", properties: {} }, strict: true }
    ]
    expect(body({ messages: hi, tools, toolChoice: "required" })).toStrictEqual({
      model: "qwen3:8b",
      messages: [{ role: "user", content: "Hi" }],
      tools: [
        {
          type: "function",
          function: {
            name: "get_weather",
            description: "Current weather",
            parameters: {
              type: "object",
              required: ["city"],
              properties: { city: { type: "string" } },
              additionalProperties: false
            }
          }
        },
        { type: "function", function: { name: "ping", parameters: { type: "object", properties: {} } } }
      ],
      stream: true
    })
    expect(body({ messages: hi, tools, toolChoice: "none" }).tools).toBeUndefined()
  })

  it("think: from reasoning (true, a level, minimal as low), else the option; the request wins", () => {
    expect(body({ messages: hi, reasoning: {} }).think).toBe(true)
    expect(body({ messages: hi, reasoning: { budgetTokens: 1024 } }).think).toBe(true)
    expect(body({ messages: hi, reasoning: { effort: "high" } }).think).toBe("high")
    expect(body({ messages: hi, reasoning: { effort: "medium" } }).think).toBe("medium")
    expect(body({ messages: hi, reasoning: { effort: "minimal" } }).think).toBe("low")
    expect(body({ messages: hi }, { think: false }).think).toBe(false)
    expect(body({ messages: hi, reasoning: { effort: "low" } }, { think: false }).think).toBe("low")
    expect(body({ messages: hi }).think).toBeUndefined()
    expect(body({ messages: hi, providerOptions: { think: "high" } }, { think: true }).think).toBe("high")
  })

  it("format: json, a JSON schema as itself, nothing for text", () => {
    const schema = { type: "object", properties: { age: { type: "integer" } }, required: ["age"] }
    expect(body({ messages: hi, responseFormat: { type: "json" } }).format).toBe("json")
    expect(body({ messages: hi, responseFormat: { type: "json_schema", name: "person", schema } }).format)
      .toStrictEqual(schema)
    expect("format" in body({ messages: hi, responseFormat: { type: "text" } })).toBe(false)
  })

  it("options: the layer's, then the request's fields, then providerOptions.options, merged key by key", () => {
    const request: ChatRequest.ChatRequest = {
      messages: hi,
      temperature: 0.2,
      topP: 0.9,
      maxTokens: 256,
      stop: ["\n\n", "END"],
      providerOptions: { options: { seed: 42, temperature: 0 } }
    }
    expect(body(request, { options: { num_ctx: 8192, temperature: 1, top_k: 40 } })).toStrictEqual({
      model: "qwen3:8b",
      messages: [{ role: "user", content: "Hi" }],
      options: {
        num_ctx: 8192,
        temperature: 0,
        top_k: 40,
        top_p: 0.9,
        num_predict: 256,
        stop: ["\n\n", "END"],
        seed: 42
      },
      stream: true
    })
  })

  it("keep_alive from the option, replaced by providerOptions; other providerOptions keys pass through", () => {
    expect(body({ messages: hi }, { keepAlive: "10m" }).keep_alive).toBe("10m")
    expect(body({ messages: hi }, { keepAlive: -1 }).keep_alive).toBe(-1)
    expect(
      body({ messages: hi, providerOptions: { keep_alive: 0, logprobs: true, top_logprobs: 2 } }, { keepAlive: "10m" })
    )
      .toStrictEqual({
        model: "qwen3:8b",
        messages: [{ role: "user", content: "Hi" }],
        keep_alive: 0,
        stream: true,
        logprobs: true,
        top_logprobs: 2
      })
  })

  it("providerOptions.options that is not an object is refused", () => {
    expect(encode({ messages: hi, providerOptions: { options: [1] } })).toStrictEqual(
      Either.left("providerOptions.options must be an object (the Ollama model options)")
    )
  })

  it("an empty messages list is sent as it is: Ollama then only loads the model (done_reason load)", () => {
    expect(body({ messages: [] }, { keepAlive: "5m" })).toStrictEqual({
      model: "qwen3:8b",
      messages: [],
      keep_alive: "5m",
      stream: true
    })
  })

  it("a conversation of two turns whose calls had no server id: distinct ids, and each result named by its own call", () => {
    // Each turn as the decoder hands it over: one call without an id, then the done line.
    const turn = (createdAt: string, name: string, args: Record<string, unknown>) =>
      Response.fromChunks(decode([
        line({
          model: "qwen3:8b",
          created_at: createdAt,
          message: { role: "assistant", content: "", tool_calls: [{ function: { name, arguments: args } }] },
          done: false
        }),
        line({ model: "qwen3:8b", created_at: createdAt, message: { role: "assistant", content: "" }, done: true })
      ]))
    const first = turn("2025-07-07T20:22:19.1Z", "get_weather", { city: "Paris" })
    const second = turn("2025-07-07T20:22:25.7Z", "get_time", { zone: "CET" })
    const [call1] = first.toolCalls
    const [call2] = second.toolCalls
    expect([call1?.id, call2?.id]).toStrictEqual(["call_202507072022191_0", "call_202507072022257_0"])
    const messages: Array<ChatRequest.Message> = [
      { role: "user", content: "Weather, then time?" },
      { role: "assistant", content: "", toolCalls: first.toolCalls },
      { role: "tool", toolCallId: call1!.id, content: "18" },
      { role: "assistant", content: "", toolCalls: second.toolCalls },
      { role: "tool", toolCallId: call2!.id, content: "09:00" }
    ]
    expect(body({ messages }).messages).toStrictEqual([
      { role: "user", content: "Weather, then time?" },
      {
        role: "assistant",
        content: "",
        tool_calls: [{ function: { name: "get_weather", arguments: { city: "Paris" } } }]
      },
      { role: "tool", tool_name: "get_weather", content: "18" },
      { role: "assistant", content: "", tool_calls: [{ function: { name: "get_time", arguments: { zone: "CET" } } }] },
      { role: "tool", tool_name: "get_time", content: "09:00" }
    ])
  })

  it("an agent step-2 request", () => {
    // Ollama's thinking arrives unsigned and untagged; another provider's signed block stays out.
    const request = step2([{ text: "Two lookups: weather, then time." }, foreignReasoning])
    expect(body(request, { provider: "ollama" })).toStrictEqual({
      model: "qwen3:8b",
      messages: [
        { role: "system", content: "Answer in one sentence." },
        { role: "user", content: "Weather and time in Paris?" },
        {
          role: "assistant",
          content: "Checking.",
          thinking: "Two lookups: weather, then time.",
          tool_calls: [
            { function: { name: "get_weather", arguments: { city: "Paris" } } },
            { function: { name: "get_time", arguments: { zone: "CET" } } }
          ]
        },
        // Ollama matches results by tool name and has no error flag: the error is the text.
        { role: "tool", tool_name: "get_weather", content: "{\"temperatureC\":18}" },
        { role: "tool", tool_name: "get_time", content: timeError }
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
      responseFormat: { type: "json_schema", name: "answer", schema, strict: true }
    })).toStrictEqual({
      model: "qwen3:8b",
      messages: [{ role: "user", content: "Capital of France?" }],
      format: schema,
      stream: true
    })
  })
})
