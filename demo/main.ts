/**
 * `npm start`: the demo. With no keys it starts the embedded loopback replay server, which plays our
 * own hand-written transcripts, and talks to it through the real `OpenAiChat` layer over HTTP
 * (`FetchHttpClient`). With `OPENAI_API_KEY` set (or `--live`), the same demo talks to the real API.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import * as OpenAiChat from "../src/providers/openai-chat/index.js"
import * as ReplayServer from "../src/testing/ReplayServer.js"
import * as UsageMeter from "../src/UsageMeter.js"
import * as Scenario from "./scenario.js"

const transcript = (name: string): string =>
  readFileSync(fileURLToPath(new URL(`../test/fixtures/openai-chat/${name}`, import.meta.url)), "utf8")

/** Cuts a transcript into small reads so the answer visibly streams. */
const reads = (text: string, size = 96): Array<string> => {
  const out: Array<string> = []
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size))
  return out
}

const live = process.argv.includes("--live") || (process.env.OPENAI_API_KEY ?? "") !== ""

const replayModel = Layer.unwrapScoped(
  Effect.gen(function*() {
    const toolTurn = transcript("weather-tool-call.sse")
    const answerTurn = transcript("weather-answer.sse")
    const server = yield* ReplayServer.make({
      "/v1/chat/completions": (body) => ({
        reads: reads(body.includes("\"role\":\"tool\"") ? answerTurn : toolTurn),
        paceMs: 25
      })
    })
    yield* Console.log(
      `Replaying our own transcripts from ${server.url} (no key needed; set OPENAI_API_KEY for the real API)`
    )
    return OpenAiChat.layer({ model: "demo-reasoner-1", baseUrl: `${server.url}/v1`, apiKey: Redacted.make("replay") })
  })
)

const liveModel = Layer.unwrapEffect(
  Effect.as(
    Console.log("Talking to the real OpenAI API (OPENAI_API_KEY is set)"),
    OpenAiChat.layerConfig({ model: process.env.OPENAI_MODEL ?? "gpt-4.1-mini" })
  )
)

const program = Scenario.run.pipe(
  Effect.provide(Layer.mergeAll(live ? liveModel : replayModel, UsageMeter.layer)),
  Effect.provide(FetchHttpClient.layer)
)

Effect.runPromise(program).catch((e: unknown) => {
  process.stderr.write(`demo failed: ${e instanceof Error ? e.message : String(e)}\n`)
  process.exitCode = 1
})
