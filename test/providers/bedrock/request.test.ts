/** The exact ConverseStream bodies, one per request feature. */
import * as Either from "effect/Either"
import { describe, expect, it } from "vitest"
import type * as ChatRequest from "../../../src/ChatRequest.js"
import * as Request from "../../../src/providers/bedrock/request.js"

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
})
