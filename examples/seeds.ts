// The host loops of the three seed documents (ExAgent, ReqLLM, AIPlug), rewritten against this SDK.
// docs/seeds.md shows this file as it is; the type checker proves it compiles and
// test/examples/seeds.test.ts runs every loop against a real provider layer.
import type { Layer } from "effect"
import { Effect, Stream } from "effect"
import type { ToolCall, Usage } from "effect-llm-stream"
import { Interop, LanguageModel, Response, StreamChunk } from "effect-llm-stream"

/** What every loop needs: a model (any provider layer, or `Registry.layer("provider:model")`). */
export type Model = Layer.Layer<LanguageModel.LanguageModel>

// ── ExAgent ────────────────────────────────────────────────────────────────────────────────────
// agent |> ExAgent.chat_stream("Explain OTP") |> Enum.each(fn
//   %Chunk{type: :text_delta, text: text} -> IO.write(text)
//   %Chunk{type: :done, finish_reason: reason} -> IO.puts("\n[#{reason}]") end)
export const exAgent = (model: Model, write: (text: string) => void) =>
  LanguageModel.stream("Explain OTP").pipe(
    Stream.runForEach((chunk) =>
      Effect.sync(() => {
        switch (chunk.type) {
          case "text-delta": // :text_delta
            write(chunk.delta)
            break
          case "finish": // :done (a clean end)
            write(`\n[${chunk.reason}]\n`)
            break
          case "error": // :done with :error (the stream failed; still exactly one terminal chunk)
            write(`\n[error ${chunk.error.code}]\n`)
            break
        }
      })
    ),
    Effect.provide(model)
  )

// ExAgent.collect/1: the chunk stream folded back into the Response that ExAgent.chat/3 returns.
export const exAgentCollect = (model: Model) =>
  LanguageModel.stream("Explain OTP").pipe(Response.collect, Effect.provide(model))

// ── ReqLLM ─────────────────────────────────────────────────────────────────────────────────────
// {:ok, stream} = ReqLLM.stream_text("anthropic:claude-3-sonnet", "Tell a story")
// stream |> Stream.filter(&(&1.type == :content)) |> Stream.map(&(&1.text)) |> Stream.each(&IO.write/1)
export const reqLlm = (model: Model, write: (text: string) => void) =>
  LanguageModel.stream("Tell a story").pipe(
    Stream.filter(StreamChunk.is("text-delta")), // :content
    Stream.map((chunk) => chunk.delta), // &1.text
    Stream.runForEach((text) => Effect.sync(() => write(text))),
    Effect.provide(model)
  )

// ReqLLM.Response.join_stream/1: Response.collect, with usage and the finish reason typed (no :meta map).
export const reqLlmJoin = (model: Model) =>
  LanguageModel.stream("Tell a story").pipe(
    Response.collect,
    Effect.map((response) => ({
      text: response.text,
      finishReason: response.finishReason,
      tokensUsed: response.usage?.totalTokens
    })),
    Effect.provide(model)
  )

// ── AIPlug ─────────────────────────────────────────────────────────────────────────────────────
// A host without Effect: `for await` with a `switch (chunk.type)`, buffering tool-call fragments by
// the call's id (AIPlug's toolCallId) — every fragment carries it, the same id as the final call.
export interface Host {
  readonly updateCostBadge: (usage: { promptTokens: number; completionTokens: number }) => void
  readonly onComplete: (text: string, reason: string) => void
  readonly onError: (error: { code: string; message: string }) => void
  readonly dispatchToolCall: (call: ToolCall.ToolCall) => void
}

export const aiPlug = async (model: Model, host: Host) => {
  let text = ""
  const toolCalls = new Map<string, { id: string; name: string; args: string }>()
  for await (const chunk of Interop.toAsyncIterable(LanguageModel.stream("What's the weather in Paris?"), model)) {
    switch (chunk.type) {
      case "text-delta":
        text += chunk.delta
        break
      case "tool-call-delta": {
        const id = chunk.id ?? `call_${chunk.index}` // always set on a LanguageModel stream
        const existing = toolCalls.get(id) ?? { id, name: chunk.name ?? "", args: "" }
        existing.args += chunk.argumentsDelta
        toolCalls.set(id, existing)
        break
      }
      case "tool-call": // final assembled call: `arguments` parsed, `rawArguments` the original string
        host.dispatchToolCall(chunk.toolCall)
        break
      case "usage": // AIPlug's promptTokens / completionTokens are our inputTokens / outputTokens
        host.updateCostBadge(costBadge(chunk.usage))
        break
      case "finish":
        host.onComplete(text, chunk.reason)
        break
      case "error": // pre-stream errors too (a missing key): never thrown, always this chunk
        host.onError(chunk.error)
        return toolCalls
    }
  }
  return toolCalls
}

const costBadge = (usage: Usage.Usage) => ({ promptTokens: usage.inputTokens, completionTokens: usage.outputTokens })
