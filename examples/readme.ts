// The README's example, kept here so the type checker proves it still compiles.
import { Effect, Layer } from "effect"
import { LanguageModel, OpenAiChat, Response, UsageMeter } from "effect-llm-stream"
import { NodeHttp } from "effect-llm-stream/node"

// A provider is a Layer; layerConfig reads OPENAI_API_KEY through Config.
const Model = OpenAiChat.layerConfig({ model: "gpt-4.1-mini" })

const program = Effect.gen(function*() {
  // Shows each chunk as it arrives and builds the same Response as LanguageModel.chat, in one pass.
  const response = yield* LanguageModel.stream("Why is the sky blue? One sentence.").pipe(
    Response.collectWith((chunk) => {
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
  )
  console.log(response.usage, yield* UsageMeter.snapshot)
})

// The layers are built once, here at the edge; every call inside the program shares them.
program.pipe(
  Effect.provide(Layer.mergeAll(Model, UsageMeter.layer)),
  Effect.provide(NodeHttp.layer), // on Node; FetchHttpClient.layer runs anywhere
  Effect.runPromise
)
