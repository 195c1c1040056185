/**
 * The terminal rendering of `chat` on an interactive terminal (which the process tests, writing to
 * pipes, cannot reach): the spinner on the Effect clock until the first chunk, reasoning dimmed, the
 * footer's times read from the same clock, and the footer on interruption. Driven by TestClock.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as Render from "../../src/cli/render.js"
import * as StreamChunk from "../../src/StreamChunk.js"

const recorder = (interactive: boolean) => {
  const out: Array<string> = []
  const err: Array<string> = []
  const output: Render.Output = { out: (s) => void out.push(s), err: (s) => void err.push(s), interactive }
  return { out, err, output }
}

const after = (ms: number, chunks: ReadonlyArray<StreamChunk.StreamChunk>) =>
  Stream.concat(Stream.drain(Stream.fromEffect(Effect.sleep(ms))), Stream.fromIterable(chunks))

const usage = StreamChunk.usage({
  inputTokens: 1200,
  outputTokens: 50,
  totalTokens: 1250,
  cacheReadTokens: 1000,
  reasoningTokens: 10
})

describe("Render.text on a terminal", () => {
  it.effect("spins until the first chunk, dims reasoning, and times the footer on the Effect clock", () =>
    Effect.gen(function*() {
      const { err, out, output } = recorder(true)
      const stream = Stream.concat(
        after(250, [
          StreamChunk.metadata("anthropic", "claude-sonnet-4-5", "msg_1"),
          StreamChunk.reasoningDelta("Think", "Think"),
          StreamChunk.textDelta("Hi"),
          StreamChunk.toolCall({ index: 0, id: "c1", name: "f", arguments: { a: 1 }, rawArguments: "{\"a\":1}" })
        ]),
        after(2000, [usage, StreamChunk.finish("tool_calls", "tool_use")])
      )
      const fiber = yield* Effect.fork(Render.text(stream, output))
      yield* TestClock.adjust("3 seconds")
      expect(yield* Fiber.join(fiber)).toBe(0)
      const spin = (frame: string) => `\r${frame} waiting for the first token…`
      expect(out).toStrictEqual([
        spin("⠋"),
        spin("⠙"),
        spin("⠹"),
        spin("⠸"),
        "\r\x1b[K",
        "\x1b[2mreasoning: \x1b[22m",
        "\x1b[2mThink\x1b[22m",
        "\n",
        "Hi",
        "\n",
        "\x1b[1mtool call:\x1b[22m f({\"a\":1})\n",
        // Claude Sonnet 4.5: $3 input, $0.30 cache read, $15 output per million tokens.
        "\x1b[2m── finish: tool_calls · anthropic:claude-sonnet-4-5 · input 1,200 (cache read 1,000, cache write 0) · " +
        "output 50 (reasoning 10) · cost $0.001650 · first token 250 ms · 25.0 tokens/s\x1b[22m\n"
      ])
      expect(err).toStrictEqual([])
    }))

  it.effect("on interruption, stops and prints the footer with \"interrupted\"", () =>
    Effect.gen(function*() {
      const { out, output } = recorder(false)
      const stream = Stream.concat(after(100, [StreamChunk.textDelta("Hel")]), Stream.never)
      const fiber = yield* Effect.fork(Render.text(stream, output))
      yield* TestClock.adjust("1 second")
      yield* Fiber.interrupt(fiber)
      expect(out).toStrictEqual([
        "Hel",
        "\n",
        "── interrupted · usage unknown · cost unknown · first token 100 ms · tokens/s unknown\n"
      ])
    }))
})
