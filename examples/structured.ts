// The README's "Structured output" example, kept here so the type checker proves it compiles and
// test/examples/requests.test.ts proves it runs.
import { Effect, Schema, Stream } from "effect"
import { LanguageModel } from "effect-llm-stream"

const Recipe = Schema.Struct({
  title: Schema.String,
  minutes: Schema.Number,
  steps: Schema.Array(Schema.String)
})

// The decoded value, typed by the Schema (an `invalid_output` LlmError when the model's JSON does not fit).
export const recipe = LanguageModel.generateObject("A recipe for pancakes, briefly.", Recipe)

// Or streamed: a `partial-object` chunk each time the value grows, the `object` right before `finish`.
export const partials = LanguageModel.streamObject("A recipe for pancakes, briefly.", Recipe).pipe(
  Stream.runForEach((chunk) =>
    Effect.sync(() => {
      if (chunk.type === "partial-object") console.log("so far:", chunk.value)
      if (chunk.type === "object") console.log(`${chunk.value.title}: ${chunk.value.steps.length} steps`)
    })
  )
)
