import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { StreamChunk } from "effect-llm-stream"
import { TestModel } from "effect-llm-stream/testing"
import { conversation } from "../../examples/requests.js"

describe("the README's Requests example", () => {
  it.effect("a two-turn conversation: a tool call, its result sent back, then the answer", () =>
    Effect.gen(function*() {
      expect(yield* conversation).toBe("18 °C and clear in Paris.")
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
          content: JSON.stringify({ args: { city: "Paris" }, temperatureC: 18, sky: "clear" })
        }
      ])
      expect(second?.tools?.[0]).toStrictEqual({
        name: "get_weather",
        description: "The current weather in a city",
        parameters: {
          type: "object",
          required: ["city"],
          properties: { city: { type: "string" } },
          additionalProperties: false
        }
      })
    }).pipe(Effect.provide(TestModel.layer({
      responses: [
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
      ]
    }))))
})
