/**
 * The terminal rendering of `chat` on an interactive terminal (which the process tests, writing to
 * pipes, cannot reach): the spinner on the Effect clock until the first chunk, reasoning dimmed, the
 * footer's times read from the same clock, and the footer on interruption. Driven by TestClock.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
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

/** The chunks of one agent-loop run: a call answered, a call refused, two steps, the end. */
const loop: ReadonlyArray<StreamChunk.StreamChunk> = [
  StreamChunk.metadata("anthropic", "claude-sonnet-4-5", "msg_1"),
  StreamChunk.textDelta("Checking."),
  StreamChunk.toolCall({
    index: 0,
    id: "toolu_1",
    name: "get_weather",
    arguments: { city: "Paris" },
    rawArguments: "{\"city\":\"Paris\"}"
  }),
  StreamChunk.toolCall({ index: 1, id: "toolu_2", name: "get_time", arguments: {}, rawArguments: "" }),
  StreamChunk.usage({ inputTokens: 1470, outputTokens: 61, totalTokens: 1531 }),
  StreamChunk.toolResult({
    toolCallId: "toolu_1",
    name: "get_weather",
    result: { city: "Paris", temperature: 18 },
    isError: false,
    step: 1
  }),
  StreamChunk.toolResult({
    toolCallId: "toolu_2",
    name: "get_time",
    result: "Unknown tool \"get_time\". The tools available are: get_weather.",
    isError: true,
    step: 1
  }),
  StreamChunk.stepFinish(1, "tool_calls", {
    rawReason: "tool_use",
    usage: { inputTokens: 1470, outputTokens: 61, totalTokens: 1531 }
  }),
  StreamChunk.textDelta("18 °C."),
  StreamChunk.usage({ inputTokens: 3060, outputTokens: 94, totalTokens: 3154 }),
  StreamChunk.stepFinish(2, "stop", {
    rawReason: "end_turn",
    usage: { inputTokens: 1590, outputTokens: 33, totalTokens: 1623 }
  }),
  StreamChunk.finish("stop", "end_turn")
]

describe("Render.text of an agent loop", () => {
  it.effect("a line per tool result (errors marked) and per finished step; the footer sums the steps", () =>
    Effect.gen(function*() {
      const { err, out, output } = recorder(false)
      const fiber = yield* Effect.fork(Render.text(after(100, loop), output))
      yield* TestClock.adjust("1 second")
      expect(yield* Fiber.join(fiber)).toBe(0)
      expect(out).toStrictEqual([
        "Checking.",
        "\n",
        "tool call: get_weather({\"city\":\"Paris\"})\n",
        "tool call: get_time({})\n",
        "tool result: get_weather → {\"city\":\"Paris\",\"temperature\":18}\n",
        "tool result: get_time → error: Unknown tool \"get_time\". The tools available are: get_weather.\n",
        "── step 1 · tool_calls · in 1,470 out 61\n",
        "18 °C.",
        "\n",
        "── step 2 · stop · in 1,590 out 33\n",
        // Claude Sonnet 4.5: $3 input and $15 output per million tokens, over both steps.
        "── finish: stop · anthropic:claude-sonnet-4-5 · input 3,060 (cache read 0, cache write 0) · " +
        "output 94 (reasoning 0) · cost $0.010590 · first token 100 ms · tokens/s unknown\n"
      ])
      expect(err).toStrictEqual([])
    }))

  it.effect("on a terminal the tool result's label is bold and the step line dim", () =>
    Effect.gen(function*() {
      const { out, output } = recorder(true)
      const stream = Stream.fromIterable([
        StreamChunk.toolResult({ toolCallId: "c1", name: "f", result: 42, isError: false, step: 1 }),
        StreamChunk.toolResult({ toolCallId: "c2", name: "g", result: "it broke", isError: true, step: 1 }),
        StreamChunk.stepFinish(1, "tool_calls"),
        StreamChunk.finish("stop")
      ])
      expect(yield* Render.text(stream, output)).toBe(0)
      expect(out).toStrictEqual([
        "\r⠋ waiting for the first token…",
        "\r\x1b[K",
        "\x1b[1mtool result:\x1b[22m f → 42\n",
        "\x1b[1mtool result:\x1b[22m g → error: it broke\n",
        "\x1b[2m── step 1 · tool_calls · usage unknown\x1b[22m\n",
        "\x1b[2m── finish: stop · usage unknown · cost unknown · first token 0 ms · tokens/s unknown\x1b[22m\n"
      ])
    }))

  it.effect("what came from the model cannot drive the terminal: controls are dropped, tool lines stay one line", () =>
    Effect.gen(function*() {
      const { err, out, output } = recorder(false)
      const stream = Stream.fromIterable([
        StreamChunk.reasoningDelta("a\x1b]0;pwned\x07b", "a\x1b]0;pwned\x07b"),
        StreamChunk.textDelta("red\x1b[31m\r\nline\ttab\u009b2J\u007f"),
        StreamChunk.toolCall({
          index: 0,
          id: "c1",
          name: "get\x1b[2Kweather",
          arguments: { raw: "{\"x\":\x1b" },
          rawArguments: "{\"x\":\x1b\n",
          parseError: "bad"
        }),
        StreamChunk.toolResult({
          toolCallId: "c1",
          name: "get\x1b[2Kweather",
          result: "line one\nline\ttwo\x1b[0m",
          isError: true,
          step: 1
        }),
        StreamChunk.error({ code: "server", message: "boom\x1b[2J\x07", retryable: false })
      ])
      expect(yield* Render.text(stream, output)).toBe(1)
      expect(out).toStrictEqual([
        "reasoning: ",
        "a]0;pwnedb",
        "\n",
        "red[31m\nline\ttab2J",
        "\n",
        "tool call: get[2Kweather({\"x\": )\n",
        "tool result: get[2Kweather → error: line one line two[0m\n",
        "── error: server · usage unknown · cost unknown · first token 0 ms · tokens/s unknown\n"
      ])
      expect(err).toStrictEqual(["error: server: boom[2J\n"])
    }))
})

describe("Render helpers", () => {
  it("printable keeps text, tabs and line feeds as they are and drops every other control", () => {
    const plain = "Héllo ✓ 😀\n\tend"
    expect(Render.printable(plain)).toBe(plain)
    expect(Render.printable("\x00\x1b[1mA\r\n\u0085B\u009fC\x7f")).toBe("[1mA\nBC")
  })

  it("resultText shows a string as it is, anything else as JSON, on one line, cut at maxResultLength", () => {
    expect(Render.resultText("sunny\nand warm")).toBe("sunny and warm")
    expect(Render.resultText({ t: 18, sky: "rain" })).toBe("{\"t\":18,\"sky\":\"rain\"}")
    expect(Render.resultText(null)).toBe("null")
    expect(Render.resultText(undefined)).toBe("null")
    expect(Render.maxResultLength).toBe(500)
    expect(Render.resultText("x".repeat(1234))).toBe(`${"x".repeat(500)}… (734 more characters)`)
    // Never half of a surrogate pair: the emoji that straddles the cut goes whole to the rest.
    expect(Render.resultText(`${"x".repeat(499)}😀😀`)).toBe(`${"x".repeat(499)}… (2 more characters)`)
  })

  it("toolResult and step read as the demo and the CLI print them", () => {
    expect(Render.toolResult(StreamChunk.toolResult({
      toolCallId: "c1",
      name: "get_weather",
      result: { city: "Paris" },
      isError: false,
      step: 2
    }))).toBe("get_weather → {\"city\":\"Paris\"}")
    expect(Render.toolResult(StreamChunk.toolResult({
      toolCallId: "c1",
      name: "get_weather",
      result: { code: "not_found" },
      isError: true,
      step: 2
    }))).toBe("get_weather → error: {\"code\":\"not_found\"}")
    expect(Render.step(StreamChunk.stepFinish(3, "length", {
      usage: { inputTokens: 12345, outputTokens: 6, totalTokens: 12351 }
    }))).toBe("step 3 · length · in 12,345 out 6")
  })
})

describe("Render.json of an agent loop", () => {
  it.effect("writes every chunk, tool results and step lines included, as one JSON line that reads back the same", () =>
    Effect.gen(function*() {
      const { err, out, output } = recorder(false)
      expect(yield* Render.json(Stream.fromIterable(loop), output)).toBe(0)
      expect(out.length).toBe(loop.length)
      expect(out[5]).toBe(
        "{\"type\":\"tool-result\",\"toolCallId\":\"toolu_1\",\"name\":\"get_weather\"," +
          "\"result\":{\"city\":\"Paris\",\"temperature\":18},\"isError\":false,\"step\":1}\n"
      )
      expect(out[7]).toBe(
        "{\"type\":\"step-finish\",\"step\":1,\"finishReason\":\"tool_calls\",\"rawReason\":\"tool_use\"," +
          "\"usage\":{\"inputTokens\":1470,\"outputTokens\":61,\"totalTokens\":1531}}\n"
      )
      expect(StreamChunk.decodeJsonLines(out.join(""))).toStrictEqual(Either.right(loop))
      expect(err).toStrictEqual([])
    }))
})
