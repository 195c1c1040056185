/**
 * The demo's canned weather tool: what `npm start` and `effect-llm-stream chat --replay` give the
 * agent loop (`LanguageModel.streamWithTools`), so the replayed tool-call turn gets a real
 * `tool-result` and the replayed answer turn follows. It asks no service: Paris (or anywhere) is
 * always 18 °C with light rain, which is what our answer transcripts say.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as ChatRequest from "../ChatRequest.js"
import * as Tool from "../Tool.js"
import * as Toolkit from "../Toolkit.js"

/**
 * The weather the pretend service reports, as the model receives it.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Weather = Schema.Struct({
  city: Schema.String,
  temperature: Schema.Number,
  unit: Schema.Literal("celsius", "fahrenheit"),
  conditions: Schema.String
})

/**
 * The pretend weather service's answer: 18 °C (64 °F when asked in Fahrenheit) with light rain.
 *
 * @since 0.1.0
 * @category utils
 */
export const lookUp = (city: string, unit: "celsius" | "fahrenheit" = "celsius"): typeof Weather.Type => ({
  city,
  temperature: unit === "fahrenheit" ? 64 : 18,
  unit,
  conditions: "light rain"
})

/**
 * `get_weather(city, unit?)`, answered by {@link lookUp}.
 *
 * @since 0.1.0
 * @category tools
 */
export const getWeather = Tool.make("get_weather", {
  description: "Current weather in a city",
  parameters: Schema.Struct({ city: Schema.String, unit: Schema.optional(Schema.Literal("celsius", "fahrenheit")) }),
  success: Weather,
  handler: ({ city, unit }) => Effect.succeed(lookUp(city, unit))
})

/**
 * The toolkit holding {@link getWeather}.
 *
 * @since 0.1.0
 * @category tools
 */
export const toolkit = Toolkit.make(getWeather)

/**
 * The demo's question, to which every replayed transcript answers.
 *
 * @since 0.1.0
 * @category constants
 */
export const question = "What's the weather in Paris right now? Answer in one short paragraph."

/**
 * The demo's request: a short system prompt and {@link question} (or the given prompt).
 *
 * @since 0.1.0
 * @category constructors
 */
export const request = (prompt: string = question): ChatRequest.ChatRequest => ({
  messages: [
    ChatRequest.system("You are a concise assistant. Use tools when they help."),
    ChatRequest.user(prompt)
  ]
})
