// The README's example, kept here so the type checker proves it still compiles.
import { FetchHttpClient } from "@effect/platform"
import { Effect, Layer, Stream } from "effect"
import { LanguageModel, OpenAiChat, Response, UsageMeter } from "effect-llm-stream"

// A provider is a Layer; layerConfig reads OPENAI_API_KEY through Config.
const Model = OpenAiChat.layerConfig({ model: "gpt-4.1-mini" })

const program = Effect.gen(function*() {
  const response = yield* LanguageModel.stream("Why is the sky blue? One sentence.").pipe(
    Stream.tap((chunk) =>
      Effect.sync(() => {
        switch (chunk.type) {
          case "text-delta":
            process.stdout.write(chunk.delta)
            break
          case "tool-call":
            console.log("\ncall", chunk.toolCall.name, chunk.toolCall.arguments)
            break
          case "finish":
            console.log(`\n[${chunk.reason}]`)
            break
          case "error":
            console.error(`\n[${chunk.error.code}] ${chunk.error.message}`)
            break
        }
      })
    ),
    Response.collect // the same Response as LanguageModel.chat, built in one pass
  )
  console.log(response.usage, yield* UsageMeter.snapshot)
})

program.pipe(
  Effect.provide(Layer.mergeAll(Model, UsageMeter.layer)),
  Effect.provide(FetchHttpClient.layer),
  Effect.runPromise
)
