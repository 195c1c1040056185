import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { StreamChunk } from "effect-llm-stream"
import { TestModel } from "effect-llm-stream/testing"
import { conversation, streamed, WeatherApi } from "../../examples/requests.js"
import { partials, recipe } from "../../examples/structured.js"

const script = TestModel.steps([
  [
    StreamChunk.toolCall({
      index: 0,
      id: "call_1",
      name: "get_weather",
      arguments: { city: "Paris" },
      rawArguments: "{\"city\":\"Paris\"}"
    }),
    StreamChunk.finish("tool_calls")
  ],
  [StreamChunk.textDelta("18 °C and clear in Paris."), StreamChunk.finish("stop")]
])

const weather = Layer.succeed(WeatherApi, { current: () => Effect.succeed({ temperatureC: 18, sky: "clear" }) })

describe("the README's tools example", () => {
  it.effect("the loop runs the tool, sends its result back and returns the answer with the conversation", () =>
    Effect.gen(function*() {
      const result = yield* conversation
      expect(result.text).toBe("18 °C and clear in Paris.")
      expect(result.steps).toBe(2)
      const [first, second] = yield* TestModel.requests
      expect(first?.messages.length).toBe(2)
      expect(second?.messages.slice(2)).toStrictEqual([
        {
          role: "assistant",
          content: "",
          toolCalls: [{
            index: 0,
            id: "call_1",
            name: "get_weather",
            arguments: { city: "Paris" },
            rawArguments: "{\"city\":\"Paris\"}"
          }]
        },
        {
          role: "tool",
          toolCallId: "call_1",
          name: "get_weather",
          content: JSON.stringify({ temperatureC: 18, sky: "clear" })
        }
      ])
      expect(result.messages).toStrictEqual([...second!.messages, {
        role: "assistant",
        content: "18 °C and clear in Paris."
      }])
      expect(second?.tools).toStrictEqual([{
        name: "get_weather",
        description: "The current weather in a city",
        parameters: {
          type: "object",
          required: ["city"],
          properties: { city: { type: "string" } },
          additionalProperties: false
        }
      }])
    }).pipe(Effect.provide(Layer.merge(TestModel.layer({ responses: script }), weather))))

  it.effect("the streamed form runs to its end", () =>
    Effect.gen(function*() {
      yield* streamed
      expect((yield* TestModel.requests).length).toBe(2)
    }).pipe(Effect.provide(Layer.merge(TestModel.layer({ responses: script }), weather))))
})

describe("the README's structured-output example", () => {
  const json = "{\"title\":\"Pancakes\",\"minutes\":20,\"steps\":[\"Mix\",\"Fry\"]}"
  const answer = [
    StreamChunk.textDelta(json.slice(0, 20)),
    StreamChunk.textDelta(json.slice(20)),
    StreamChunk.finish("stop")
  ]

  it.effect("generateObject gives the typed value; streamObject runs to its end", () =>
    Effect.gen(function*() {
      expect(yield* recipe).toStrictEqual({ title: "Pancakes", minutes: 20, steps: ["Mix", "Fry"] })
      yield* partials
      const [request] = yield* TestModel.requests
      expect(request?.responseFormat?.type).toBe("json_schema")
    }).pipe(Effect.provide(TestModel.layer({ responses: answer }))))
})
