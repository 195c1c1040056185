import { describe, expect, it } from "vitest"
import type * as ChatRequest from "../../../src/ChatRequest.js"
import * as Request from "../../../src/providers/openai-responses/request.js"
import { foreignReasoning, step2, timeError } from "../agentStep.js"

const encode = (request: ChatRequest.ChatRequest, options: Partial<Request.EncodeOptions> = {}) =>
  Request.encode(request, { model: "gpt-4.1-mini", ...options })

describe("OpenAiResponses request body", () => {
  it("a bare prompt: stateless, streaming, nothing else", () => {
    expect(encode({ messages: [{ role: "user", content: "Hello" }] })).toStrictEqual({
      model: "gpt-4.1-mini",
      input: [{ role: "user", content: "Hello" }],
      store: false,
      stream: true
    })
  })

  it("system messages become instructions; options map to their Responses fields; stop is left out", () => {
    expect(encode({
      messages: [
        { role: "system", content: "Be brief." },
        { role: "system", content: "Answer in French." },
        { role: "user", content: "Hi" }
      ],
      tools: [
        { name: "lookup", description: "Search", parameters: { type: "object", properties: {} } },
        { name: "exact", parameters: { type: "object" }, strict: true }
      ],
      toolChoice: { type: "tool", name: "lookup" },
      maxTokens: 300,
      temperature: 0.2,
      topP: 0.9,
      stop: ["END"],
      responseFormat: { type: "json_schema", name: "answer", schema: { type: "object" }, strict: true }
    })).toStrictEqual({
      model: "gpt-4.1-mini",
      instructions: "Be brief.\n\nAnswer in French.",
      input: [{ role: "user", content: "Hi" }],
      tools: [
        {
          type: "function",
          name: "lookup",
          description: "Search",
          parameters: { type: "object", properties: {} },
          strict: false
        },
        { type: "function", name: "exact", parameters: { type: "object" }, strict: true }
      ],
      tool_choice: { type: "function", name: "lookup" },
      max_output_tokens: 300,
      temperature: 0.2,
      top_p: 0.9,
      text: { format: { type: "json_schema", name: "answer", schema: { type: "object" }, strict: true } },
      store: false,
      stream: true
    })
    expect(encode({ messages: [], toolChoice: "required", responseFormat: { type: "json" } })).toMatchObject({
      tool_choice: "required",
      text: { format: { type: "json_object" } }
    })
  })

  it("asks for encrypted reasoning when not storing and the model reasons, or the request asks for reasoning", () => {
    const hi: ChatRequest.ChatRequest = { messages: [{ role: "user", content: "Hi" }] }
    expect(encode(hi, { model: "gpt-5-mini" })).toStrictEqual({
      model: "gpt-5-mini",
      input: [{ role: "user", content: "Hi" }],
      store: false,
      include: ["reasoning.encrypted_content"],
      stream: true
    })
    expect(encode(hi, { model: "o4-mini" }).include).toStrictEqual(["reasoning.encrypted_content"])
    expect(encode(hi, { model: "openai/gpt-5.1-codex-max" }).include).toStrictEqual(["reasoning.encrypted_content"])
    expect(encode({ ...hi, reasoning: { effort: "high" } })).toStrictEqual({
      model: "gpt-4.1-mini",
      input: [{ role: "user", content: "Hi" }],
      reasoning: { effort: "high", summary: "auto" },
      store: false,
      include: ["reasoning.encrypted_content"],
      stream: true
    })
    expect(encode({ ...hi, reasoning: { budgetTokens: 100 } }).reasoning).toStrictEqual({ summary: "auto" })
    // Storing: the host keeps the items, nothing to include; an explicit choice wins over the guess.
    expect(encode(hi, { model: "gpt-5", store: true })).toStrictEqual({
      model: "gpt-5",
      input: [{ role: "user", content: "Hi" }],
      store: true,
      stream: true
    })
    expect(encode(hi, { model: "my-azure-deployment", encryptedReasoning: true }).include)
      .toStrictEqual(["reasoning.encrypted_content"])
    expect(encode(hi, { model: "gpt-5", encryptedReasoning: false }).include).toBeUndefined()
  })

  it("providerOptions are merged last and override anything", () => {
    expect(encode({
      messages: [{ role: "user", content: "Hi" }],
      providerOptions: { store: true, include: [], previous_response_id: "resp_0", service_tier: "flex" }
    }, { model: "gpt-5" })).toStrictEqual({
      model: "gpt-5",
      input: [{ role: "user", content: "Hi" }],
      store: true,
      include: [],
      stream: true,
      previous_response_id: "resp_0",
      service_tier: "flex"
    })
  })

  it("user parts: text, images by URL and bytes, files by URL and bytes", () => {
    expect(
      encode({
        messages: [{
          role: "user",
          content: [
            { type: "text", text: "Look" },
            { type: "image", url: "https://x.test/a.png", detail: "low" },
            { type: "image", data: new Uint8Array([1, 2, 3]), mediaType: "image/jpeg" },
            { type: "file", url: "https://x.test/doc.pdf", mediaType: "application/pdf" },
            { type: "file", data: "JVBERi0=", mediaType: "application/pdf", filename: "doc.pdf" },
            { type: "file", data: "JVBERi0=", mediaType: "application/pdf" },
            { type: "file", data: "data:image/png;base64,iVBO", mediaType: "image/png" }
          ]
        }]
      }).input
    ).toStrictEqual([{
      role: "user",
      content: [
        { type: "input_text", text: "Look" },
        { type: "input_image", image_url: "https://x.test/a.png", detail: "low" },
        { type: "input_image", image_url: "data:image/jpeg;base64,AQID", detail: "auto" },
        { type: "input_file", file_url: "https://x.test/doc.pdf" },
        { type: "input_file", filename: "doc.pdf", file_data: "data:application/pdf;base64,JVBERi0=" },
        { type: "input_file", filename: "file.pdf", file_data: "data:application/pdf;base64,JVBERi0=" },
        { type: "input_image", image_url: "data:image/png;base64,iVBO", detail: "auto" }
      ]
    }])
  })

  it("an assistant turn goes back as reasoning items (encrypted only), text and function calls; then the outputs", () => {
    expect(
      encode({
        messages: [
          { role: "user", content: "Weather in Paris and the time?" },
          {
            role: "assistant",
            content: "Checking.",
            reasoning: [
              { text: "**Plan**\n\nCall both.", signature: "rs_1", redacted: "enc_1" },
              { text: "A plain summary, nothing to send back" },
              { text: "", redacted: "enc_2" }
            ],
            toolCalls: [
              {
                index: 0,
                id: "call_w",
                name: "weather",
                arguments: { city: "Paris" },
                rawArguments: "{\"city\":\"Paris\"}"
              },
              { index: 1, id: "call_t", name: "time", arguments: {}, rawArguments: "" }
            ]
          },
          { role: "tool", toolCallId: "call_w", content: "18°C" },
          {
            role: "tool",
            toolCallId: "call_t",
            content: [{ type: "text", text: "12:" }, { type: "text", text: "00" }]
          },
          // Reasoning with nothing after it would be rejected: it is left out.
          { role: "assistant", content: "", reasoning: [{ text: "t", signature: "rs_9", redacted: "enc_9" }] },
          { role: "assistant", content: "", refusal: "No." }
        ]
      }).input
    ).toStrictEqual([
      { role: "user", content: "Weather in Paris and the time?" },
      {
        type: "reasoning",
        id: "rs_1",
        summary: [{ type: "summary_text", text: "**Plan**\n\nCall both." }],
        encrypted_content: "enc_1"
      },
      { type: "reasoning", summary: [], encrypted_content: "enc_2" },
      { role: "assistant", content: "Checking." },
      { type: "function_call", call_id: "call_w", name: "weather", arguments: "{\"city\":\"Paris\"}" },
      { type: "function_call", call_id: "call_t", name: "time", arguments: "{}" },
      { type: "function_call_output", call_id: "call_w", output: "18°C" },
      { type: "function_call_output", call_id: "call_t", output: "12:00" }
    ])
  })

  it("an agent step-2 request", () => {
    const request = step2([
      { text: "**Plan**\n\nCall both tools.", signature: "rs_1", redacted: "enc_1", provider: "openai" },
      foreignReasoning
    ])
    expect(encode(request, { model: "gpt-5-mini" })).toStrictEqual({
      model: "gpt-5-mini",
      instructions: "Answer in one sentence.",
      input: [
        { role: "user", content: "Weather and time in Paris?" },
        {
          type: "reasoning",
          id: "rs_1",
          summary: [{ type: "summary_text", text: "**Plan**\n\nCall both tools." }],
          encrypted_content: "enc_1"
        },
        { role: "assistant", content: "Checking." },
        { type: "function_call", call_id: "call_1", name: "get_weather", arguments: "{\"city\":\"Paris\"}" },
        { type: "function_call", call_id: "call_2", name: "get_time", arguments: "{\"zone\":\"CET\"}" },
        // The Responses API has no error flag: the error is the output's text.
        { type: "function_call_output", call_id: "call_1", output: "{\"temperatureC\":18}" },
        { type: "function_call_output", call_id: "call_2", output: timeError }
      ],
      tools: [
        {
          type: "function",
          name: "get_weather",
          description: "Current weather in a city",
          parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
          strict: false
        },
        {
          type: "function",
          name: "get_time",
          description: "Current time in a time zone",
          parameters: { type: "object", properties: { zone: { type: "string" } }, required: ["zone"] },
          strict: false
        }
      ],
      store: false,
      include: ["reasoning.encrypted_content"],
      stream: true
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
      messages: [{ role: "user", content: "Capital of France?" }],
      responseFormat: { type: "json_schema", name: "answer", schema, strict: true }
    })).toStrictEqual({
      model: "gpt-4.1-mini",
      input: [{ role: "user", content: "Capital of France?" }],
      text: { format: { type: "json_schema", name: "answer", schema, strict: true } },
      store: false,
      stream: true
    })
    expect(encode({ messages: [], responseFormat: { type: "json" } }).text).toStrictEqual({
      format: { type: "json_object" }
    })
  })

  it("a custom (freeform) tool call goes back as custom_tool_call with its raw input, its result as custom_tool_call_output", () => {
    const patch = "*** Begin Patch\n*** End Patch"
    expect(
      encode({
        messages: [
          { role: "user", content: "Patch it, and check the weather." },
          {
            role: "assistant",
            content: "",
            toolCalls: [
              { index: 0, id: "call_p", name: "apply_patch", arguments: patch, rawArguments: patch, kind: "custom" },
              {
                index: 1,
                id: "call_w",
                name: "get_weather",
                arguments: { city: "Paris" },
                rawArguments: "{\"city\":\"Paris\"}"
              }
            ]
          },
          { role: "tool", toolCallId: "call_w", content: "18°C" },
          { role: "tool", toolCallId: "call_p", content: "Applied." },
          // An id no earlier call of this request has: a function call's output, as before.
          { role: "tool", toolCallId: "call_unknown", content: "?" }
        ]
      }).input
    ).toStrictEqual([
      { role: "user", content: "Patch it, and check the weather." },
      { type: "custom_tool_call", call_id: "call_p", name: "apply_patch", input: patch },
      { type: "function_call", call_id: "call_w", name: "get_weather", arguments: "{\"city\":\"Paris\"}" },
      { type: "function_call_output", call_id: "call_w", output: "18°C" },
      { type: "custom_tool_call_output", call_id: "call_p", output: "Applied." },
      { type: "function_call_output", call_id: "call_unknown", output: "?" }
    ])
  })
})
