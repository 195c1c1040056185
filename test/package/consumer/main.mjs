// Run by test/package/package.test.ts with plain `node` (no tsx, no loader) inside an empty project
// that installed the packed tarball: the published JavaScript must load and work on its own.
import { Effect, Either, Stream } from "effect"
import { LanguageModel, LlmError, Response, StreamChunk } from "effect-llm-stream"
import { TestModel } from "effect-llm-stream/testing"
import { strict as assert } from "node:assert"

// The package resolves to its built files, not to sources.
assert.match(import.meta.resolve("effect-llm-stream"), /\/node_modules\/effect-llm-stream\/dist\/index\.js$/)
assert.match(
  import.meta.resolve("effect-llm-stream/testing"),
  /\/node_modules\/effect-llm-stream\/dist\/testing\/index\.js$/
)

const model = TestModel.layer({
  responses: [
    [StreamChunk.textDelta("Hel"), StreamChunk.textDelta("lo"), StreamChunk.finish("stop")],
    [StreamChunk.textDelta("partial"), TestModel.fail(LlmError.make({ code: "rate_limit", message: "slow down" }))]
  ]
})

const program = Effect.gen(function*() {
  const chunks = []
  const streamed = yield* LanguageModel.stream("Say hello").pipe(
    Stream.tap((chunk) => Effect.sync(() => chunks.push(chunk.type))),
    Response.collect
  )
  const failed = yield* Effect.either(LanguageModel.chat("Again"))
  const requests = yield* TestModel.requests
  return { chunks, streamed, failed, requests }
})

const { chunks, failed, requests, streamed } = await Effect.runPromise(Effect.provide(program, model))

assert.deepEqual(chunks, ["text-delta", "text-delta", "finish"])
assert.equal(streamed.text, "Hello")
assert.equal(streamed.finishReason, "stop")
assert.equal(requests.length, 2)
assert.ok(Either.isLeft(failed), "chat fails when the stream ends in an error chunk")
assert.ok(LlmError.isLlmError(failed.left))
assert.equal(failed.left._tag, "LlmError")
assert.equal(failed.left.code, "rate_limit")
assert.equal(failed.left.response?.text, "partial")

process.stdout.write(
  JSON.stringify({ text: streamed.text, finishReason: streamed.finishReason, error: failed.left.code }) + "\n"
)
