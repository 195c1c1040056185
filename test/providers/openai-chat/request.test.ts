import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { describe, expect, it } from "vitest"
import * as ChatRequest from "../../../src/ChatRequest.js"
import { encode } from "../../../src/providers/openai-chat/request.js"
import { foreignReasoning, step2, timeError } from "../agentStep.js"

const streaming = { stream: true, stream_options: { include_usage: true } }

describe("OpenAiChat request body", () => {
  it("encodes a bare string as one user message", () => {
    expect(encode(ChatRequest.make("Hello"), { model: "gpt-4o-mini" })).toStrictEqual({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "Hello" }],
      ...streaming
    })
  })

  it("encodes a conversation with tool calls, reasoning to send back and tool results", () => {
    const request: ChatRequest.ChatRequest = {
      messages: [
        ChatRequest.system("Be brief."),
        ChatRequest.user("Weather in Paris and Rome?"),
        {
          role: "assistant",
          content: "",
          reasoning: [{ text: "Two cities, " }, { text: "two calls." }],
          toolCalls: [
            {
              index: 0,
              id: "call_1",
              name: "get_weather",
              arguments: { city: "Paris" },
              rawArguments: "{\"city\":\"Paris\"}"
            },
            { index: 1, id: "call_2", name: "now", arguments: {}, rawArguments: "" }
          ]
        },
        ChatRequest.toolResult("call_1", "18°C"),
        {
          role: "tool",
          toolCallId: "call_2",
          content: [{ type: "text", text: "12:00" }, { type: "text", text: " CET" }]
        },
        { role: "assistant", content: "Paris: 18°C.", refusal: "No." }
      ]
    }
    expect(encode(request, { model: "deepseek-reasoner" })).toStrictEqual({
      model: "deepseek-reasoner",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Weather in Paris and Rome?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "call_1", type: "function", function: { name: "get_weather", arguments: "{\"city\":\"Paris\"}" } },
            { id: "call_2", type: "function", function: { name: "now", arguments: "{}" } }
          ],
          reasoning_content: "Two cities, two calls."
        },
        { role: "tool", tool_call_id: "call_1", content: "18°C" },
        { role: "tool", tool_call_id: "call_2", content: "12:00 CET" },
        { role: "assistant", content: "Paris: 18°C.", refusal: "No." }
      ],
      ...streaming
    })
  })

  it("encodes images by URL and by bytes, and files", () => {
    const request: ChatRequest.ChatRequest = {
      messages: [ChatRequest.user([
        { type: "text", text: "What is this?" },
        { type: "image", url: "https://example.com/cat.jpg", detail: "low" },
        { type: "image", data: new Uint8Array([1, 2, 3]) },
        { type: "image", data: "AAEC", mediaType: "image/jpeg" },
        { type: "file", data: new Uint8Array([37, 80, 68, 70]), mediaType: "application/pdf", filename: "a.pdf" },
        { type: "file", url: "https://example.com/b.pdf", mediaType: "application/pdf" },
        { type: "file", url: "https://example.com/c.png", mediaType: "image/png" },
        { type: "file", data: "UklGRg==", mediaType: "audio/wav" }
      ])]
    }
    expect(encode(request, { model: "gpt-4o" }).messages).toStrictEqual([{
      role: "user",
      content: [
        { type: "text", text: "What is this?" },
        { type: "image_url", image_url: { url: "https://example.com/cat.jpg", detail: "low" } },
        { type: "image_url", image_url: { url: "data:image/png;base64,AQID" } },
        { type: "image_url", image_url: { url: "data:image/jpeg;base64,AAEC" } },
        { type: "file", file: { filename: "a.pdf", file_data: "data:application/pdf;base64,JVBERg==" } },
        { type: "file", file: { file_data: "https://example.com/b.pdf" } },
        { type: "image_url", image_url: { url: "https://example.com/c.png" } },
        { type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } }
      ]
    }])
  })

  it("encodes tools built from an Effect Schema", () => {
    const weather = ChatRequest.tool({
      name: "get_weather",
      description: "Current weather in a city",
      parameters: Schema.Struct({
        city: Schema.String,
        unit: Schema.optional(Schema.Literal("celsius", "fahrenheit"))
      }),
      strict: true
    })
    expect(
      encode(
        { messages: [ChatRequest.user("Hi")], tools: [weather, { name: "now", parameters: { type: "object" } }] },
        { model: "m" }
      ).tools
    )
      .toStrictEqual([
        {
          type: "function",
          function: {
            name: "get_weather",
            description: "Current weather in a city",
            parameters: {
              type: "object",
              required: ["city"],
              properties: { city: { type: "string" }, unit: { type: "string", enum: ["celsius", "fahrenheit"] } },
              additionalProperties: false
            },
            strict: true
          }
        },
        { type: "function", function: { name: "now", parameters: { type: "object" } } }
      ])
  })

  it("encodes every tool choice", () => {
    const choice = (toolChoice: ChatRequest.ToolChoice) =>
      encode({ messages: [], toolChoice }, { model: "m" }).tool_choice
    expect([choice("auto"), choice("none"), choice("required"), choice({ type: "tool", name: "get_weather" })])
      .toStrictEqual([
        "auto",
        "none",
        "required",
        { type: "function", function: { name: "get_weather" } }
      ])
  })

  it("encodes all the options", () => {
    const request: ChatRequest.ChatRequest = {
      messages: [ChatRequest.user("Hi")],
      maxTokens: 256,
      temperature: 0.2,
      topP: 0.9,
      stop: ["\n\n"],
      reasoning: { effort: "low", budgetTokens: 1000 },
      responseFormat: {
        type: "json_schema",
        name: "answer",
        schema: { type: "object" },
        description: "The answer",
        strict: true
      },
      headers: { "x-test": "1" }
    }
    expect(encode(request, { model: "o4-mini" })).toStrictEqual({
      model: "o4-mini",
      messages: [{ role: "user", content: "Hi" }],
      max_completion_tokens: 256,
      temperature: 0.2,
      top_p: 0.9,
      stop: ["\n\n"],
      reasoning_effort: "low",
      response_format: {
        type: "json_schema",
        json_schema: { name: "answer", description: "The answer", schema: { type: "object" }, strict: true }
      },
      ...streaming
    })
    const format = (responseFormat: ChatRequest.ResponseFormat) =>
      encode({ messages: [], responseFormat }, { model: "m" }).response_format
    expect([format({ type: "text" }), format({ type: "json" })]).toStrictEqual([{ type: "text" }, {
      type: "json_object"
    }])
  })

  it("follows the preset's max-tokens field and usage option", () => {
    expect(encode({ messages: [], maxTokens: 10 }, { model: "m", maxTokensField: "max_tokens", includeUsage: false }))
      .toStrictEqual({ model: "m", messages: [], max_tokens: 10, stream: true })
  })

  it("spreads providerOptions last, so they override any field", () => {
    const request: ChatRequest.ChatRequest = {
      messages: [ChatRequest.user("Hi")],
      temperature: 0.2,
      providerOptions: { temperature: 1, stream_options: { include_usage: false }, reasoning_format: "parsed" }
    }
    expect(encode(request, { model: "m" })).toStrictEqual({
      model: "m",
      messages: [{ role: "user", content: "Hi" }],
      temperature: 1,
      stream: true,
      stream_options: { include_usage: false },
      reasoning_format: "parsed"
    })
  })
})

describe("OpenAiChat: the agent loop and structured output", () => {
  it("an agent step-2 request", () => {
    // DeepSeek's reasoning arrives unsigned and untagged; another provider's signed block stays out.
    const request = step2([{ text: "Two facts: the weather, then the time." }, foreignReasoning])
    expect(encode(request, { model: "deepseek-chat", maxTokensField: "max_tokens", provider: "deepseek" }))
      .toStrictEqual({
        model: "deepseek-chat",
        messages: [
          { role: "system", content: "Answer in one sentence." },
          { role: "user", content: "Weather and time in Paris?" },
          {
            role: "assistant",
            content: "Checking.",
            tool_calls: [
              { id: "call_1", type: "function", function: { name: "get_weather", arguments: "{\"city\":\"Paris\"}" } },
              { id: "call_2", type: "function", function: { name: "get_time", arguments: "{\"zone\":\"CET\"}" } }
            ],
            reasoning_content: "Two facts: the weather, then the time."
          },
          // Chat Completions has no error flag: the error is the result's text.
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
        ...streaming
      })
  })

  it("structured output: the native mechanism", () => {
    const schema = {
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
      additionalProperties: false
    }
    expect(encode({
      messages: [ChatRequest.user("Capital of France?")],
      responseFormat: { type: "json_schema", name: "answer", schema, strict: true }
    }, { model: "gpt-4.1-mini" })).toStrictEqual({
      model: "gpt-4.1-mini",
      messages: [{ role: "user", content: "Capital of France?" }],
      response_format: { type: "json_schema", json_schema: { name: "answer", schema, strict: true } },
      ...streaming
    })
  })
})

describe("ChatRequest parts need their content", () => {
  it("an image with neither url nor data is rejected by the schema, with a readable reason", () => {
    const decoded = Schema.decodeUnknownEither(ChatRequest.ChatRequest)({
      messages: [{ role: "user", content: [{ type: "image", mediaType: "image/png" }] }]
    })
    expect(Either.isLeft(decoded) && decoded.left.message.includes("an image needs a url or data")).toBe(true)
    const ok = Schema.decodeUnknownEither(ChatRequest.ChatRequest)({
      messages: [{ role: "user", content: [{ type: "image", url: "https://example.com/a.png" }] }]
    })
    expect(Either.isRight(ok)).toBe(true)
  })
})
