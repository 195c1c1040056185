// The README's "Tools and the agent loop" example, kept here so the type checker proves it compiles
// and test/examples/requests.test.ts proves it runs.
import { Context, Effect, Schema, Stream } from "effect"
import { ChatRequest, LanguageModel, Tool, Toolkit } from "effect-llm-stream"

// A service the tool needs: the loop's stream will require it.
export class WeatherApi extends Context.Tag("WeatherApi")<WeatherApi, {
  readonly current: (city: string) => Effect.Effect<{ readonly temperatureC: number; readonly sky: string }>
}>() {}

// A typed tool: the model's arguments are decoded by `parameters` before the handler runs.
const getWeather = Tool.make("get_weather", {
  description: "The current weather in a city",
  parameters: Schema.Struct({ city: Schema.String }),
  success: Schema.Struct({ temperatureC: Schema.Number, sky: Schema.String }),
  handler: ({ city }) => Effect.flatMap(WeatherApi, (api) => api.current(city))
})

const toolkit = Toolkit.make(getWeather)

const request: ChatRequest.ChatRequest = {
  messages: [
    ChatRequest.system("You are a terse assistant."),
    ChatRequest.user([
      { type: "text", text: "What is the weather where this photo was taken?" },
      { type: "image", url: "https://example.com/paris.jpg", detail: "low" }
    ])
  ],
  maxTokens: 300,
  temperature: 0.2
}

// The loop as one stream: each step's chunks, a `tool-result` per call, a `step-finish` per step.
export const streamed = LanguageModel.streamWithTools(request, toolkit, { maxSteps: 5 }).pipe(
  Stream.runForEach((chunk) =>
    Effect.sync(() => {
      if (chunk.type === "text-delta") process.stdout.write(chunk.delta)
      if (chunk.type === "tool-result") console.log(`\n${chunk.name} → ${JSON.stringify(chunk.result)}`)
      if (chunk.type === "step-finish") console.log(`\n[step ${chunk.step}: ${chunk.finishReason}]`)
    })
  )
) // Stream requirements: LanguageModel | WeatherApi

// Or collected: the last step's answer, every step, and the whole conversation to continue from.
export const conversation = Effect.gen(function*() {
  const response = yield* LanguageModel.chatWithTools(request, toolkit, { maxSteps: 5 })
  return { text: response.text, steps: response.steps.length, messages: response.messages }
})
