// The README's "Requests" example, kept here so the type checker proves it compiles and
// test/examples/requests.test.ts proves it runs.
import { Effect, Schema } from "effect"
import { ChatRequest, LanguageModel } from "effect-llm-stream"

// A tool whose parameters come from an Effect Schema.
const getWeather = ChatRequest.tool({
  name: "get_weather",
  description: "The current weather in a city",
  parameters: Schema.Struct({ city: Schema.String })
})

// Runs the tool the model asked for (here: a canned answer).
const runTool = (name: string, args: unknown): string =>
  name === "get_weather" ? JSON.stringify({ args, temperatureC: 18, sky: "clear" }) : "unknown tool"

export const conversation = Effect.gen(function*() {
  const first: ChatRequest.ChatRequest = {
    messages: [
      ChatRequest.system("You are a terse assistant."),
      ChatRequest.user([
        { type: "text", text: "What is the weather where this photo was taken?" },
        { type: "image", url: "https://example.com/paris.jpg", detail: "low" }
      ])
    ],
    tools: [getWeather],
    toolChoice: "auto",
    maxTokens: 300,
    temperature: 0.2
  }
  const turn1 = yield* LanguageModel.chat(first)
  // The assistant's message (text, tool calls, reasoning to send back), then one result per call.
  const second: ChatRequest.ChatRequest = {
    ...first,
    messages: [
      ...first.messages,
      turn1.message,
      ...turn1.toolCalls.map((call) => ChatRequest.toolResult(call.id, runTool(call.name, call.arguments)))
    ]
  }
  const turn2 = yield* LanguageModel.chat(second)
  return turn2.text
})
