// The peers, in plain JavaScript so that the library's typecheck never needs this package installed.
// Each client: { name, families, make(base, family) => { run(acc, signal), dispose() } }, the same
// shape as bench/clients.ts; every one has retries off.
import { createAnthropic } from "@ai-sdk/anthropic"
import { createOpenAI } from "@ai-sdk/openai"
import Anthropic from "@anthropic-ai/sdk"
import { LanguageModel, Tool, Toolkit } from "@effect/ai"
import { OpenAiClient, OpenAiLanguageModel } from "@effect/ai-openai"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { jsonSchema, streamText, tool } from "ai"
import { Effect, Layer, ManagedRuntime, Redacted, Schema, Stream } from "effect"
import OpenAI from "openai"
// The floor's own handlers of parsed Chat chunks and Anthropic events: every client accumulates alike.
import { anthropicEvent, chatChunk } from "../floors.ts"

const done = () => Promise.resolve()

const aiSdkPart = (acc, p) => {
  switch (p.type) {
    case "text-delta":
      acc.text(p.text)
      break
    case "reasoning-delta":
      acc.reasoning(p.text)
      break
    case "tool-input-delta":
      acc.args(p.delta)
      break
    case "finish":
      acc.finish(p.finishReason)
      acc.usage(p.totalUsage.inputTokens, p.totalUsage.outputTokens)
      break
    case "error":
      throw p.error instanceof Error ? p.error : new Error(String(p.error?.message ?? p.error))
  }
}

const Search = Tool.make("search", { parameters: { query: Schema.String, items: Schema.Array(Schema.Number) } })
const Kit = Toolkit.make(Search)
// Calls are only decoded (disableToolCallResolution), never run: the handler is never called.
const KitLayer = Kit.toLayer({ search: () => Effect.void })

const tools = { search: tool({ inputSchema: jsonSchema({ type: "object" }) }) }

export const clients = (key) => [
  {
    name: "openai 6",
    families: ["chat", "responses"],
    make: (base, family) => {
      const client = new OpenAI({ apiKey: key, baseURL: `${base}/v1`, maxRetries: 0 })
      return {
        run: async (acc, signal) => {
          if (family === "chat") {
            const stream = await client.chat.completions.create({
              model: "gpt-4.1-mini",
              messages: [{ role: "user", content: "benchmark" }],
              stream: true,
              stream_options: { include_usage: true }
            }, { signal })
            for await (const c of stream) chatChunk(acc, c)
          } else {
            const stream = await client.responses.create({ model: "gpt-4.1-mini", input: "benchmark", stream: true }, {
              signal
            })
            let calls = false
            for await (const e of stream) {
              if (e.type === "response.output_text.delta") acc.text(e.delta)
              else if (e.type === "response.function_call_arguments.delta") {
                calls = true
                acc.args(e.delta)
              } else if (e.type === "response.completed") {
                acc.usage(e.response.usage.input_tokens, e.response.usage.output_tokens)
                acc.finish(calls ? "tool_calls" : "stop")
              }
            }
          }
        },
        dispose: done
      }
    }
  },
  {
    name: "@anthropic-ai/sdk",
    families: ["anthropic"],
    make: (base) => {
      const client = new Anthropic({ apiKey: key, baseURL: base, maxRetries: 0 })
      return {
        run: async (acc, signal) => {
          const stream = await client.messages.create({
            model: "claude-bench",
            max_tokens: 1024,
            messages: [{ role: "user", content: "benchmark" }],
            stream: true
          }, { signal })
          for await (const e of stream) anthropicEvent(acc, e)
        },
        dispose: done
      }
    }
  },
  {
    name: "ai 6 + @ai-sdk",
    families: ["chat", "anthropic", "responses"],
    make: (base, family) => {
      const model = family === "anthropic"
        ? createAnthropic({ apiKey: key, baseURL: `${base}/v1` })("claude-sonnet-4-5")
        : family === "chat"
        ? createOpenAI({ apiKey: key, baseURL: `${base}/v1` }).chat("gpt-4.1-mini")
        : createOpenAI({ apiKey: key, baseURL: `${base}/v1` }).responses("gpt-4.1-mini")
      return {
        run: async (acc, signal) => {
          const result = streamText({ model, prompt: "benchmark", tools, maxRetries: 0, abortSignal: signal })
          for await (const p of result.fullStream) aiSdkPart(acc, p)
        },
        dispose: done
      }
    }
  },
  {
    name: "@effect/ai-openai",
    families: ["responses"],
    make: (base) => {
      const runtime = ManagedRuntime.make(
        OpenAiLanguageModel.layer({ model: "gpt-4.1-mini" }).pipe(
          Layer.provide(OpenAiClient.layer({ apiKey: Redacted.make(key), apiUrl: `${base}/v1` })),
          Layer.provide(FetchHttpClient.layer),
          Layer.merge(KitLayer)
        )
      )
      return {
        run: (acc, signal) =>
          runtime.runPromise(
            LanguageModel.streamText({ prompt: "benchmark", toolkit: Kit, disableToolCallResolution: true }).pipe(
              Stream.runForEach((p) =>
                Effect.sync(() => {
                  switch (p.type) {
                    case "text-delta":
                      acc.text(p.delta)
                      break
                    case "reasoning-delta":
                      acc.reasoning(p.delta)
                      break
                    case "tool-params-delta":
                      acc.args(p.delta)
                      break
                    case "finish":
                      acc.finish(p.reason)
                      acc.usage(p.usage.inputTokens, p.usage.outputTokens)
                      break
                  }
                })
              )
            ),
            signal ? { signal } : undefined
          ),
        dispose: () => runtime.dispose()
      }
    }
  }
]
