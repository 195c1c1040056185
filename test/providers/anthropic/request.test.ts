/**
 * ChatRequest → the exact Messages body, including the round trip of a collected response.
 */
import * as Either from "effect/Either"
import { describe, expect, it } from "vitest"
import type * as ChatRequest from "../../../src/ChatRequest.js"
import * as Anthropic from "../../../src/providers/anthropic/index.js"
import * as Request from "../../../src/providers/anthropic/request.js"
import * as Response from "../../../src/Response.js"
import { foreignReasoning, step2, timeError } from "../agentStep.js"
import { decode, frame, own } from "./support.js"

const encode = (request: ChatRequest.ChatRequest) => Request.encode(request, { model: "claude-test", maxTokens: 4096 })
const body = (request: ChatRequest.ChatRequest) => Either.getOrThrow(encode(request))
const problem = (request: ChatRequest.ChatRequest) => Either.flip(encode(request)).pipe(Either.getOrThrow)

const weatherTool = {
  name: "get_weather",
  description: "Weather for a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
}

describe("the Messages body", () => {
  it("a bare prompt: model, messages, the default max_tokens, stream", () => {
    expect(body({ messages: [{ role: "user", content: "Hello" }] })).toStrictEqual({
      model: "claude-test",
      messages: [{ role: "user", content: "Hello" }],
      max_tokens: 4096,
      stream: true
    })
  })

  it("system messages go top-level; options map to their Anthropic names", () => {
    expect(body({
      messages: [
        { role: "system", content: "Be terse." },
        { role: "user", content: "Weather in Paris?" }
      ],
      tools: [weatherTool, { name: "now", parameters: { type: "object" }, strict: true }],
      toolChoice: "required",
      maxTokens: 300,
      temperature: 0.2,
      topP: 0.9,
      stop: ["END"]
    })).toStrictEqual({
      model: "claude-test",
      system: "Be terse.",
      messages: [{ role: "user", content: "Weather in Paris?" }],
      max_tokens: 300,
      tools: [
        {
          name: "get_weather",
          description: "Weather for a city",
          input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
        },
        { name: "now", input_schema: { type: "object" }, strict: true }
      ],
      tool_choice: { type: "any" },
      temperature: 0.2,
      top_p: 0.9,
      stop_sequences: ["END"],
      stream: true
    })
  })

  it("tool choice: auto, none, a named tool", () => {
    const choice = (toolChoice: ChatRequest.ToolChoice) => body({ messages: [], toolChoice }).tool_choice
    expect([choice("auto"), choice("none"), choice({ type: "tool", name: "get_weather" })]).toStrictEqual([
      { type: "auto" },
      { type: "none" },
      { type: "tool", name: "get_weather" }
    ])
  })

  it("two system messages are two text blocks", () => {
    expect(body({ messages: [{ role: "system", content: "A" }, { role: "system", content: "B" }] }).system)
      .toStrictEqual([{ type: "text", text: "A" }, { type: "text", text: "B" }])
  })

  it("images and documents: by URL, base64 text, bytes, data URL; plain text as text", () => {
    const m = body({
      messages: [{
        role: "user",
        content: [
          { type: "text", text: "Compare these." },
          { type: "image", url: "https://example.com/cat.png" },
          { type: "image", data: "iVBORw0KGgo=", mediaType: "image/png" },
          { type: "image", data: "data:image/jpeg;base64,/9j/4AAQ" },
          { type: "file", data: new Uint8Array([37, 80, 68, 70]), mediaType: "application/pdf", filename: "spec.pdf" },
          { type: "file", url: "https://example.com/paper.pdf", mediaType: "application/pdf" },
          { type: "file", data: "aGVsbG8gd29ybGQ=", mediaType: "text/plain", filename: "notes.txt" },
          { type: "file", data: "R0lGODlh", mediaType: "image/gif" }
        ]
      }]
    }).messages
    expect(m).toStrictEqual([{
      role: "user",
      content: [
        { type: "text", text: "Compare these." },
        { type: "image", source: { type: "url", url: "https://example.com/cat.png" } },
        { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
        { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "/9j/4AAQ" } },
        {
          type: "document",
          source: { type: "base64", media_type: "application/pdf", data: "JVBERg==" },
          title: "spec.pdf"
        },
        { type: "document", source: { type: "url", url: "https://example.com/paper.pdf" } },
        {
          type: "document",
          source: { type: "text", media_type: "text/plain", data: "hello world" },
          title: "notes.txt"
        },
        { type: "image", source: { type: "base64", media_type: "image/gif", data: "R0lGODlh" } }
      ]
    }])
  })

  it("consecutive tool results are one user message of tool_result blocks; failures say is_error", () => {
    expect(
      body({
        messages: [
          { role: "tool", toolCallId: "toolu_1", content: "18°C" },
          { role: "tool", toolCallId: "toolu_2", content: [{ type: "text", text: "no such city" }], isError: true },
          { role: "user", content: "Thanks" }
        ]
      }).messages
    ).toStrictEqual([
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", content: "18°C" },
          {
            type: "tool_result",
            tool_use_id: "toolu_2",
            content: [{ type: "text", text: "no such city" }],
            is_error: true
          }
        ]
      },
      { role: "user", content: "Thanks" }
    ])
  })

  it("thinking with a budget: enabled, and max_tokens grows by the budget unless set", () => {
    expect(body({ messages: [], reasoning: { budgetTokens: 2048 } })).toStrictEqual({
      model: "claude-test",
      messages: [],
      max_tokens: 6144,
      thinking: { type: "enabled", budget_tokens: 2048 },
      stream: true
    })
    expect(body({ messages: [], maxTokens: 9000, reasoning: { budgetTokens: 2048 } }).max_tokens).toBe(9000)
  })

  it("an effort without a budget: adaptive thinking and output_config.effort (minimal → low)", () => {
    expect(body({ messages: [], reasoning: { effort: "high" } })).toStrictEqual({
      model: "claude-test",
      messages: [],
      max_tokens: 4096,
      thinking: { type: "adaptive" },
      output_config: { effort: "high" },
      stream: true
    })
    expect(body({ messages: [], reasoning: { effort: "minimal" } }).output_config).toStrictEqual({ effort: "low" })
  })

  it("structured output: the native mechanism", () => {
    // A forced tool whose input is the answer, as Bedrock's: json_response, its schema the requested one.
    const schema = {
      type: "object",
      properties: { n: { type: "number" } },
      required: ["n"],
      additionalProperties: false
    }
    expect(body({
      messages: [{ role: "user", content: "A number?" }],
      responseFormat: { type: "json_schema", name: "answer", schema, strict: true }
    })).toStrictEqual({
      model: "claude-test",
      messages: [{ role: "user", content: "A number?" }],
      max_tokens: 4096,
      tools: [{
        name: "json_response",
        description: "Respond with a JSON object matching this schema: call this tool once, with the whole answer.",
        input_schema: schema,
        strict: true
      }],
      tool_choice: { type: "tool", name: "json_response" },
      stream: true
    })
    expect(body({ messages: [], responseFormat: { type: "json" } }))
      .toStrictEqual({
        model: "claude-test",
        messages: [],
        max_tokens: 4096,
        tools: [{
          name: "json_response",
          description: "Respond with a JSON object: call this tool once, with the whole answer.",
          input_schema: { type: "object" }
        }],
        tool_choice: { type: "tool", name: "json_response" },
        stream: true
      })
  })

  it("the JSON tool beside the caller's tools, a named or none choice, and thinking (which refuses forced tools)", () => {
    const schema = { type: "object", properties: { city: { type: "string" } } }
    const format: ChatRequest.ResponseFormat = { type: "json_schema", name: "answer", schema, description: "The city" }
    const jsonTool = { name: "json_response", description: "The city", input_schema: schema }
    const weather = {
      name: "get_weather",
      description: "Weather for a city",
      input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
    }
    const choice = (request: Partial<ChatRequest.ChatRequest>) => {
      const b = body({ messages: [], responseFormat: format, ...request })
      return [b.tools, b.tool_choice]
    }
    // The caller's tools first (a cache breakpoint on their last stays put), then the answer tool.
    expect(choice({ tools: [weatherTool] })).toStrictEqual([[weather, jsonTool], { type: "any" }])
    expect(choice({ tools: [weatherTool], toolChoice: "auto" })).toStrictEqual([[weather, jsonTool], { type: "any" }])
    expect(choice({ tools: [weatherTool], toolChoice: "none" })).toStrictEqual([
      [weather, jsonTool],
      { type: "tool", name: "json_response" }
    ])
    expect(choice({ tools: [weatherTool], toolChoice: { type: "tool", name: "get_weather" } })).toStrictEqual([
      [weather, jsonTool],
      { type: "tool", name: "get_weather" }
    ])
    // With thinking on (a budget, an effort, or providerOptions.thinking), only auto is accepted.
    expect(choice({ reasoning: { budgetTokens: 1024 } })).toStrictEqual([[jsonTool], { type: "auto" }])
    expect(choice({ tools: [weatherTool], reasoning: { effort: "low" } })).toStrictEqual([
      [weather, jsonTool],
      { type: "auto" }
    ])
    expect(choice({ providerOptions: { thinking: { type: "enabled", budget_tokens: 2048 } } })).toStrictEqual([
      [jsonTool],
      { type: "auto" }
    ])
    expect(choice({ providerOptions: { thinking: { type: "disabled" } } })).toStrictEqual([
      [jsonTool],
      { type: "tool", name: "json_response" }
    ])
    const thinking = body({ messages: [], responseFormat: { type: "json" }, reasoning: { budgetTokens: 1024 } })
    expect(thinking).toStrictEqual({
      model: "claude-test",
      messages: [],
      max_tokens: 5120,
      tools: [{
        name: "json_response",
        description: "Respond with a JSON object: call this tool once, with the whole answer.",
        input_schema: { type: "object" }
      }],
      tool_choice: { type: "auto" },
      thinking: { type: "enabled", budget_tokens: 1024 },
      stream: true
    })
    // Text asks for no tool.
    expect(body({ messages: [], responseFormat: { type: "text" } })).toStrictEqual({
      model: "claude-test",
      messages: [],
      max_tokens: 4096,
      stream: true
    })
  })

  it("a tool of the caller's named json_response is refused before any request", () => {
    expect(problem({ messages: [], tools: [{ ...weatherTool, name: "json_response" }] })).toBe(
      "The tool name \"json_response\" is reserved: Anthropic's responseFormat answers through a tool of that name"
    )
  })

  it("providerOptions are merged last: automatic caching, metadata, a thinking override", () => {
    expect(body({
      messages: [{ role: "user", content: "Hi" }],
      reasoning: { budgetTokens: 1024 },
      providerOptions: {
        cache_control: { type: "ephemeral" },
        metadata: { user_id: "u-1" },
        thinking: { type: "enabled", budget_tokens: 1024, display: "omitted" }
      }
    })).toStrictEqual({
      model: "claude-test",
      messages: [{ role: "user", content: "Hi" }],
      max_tokens: 5120,
      thinking: { type: "enabled", budget_tokens: 1024, display: "omitted" },
      stream: true,
      cache_control: { type: "ephemeral" },
      metadata: { user_id: "u-1" }
    })
  })
})

describe("cache breakpoints", () => {
  const conversation: ChatRequest.ChatRequest = {
    messages: [
      { role: "system", content: "A long system prompt." },
      { role: "user", content: "First question" },
      { role: "assistant", content: "First answer" },
      { role: "user", content: [{ type: "text", text: "Second" }, { type: "image", url: "https://e.com/x.png" }] }
    ],
    tools: [weatherTool]
  }

  it("tools, system and messages by position (negative from the end), with a TTL; the key itself is not sent", () => {
    const b = body({
      ...conversation,
      providerOptions: {
        ...Anthropic.cacheBreakpoints(["tools", { at: "system", ttl: "1h" }, 1, -1]),
        metadata: { user_id: "u" }
      }
    })
    expect(b).toStrictEqual({
      model: "claude-test",
      system: [{ type: "text", text: "A long system prompt.", cache_control: { type: "ephemeral", ttl: "1h" } }],
      messages: [
        { role: "user", content: [{ type: "text", text: "First question", cache_control: { type: "ephemeral" } }] },
        { role: "assistant", content: [{ type: "text", text: "First answer" }] },
        {
          role: "user",
          content: [
            { type: "text", text: "Second" },
            { type: "image", source: { type: "url", url: "https://e.com/x.png" }, cache_control: { type: "ephemeral" } }
          ]
        }
      ],
      max_tokens: 4096,
      tools: [{
        name: "get_weather",
        description: "Weather for a city",
        input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        cache_control: { type: "ephemeral" }
      }],
      stream: true,
      metadata: { user_id: "u" }
    })
  })

  it("a tool message's breakpoint marks its tool_result block", () => {
    const b = body({
      messages: [{ role: "tool", toolCallId: "toolu_1", content: "ok" }],
      providerOptions: Anthropic.cacheBreakpoints([0])
    })
    expect(b.messages).toStrictEqual([{
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "ok", cache_control: { type: "ephemeral" } }]
    }])
  })

  it("a breakpoint that points nowhere is refused with a reason", () => {
    expect(problem({ messages: [{ role: "user", content: "x" }], providerOptions: Anthropic.cacheBreakpoints([3]) }))
      .toBe("providerOptions.cacheBreakpoints: message 3 does not exist (the request has 1)")
    expect(problem({ messages: [], providerOptions: Anthropic.cacheBreakpoints(["tools"]) }))
      .toBe("providerOptions.cacheBreakpoints: \"tools\" marks the last tool, and the request has none")
    expect(problem({ messages: [], providerOptions: Anthropic.cacheBreakpoints(["system"]) }))
      .toBe("providerOptions.cacheBreakpoints: \"system\" marks the last system message, and the request has none")
    expect(problem({ messages: [], providerOptions: { cacheBreakpoints: "system" } }))
      .toBe("providerOptions.cacheBreakpoints must be an array")
    expect(
      problem({
        messages: [{ role: "user", content: "x" }],
        providerOptions: { cacheBreakpoints: [{ at: 0, ttl: "2h" }] }
      })
    )
      .toBe("providerOptions.cacheBreakpoints: ttl must be \"5m\" or \"1h\", got \"2h\"")
    expect(problem({ messages: [], providerOptions: { cacheBreakpoints: [true] } }))
      .toBe(
        "providerOptions.cacheBreakpoints: a breakpoint is \"tools\", \"system\", a message index or { at, ttl }, got true"
      )
  })
})

describe("round trip: a collected response goes back exactly as the API wants it", () => {
  it("thinking with its signature, redacted thinking, text and tool_use; then the tool results", () => {
    const response = Response.fromChunks(decode(frame(own("thinking.sse"))))
    const tools = Response.fromChunks(decode(frame(own("tool-use.sse"))))
    // One assistant turn holding the reasoning of the first response and the calls of the second.
    const message: ChatRequest.AssistantMessage = { ...tools.message, reasoning: response.message.reasoning }
    const next = body({
      messages: [
        { role: "user", content: "Weather in Paris, and the time?" },
        message,
        { role: "tool", toolCallId: "toolu_01Weather", content: "18°C, clear" },
        { role: "tool", toolCallId: "toolu_02Clock", content: "14:05" }
      ]
    })
    expect(next.messages).toStrictEqual([
      { role: "user", content: "Weather in Paris, and the time?" },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "925 ÷ 5 = 185", signature: "EvQBCkYIsig0001" },
          { type: "redacted_thinking", data: "EmwKAhgBEgyRedacted0001" },
          { type: "text", text: "Checking both." },
          { type: "tool_use", id: "toolu_01Weather", name: "get_weather", input: { city: "Paris", unit: "celsius" } },
          { type: "tool_use", id: "toolu_02Clock", name: "current_time", input: {} }
        ]
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_01Weather", content: "18°C, clear" },
          { type: "tool_result", tool_use_id: "toolu_02Clock", content: "14:05" }
        ]
      }
    ])
  })

  it("reasoning without a signature (another provider's) is left out; arguments that failed to parse go back raw", () => {
    const next = body({
      messages: [{
        role: "assistant",
        content: "",
        reasoning: [{ text: "unsigned" }],
        toolCalls: [{
          index: 0,
          id: "toolu_x",
          name: "f",
          arguments: { raw: "{\"a\":" },
          rawArguments: "{\"a\":",
          parseError: "bad"
        }]
      }, { role: "assistant", content: "", reasoning: [{ text: "only unsigned" }] }]
    })
    expect(next.messages).toStrictEqual([{
      role: "assistant",
      content: [{ type: "tool_use", id: "toolu_x", name: "f", input: { raw: "{\"a\":" } }]
    }])
  })

  it("an agent step-2 request", () => {
    const request = step2([
      { text: "Two lookups: weather, then time.", signature: "EqQBsigStep0001", provider: "anthropic" },
      { text: "", redacted: "EmwKRedactedStep0001", provider: "anthropic" },
      foreignReasoning
    ])
    expect(body({ ...request, reasoning: { budgetTokens: 1024 } })).toStrictEqual({
      model: "claude-test",
      system: "Answer in one sentence.",
      messages: [
        { role: "user", content: "Weather and time in Paris?" },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "Two lookups: weather, then time.", signature: "EqQBsigStep0001" },
            { type: "redacted_thinking", data: "EmwKRedactedStep0001" },
            { type: "text", text: "Checking." },
            { type: "tool_use", id: "call_1", name: "get_weather", input: { city: "Paris" } },
            { type: "tool_use", id: "call_2", name: "get_time", input: { zone: "CET" } }
          ]
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "call_1", content: "{\"temperatureC\":18}" },
            { type: "tool_result", tool_use_id: "call_2", content: timeError, is_error: true }
          ]
        }
      ],
      max_tokens: 5120,
      tools: [
        {
          name: "get_weather",
          description: "Current weather in a city",
          input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
        },
        {
          name: "get_time",
          description: "Current time in a time zone",
          input_schema: { type: "object", properties: { zone: { type: "string" } }, required: ["zone"] }
        }
      ],
      thinking: { type: "enabled", budget_tokens: 1024 },
      stream: true
    })
  })
})
