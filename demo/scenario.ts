/**
 * The demo conversation, run against whatever `LanguageModel` is provided: a question that needs a
 * tool, asked through the agent loop (`LanguageModel.streamWithTools`) with a typed `get_weather`
 * tool whose handler is our pretend weather service (`src/cli/weather.ts`, shared with
 * `effect-llm-stream chat --replay`). One stream across the steps: the answer as it streams,
 * reasoning dimmed, tool calls as they complete, each tool's result, a line per finished step, the
 * final finish, the usage summed over the steps, then the meter's totals (one request per step).
 */
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as Render from "../src/cli/render.js"
import * as Weather from "../src/cli/weather.js"
import * as LanguageModel from "../src/LanguageModel.js"
import type * as StreamChunk from "../src/StreamChunk.js"
import * as UsageMeter from "../src/UsageMeter.js"

const dim = (s: string): string => (process.stdout.isTTY ? `\x1b[2m${s}\x1b[0m` : s)
const bold = (s: string): string => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s)
/** `1470` → `"1,470"`, as the step lines (and the CLI) print counts. */
const n = (count: number | undefined): string => (count ?? 0).toLocaleString("en-US")

/** Text from the model, made safe for the terminal (no escape sequence from a stream reaches it). */
const safe = Render.printable

/** Streams the loop to the terminal, one chunk at a time. */
const show = (
  stream: Stream.Stream<StreamChunk.StreamChunk, never, LanguageModel.LanguageModel>
): Effect.Effect<void, never, LanguageModel.LanguageModel> =>
  Effect.suspend(() => {
    // What the current line holds: nothing yet, the answer, or the reasoning.
    let mode: "none" | "text" | "reasoning" = "none"
    // The last usage chunk: each is the running sum over the steps, so the last is the loop's total.
    let usage: StreamChunk.Of<"usage">["usage"] | undefined
    const out: Array<string> = []
    const endLine = (): void => {
      if (mode !== "none") out.push("\n")
      mode = "none"
    }
    const line = (s: string): void => {
      endLine()
      out.push(`${s}\n`)
    }
    const switchTo = (next: "text" | "reasoning"): void => {
      if (mode === next) return
      endLine()
      out.push(next === "reasoning" ? dim("  thinking │ ") : "  answer   │ ")
      mode = next
    }
    const render = (chunk: StreamChunk.StreamChunk): void => {
      switch (chunk.type) {
        case "metadata":
          return line(dim(`  ${
            [chunk.provider, chunk.model, chunk.responseId].filter((s) => s !== undefined).map(safe).join(" · ")
          }`))
        case "reasoning-delta":
          switchTo("reasoning")
          out.push(dim(safe(chunk.delta)))
          return
        case "text-delta":
          switchTo("text")
          out.push(safe(chunk.delta))
          return
        case "tool-call": {
          const call = chunk.toolCall
          return line(`  tool call│ ${bold(safe(call.name))}(${safe(call.rawArguments)})  id=${safe(call.id)}`)
        }
        case "tool-result":
          return line(`  tool     │ ${Render.toolResult(chunk)}`)
        case "step-finish":
          return line(dim(`  ──────── ${Render.step(chunk)}`))
        case "usage":
          usage = chunk.usage
          return
        case "finish":
          return line(
            dim(
              `  finish   │ ${chunk.reason}${chunk.rawReason !== undefined ? ` (raw: ${safe(chunk.rawReason)})` : ""}`
            )
          )
        case "error":
          return line(`  error    │ ${chunk.error.code}: ${safe(chunk.error.message)}`)
        default:
          return
      }
    }
    return stream.pipe(
      Stream.runForEachChunk((chunks) =>
        Effect.sync(() => {
          for (const chunk of chunks) {
            render(chunk)
          }
          process.stdout.write(out.join(""))
          out.length = 0
        })
      ),
      Effect.zipRight(Effect.suspend(() => {
        if (usage === undefined) {
          return Console.log(dim("  usage    │ unknown"))
        }
        const u = usage
        return Console.log(dim(
          `  usage    │ in ${n(u.inputTokens)} (cache read ${n(u.cacheReadTokens)}) · out ${
            n(u.outputTokens)
          } (reasoning ${n(u.reasoningTokens)}) · total ${n(u.totalTokens)}  (all steps)`
        ))
      }))
    )
  })

/** The whole demo conversation. */
export const run: Effect.Effect<void, never, LanguageModel.LanguageModel | UsageMeter.UsageMeter> = Effect.gen(
  function*() {
    yield* Console.log(bold(`\n› ${Weather.question}\n`))
    yield* show(LanguageModel.streamWithTools(Weather.request(), Weather.toolkit))
    const totals = yield* UsageMeter.snapshot
    yield* Console.log(bold("\nUsageMeter totals"))
    yield* Console.log(
      `  requests ${totals.requests} · errors ${totals.errors} · input ${n(totals.inputTokens)} · output ${
        n(totals.outputTokens)
      } · cache read ${n(totals.cacheReadTokens)} · reasoning ${n(totals.reasoningTokens)}`
    )
    for (const [key, c] of Object.entries(totals.byModel)) {
      yield* Console.log(dim(`  ${key}: ${c.requests} requests, ${n(c.inputTokens)} in, ${n(c.outputTokens)} out`))
    }
  }
)
