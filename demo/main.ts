/**
 * `npm start`: the demo. With no keys it starts the embedded loopback replay server, which plays our
 * own hand-written transcripts — each provider's exact wire format — and runs the same conversation
 * through each real provider layer over HTTP (`FetchHttpClient`). With `--live` (or a provider's key
 * set), the conversation runs against each real API whose key is set instead.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import type { HttpClient } from "@effect/platform/HttpClient"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import type * as LanguageModel from "../src/LanguageModel.js"
import * as Anthropic from "../src/providers/anthropic/index.js"
import * as BedrockFrames from "../src/providers/bedrock/fixture.js"
import * as Bedrock from "../src/providers/bedrock/index.js"
import * as Cohere from "../src/providers/cohere/index.js"
import * as Gemini from "../src/providers/gemini/index.js"
import * as Ollama from "../src/providers/ollama/index.js"
import * as OpenAiChat from "../src/providers/openai-chat/index.js"
import * as OpenAiResponses from "../src/providers/openai-responses/index.js"
import * as ReplayServer from "../src/testing/ReplayServer.js"
import * as UsageMeter from "../src/UsageMeter.js"
import * as Scenario from "./scenario.js"

/** A transcript of ours, as text. */
const transcript = (family: string, name: string): string =>
  readFileSync(fileURLToPath(new URL(`../test/fixtures/${family}/${name}`, import.meta.url)), "utf8")

/** Cuts a body into small reads so the answer visibly streams. */
const reads = (body: string | Uint8Array, size = 96): Array<string | Uint8Array> => {
  const out: Array<string | Uint8Array> = []
  for (let i = 0; i < body.length; i += size) out.push(body.slice(i, i + size))
  return out
}

/** One provider of the demo: its replayed endpoint and transcripts, its layer, its live form. */
interface Provider {
  readonly title: string
  readonly path: string
  readonly family: string
  readonly toolTurn: string
  readonly answerTurn: string
  /** The wire body of a transcript (default: the file's text as it is). */
  readonly wire?: (text: string) => string | Uint8Array
  /** The content type the replay server labels the body with (default `text/event-stream`). */
  readonly contentType?: string
  /** The provider's layer pointed at the replay server's root URL. */
  readonly replay: (root: string) => Layer.Layer<LanguageModel.LanguageModel, never, HttpClient>
  readonly keyVariable: string
  readonly live: () => Layer.Layer<LanguageModel.LanguageModel, unknown, HttpClient>
}

const replayKey = Redacted.make("replay-demo-key")

const providers: ReadonlyArray<Provider> = [
  {
    title: "OpenAI Chat Completions (OpenAiChat)",
    path: "/v1/chat/completions",
    family: "openai-chat",
    toolTurn: "weather-tool-call.sse",
    answerTurn: "weather-answer.sse",
    replay: (root) => OpenAiChat.layer({ model: "demo-reasoner-1", baseUrl: `${root}/v1`, apiKey: replayKey }),
    keyVariable: "OPENAI_API_KEY",
    live: () => OpenAiChat.layerConfig({ model: process.env.OPENAI_MODEL ?? "gpt-4.1-mini" })
  },
  {
    title: "Anthropic Messages (Anthropic)",
    path: "/v1/messages",
    family: "anthropic",
    toolTurn: "demo-weather-tool-call.sse",
    answerTurn: "demo-weather-answer.sse",
    // The host's base URL leaves out /v1 (as Anthropic's own SDKs read ANTHROPIC_BASE_URL).
    replay: (root) => Anthropic.layer({ model: "claude-demo-1", baseUrl: root, apiKey: replayKey }),
    keyVariable: "ANTHROPIC_API_KEY",
    live: () => Anthropic.layerConfig({ model: process.env.ANTHROPIC_MODEL ?? "claude-sonnet-4-5" })
  },
  {
    title: "OpenAI Responses (OpenAiResponses)",
    path: "/v1/responses",
    family: "openai-responses",
    toolTurn: "demo-weather-tool-call.sse",
    answerTurn: "demo-weather-answer.sse",
    replay: (root) => OpenAiResponses.layer({ model: "demo-responses-1", baseUrl: `${root}/v1`, apiKey: replayKey }),
    keyVariable: "OPENAI_API_KEY",
    live: () => OpenAiResponses.layerConfig({ model: process.env.OPENAI_RESPONSES_MODEL ?? "gpt-4.1-mini" })
  },
  {
    title: "Google Gemini (Gemini)",
    path: "/v1beta/models/gemini-demo-1:streamGenerateContent",
    family: "gemini",
    toolTurn: "demo-weather-tool-call.sse",
    answerTurn: "demo-weather-answer.sse",
    replay: (root) => Gemini.layer({ model: "gemini-demo-1", baseUrl: `${root}/v1beta`, apiKey: replayKey }),
    keyVariable: "GEMINI_API_KEY",
    live: () => Gemini.layerConfig({ model: process.env.GEMINI_MODEL ?? "gemini-2.5-flash" })
  },
  {
    title: "Ollama, native API (Ollama)",
    path: "/api/chat",
    family: "ollama",
    toolTurn: "demo-weather-tool-call.ndjson",
    answerTurn: "demo-weather-answer.ndjson",
    contentType: "application/x-ndjson",
    replay: (root) => Ollama.layer({ model: "qwen3:8b-demo", baseUrl: root }),
    keyVariable: "OLLAMA_HOST",
    live: () => Ollama.layerConfig({ model: process.env.OLLAMA_MODEL ?? "qwen3:8b" })
  },
  {
    title: "Amazon Bedrock ConverseStream (Bedrock, AWS event-stream binary frames)",
    path: "/model/demo.claude-1/converse-stream",
    family: "bedrock",
    toolTurn: "demo-weather-tool-call.jsonl",
    answerTurn: "demo-weather-answer.jsonl",
    // Our transcripts are the decoded events, one per line; the wire is one binary frame each.
    wire: (text) => BedrockFrames.eventStreamBytes(BedrockFrames.linesOf(text)),
    contentType: "application/vnd.amazon.eventstream",
    replay: (root) => Bedrock.layer({ model: "demo.claude-1", baseUrl: root, apiKey: replayKey }),
    keyVariable: "AWS_BEARER_TOKEN_BEDROCK",
    live: () =>
      Bedrock.layerConfig({ model: process.env.BEDROCK_MODEL ?? "us.anthropic.claude-sonnet-4-20250514-v1:0" })
  },
  {
    title: "Cohere v2 chat (Cohere)",
    path: "/v2/chat",
    family: "cohere",
    toolTurn: "demo-weather-tool-call.sse",
    answerTurn: "demo-weather-answer.sse",
    replay: (root) => Cohere.layer({ model: "command-demo-1", baseUrl: root, apiKey: replayKey }),
    keyVariable: "COHERE_API_KEY",
    live: () => Cohere.layerConfig({ model: process.env.COHERE_MODEL ?? "command-a-03-2025" })
  }
]

const live = process.argv.includes("--live") || providers.some((p) => (process.env[p.keyVariable] ?? "") !== "")

/** Runs the conversation against one provider layer, with a meter of its own. */
const conversation = (title: string, model: Layer.Layer<LanguageModel.LanguageModel, unknown, HttpClient>) =>
  Effect.zipRight(
    Console.log(`\n━━ ${title}`),
    Scenario.run.pipe(
      Effect.provide(Layer.mergeAll(model, UsageMeter.layer)),
      Effect.catchAll((e) => Console.log(`  failed: ${String(e)}`))
    )
  )

/** A request that carries a tool's result, in any provider's words. */
const secondTurn = /"role":"tool"|"tool_result"|"function_call_output"|"functionResponse"|"toolResult"/

const replayed = Effect.gen(function*() {
  const routes: Record<string, ReplayServer.Routes[string]> = {}
  for (const p of providers) {
    const wire = p.wire ?? ((text: string) => text)
    const toolTurn = wire(transcript(p.family, p.toolTurn))
    const answerTurn = wire(transcript(p.family, p.answerTurn))
    const headers = { "content-type": p.contentType ?? "text/event-stream" }
    // The second turn carries the tool's result: each wire format names it its own way.
    routes[p.path] = (body) => ({
      headers,
      reads: reads(secondTurn.test(body) ? answerTurn : toolTurn),
      paceMs: 15
    })
  }
  const server = yield* ReplayServer.make(routes)
  yield* Console.log(`Replaying our own transcripts from ${server.url} (no key needed; --live for the real APIs)`)
  for (const p of providers) yield* conversation(p.title, p.replay(server.url))
}).pipe(Effect.scoped)

const lived = Effect.forEach(providers, (p) =>
  (process.env[p.keyVariable] ?? "") === ""
    ? Console.log(`\n━━ ${p.title}: skipped (${p.keyVariable} is not set)`)
    : conversation(`${p.title}, live`, p.live()), { discard: true })

const program = (live ? lived : replayed).pipe(Effect.provide(FetchHttpClient.layer))

Effect.runPromise(program).catch((e: unknown) => {
  process.stderr.write(`demo failed: ${e instanceof Error ? e.message : String(e)}\n`)
  process.exitCode = 1
})
