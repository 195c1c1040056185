/**
 * The agent loop's own cost per step, for `npm run bench` (run by bench/main.ts in a fresh process
 * of its own): the same conversation — four tool-calling steps, then an answer — run over `TestModel`
 * (no network: only our code is measured) by `LanguageModel.streamWithTools`, and by hand the way a
 * user wrote the loop before it existed (`LanguageModel.stream` collected by `Response.collect`, the
 * arguments decoded by the tool's Schema, the handler run, the messages extended). Prints the median
 * time of a whole conversation each way and the difference per step (the target: within
 * 0.2 ms). A benchmark, not a test: it asserts nothing about time.
 */
import { LanguageModel, Response, StreamChunk, Tool, Toolkit } from "effect-llm-stream"
import type { ChatRequest } from "effect-llm-stream"
import { TestModel } from "effect-llm-stream/testing"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { median, quantile } from "./stats.js"

const quick = process.env.BENCH_QUICK === "1"
const runs = Number(process.env.BENCH_LOOP_RUNS ?? (quick ? 200 : 1000))
const toolSteps = 4
const steps = toolSteps + 1

const Params = Schema.Struct({ city: Schema.String })
const weather = Tool.make("get_weather", {
  parameters: Params,
  handler: ({ city }) => Effect.succeed({ city, temperatureC: 18 })
})
const toolkit = Toolkit.make(weather)

const usage = StreamChunk.usage({ inputTokens: 20, outputTokens: 10, totalTokens: 30 })
const script = (request: ChatRequest.ChatRequest, n: number): ReadonlyArray<StreamChunk.StreamChunk> =>
  n % steps < toolSteps
    ? [
      StreamChunk.metadata("test", "test-model", `r${n}`),
      StreamChunk.textDelta("Checking. "),
      TestModel.toolCall("get_weather", { city: `City ${request.messages.length}` }, { id: `c${n}` }),
      usage,
      StreamChunk.finish("tool_calls")
    ]
    : [
      StreamChunk.metadata("test", "test-model", `r${n}`),
      StreamChunk.textDelta("It is 18°C."),
      usage,
      StreamChunk.finish("stop")
    ]

// A scripted service without TestModel's request log (which grows with every request of the run).
let served = 0
const runtime = ManagedRuntime.make(Layer.succeed(
  LanguageModel.LanguageModel,
  LanguageModel.make({
    provider: "test",
    model: "test-model",
    stream: (request) => Stream.fromIterable(script(request, served++))
  })
))

const question: ChatRequest.ChatRequest = { messages: [{ role: "user", content: "Weather in five cities?" }] }

const decode = Schema.decodeUnknownSync(Params)

/** The loop written by hand, as the README showed it before `streamWithTools`. */
const byHand = Effect.gen(function*() {
  let messages: ReadonlyArray<ChatRequest.Message> = question.messages
  for (let step = 0; step < steps; step++) {
    const response = yield* Response.collect(LanguageModel.stream({ ...question, messages, tools: toolkit }))
    if (response.finishReason !== "tool_calls") return response.text
    const results: Array<ChatRequest.Message> = []
    for (const call of response.toolCalls) {
      const result = yield* weather.handler!(decode(call.arguments))
      results.push({ role: "tool", toolCallId: call.id, name: call.name, content: JSON.stringify(result) })
    }
    messages = [...messages, response.message, ...results]
  }
  return ""
})

const withLoop = Effect.map(Response.collect(LanguageModel.streamWithTools(question, toolkit)), (r) => r.text)

const time = async (program: Effect.Effect<string, never, LanguageModel.LanguageModel>): Promise<Array<number>> => {
  const out: Array<number> = []
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now()
    const text = await runtime.runPromise(program)
    out.push(performance.now() - t0)
    if (text !== "It is 18°C.") throw new Error(`unexpected answer: ${text}`)
  }
  return out
}

const main = async (): Promise<void> => {
  // Warm both ways, then measure them in alternating rounds so drift hits both alike.
  await time(byHand)
  await time(withLoop)
  let hand: Array<number> = []
  let loop: Array<number> = []
  for (let round = 0; round < 4; round++) {
    hand = hand.concat(await time(byHand))
    loop = loop.concat(await time(withLoop))
  }
  const h = median(hand)
  const l = median(loop)
  const lines = [
    "",
    `### The agent loop's own cost (${steps} steps over TestModel, ${hand.length} conversations each way)`,
    "",
    "| way | median | p90 | per step |",
    "|---|---|---|---|",
    `| by hand (stream + collect + decode + handler) | ${h.toFixed(3)} ms | ${quantile(hand, 0.9).toFixed(3)} ms | ${
      (h / steps).toFixed(3)
    } ms |`,
    `| LanguageModel.streamWithTools | ${l.toFixed(3)} ms | ${quantile(loop, 0.9).toFixed(3)} ms | ${
      (l / steps).toFixed(3)
    } ms |`,
    "",
    `The loop's own cost: ${((l - h) / steps).toFixed(3)} ms per step (target: within 0.2 ms), ratio ${
      (l / h).toFixed(2)
    }.`,
    ""
  ]
  process.stdout.write(lines.join("\n") + "\n")
  await runtime.dispose()
}

main().catch((e: unknown) => {
  process.stderr.write(`loop bench failed: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`)
  process.exitCode = 1
})
