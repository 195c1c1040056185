/**
 * `npm start`: the demo. With no keys it starts the embedded loopback replay server, which plays our
 * own hand-written transcripts — each provider's exact wire format — and runs the same conversation
 * through each real provider layer over HTTP (`NodeHttp.layer`, undici with the providers' requests
 * sent straight to it, which the benchmarks measured fastest on Node). With `--live` (or a provider's key
 * set), the conversation runs against each real API whose key is set instead.
 */
import type { HttpClient } from "@effect/platform/HttpClient"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Replay from "../src/cli/replay.js"
import type * as LanguageModel from "../src/LanguageModel.js"
import * as NodeHttp from "../src/node/NodeHttp.js"
import * as Anthropic from "../src/providers/anthropic/index.js"
import * as Bedrock from "../src/providers/bedrock/index.js"
import * as Cohere from "../src/providers/cohere/index.js"
import * as Gemini from "../src/providers/gemini/index.js"
import * as Ollama from "../src/providers/ollama/index.js"
import * as OpenAiChat from "../src/providers/openai-chat/index.js"
import * as OpenAiResponses from "../src/providers/openai-responses/index.js"
import * as UsageMeter from "../src/UsageMeter.js"
import * as Scenario from "./scenario.js"

/**
 * One provider of the demo: its title, its layer pointed at the replay server (whose routes, model
 * ids and transcripts are the table `src/cli/replay.ts` shares with `effect-llm-stream chat`), its
 * live form.
 */
interface Provider {
  readonly title: string
  readonly family: string
  /** The provider's layer pointed at the replay server's root URL. */
  readonly replay: (family: Replay.Family, root: string) => Layer.Layer<LanguageModel.LanguageModel, never, HttpClient>
  readonly keyVariable: string
  readonly live: () => Layer.Layer<LanguageModel.LanguageModel, unknown, HttpClient>
}

const replayKey = Redacted.make("replay-demo-key")

const providers: ReadonlyArray<Provider> = [
  {
    title: "OpenAI Chat Completions (OpenAiChat)",
    family: "openai-chat",
    replay: (f, root) => OpenAiChat.layer({ model: f.model, baseUrl: f.baseUrl(root), apiKey: replayKey }),
    keyVariable: "OPENAI_API_KEY",
    live: () => OpenAiChat.layerConfig({ model: process.env.OPENAI_MODEL ?? "gpt-4.1-mini" })
  },
  {
    title: "Anthropic Messages (Anthropic)",
    family: "anthropic",
    replay: (f, root) => Anthropic.layer({ model: f.model, baseUrl: f.baseUrl(root), apiKey: replayKey }),
    keyVariable: "ANTHROPIC_API_KEY",
    live: () => Anthropic.layerConfig({ model: process.env.ANTHROPIC_MODEL ?? "claude-sonnet-4-5" })
  },
  {
    title: "OpenAI Responses (OpenAiResponses)",
    family: "openai-responses",
    replay: (f, root) => OpenAiResponses.layer({ model: f.model, baseUrl: f.baseUrl(root), apiKey: replayKey }),
    keyVariable: "OPENAI_API_KEY",
    live: () => OpenAiResponses.layerConfig({ model: process.env.OPENAI_RESPONSES_MODEL ?? "gpt-4.1-mini" })
  },
  {
    title: "Google Gemini (Gemini)",
    family: "gemini",
    replay: (f, root) => Gemini.layer({ model: f.model, baseUrl: f.baseUrl(root), apiKey: replayKey }),
    keyVariable: "GEMINI_API_KEY",
    live: () => Gemini.layerConfig({ model: process.env.GEMINI_MODEL ?? "gemini-2.5-flash" })
  },
  {
    title: "Ollama, native API (Ollama)",
    family: "ollama",
    replay: (f, root) => Ollama.layer({ model: f.model, baseUrl: f.baseUrl(root) }),
    keyVariable: "OLLAMA_HOST",
    live: () => Ollama.layerConfig({ model: process.env.OLLAMA_MODEL ?? "qwen3:8b" })
  },
  {
    title: "Amazon Bedrock ConverseStream (Bedrock, AWS event-stream binary frames)",
    family: "bedrock",
    replay: (f, root) => Bedrock.layer({ model: f.model, baseUrl: f.baseUrl(root), apiKey: replayKey }),
    keyVariable: "AWS_BEARER_TOKEN_BEDROCK",
    live: () =>
      Bedrock.layerConfig({ model: process.env.BEDROCK_MODEL ?? "us.anthropic.claude-sonnet-4-20250514-v1:0" })
  },
  {
    title: "Cohere v2 chat (Cohere)",
    family: "cohere",
    replay: (f, root) => Cohere.layer({ model: f.model, baseUrl: f.baseUrl(root), apiKey: replayKey }),
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

const replayed = Effect.gen(function*() {
  // Our own transcripts, each family's tool-call turn then (once the tool's result is sent) its answer.
  const server = yield* Replay.server(15)
  yield* Console.log(`Replaying our own transcripts from ${server.url} (no key needed; --live for the real APIs)`)
  for (const p of providers) {
    const family = Replay.families.find((f) => f.family === p.family)!
    yield* conversation(p.title, p.replay(family, server.url))
  }
}).pipe(Effect.scoped)

const lived = Effect.forEach(providers, (p) =>
  (process.env[p.keyVariable] ?? "") === ""
    ? Console.log(`\n━━ ${p.title}: skipped (${p.keyVariable} is not set)`)
    : conversation(`${p.title}, live`, p.live()), { discard: true })

const program = (live ? lived : replayed).pipe(Effect.provide(NodeHttp.layer))

Effect.runPromise(program).catch((e: unknown) => {
  process.stderr.write(`demo failed: ${e instanceof Error ? e.message : String(e)}\n`)
  process.exitCode = 1
})
