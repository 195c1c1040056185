/** The exact Gemini request bodies, one feature at a time. */
import * as Either from "effect/Either"
import { describe, expect, it } from "vitest"
import type * as ChatRequest from "../../../src/ChatRequest.js"
import * as Request from "../../../src/providers/gemini/request.js"
import { foreignReasoning, step2, timeError } from "../agentStep.js"

const encode = (request: ChatRequest.ChatRequest, options: Partial<Request.EncodeOptions> = {}) =>
  Either.getOrThrow(Request.encode(request, { provider: "google", ...options }))

describe("Gemini request bodies", () => {
  it("system messages → systemInstruction; user text → a user content", () => {
    expect(encode({
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Hello" },
        { role: "system", content: "Answer in French." }
      ]
    })).toStrictEqual({
      systemInstruction: { parts: [{ text: "Be brief." }, { text: "Answer in French." }] },
      contents: [{ role: "user", parts: [{ text: "Hello" }] }]
    })
  })

  it("images and files: bytes and data URLs as inlineData, URLs as fileData", () => {
    expect(
      encode({
        messages: [{
          role: "user",
          content: [
            { type: "text", text: "What is this?" },
            { type: "image", data: new Uint8Array([1, 2, 3]), mediaType: "image/jpeg" },
            { type: "image", data: "data:image/webp;base64,AAAA" },
            { type: "image", url: "https://example.com/cat.png" },
            { type: "file", data: "JVBERi0=", mediaType: "application/pdf", filename: "a.pdf" },
            { type: "file", url: "gs://bucket/talk.mp3", mediaType: "audio/mpeg" }
          ]
        }]
      }).contents
    ).toStrictEqual([{
      role: "user",
      parts: [
        { text: "What is this?" },
        { inlineData: { mimeType: "image/jpeg", data: "AQID" } },
        { inlineData: { mimeType: "image/webp", data: "AAAA" } },
        { fileData: { mimeType: "image/png", fileUri: "https://example.com/cat.png" } },
        { inlineData: { mimeType: "application/pdf", data: "JVBERi0=" } },
        { fileData: { mimeType: "audio/mpeg", fileUri: "gs://bucket/talk.mp3" } }
      ]
    }])
  })

  it("the assistant turn round trip: signed thoughts, the text part's signature, calls with theirs; results by name", () => {
    const body = encode({
      messages: [
        { role: "user", content: "Weather in Paris and Tokyo?" },
        {
          role: "assistant",
          content: "Checking.",
          reasoning: [
            { text: "Two cities.", signature: "sigThought", provider: "google" },
            { text: "", signature: "sigText", provider: "google" },
            { text: "unsigned summary" },
            { text: "Claude's", signature: "sigClaude", provider: "anthropic" }
          ],
          toolCalls: [
            {
              index: 0,
              id: "r_call_0",
              name: "get_weather",
              arguments: { city: "Paris" },
              rawArguments: "{\"city\":\"Paris\"}",
              signature: "sigCall"
            },
            {
              index: 1,
              id: "r_call_1",
              name: "get_weather",
              arguments: { raw: "{bad" },
              rawArguments: "{bad",
              parseError: "x"
            }
          ]
        },
        { role: "tool", toolCallId: "r_call_0", content: "{\"temp\":18}" },
        { role: "tool", toolCallId: "r_call_1", content: "timeout", isError: true },
        { role: "user", content: "Thanks" }
      ]
    })
    expect(body.contents).toStrictEqual([
      { role: "user", parts: [{ text: "Weather in Paris and Tokyo?" }] },
      {
        role: "model",
        parts: [
          { text: "Two cities.", thought: true, thoughtSignature: "sigThought" },
          { text: "Checking.", thoughtSignature: "sigText" },
          { functionCall: { name: "get_weather", args: { city: "Paris" } }, thoughtSignature: "sigCall" },
          { functionCall: { name: "get_weather", args: { raw: "{bad" } } }
        ]
      },
      {
        role: "user",
        parts: [
          { functionResponse: { name: "get_weather", response: { temp: 18 } } },
          { functionResponse: { name: "get_weather", response: { error: "timeout" } } }
        ]
      },
      { role: "user", parts: [{ text: "Thanks" }] }
    ])
  })

  it("another provider name: Gemini's own signatures are not sent to it", () => {
    const body = encode({
      messages: [{ role: "assistant", content: "", reasoning: [{ text: "", signature: "s", provider: "google" }] }]
    }, { provider: "vertex" })
    expect(body.contents).toStrictEqual([])
  })

  it("tool results: non-objects wrapped as output; the message's own name wins; an unknown call is refused", () => {
    const results = encode({
      messages: [
        { role: "tool", toolCallId: "x", name: "lookup", content: "42" },
        {
          role: "tool",
          toolCallId: "y",
          name: "lookup",
          content: [{ type: "text", text: "plain " }, { type: "text", text: "text" }]
        },
        { role: "tool", toolCallId: "z", name: "lookup", content: "[1,2]" }
      ]
    }).contents
    expect(results).toStrictEqual([{
      role: "user",
      parts: [
        { functionResponse: { name: "lookup", response: { output: 42 } } },
        { functionResponse: { name: "lookup", response: { output: "plain text" } } },
        { functionResponse: { name: "lookup", response: { output: [1, 2] } } }
      ]
    }])
    const refused = Request.encode({ messages: [{ role: "tool", toolCallId: "nope", content: "x" }] }, {
      provider: "google"
    })
    expect(Either.isLeft(refused) && refused.left).toContain("\"nope\" answers no earlier tool call")
  })

  it("tools: functionDeclarations with refused keywords cut at every level, no parameters when there are none", () => {
    const body = encode({
      messages: [{ role: "user", content: "hi" }],
      tools: [
        {
          name: "get_weather",
          description: "Weather for a city",
          parameters: {
            $schema: "http://json-schema.org/draft-07/schema#",
            type: "object",
            properties: {
              city: { type: "string", description: "City" },
              $id: { type: "string" },
              where: { type: "object", properties: { lat: { type: "number" } }, additionalProperties: false }
            },
            required: ["city"],
            additionalProperties: false
          }
        },
        { name: "now", parameters: { type: "object", properties: {} } }
      ]
    })
    expect(body.tools).toStrictEqual([{
      functionDeclarations: [
        {
          name: "get_weather",
          description: "Weather for a city",
          parameters: {
            type: "object",
            properties: {
              city: { type: "string", description: "City" },
              $id: { type: "string" },
              where: { type: "object", properties: { lat: { type: "number" } } }
            },
            required: ["city"]
          }
        },
        { name: "now" }
      ]
    }])
  })

  it("toolChoice → functionCallingConfig modes; Vertex argument streaming", () => {
    const config = (toolChoice: ChatRequest.ToolChoice) =>
      encode({ messages: [{ role: "user", content: "hi" }], toolChoice }).toolConfig
    expect(config("auto")).toStrictEqual({ functionCallingConfig: { mode: "AUTO" } })
    expect(config("none")).toStrictEqual({ functionCallingConfig: { mode: "NONE" } })
    expect(config("required")).toStrictEqual({ functionCallingConfig: { mode: "ANY" } })
    expect(config({ type: "tool", name: "get_weather" })).toStrictEqual({
      functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["get_weather"] }
    })
    expect(encode({ messages: [], toolChoice: "auto" }, { streamFunctionCallArguments: true }).toolConfig)
      .toStrictEqual({
        functionCallingConfig: { mode: "AUTO", streamFunctionCallArguments: true }
      })
  })

  it("generationConfig: limits, sampling, stops, JSON output with its schema", () => {
    expect(
      encode({
        messages: [{ role: "user", content: "hi" }],
        maxTokens: 256,
        temperature: 0.2,
        topP: 0.9,
        stop: ["END"],
        responseFormat: {
          type: "json_schema",
          name: "answer",
          schema: { type: "object", properties: { a: { type: "string" } }, additionalProperties: false }
        }
      }).generationConfig
    ).toStrictEqual({
      maxOutputTokens: 256,
      temperature: 0.2,
      topP: 0.9,
      stopSequences: ["END"],
      responseMimeType: "application/json",
      // responseJsonSchema takes JSON Schema: additionalProperties stays.
      responseJsonSchema: { type: "object", properties: { a: { type: "string" } }, additionalProperties: false }
    })
    expect(encode({ messages: [], responseFormat: { type: "json" } }).generationConfig).toStrictEqual({
      responseMimeType: "application/json"
    })
    expect(encode({ messages: [], responseFormat: { type: "text" } }).generationConfig).toBeUndefined()
  })

  it("structured output: the native mechanism", () => {
    // Full JSON Schema, as JSONSchema.make writes it ($defs, $ref, anyOf, additionalProperties): kept,
    // at every level, but for the annotations $schema and $comment.
    const schema = {
      $schema: "http://json-schema.org/draft-07/schema#",
      $defs: { City: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } },
      type: "object",
      properties: {
        city: { $ref: "#/$defs/City" },
        note: { anyOf: [{ type: "string", $comment: "free text" }, { type: "null" }] },
        $schema: { type: "string" }
      },
      required: ["city"],
      additionalProperties: false
    }
    expect(encode({
      messages: [{ role: "user", content: "Capital of France?" }],
      responseFormat: { type: "json_schema", name: "answer", schema, strict: true }
    })).toStrictEqual({
      contents: [{ role: "user", parts: [{ text: "Capital of France?" }] }],
      generationConfig: {
        responseMimeType: "application/json",
        responseJsonSchema: {
          $defs: { City: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } },
          type: "object",
          properties: {
            city: { $ref: "#/$defs/City" },
            note: { anyOf: [{ type: "string" }, { type: "null" }] },
            // A field named like a keyword is a field.
            $schema: { type: "string" }
          },
          required: ["city"],
          additionalProperties: false
        }
      }
    })
  })

  it("an agent step-2 request", () => {
    const request = step2([
      { text: "Two lookups: weather, then time.", signature: "sigThought", provider: "google" },
      foreignReasoning
    ], { signature: "sigCall1" })
    expect(encode(request)).toStrictEqual({
      systemInstruction: { parts: [{ text: "Answer in one sentence." }] },
      contents: [
        { role: "user", parts: [{ text: "Weather and time in Paris?" }] },
        {
          role: "model",
          parts: [
            { text: "Two lookups: weather, then time.", thought: true, thoughtSignature: "sigThought" },
            { text: "Checking." },
            // Gemini signs the first call of a parallel batch: the signature goes back on that part.
            { functionCall: { name: "get_weather", args: { city: "Paris" } }, thoughtSignature: "sigCall1" },
            { functionCall: { name: "get_time", args: { zone: "CET" } } }
          ]
        },
        {
          role: "user",
          parts: [
            // A JSON object result is the output as it is; a failure is {error}.
            { functionResponse: { name: "get_weather", response: { temperatureC: 18 } } },
            { functionResponse: { name: "get_time", response: { error: timeError } } }
          ]
        }
      ],
      tools: [{
        functionDeclarations: [
          {
            name: "get_weather",
            description: "Current weather in a city",
            parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
          },
          {
            name: "get_time",
            description: "Current time in a time zone",
            parameters: { type: "object", properties: { zone: { type: "string" } }, required: ["zone"] }
          }
        ]
      }]
    })
  })

  it("reasoning → thinkingConfig: a budget (which wins), else a level; thoughts included", () => {
    expect(encode({ messages: [], reasoning: { budgetTokens: 1024 } }).generationConfig).toStrictEqual({
      thinkingConfig: { includeThoughts: true, thinkingBudget: 1024 }
    })
    expect(encode({ messages: [], reasoning: { effort: "low" } }).generationConfig).toStrictEqual({
      thinkingConfig: { includeThoughts: true, thinkingLevel: "low" }
    })
    expect(encode({ messages: [], reasoning: { effort: "high", budgetTokens: 0 } }).generationConfig).toStrictEqual({
      thinkingConfig: { includeThoughts: true, thinkingBudget: 0 }
    })
  })

  it("providerOptions merged last; their generationConfig and toolConfig merged into ours", () => {
    expect(encode({
      messages: [{ role: "user", content: "hi" }],
      maxTokens: 10,
      toolChoice: "auto",
      providerOptions: {
        safetySettings: [{ category: "HARM_CATEGORY_HARASSMENT", threshold: "BLOCK_NONE" }],
        generationConfig: { seed: 7, maxOutputTokens: 20 },
        toolConfig: { retrievalConfig: { languageCode: "fr" } },
        cachedContent: "cachedContents/abc"
      }
    })).toStrictEqual({
      contents: [{ role: "user", parts: [{ text: "hi" }] }],
      toolConfig: { functionCallingConfig: { mode: "AUTO" }, retrievalConfig: { languageCode: "fr" } },
      generationConfig: { maxOutputTokens: 20, seed: 7 },
      safetySettings: [{ category: "HARM_CATEGORY_HARASSMENT", threshold: "BLOCK_NONE" }],
      cachedContent: "cachedContents/abc"
    })
  })
})
