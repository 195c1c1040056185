// Run by test/package/package.test.ts with plain `node` (no tsx, no loader) inside an empty project
// that installed the packed tarball: the published JavaScript must load and work on its own.
import { Effect, Either, Layer, Redacted, Stream } from "effect"
import { LanguageModel, LlmError, OpenAiChat, Response, StreamChunk } from "effect-llm-stream"
import { NodeHttp } from "effect-llm-stream/node"
import { TestModel } from "effect-llm-stream/testing"
import { strict as assert } from "node:assert"
import * as http from "node:http"

// The package resolves to its built files, not to sources.
assert.match(import.meta.resolve("effect-llm-stream"), /\/node_modules\/effect-llm-stream\/dist\/index\.js$/)
assert.match(
  import.meta.resolve("effect-llm-stream/testing"),
  /\/node_modules\/effect-llm-stream\/dist\/testing\/index\.js$/
)
assert.match(import.meta.resolve("effect-llm-stream/node"), /\/node_modules\/effect-llm-stream\/dist\/node\/index\.js$/)

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

// The Node entry point: a Chat answer from a loopback server, over NodeHttp.layer.
const chunk = (delta, finish) =>
  `data: ${JSON.stringify({ id: "c", model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
const server = http.createServer((req, res) => {
  req.resume()
  req.on("end", () => {
    res.writeHead(200, { "content-type": "text/event-stream" })
    res.end(
      chunk({ content: "over " }, null) + chunk({ content: "undici" }, null) + chunk({}, "stop") + "data: [DONE]\n\n"
    )
  })
})
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
const overNode = await Effect.runPromise(
  LanguageModel.chat("hi").pipe(
    Effect.provide(
      OpenAiChat.layer({
        model: "m",
        apiKey: Redacted.make("sk-not-a-real-key"),
        baseUrl: `http://127.0.0.1:${server.address().port}/v1`
      }).pipe(Layer.provide(NodeHttp.layer))
    )
  )
)
server.close()

process.stdout.write(
  JSON.stringify({
    text: streamed.text,
    finishReason: streamed.finishReason,
    error: failed.left.code,
    node: `${overNode.text} (${overNode.finishReason})`
  }) + "\n"
)
