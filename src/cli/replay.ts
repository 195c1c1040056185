/**
 * Our own demo transcripts served over a loopback `ReplayServer`, one route per wire family, so
 * that the real provider layers run unchanged against them over HTTP. The demo (`npm start`) and
 * `effect-llm-stream chat --replay` share this table.
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as BedrockFrames from "../providers/bedrock/fixture.js"
import * as Registry from "../Registry.js"
import * as ReplayServer from "../testing/ReplayServer.js"
import * as Transcripts from "./transcripts.js"

/**
 * One wire family: where its provider posts, the model id its transcripts name, how the transcript
 * becomes wire bytes, and the base URL a provider layer needs to reach the replay server.
 *
 * @since 0.1.0
 * @category models
 */
export interface Family {
  /** The folder of its transcripts under test/fixtures/ (and the key of `Transcripts.transcripts`). */
  readonly family: string
  /** The model id the transcripts were written for. */
  readonly model: string
  /** The path the provider posts to for that model. */
  readonly path: string
  /** The content type the replay server labels the body with. */
  readonly contentType: string
  /** The wire body of a transcript. */
  readonly wire: (text: string) => string | Uint8Array
  /** The base URL to give the provider, from the replay server's root URL. */
  readonly baseUrl: (root: string) => string
}

const asText = (text: string): string => text

/**
 * Every family, in the demo's order.
 *
 * @since 0.1.0
 * @category constants
 */
export const families: ReadonlyArray<Family> = [
  {
    family: "openai-chat",
    model: "demo-reasoner-1",
    path: "/v1/chat/completions",
    contentType: "text/event-stream",
    wire: asText,
    baseUrl: (root) => `${root}/v1`
  },
  {
    family: "anthropic",
    model: "claude-demo-1",
    path: "/v1/messages",
    contentType: "text/event-stream",
    wire: asText,
    // The host's base URL leaves out /v1 (as Anthropic's own SDKs read ANTHROPIC_BASE_URL).
    baseUrl: (root) => root
  },
  {
    family: "openai-responses",
    model: "demo-responses-1",
    path: "/v1/responses",
    contentType: "text/event-stream",
    wire: asText,
    baseUrl: (root) => `${root}/v1`
  },
  {
    family: "gemini",
    model: "gemini-demo-1",
    path: "/v1beta/models/gemini-demo-1:streamGenerateContent",
    contentType: "text/event-stream",
    wire: asText,
    baseUrl: (root) => `${root}/v1beta`
  },
  {
    family: "ollama",
    model: "qwen3:8b-demo",
    path: "/api/chat",
    contentType: "application/x-ndjson",
    wire: asText,
    baseUrl: (root) => root
  },
  {
    family: "bedrock",
    model: "demo.claude-1",
    path: "/model/demo.claude-1/converse-stream",
    contentType: "application/vnd.amazon.eventstream",
    // Our transcripts are the decoded events, one per line; the wire is one binary frame each.
    wire: (text) => BedrockFrames.eventStreamBytes(BedrockFrames.linesOf(text)),
    baseUrl: (root) => root
  },
  {
    family: "cohere",
    model: "command-demo-1",
    path: "/v2/chat",
    contentType: "text/event-stream",
    wire: asText,
    baseUrl: (root) => root
  }
]

const byName = (name: string): Family => families.find((f) => f.family === name)!

/**
 * The family that serves a `Registry` provider name: the provider modules their own, every
 * OpenAI-compatible preset Chat Completions (but Azure, whose paths name a deployment); `undefined`
 * for Azure and for a name the registry does not know.
 *
 * @since 0.1.0
 * @category lookups
 */
export const familyOf = (provider: string): Family | undefined => {
  if (!Registry.providers.includes(provider)) return undefined
  switch (provider) {
    case "anthropic":
    case "openai-responses":
    case "gemini":
    case "ollama":
    case "bedrock":
    case "cohere":
      return byName(provider)
    case "google":
      return byName("gemini")
    case "azure":
      return undefined
    default:
      return byName("openai-chat")
  }
}

/** A request that carries a tool's result, in any provider's words. */
const secondTurn = /"role":"tool"|"tool_result"|"function_call_output"|"functionResponse"|"toolResult"/

/** Cuts a body into small reads so the answer visibly streams. */
const reads = (body: string | Uint8Array, size = 96): Array<string | Uint8Array> => {
  const out: Array<string | Uint8Array> = []
  for (let i = 0; i < body.length; i += size) out.push(body.slice(i, i + size))
  return out
}

/**
 * The replay server's routes: each family's path answers with its tool-call turn, or with its
 * answer turn when the request carries a tool's result; each read of 96 bytes after `paceMs`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const routes = (paceMs: number): ReplayServer.Routes => {
  const out: Record<string, ReplayServer.Routes[string]> = {}
  for (const f of families) {
    const turns = Transcripts.transcripts[f.family]!
    const toolTurn = reads(f.wire(turns.toolTurn))
    const answerTurn = reads(f.wire(turns.answerTurn))
    const headers = { "content-type": f.contentType }
    out[f.path] = (body) => ({ headers, reads: secondTurn.test(body) ? answerTurn : toolTurn, paceMs })
  }
  return out
}

/**
 * A loopback replay server of every family's transcripts, for the life of the scope.
 *
 * @since 0.1.0
 * @category constructors
 */
export const server = (paceMs: number): Effect.Effect<ReplayServer.Server, never, Scope.Scope> =>
  ReplayServer.make(routes(paceMs))
