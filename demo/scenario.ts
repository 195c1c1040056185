/**
 * The demo conversation, run against whatever `LanguageModel` is provided: a question that needs a
 * tool, the tool's result sent back, and the final answer. Prints the answer as it streams, reasoning
 * apart from it, tool calls as they complete, then usage, the finish reason and the meter totals.
 */
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as ChatRequest from "../src/ChatRequest.js"
import * as LanguageModel from "../src/LanguageModel.js"
import * as Response from "../src/Response.js"
import type * as StreamChunk from "../src/StreamChunk.js"
import * as UsageMeter from "../src/UsageMeter.js"

const dim = (s: string): string => (process.stdout.isTTY ? `\x1b[2m${s}\x1b[0m` : s)
const bold = (s: string): string => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s)
const write = (s: string): Effect.Effect<void> => Effect.sync(() => void process.stdout.write(s))

const weatherTool = ChatRequest.tool({
  name: "get_weather",
  description: "Current weather in a city",
  parameters: Schema.Struct({ city: Schema.String, unit: Schema.optional(Schema.Literal("celsius", "fahrenheit")) })
})

/** What our pretend weather service answers. */
const runTool = (args: unknown): string => {
  const city = typeof args === "object" && args !== null && "city" in args ? String(args.city) : "somewhere"
  return JSON.stringify({ city, temperature: 18, unit: "celsius", conditions: "light rain" })
}

/** Streams one turn to the terminal and returns the reassembled response. */
const turn = (request: ChatRequest.ChatRequest): Effect.Effect<Response.Response, never, LanguageModel.LanguageModel> =>
  Effect.gen(function*() {
    let mode: "none" | "text" | "reasoning" = "none"
    const switchTo = (next: "text" | "reasoning"): Effect.Effect<void> =>
      mode === next
        ? Effect.void
        : Effect.zipRight(
          write(mode === "none" ? "" : "\n"),
          Effect.sync(() => {
            mode = next
          })
        ).pipe(Effect.zipRight(write(next === "reasoning" ? dim("  thinking │ ") : "  answer   │ ")))
    const chunks: Array<StreamChunk.StreamChunk> = []
    yield* LanguageModel.stream(request).pipe(
      Stream.tap((chunk) => Effect.sync(() => chunks.push(chunk))),
      Stream.runForEach((chunk): Effect.Effect<void> => {
        switch (chunk.type) {
          case "metadata":
            return Console.log(dim(`  ${chunk.provider} · ${chunk.model ?? "?"} · ${chunk.responseId ?? ""}`))
          case "reasoning-delta":
            return Effect.zipRight(switchTo("reasoning"), write(dim(chunk.delta)))
          case "text-delta":
            return Effect.zipRight(switchTo("text"), write(chunk.delta))
          case "tool-call":
            return Effect.zipRight(
              write(mode === "none" ? "" : "\n"),
              Effect.sync(() => {
                mode = "none"
              })
            ).pipe(
              Effect.zipRight(
                Console.log(
                  `  tool call│ ${bold(chunk.toolCall.name)}(${chunk.toolCall.rawArguments})  id=${chunk.toolCall.id}`
                )
              )
            )
          case "usage":
            return Effect.void
          case "finish":
            return write(
              `${mode === "none" ? "" : "\n"}${
                dim(`  finish   │ ${chunk.reason}${chunk.rawReason !== undefined ? ` (raw: ${chunk.rawReason})` : ""}`)
              }\n`
            )
          case "error":
            return write(`\n  error    │ ${chunk.error.code}: ${chunk.error.message}\n`)
          default:
            return Effect.void
        }
      })
    )
    const response = Response.fromChunks(chunks)
    if (response.usage !== undefined) {
      const u = response.usage
      yield* Console.log(dim(
        `  usage    │ in ${u.inputTokens} (cache read ${u.cacheReadTokens ?? 0}) · out ${u.outputTokens} (reasoning ${
          u.reasoningTokens ?? 0
        }) · total ${u.totalTokens}`
      ))
    }
    return response
  })

/** The whole demo conversation. */
export const run: Effect.Effect<void, never, LanguageModel.LanguageModel | UsageMeter.UsageMeter> = Effect.gen(
  function*() {
    const question = "What's the weather in Paris right now? Answer in one short paragraph."
    const first: ChatRequest.ChatRequest = {
      messages: [
        ChatRequest.system("You are a concise assistant. Use tools when they help."),
        ChatRequest.user(question)
      ],
      tools: [weatherTool]
    }
    yield* Console.log(bold(`\n› ${question}\n`))
    const one = yield* turn(first)
    if (one.error !== undefined || one.toolCalls.length === 0) return
    const results = one.toolCalls.map((call) =>
      ChatRequest.toolResult(call.id, runTool(call.arguments), { name: call.name })
    )
    for (const r of results) if (r.role === "tool") yield* Console.log(dim(`  tool     │ ${r.content}`))
    yield* Console.log("")
    yield* turn({ ...first, messages: [...first.messages, one.message, ...results] })
    const totals = yield* UsageMeter.snapshot
    yield* Console.log(bold("\nUsageMeter totals"))
    yield* Console.log(
      `  requests ${totals.requests} · errors ${totals.errors} · input ${totals.inputTokens} · output ${totals.outputTokens} · cache read ${totals.cacheReadTokens} · reasoning ${totals.reasoningTokens}`
    )
    for (const [key, c] of Object.entries(totals.byModel)) {
      yield* Console.log(dim(`  ${key}: ${c.requests} requests, ${c.inputTokens} in, ${c.outputTokens} out`))
    }
  }
)
