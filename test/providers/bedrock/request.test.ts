/** The exact ConverseStream bodies, one per request feature. */
import * as Either from "effect/Either"
import { describe, expect, it } from "vitest"
import type * as ChatRequest from "../../../src/ChatRequest.js"
import * as Request from "../../../src/providers/bedrock/request.js"
import { foreignReasoning, step2, timeError } from "../agentStep.js"

const encode = (request: ChatRequest.ChatRequest) =>
  Either.getOrThrow(Request.encode(request, { maxTokens: 4096, provider: "bedrock" }))
const refused = (request: ChatRequest.ChatRequest) =>
  Either.flip(Request.encode(request, { maxTokens: 4096, provider: "bedrock" })).pipe(Either.getOrThrow)

const weather: ChatRequest.Tool = {
  name: "get_weather",
  description: "Current weather",
  parameters: { type: "object", properties: { city: { type: "string" } } }
}

describe("Bedrock request", () => {
  it("system, user text, inference config", () => {
    expect(encode({
      messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hi" }, {
        role: "system",
        content: "Really."
      }],
      maxTokens: 50,
      temperature: 0.2,
      topP: 0.9,
      stop: ["END"]
    })).toStrictEqual({
      messages: [{ role: "user", content: [{ text: "Hi" }] }],
      system: [{ text: "Be brief." }, { text: "Really." }],
      inferenceConfig: { maxTokens: 50, temperature: 0.2, topP: 0.9, stopSequences: ["END"] }
    })
  })

  it("a tool round trip: reasoning first (own signed and redacted only), text, toolUse; tool results merged with the user's next words", () => {
    expect(encode({
      messages: [
        { role: "user", content: "Weather in Paris?" },
        {
          role: "assistant",
          content: "Let me check.",
          reasoning: [
            { text: "Think.", signature: "sig", provider: "bedrock" },
            { text: "", redacted: "b64data" },
            { text: "Other's.", signature: "x", provider: "anthropic" },
            { text: "Unsigned." }
          ],
          toolCalls: [
            {
              index: 0,
              id: "tooluse_1",
              name: "get_weather",
              arguments: { city: "Paris" },
              rawArguments: "{\"city\":\"Paris\"}"
            },
            {
              index: 1,
              id: "tooluse_2",
              name: "get_weather",
              arguments: { raw: "{bad" },
              rawArguments: "{bad",
              parseError: "x"
            }
          ]
        },
        { role: "tool", toolCallId: "tooluse_1", content: "18 °C" },
        { role: "tool", toolCallId: "tooluse_2", content: [{ type: "text", text: "bad input" }], isError: true },
        { role: "user", content: "And tomorrow?" }
      ],
      tools: [weather],
      toolChoice: "auto"
    })).toStrictEqual({
      messages: [
        { role: "user", content: [{ text: "Weather in Paris?" }] },
        {
          role: "assistant",
          content: [
            { reasoningContent: { reasoningText: { text: "Think.", signature: "sig" } } },
            { reasoningContent: { redactedContent: "b64data" } },
            { text: "Let me check." },
            { toolUse: { toolUseId: "tooluse_1", name: "get_weather", input: { city: "Paris" } } },
            { toolUse: { toolUseId: "tooluse_2", name: "get_weather", input: { raw: "{bad" } } }
          ]
        },
        {
          role: "user",
          content: [
            { toolResult: { toolUseId: "tooluse_1", content: [{ text: "18 °C" }] } },
            { toolResult: { toolUseId: "tooluse_2", content: [{ text: "bad input" }], status: "error" } },
            { text: "And tomorrow?" }
          ]
        }
      ],
      toolConfig: {
        tools: [{
          toolSpec: {
            name: "get_weather",
            description: "Current weather",
            inputSchema: { json: { type: "object", properties: { city: { type: "string" } } } }
          }
        }],
        toolChoice: { auto: {} }
      }
    })
  })

  it("toolChoice: required → any, a named tool → tool; none leaves the tools out unless the history holds tool blocks", () => {
    const user: ChatRequest.Message = { role: "user", content: "Hi" }
    expect(encode({ messages: [user], tools: [weather], toolChoice: "required" }).toolConfig)
      .toMatchObject({ toolChoice: { any: {} } })
    expect(encode({ messages: [user], tools: [weather], toolChoice: { type: "tool", name: "get_weather" } }).toolConfig)
      .toMatchObject({ toolChoice: { tool: { name: "get_weather" } } })
    expect(encode({ messages: [user], tools: [weather], toolChoice: "none" }).toolConfig).toBeUndefined()
    const withResult = encode({
      messages: [user, { role: "tool", toolCallId: "t1", content: "ok" }],
      tools: [weather],
      toolChoice: "none"
    })
    expect(withResult.toolConfig).toStrictEqual({
      tools: [{
        toolSpec: { name: "get_weather", description: "Current weather", inputSchema: { json: weather.parameters } }
      }]
    })
    expect(encode({ messages: [user], tools: [weather] }).toolConfig).not.toHaveProperty("toolChoice")
  })

  it("a reasoning budget → additionalModelRequestFields.thinking, maxTokens default + budget; providerOptions merged", () => {
    expect(encode({
      messages: [{ role: "user", content: "Think" }],
      reasoning: { budgetTokens: 2048, effort: "high" },
      providerOptions: {
        additionalModelRequestFields: { top_k: 5 },
        inferenceConfig: { temperature: 1 },
        guardrailConfig: { guardrailIdentifier: "g1", guardrailVersion: "1" }
      }
    })).toStrictEqual({
      messages: [{ role: "user", content: [{ text: "Think" }] }],
      inferenceConfig: { maxTokens: 6144, temperature: 1 },
      additionalModelRequestFields: { thinking: { type: "enabled", budget_tokens: 2048 }, top_k: 5 },
      guardrailConfig: { guardrailIdentifier: "g1", guardrailVersion: "1" }
    })
    expect(encode({ messages: [{ role: "user", content: "x" }], reasoning: { effort: "high" } })).toStrictEqual({
      messages: [{ role: "user", content: [{ text: "x" }] }]
    })
  })

  it("images and documents as bytes or s3 locations; an http URL is refused before any request", () => {
    expect(
      encode({
        messages: [{
          role: "user",
          content: [
            { type: "image", data: "data:image/jpeg;base64,AAAA" },
            { type: "image", data: Uint8Array.of(1, 2, 3), mediaType: "image/png" },
            { type: "file", url: "s3://bucket/report.pdf", mediaType: "application/pdf", filename: "Q3 report.pdf" },
            { type: "text", text: "Summarize" }
          ]
        }]
      }).messages
    ).toStrictEqual([{
      role: "user",
      content: [
        { image: { format: "jpeg", source: { bytes: "AAAA" } } },
        { image: { format: "png", source: { bytes: "AQID" } } },
        { document: { format: "pdf", name: "Q3 report", source: { s3Location: { uri: "s3://bucket/report.pdf" } } } },
        { text: "Summarize" }
      ]
    }])
    expect(refused({ messages: [{ role: "user", content: [{ type: "image", url: "https://x.invalid/a.png" }] }] }))
      .toBe("Bedrock fetches no URL but s3:// ones: send the bytes of https://x.invalid/a.png")
    expect(refused({ messages: [{ role: "user", content: [{ type: "file", data: "AA", mediaType: "audio/wav" }] }] }))
      .toBe("Bedrock does not take audio/wav documents")
  })

  it("responseFormat: a forced JSON response tool (json_schema with its schema, json with any object)", () => {
    const schema = { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
    const jsonSpec = (json: unknown, description: string) => ({
      toolSpec: { name: "json_response", description, inputSchema: { json } }
    })
    const described = "Respond with a JSON object matching this schema: call this tool once, with the whole answer."
    expect(
      encode({
        messages: [{ role: "user", content: "City?" }],
        responseFormat: { type: "json_schema", name: "answer", schema }
      }).toolConfig
    ).toStrictEqual({
      tools: [jsonSpec(schema, described)],
      toolChoice: { tool: { name: "json_response" } }
    })
    expect(
      encode({
        messages: [{ role: "user", content: "City?" }],
        responseFormat: { type: "json_schema", name: "answer", schema, description: "The city asked for" }
      }).toolConfig
    ).toMatchObject({ tools: [jsonSpec(schema, "The city asked for")] })
    expect(encode({ messages: [{ role: "user", content: "City?" }], responseFormat: { type: "json" } }).toolConfig)
      .toStrictEqual({
        tools: [
          jsonSpec({ type: "object" }, "Respond with a JSON object: call this tool once, with the whole answer.")
        ],
        toolChoice: { tool: { name: "json_response" } }
      })
    // With the caller's tools the model must call one of them or answer through the JSON tool.
    expect(
      encode({
        messages: [{ role: "user", content: "City?" }],
        tools: [weather],
        responseFormat: { type: "json_schema", name: "answer", schema }
      }).toolConfig
    ).toStrictEqual({
      tools: [
        {
          toolSpec: { name: "get_weather", description: "Current weather", inputSchema: { json: weather.parameters } }
        },
        jsonSpec(schema, described)
      ],
      toolChoice: { any: {} }
    })
    // toolChoice none: only the JSON tool is offered (and forced).
    expect(
      encode({
        messages: [{ role: "user", content: "City?" }],
        tools: [weather],
        toolChoice: "none",
        responseFormat: { type: "json" }
      }).toolConfig
    ).toMatchObject({
      tools: [{ toolSpec: { name: "json_response" } }],
      toolChoice: { tool: { name: "json_response" } }
    })
    // Claude with thinking on refuses a forced tool (tool or any): the choice is auto.
    expect(
      encode({
        messages: [{ role: "user", content: "City?" }],
        reasoning: { budgetTokens: 1024 },
        responseFormat: { type: "json_schema", name: "answer", schema }
      }).toolConfig
    ).toStrictEqual({ tools: [jsonSpec(schema, described)], toolChoice: { auto: {} } })
    expect(
      encode({
        messages: [{ role: "user", content: "City?" }],
        tools: [weather],
        responseFormat: { type: "json" },
        providerOptions: { additionalModelRequestFields: { thinking: { type: "enabled", budget_tokens: 1024 } } }
      }).toolConfig
    ).toMatchObject({ toolChoice: { auto: {} } })
    expect(encode({ messages: [{ role: "user", content: "Hi" }], responseFormat: { type: "text" } })).not
      .toHaveProperty("toolConfig")
    expect(refused({ messages: [{ role: "user", content: "Hi" }], tools: [{ ...weather, name: "json_response" }] }))
      .toBe("The tool name \"json_response\" is reserved: Bedrock's responseFormat answers through a tool of that name")
  })

  it("tool call ids that break Bedrock's pattern ([a-zA-Z0-9_-], at most 64) are made to fit, the same in toolUse and toolResult", () => {
    const body = encode({
      messages: [
        { role: "user", content: "Read it" },
        {
          role: "assistant",
          content: "",
          toolCalls: [{ index: 0, id: "functions.read_file:1", name: "read_file", arguments: {}, rawArguments: "{}" }]
        },
        { role: "tool", toolCallId: "functions.read_file:1", content: "ok" },
        {
          role: "assistant",
          content: "",
          toolCalls: [{ index: 0, id: "x".repeat(70), name: "read_file", arguments: {}, rawArguments: "{}" }]
        },
        { role: "tool", toolCallId: "x".repeat(70), content: "ok" }
      ],
      tools: [weather]
    })
    expect(body.messages).toStrictEqual([
      { role: "user", content: [{ text: "Read it" }] },
      {
        role: "assistant",
        content: [{ toolUse: { toolUseId: "functions_read_file_1", name: "read_file", input: {} } }]
      },
      { role: "user", content: [{ toolResult: { toolUseId: "functions_read_file_1", content: [{ text: "ok" }] } }] },
      { role: "assistant", content: [{ toolUse: { toolUseId: "x".repeat(64), name: "read_file", input: {} } }] },
      { role: "user", content: [{ toolResult: { toolUseId: "x".repeat(64), content: [{ text: "ok" }] } }] }
    ])
  })

  it("several tool results of one turn go in one user message; an empty assistant turn is left out and its neighbours merged", () => {
    expect(
      encode({
        messages: [
          { role: "user", content: "Both?" },
          {
            role: "assistant",
            content: "",
            toolCalls: [
              { index: 0, id: "t1", name: "get_weather", arguments: { city: "Paris" }, rawArguments: "" },
              { index: 1, id: "t2", name: "get_weather", arguments: { city: "Rome" }, rawArguments: "" }
            ]
          },
          { role: "tool", toolCallId: "t1", content: "sunny" },
          { role: "tool", toolCallId: "t2", content: "rain", isError: true },
          { role: "assistant", content: "" },
          { role: "user", content: "Thanks" }
        ],
        tools: [weather]
      }).messages
    ).toStrictEqual([
      { role: "user", content: [{ text: "Both?" }] },
      {
        role: "assistant",
        content: [
          { toolUse: { toolUseId: "t1", name: "get_weather", input: { city: "Paris" } } },
          { toolUse: { toolUseId: "t2", name: "get_weather", input: { city: "Rome" } } }
        ]
      },
      {
        role: "user",
        content: [
          { toolResult: { toolUseId: "t1", content: [{ text: "sunny" }] } },
          { toolResult: { toolUseId: "t2", content: [{ text: "rain" }], status: "error" } },
          { text: "Thanks" }
        ]
      }
    ])
  })

  it("document names keep to Bedrock's characters, with no two spaces in a row, and are unique in the request", () => {
    const doc = (filename: string): ChatRequest.UserPart => ({
      type: "file",
      data: "AA",
      mediaType: "text/plain",
      filename
    })
    const body = encode({
      messages: [{ role: "user", content: [doc("a  b\t_c.txt"), doc("notes.txt"), doc("notes.md"), doc("...")] }]
    }) as { messages: Array<{ content: Array<{ document: { name: string } }> }> }
    const names = body.messages[0]!.content.map((block) => block.document.name)
    expect(names).toStrictEqual(["a b -c", "notes", "notes (2)", "document"])
  })

  it("an agent step-2 request", () => {
    const request = step2([
      { text: "Two lookups: weather, then time.", signature: "EqQBsigBedrock01", provider: "bedrock" },
      foreignReasoning
    ])
    const body = Either.getOrThrow(
      Request.encode(request, {
        maxTokens: 4096,
        provider: "bedrock",
        model: "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
      })
    )
    expect(body).toStrictEqual({
      messages: [
        { role: "user", content: [{ text: "Weather and time in Paris?" }] },
        {
          role: "assistant",
          content: [
            {
              reasoningContent: {
                reasoningText: { text: "Two lookups: weather, then time.", signature: "EqQBsigBedrock01" }
              }
            },
            { text: "Checking." },
            { toolUse: { toolUseId: "call_1", name: "get_weather", input: { city: "Paris" } } },
            { toolUse: { toolUseId: "call_2", name: "get_time", input: { zone: "CET" } } }
          ]
        },
        {
          role: "user",
          content: [
            // A success carries no status; a failure says "error".
            { toolResult: { toolUseId: "call_1", content: [{ text: "{\"temperatureC\":18}" }] } },
            { toolResult: { toolUseId: "call_2", content: [{ text: timeError }], status: "error" } }
          ]
        }
      ],
      system: [{ text: "Answer in one sentence." }],
      toolConfig: {
        tools: [
          {
            toolSpec: {
              name: "get_weather",
              description: "Current weather in a city",
              inputSchema: { json: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } }
            }
          },
          {
            toolSpec: {
              name: "get_time",
              description: "Current time in a time zone",
              inputSchema: { json: { type: "object", properties: { zone: { type: "string" } }, required: ["zone"] } }
            }
          }
        ]
      }
    })
  })

  it("a tool result's status only for models that take one (Claude, Nova): others read the error from the text", () => {
    const results = (model: string) =>
      (Either.getOrThrow(Request.encode(step2([]), { maxTokens: 4096, provider: "bedrock", model })).messages as Array<{
        content: Array<unknown>
      }>)[2]!.content
    const failed = { toolResult: { toolUseId: "call_2", content: [{ text: timeError }], status: "error" } }
    const unmarked = { toolResult: { toolUseId: "call_2", content: [{ text: timeError }] } }
    expect(results("anthropic.claude-3-5-haiku-20241022-v1:0")[1]).toStrictEqual(failed)
    expect(results("us.amazon.nova-pro-v1:0")[1]).toStrictEqual(failed)
    expect(results("meta.llama3-3-70b-instruct-v1:0")[1]).toStrictEqual(unmarked)
    expect(results("mistral.mistral-large-2407-v1:0")[1]).toStrictEqual(unmarked)
    expect(results("arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc123")[1])
      .toStrictEqual(unmarked)
  })
})
