// The web chat example's server: a small Effect HTTP server (127.0.0.1) that serves the page, its
// script (client.ts, bundled for the browser by esbuild at startup, kept in memory) and `POST /chat`,
// which streams the model's answer to the browser as text/event-stream with Relay.encode.
//
// The model is a Registry string ("anthropic:claude-sonnet-4-5", "groq:llama-3.3-70b-versatile" …)
// when its key is set. Otherwise (the default) our own Anthropic transcript is replayed through the
// real Anthropic provider layer over a loopback ReplayServer, as `npm start` does: no key, no network.
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpRouter from "@effect/platform/HttpRouter"
import type * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Anthropic, ChatRequest, LanguageModel, Registry, Relay } from "effect-llm-stream"
import { ReplayServer } from "effect-llm-stream/testing"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as esbuild from "esbuild"
import { readFileSync } from "node:fs"
import { createServer } from "node:http"
import { fileURLToPath } from "node:url"

/** How the server is started. */
export interface Options {
  /** The port to listen on (127.0.0.1); 0 picks a free one. Default 0. */
  readonly port?: number | undefined
  /** A Registry model string; used when its key is set, else the replay answers (and `notice` says why). */
  readonly model?: string | undefined
  /** Milliseconds between the replayed transcript's reads (default 15, so the answer visibly streams). */
  readonly paceMs?: number | undefined
  /** Bytes per replayed read (default 64). */
  readonly readSize?: number | undefined
  /** Replay only this many reads, then keep the connection open without a word (an answer that never ends). */
  readonly stallAfterReads?: number | undefined
}

/** A running server. */
export interface Running {
  /** `http://127.0.0.1:<port>` */
  readonly url: string
  /** What answers: the model string, or the replayed transcript. */
  readonly model: string
  /** Why the replay answers although a model was asked for (its key is not set). */
  readonly notice: string | undefined
  /** The loopback server replaying the transcript, when the replay answers (tests read its requests). */
  readonly upstream: ReplayServer.Server | undefined
}

/** The client script could not be bundled. */
export class BundleError extends Data.TaggedError("BundleError")<{ readonly message: string }> {}

const here = (path: string): string => fileURLToPath(new URL(path, import.meta.url))

/** The tool offered to the model; the replayed answer calls it. */
const weatherTool = ChatRequest.tool({
  name: "get_weather",
  description: "Current weather in a city",
  parameters: Schema.Struct({ city: Schema.String, unit: Schema.optional(Schema.Literal("celsius", "fahrenheit")) })
})

/** The request sent to the model for a prompt. */
export const chatRequest = (prompt: string): ChatRequest.ChatRequest => ({
  messages: [
    ChatRequest.system("You are a concise assistant. Use tools when they help."),
    ChatRequest.user(prompt)
  ],
  tools: [weatherTool]
})

/** The page's script for the browser, bundled once at startup. */
const bundleClient: Effect.Effect<string, BundleError> = Effect.tryPromise({
  try: () =>
    esbuild.build({
      entryPoints: [here("./client.ts")],
      bundle: true,
      write: false,
      format: "esm",
      platform: "browser",
      target: "es2022",
      minify: true,
      // In this repository "effect-llm-stream" resolves to its sources, as in the tests and scripts.
      conditions: ["effect-llm-stream/source"],
      logLevel: "silent"
    }),
  catch: (e) =>
    new BundleError({ message: `Could not bundle client.ts: ${e instanceof Error ? e.message : String(e)}` })
}).pipe(Effect.map((result) => result.outputFiles[0]?.text ?? ""))

/** Cuts a body into reads of `size` bytes so the answer arrives in pieces, as from a real API. */
const reads = (body: string, size: number): Array<string> => {
  const out: Array<string> = []
  for (let i = 0; i < body.length; i += size) out.push(body.slice(i, i + size))
  return out
}

/** Our Anthropic transcript (thinking, text, a get_weather call, usage) served through the real Anthropic layer. */
const replayed = (options: Options) =>
  Effect.gen(function*() {
    const transcript = readFileSync(here("../../test/fixtures/anthropic/demo-weather-tool-call.sse"), "utf8")
    const all = reads(transcript, options.readSize ?? 64)
    const stall = options.stallAfterReads
    const upstream = yield* ReplayServer.make({
      "/v1/messages": {
        reads: stall === undefined ? all : all.slice(0, stall),
        paceMs: options.paceMs ?? 15,
        stall: stall !== undefined
      }
    })
    const context = yield* Layer.build(
      Layer.provide(
        Anthropic.layer({ model: "claude-demo-1", baseUrl: upstream.url, apiKey: Redacted.make("replay-key") }),
        FetchHttpClient.layer
      )
    )
    return { context, upstream, model: "replay: anthropic/demo-weather-tool-call.sse" }
  })

/** The model: the Registry string when its key is set, else the replay (with a notice saying why). */
const model = (options: Options) =>
  Effect.gen(function*() {
    const spec = options.model
    if (spec === undefined || spec === "") return { ...yield* replayed(options), notice: undefined }
    const live = yield* Effect.either(Layer.build(Layer.provide(Registry.layer(spec), FetchHttpClient.layer)))
    if (live._tag === "Right") return { context: live.right, upstream: undefined, model: spec, notice: undefined }
    if (live.left.reason !== "MissingKey") return yield* live.left
    return { ...yield* replayed(options), notice: `${live.left.message}; replaying our own transcript instead` }
  })

const ChatBody = Schema.Struct({ prompt: Schema.String })

/** Starts the server for the life of the scope. */
export const start = (
  options: Options = {}
): Effect.Effect<Running, BundleError | Registry.RegistryError | HttpServerError.ServeError, Scope.Scope> =>
  Effect.gen(function*() {
    const script = yield* bundleClient
    const page = readFileSync(here("./index.html"), "utf8")
    const { context, model: label, notice, upstream } = yield* model(options)

    const chat = Effect.gen(function*() {
      const { prompt } = yield* HttpServerRequest.schemaBodyJson(ChatBody)
      // The stream runs while the response is written; a browser that goes away interrupts it,
      // which aborts the provider request.
      const chunks = LanguageModel.stream(chatRequest(prompt)).pipe(Stream.provideContext(context))
      return HttpServerResponse.stream(Relay.encode(chunks), { headers: Relay.headers })
    }).pipe(
      // A body that cannot be read or is not { prompt: string }.
      Effect.catchAll(() =>
        Effect.succeed(HttpServerResponse.text("Expected a JSON body { \"prompt\": string }", { status: 400 }))
      )
    )

    const router = HttpRouter.empty.pipe(
      HttpRouter.get("/", Effect.succeed(HttpServerResponse.text(page, { contentType: "text/html; charset=utf-8" }))),
      HttpRouter.get(
        "/client.js",
        Effect.succeed(HttpServerResponse.text(script, { contentType: "text/javascript; charset=utf-8" }))
      ),
      HttpRouter.post("/chat", chat)
    )

    const server = yield* NodeHttpServer.make(() => createServer(), { port: options.port ?? 0, host: "127.0.0.1" })
    yield* server.serve(router)
    const address = server.address
    const url = address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : `unix:${address.path}`
    return { url, model: label, notice, upstream }
  })
