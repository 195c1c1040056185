/**
 * The conversation an agent loop sends as its second step, the same for every family's
 * "an agent step-2 request" test: system, user, the first step's whole assistant message (reasoning,
 * text, two calls), then one tool message per call, the second an error result.
 */
import * as ChatRequest from "../../src/ChatRequest.js"
import type * as ToolCall from "../../src/ToolCall.js"

/** The weather tool of the step. */
export const weatherTool: ChatRequest.Tool = {
  name: "get_weather",
  description: "Current weather in a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
}

/** The clock tool of the step. */
export const timeTool: ChatRequest.Tool = {
  name: "get_time",
  description: "Current time in a time zone",
  parameters: { type: "object", properties: { zone: { type: "string" } }, required: ["zone"] }
}

/** The error the loop sends back for the second call. */
export const timeError = "Invalid arguments: zone: Expected …"

/** The step-2 request: `reasoning` is the first step's, `signature` Gemini's on the first call. */
export const step2 = (
  reasoning: ReadonlyArray<ChatRequest.ReasoningPart>,
  options: { readonly signature?: string } = {}
): ChatRequest.ChatRequest => {
  const weather: ToolCall.ToolCall = {
    index: 0,
    id: "call_1",
    name: "get_weather",
    arguments: { city: "Paris" },
    rawArguments: "{\"city\":\"Paris\"}",
    ...(options.signature !== undefined ? { signature: options.signature } : {})
  }
  const time: ToolCall.ToolCall = {
    index: 1,
    id: "call_2",
    name: "get_time",
    arguments: { zone: "CET" },
    rawArguments: "{\"zone\":\"CET\"}"
  }
  return {
    messages: [
      ChatRequest.system("Answer in one sentence."),
      ChatRequest.user("Weather and time in Paris?"),
      { role: "assistant", content: "Checking.", reasoning, toolCalls: [weather, time] },
      ChatRequest.toolResult("call_1", "{\"temperatureC\":18}", { name: "get_weather" }),
      ChatRequest.toolResult("call_2", timeError, { name: "get_time", isError: true })
    ],
    tools: [weatherTool, timeTool]
  }
}

/** A signed block of another provider: every family leaves it out. */
export const foreignReasoning: ChatRequest.ReasoningPart = {
  text: "Someone else's thinking.",
  signature: "sig-foreign",
  redacted: "blob-foreign",
  provider: "someone-else"
}
