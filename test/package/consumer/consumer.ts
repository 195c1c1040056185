// A consumer's program, type-checked by test/package/package.test.ts against the installed tarball's
// .d.ts files under the strictest settings a user may have (strict, exactOptionalPropertyTypes,
// noUncheckedIndexedAccess, skipLibCheck: false), once for Node (@types/node, no DOM lib) and once for
// a browser or edge runtime (DOM lib, no @types/node). It is also type-checked in the repository against
// the sources (tsconfig.json), so an API change that breaks it shows up in `npm run typecheck` first.
//
// @effect/platform is imported by module path: its root index re-exports KeyValueStore and
// Transferable, whose declarations need the DOM lib, which a Node project checking libraries
// (skipLibCheck: false) does not have.
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import type { HttpClient } from "@effect/platform/HttpClient"
import { Effect, Layer, Redacted, Schedule, Stream } from "effect"
import {
  type ChatRequest,
  type FinishReason,
  LanguageModel,
  LlmError,
  OpenAiChat,
  type ProviderOptions,
  Response,
  StreamChunk,
  UsageMeter
} from "effect-llm-stream"
import { TestModel } from "effect-llm-stream/testing"

// A provider is a Layer; its type names only public modules and @effect/platform.
const options: OpenAiChat.Options = {
  model: "gpt-4.1-mini",
  apiKey: Redacted.make("sk-not-a-real-key"),
  retry: { times: 1, schedule: Schedule.spaced("1 second") },
  timeouts: { headers: "10 seconds", idle: "30 seconds" }
}
const common: ProviderOptions.Common = options
const openAi: Layer.Layer<LanguageModel.LanguageModel, never, HttpClient> = OpenAiChat.layer(options)
export const live: Layer.Layer<LanguageModel.LanguageModel> = Layer.provide(openAi, FetchHttpClient.layer)

// Every chunk type, exhaustively (a new chunk type is an API change: add its case here).
export const describe = (chunk: StreamChunk.StreamChunk): string => {
  switch (chunk.type) {
    case "metadata":
      return `${chunk.provider} ${chunk.model ?? "?"}`
    case "text-delta":
      return chunk.delta
    case "reasoning-delta":
      return chunk.accumulated
    case "reasoning":
      return chunk.text
    case "tool-call-delta":
      return `${chunk.index} ${chunk.id} ${chunk.argumentsDelta}`
    case "tool-call":
      return `${chunk.toolCall.name}(${chunk.toolCall.rawArguments})`
    case "content-part":
      return chunk.part.type
    case "usage":
      return String(chunk.usage.totalTokens)
    case "cache-read":
      return String(chunk.cacheReadTokens)
    case "cache-write":
      return String(chunk.cacheWriteTokens)
    case "finish": {
      const reason: FinishReason.FinishReason = chunk.reason
      return reason
    }
    case "error": {
      const code: LlmError.ErrorCode = chunk.error.code
      return `${code}: ${chunk.error.message}`
    }
    case "tool-result":
      return `${chunk.step} ${chunk.name} ${chunk.toolCallId} ${chunk.isError ? "error" : "ok"}`
    case "step-finish": {
      const reason: FinishReason.FinishReason = chunk.finishReason
      return `${chunk.step} ${reason}`
    }
    case "partial-object":
    case "object":
      return JSON.stringify(chunk.value)
    default: {
      const unreachable: never = chunk
      return unreachable
    }
  }
}

const request: ChatRequest.Input = "Hello"

// chat fails with LlmError; catchTag narrows it and exposes the partial Response.
export const answer: Effect.Effect<string, never, LanguageModel.LanguageModel> = LanguageModel.chat(request).pipe(
  Effect.map((response: Response.Response) => response.text),
  Effect.catchTag(
    "LlmError",
    (error: LlmError.LlmError) =>
      Effect.succeed(`${error.code} retryable=${error.retryable} after=${error.response?.text ?? ""}`)
  )
)

export const firstToolCall = (response: Response.Response): string | undefined => response.toolCalls[0]?.name

export const streamed: Effect.Effect<
  { readonly response: Response.Response; readonly totals: UsageMeter.Totals },
  never,
  LanguageModel.LanguageModel | UsageMeter.UsageMeter
> = Effect.gen(function*() {
  const response = yield* LanguageModel.stream(request).pipe(
    Stream.tap((chunk) => Effect.log(describe(chunk))),
    Response.collect
  )
  return { response, totals: yield* UsageMeter.snapshot }
})

const scripted: Layer.Layer<LanguageModel.LanguageModel | TestModel.TestModel> = TestModel.layer({
  model: common.model,
  responses: [
    [StreamChunk.textDelta("Hi"), StreamChunk.finish("stop")],
    [TestModel.sleep("1 second"), TestModel.fail(LlmError.make({ code: "rate_limit", message: "slow down" }))]
  ]
})

export const test: Effect.Effect<ReadonlyArray<ChatRequest.ChatRequest>> = Effect.gen(function*() {
  yield* answer
  return yield* TestModel.requests
}).pipe(Effect.provide(scripted))
