/**
 * A handler's requirements flow into the loop's stream: a tool whose handler needs a `Database`
 * service makes `streamWithTools(...)` require `Database` (checked by the compiler: running it
 * without the service does not type-check), and providing it with `Effect.provideService` runs.
 */
import { describe, expect, expectTypeOf, it } from "@effect/vitest"
import { LanguageModel, StreamChunk, Tool, Toolkit } from "effect-llm-stream"
import { TestModel } from "effect-llm-stream/testing"
import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"

class Database extends Context.Tag("test/agent/Database")<
  Database,
  { readonly temperatureOf: (city: string) => Effect.Effect<number> }
>() {}

const getWeather = Tool.make("get_weather", {
  parameters: Schema.Struct({ city: Schema.String }),
  handler: ({ city }) =>
    Effect.map(Database, (db) => db.temperatureOf(city)).pipe(
      Effect.flatten,
      Effect.map((temperatureC) => ({ city, temperatureC }))
    )
})
const getTime = Tool.make("get_time", {
  parameters: Schema.Struct({ zone: Schema.String }),
  handler: ({ zone }) => Effect.succeed({ zone, time: "14:05" })
})

const usage1 = { inputTokens: 10, outputTokens: 5, totalTokens: 15 }
const usage2 = { inputTokens: 30, outputTokens: 7, totalTokens: 37 }
const model = TestModel.layer({
  responses: TestModel.steps([
    [
      TestModel.toolCall("get_weather", { city: "Paris" }, { id: "call_db" }),
      StreamChunk.usage(usage1),
      StreamChunk.finish("tool_calls")
    ],
    [StreamChunk.textDelta("18 °C in Paris."), StreamChunk.usage(usage2), StreamChunk.finish("stop")]
  ])
})

const collect = <R>(stream: Stream.Stream<StreamChunk.StreamChunk, never, R>) =>
  Effect.map(Stream.runCollect(stream), Chunk.toArray)

describe("a handler's requirements", () => {
  it.effect("flow into streamWithTools's requirements; provided with Effect.provideService, the handler reads it", () =>
    Effect.gen(function*() {
      const stream = LanguageModel.streamWithTools("Weather in Paris?", Toolkit.make(getWeather, getTime))
      // Checked by tsc: Database joins the model in the stream's requirements, and only the handlers' own do.
      expectTypeOf<Stream.Stream.Context<typeof stream>>().toEqualTypeOf<LanguageModel.LanguageModel | Database>()
      const _plain = LanguageModel.streamWithTools("Time in Paris?", Toolkit.make(getTime))
      expectTypeOf<Stream.Stream.Context<typeof _plain>>().toEqualTypeOf<LanguageModel.LanguageModel>()
      // Running it with the model but without Database does not type-check (never called: it would die).
      const withoutDatabase = () =>
        // @ts-expect-error Database is required by get_weather's handler and is not provided
        Effect.runPromise(collect(stream).pipe(Effect.provide(model)))
      void withoutDatabase

      const looked: Array<string> = []
      const chunks = yield* collect(stream).pipe(
        Effect.provideService(Database, {
          temperatureOf: (city) => Effect.sync(() => (looked.push(city), 18))
        }),
        Effect.provide(model)
      )
      expect(looked).toStrictEqual(["Paris"])
      expect(chunks).toStrictEqual([
        TestModel.toolCall("get_weather", { city: "Paris" }, { id: "call_db" }),
        StreamChunk.usage(usage1),
        StreamChunk.toolResult({
          toolCallId: "call_db",
          name: "get_weather",
          result: { city: "Paris", temperatureC: 18 },
          isError: false,
          step: 1
        }),
        StreamChunk.stepFinish(1, "tool_calls", { usage: usage1 }),
        StreamChunk.textDelta("18 °C in Paris."),
        StreamChunk.usage({ inputTokens: 40, outputTokens: 12, totalTokens: 52 }),
        StreamChunk.stepFinish(2, "stop", { usage: usage2 }),
        StreamChunk.finish("stop")
      ])
    }))
})
