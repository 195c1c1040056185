/**
 * How `effect-llm-stream chat` shows a chunk stream. On an interactive terminal: a spinner until the
 * first chunk, reasoning dimmed, the answer as it streams, tool calls as they complete, an agent
 * loop's tool results and step lines, and a footer (finish, usage, cost, time to first token, tokens
 * per second). Elsewhere (pipes, files, tests): the same without the spinner and without ANSI codes.
 * Whatever came from the model or the provider is shown through {@link printable}, so a stream cannot
 * drive the terminal. In JSON mode: one `StreamChunk.encodeJson` line per chunk and nothing else on
 * stdout.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import * as Pricing from "../Pricing.js"
import * as Response from "../Response.js"
import * as StreamChunk from "../StreamChunk.js"

/**
 * Where the output goes, and whether it is an interactive terminal (spinner and ANSI codes).
 *
 * @since 0.1.0
 * @category models
 */
export interface Output {
  readonly out: (text: string) => void
  readonly err: (text: string) => void
  readonly interactive: boolean
}

/**
 * The exit codes: 0 when the stream finished, 1 when it ended in an error chunk, 2 for bad
 * arguments, 130 when interrupted (Ctrl-C), as shells report a SIGINT.
 *
 * @since 0.1.0
 * @category constants
 */
export const ExitCode = { finished: 0, streamError: 1, badArguments: 2, interrupted: 130 } as const

/** `1234` → `"1,234"`: token counts read at a glance. */
const count = (n: number | undefined): string => (n ?? 0).toLocaleString("en-US")

/**
 * Whether a UTF-16 code unit is a terminal control: C0 but tab and line feed, DEL and C1. Dropping
 * the control itself (ESC, CSI, BEL, CR …) is enough, wherever a stream's pieces are cut: what is
 * left of an escape sequence is plain printable text.
 */
const isControl = (c: number): boolean => (c < 0x20 && c !== 0x09 && c !== 0x0a) || (c >= 0x7f && c <= 0x9f)

/**
 * Text from the model or the provider, safe to write to a terminal: every control character but tab
 * and line feed is dropped (no escape sequence, carriage return or bell reaches the terminal).
 *
 * @since 0.1.0
 * @category rendering
 */
export const printable = (text: string): string => {
  let i = 0
  while (i < text.length && !isControl(text.charCodeAt(i))) i++
  if (i === text.length) return text
  let out = text.slice(0, i)
  for (; i < text.length; i++) {
    if (!isControl(text.charCodeAt(i))) out += text[i]
  }
  return out
}

/** {@link printable}, on one line: tabs and line feeds become spaces. */
const oneLine = (text: string): string => printable(text).replace(/[\t\n]/g, " ")

const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff
const isLowSurrogate = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff

/**
 * The most characters of a tool result a line shows; the rest is counted (`--json` has it all).
 *
 * @since 0.1.0
 * @category constants
 */
export const maxResultLength = 500

/**
 * A tool result on one line: a string as it is, anything else as JSON, cut at
 * {@link maxResultLength} UTF-16 code units (never inside a surrogate pair), the rest counted in
 * characters.
 *
 * @since 0.1.0
 * @category rendering
 */
export const resultText = (result: unknown): string => {
  const text = oneLine(typeof result === "string" ? result : JSON.stringify(result) ?? "null")
  if (text.length <= maxResultLength) return text
  // Never half of a surrogate pair.
  const cut = isHighSurrogate(text.charCodeAt(maxResultLength - 1)) ? maxResultLength - 1 : maxResultLength
  let more = 0
  for (let i = cut; i < text.length; i++) if (!isLowSurrogate(text.charCodeAt(i))) more++
  return `${text.slice(0, cut)}… (${count(more)} more characters)`
}

/**
 * A `tool-result` chunk as a line's text: `get_weather → {"city":"Paris",…}`, or
 * `get_weather → error: …` for an error result.
 *
 * @since 0.1.0
 * @category rendering
 */
export const toolResult = (chunk: StreamChunk.Of<"tool-result">): string =>
  `${oneLine(chunk.name)} → ${chunk.isError ? "error: " : ""}${resultText(chunk.result)}`

/**
 * A `step-finish` chunk as a line's text: `step 1 · tool_calls · in 1,470 out 61` (the step's own
 * usage; `usage unknown` without it).
 *
 * @since 0.1.0
 * @category rendering
 */
export const step = (chunk: StreamChunk.Of<"step-finish">): string => {
  const u = chunk.usage
  const usage = u === undefined ? "usage unknown" : `in ${count(u.inputTokens)} out ${count(u.outputTokens)}`
  return `step ${chunk.step} · ${chunk.finishReason} · ${usage}`
}

/** The spinner's frames, one every 80 ms on the Effect clock. */
const frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

/**
 * Streams chunks as JSON lines; the exit code tells how the stream ended.
 *
 * @since 0.1.0
 * @category rendering
 */
export const json = <R>(
  stream: Stream.Stream<StreamChunk.StreamChunk, never, R>,
  output: Output
): Effect.Effect<number, never, R> => {
  let code: number = ExitCode.finished
  return Stream.runForEach(stream, (chunk) =>
    Effect.sync(() => {
      output.out(`${StreamChunk.encodeJson(chunk)}\n`)
      if (chunk.type === "error") {
        code = ExitCode.streamError
        output.err(`error: ${chunk.error.code}: ${printable(chunk.error.message)}\n`)
      }
    })).pipe(Effect.map(() => code))
}

/** Counts and times the footer reports. */
interface Tally {
  readonly chunks: Array<StreamChunk.StreamChunk>
  readonly startedMs: number
  firstTokenMs: number | undefined
}

/**
 * The footer line: how the stream ended, the model, usage, cost ("cost unknown" when the price table
 * cannot price it), time to first token and output tokens per second after it (times in ms from the
 * request).
 *
 * @since 0.1.0
 * @category rendering
 */
export const footer = (
  status: string,
  response: Response.Response,
  firstTokenMs: number | undefined,
  endMs: number
): string => {
  const u = response.usage
  const usage = u === undefined
    ? "usage unknown"
    : `input ${count(u.inputTokens)} (cache read ${count(u.cacheReadTokens)}, cache write ${
      count(u.cacheWriteTokens)
    }) · output ${count(u.outputTokens)} (reasoning ${count(u.reasoningTokens)})`
  const cost = response.cost === undefined ? "cost unknown" : `cost $${response.cost.toFixed(6)}`
  const ttft = firstTokenMs === undefined ? "no token" : `first token ${Math.round(firstTokenMs)} ms`
  const seconds = firstTokenMs === undefined ? 0 : (endMs - firstTokenMs) / 1000
  const rate = u === undefined || seconds <= 0
    ? "tokens/s unknown"
    : `${(u.outputTokens / seconds).toFixed(1)} tokens/s`
  const model = response.metadata === undefined
    ? ""
    : ` · ${oneLine(response.metadata.provider)}${
      response.metadata.model === undefined ? "" : `:${oneLine(response.metadata.model)}`
    }`
  return `── ${status}${model} · ${usage} · ${cost} · ${ttft} · ${rate}`
}

/**
 * Streams chunks for a reader; the exit code tells how the stream ended (interruption prints the
 * footer with "interrupted" and lets the interruption through).
 *
 * @since 0.1.0
 * @category rendering
 */
export const text = <R>(
  stream: Stream.Stream<StreamChunk.StreamChunk, never, R>,
  output: Output
): Effect.Effect<number, never, R> =>
  Effect.gen(function*() {
    const ansi = (open: string, close: string) => (s: string): string =>
      output.interactive ? `\x1b[${open}m${s}\x1b[${close}m` : s
    const dim = ansi("2", "22")
    const bold = ansi("1", "22")
    const prices = yield* Pricing.Prices
    const tally: Tally = { chunks: [], startedMs: yield* Clock.currentTimeMillis, firstTokenMs: undefined }
    let mode: "none" | "text" | "reasoning" = "none"
    const endLine = (): void => {
      if (mode !== "none") output.out("\n")
      mode = "none"
    }
    const switchTo = (next: "text" | "reasoning"): void => {
      if (mode === next) return
      endLine()
      if (next === "reasoning") output.out(dim("reasoning: "))
      mode = next
    }
    let frame = 0
    const spinner = output.interactive
      ? yield* Effect.fork(
        Effect.repeat(
          Effect.sync(() => {
            output.out(`\r${frames[frame++ % frames.length]} waiting for the first token…`)
          }),
          Schedule.spaced("80 millis")
        )
      )
      : undefined
    let spinning = spinner !== undefined
    const stopSpinner = Effect.suspend(() => {
      if (!spinning || spinner === undefined) return Effect.void
      spinning = false
      return Effect.zipRight(Fiber.interrupt(spinner), Effect.sync(() => output.out("\r\x1b[K")))
    })
    const show = (chunk: StreamChunk.StreamChunk, now: number): void => {
      tally.chunks.push(chunk)
      if (tally.firstTokenMs === undefined && StreamChunk.isContent(chunk)) tally.firstTokenMs = now - tally.startedMs
      switch (chunk.type) {
        case "reasoning-delta":
          switchTo("reasoning")
          output.out(dim(printable(chunk.delta)))
          return
        case "text-delta":
          switchTo("text")
          output.out(printable(chunk.delta))
          return
        case "tool-call": {
          endLine()
          const call = chunk.toolCall
          const args = call.parseError === undefined ? JSON.stringify(call.arguments) : call.rawArguments
          output.out(`${bold("tool call:")} ${oneLine(call.name)}(${oneLine(args)})\n`)
          return
        }
        case "tool-result":
          endLine()
          output.out(`${bold("tool result:")} ${toolResult(chunk)}\n`)
          return
        case "step-finish":
          endLine()
          output.out(dim(`── ${step(chunk)}`) + "\n")
          return
        case "content-part":
          endLine()
          output.out(dim(`[${chunk.part.type}]`) + "\n")
          return
        case "finish":
        case "error":
          endLine()
          return
        default:
          return
      }
    }
    const end = (status: string) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.sync(() => {
          endLine()
          const response = Response.fromChunks(tally.chunks, prices)
          const first = tally.firstTokenMs
          output.out(
            dim(footer(status, response, first, now - tally.startedMs)) + "\n"
          )
          return response
        }))
    yield* Stream.runForEach(stream, (chunk) =>
      Effect.zipRight(
        stopSpinner,
        Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => show(chunk, now)))
      )).pipe(
        Effect.onInterrupt(() => Effect.zipRight(stopSpinner, end("interrupted")))
      )
    yield* stopSpinner
    const last = tally.chunks[tally.chunks.length - 1]
    if (last?.type === "error") {
      yield* end(`error: ${last.error.code}`)
      output.err(`error: ${last.error.code}: ${printable(last.error.message)}\n`)
      return ExitCode.streamError
    }
    const response = yield* end(last?.type === "finish" ? `finish: ${last.reason}` : "ended")
    return response.error === undefined ? ExitCode.finished : ExitCode.streamError
  })
