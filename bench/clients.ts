/**
 * Every client the benchmark runs, behind one shape: `make(base)` gives a `run(acc, signal)` that
 * streams one response from `base` (the server's root for a scenario) into the accumulator.
 * Ours comes in each way of consuming a stream; the peers live in bench/peers (their own package).
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"
// The package as users install it: the build (`dist/`), or the sources under the
// `effect-llm-stream/source` condition (the profiling scripts).
import { Anthropic, Interop, LanguageModel, OpenAiChat, OpenAiResponses, Response } from "effect-llm-stream"
import type { StreamChunk } from "effect-llm-stream"
import { NodeHttp } from "effect-llm-stream/node"
import type { Acc } from "./acc.js"
import * as Floors from "./floors.js"
import type { Family } from "./streams.js"

/** A key of real length, so masking it is part of what is measured. */
export const key = "sk-bench-0123456789abcdef"

/** One client, made for one server root. */
export interface Instance {
  readonly run: (acc: Acc, signal?: AbortSignal) => Promise<void>
  readonly dispose: () => Promise<void>
}
/** A client the benchmark can run. */
export interface Client {
  readonly name: string
  readonly families: ReadonlyArray<Family>
  readonly make: (base: string, family: Family) => Instance
}

const apiKey = Redacted.make(key)
const retry = { times: 0 }

/** Our provider's layer for a scenario family, reading from `base` (the server's root for a scenario). */
export const ourLayer = (
  base: string,
  family: Family
): Layer.Layer<LanguageModel.LanguageModel, never, HttpClient.HttpClient> => {
  switch (family) {
    case "chat":
      return OpenAiChat.layer({ model: "gpt-4.1-mini", baseUrl: `${base}/v1`, apiKey, retry })
    case "anthropic":
      return Anthropic.layer({ model: "claude-sonnet-4-5", baseUrl: base, apiKey, retry })
    case "responses":
      return OpenAiResponses.layer({ model: "gpt-4.1-mini", baseUrl: `${base}/v1`, apiKey, retry })
  }
}

/** What every per-chunk consumer of ours does with a chunk. */
const onChunk = (acc: Acc, c: StreamChunk.StreamChunk): void => {
  switch (c.type) {
    case "text-delta":
      acc.text(c.delta)
      break
    case "reasoning-delta":
      acc.reasoning(c.delta)
      break
    case "tool-call-delta":
      acc.args(c.argumentsDelta)
      break
    case "usage":
      acc.usage(c.usage.inputTokens, c.usage.outputTokens)
      break
    case "finish":
      acc.finish(c.reason)
      break
    case "error":
      // Kept, and thrown once the run is over: an exception inside the run would be a defect, which
      // the README tells users not to raise from a chunk callback.
      acc.fail(`${c.error.code}: ${c.error.message}`)
  }
}

/**
 * The error a run of ours ended with, thrown once the run is over. Not an `Error`: building one
 * captures a stack, ≈ 10 µs a stream when a thousand streams end at once (the open streams' cut),
 * which is the harness's cost (a program reads the `error` chunk or `Response.error`), not ours.
 */
class RunFailed {
  constructor(readonly message: string) {}
  toString(): string {
    return this.message
  }
}

/** Throws the error the stream ended with, outside the run. */
const settle = (acc: Acc): void => {
  if (acc.failure !== undefined) throw new RunFailed(acc.failure)
}

const fromResponse = (acc: Acc, r: Response.Response): void => {
  if (r.error !== undefined) throw new RunFailed(`${r.error.code}: ${r.error.message}`)
  if (r.reasoning !== "") acc.reasoning(r.reasoning)
  acc.text(r.text)
  if (r.toolCalls[0] !== undefined) acc.argsParsed(r.toolCalls[0].arguments)
  acc.usage(r.usage?.inputTokens, r.usage?.outputTokens)
  acc.finish(r.finishReason)
}

const withRuntime = (
  http: Layer.Layer<HttpClient.HttpClient>,
  run: (
    runtime: ManagedRuntime.ManagedRuntime<LanguageModel.LanguageModel, never>,
    acc: Acc,
    signal?: AbortSignal
  ) => Promise<void>
) =>
(base: string, family: Family): Instance => {
  const runtime = ManagedRuntime.make(Layer.provide(ourLayer(base, family), http))
  return { run: (acc, signal) => run(runtime, acc, signal).then(() => settle(acc)), dispose: () => runtime.dispose() }
}

const all: ReadonlyArray<Family> = ["chat", "anthropic", "responses"]
const opts = (signal?: AbortSignal) => (signal ? { signal } : undefined)

/**
 * A client that consumes each run's stream with `consume`, the layers (the model's over `http`)
 * provided per run, as a program that provides them around each call does, and checks the
 * collected tool arguments.
 */
const perRun = (
  http: Layer.Layer<HttpClient.HttpClient>,
  consume: (
    acc: Acc,
    stream: Stream.Stream<StreamChunk.StreamChunk, never, LanguageModel.LanguageModel>
  ) => Effect.Effect<Response.Response, never, LanguageModel.LanguageModel>
) =>
(base: string, family: Family): Instance => {
  const model = ourLayer(base, family)
  return {
    run: async (acc, signal) => {
      const r = await consume(acc, LanguageModel.stream("benchmark")).pipe(
        Effect.provide(model),
        Effect.provide(http),
        (e) => Effect.runPromise(e, opts(signal))
      )
      settle(acc)
      if (r.toolCalls[0] !== undefined) acc.argsParsed(r.toolCalls[0].arguments)
    },
    dispose: () => Promise.resolve()
  }
}

/** `Response.collect` over `http`, one runtime for every run. */
const collectOn = (http: Layer.Layer<HttpClient.HttpClient>) =>
  withRuntime(http, async (runtime, acc, signal) => {
    fromResponse(acc, await runtime.runPromise(Response.collect(LanguageModel.stream("benchmark")), opts(signal)))
  })

/** `Stream.runForEach` with an Effect per chunk over `http`, one runtime for every run. */
const runForEachOn = (http: Layer.Layer<HttpClient.HttpClient>) =>
  withRuntime(http, (runtime, acc, signal) =>
    runtime.runPromise(
      Stream.runForEach(LanguageModel.stream("benchmark"), (c) => Effect.sync(() => onChunk(acc, c))),
      opts(signal)
    ))

/** `Response.collectWith` (a plain function on every chunk) over `http`, one runtime for every run. */
const collectWithOn = (http: Layer.Layer<HttpClient.HttpClient>) =>
  withRuntime(http, async (runtime, acc, signal) => {
    const r = await runtime.runPromise(
      Response.collectWith((c) => onChunk(acc, c))(LanguageModel.stream("benchmark")),
      opts(signal)
    )
    if (r.toolCalls[0] !== undefined) acc.argsParsed(r.toolCalls[0].arguments)
  })

export const ours: ReadonlyArray<Client> = [
  {
    name: "ours collect",
    families: all,
    make: collectOn(FetchHttpClient.layer)
  },
  {
    // The README's example: Response.collectWith (a plain function on every chunk, then the Response)
    // over NodeHttp.layer (undici, the providers' requests sent straight to it), the layers built
    // once (a long-lived program: one runtime). Over NodeHttpClient.layerUndici until this client's
    // next entry was the README's way (see BENCHMARKS.md).
    name: "ours README (collectWith, undici)",
    families: all,
    make: collectWithOn(NodeHttp.layer)
  },
  {
    // The README's example until NodeHttp: collectWith over the platform's own undici client.
    name: "ours collectWith, platform undici",
    families: all,
    make: collectWithOn(NodeHttpClient.layerUndici)
  },
  {
    // The README's example until 59c5533, and the records' "README way" until then: collectWith over
    // FetchHttpClient, the layers provided (so built) per run.
    name: "ours collectWith, layers per run",
    families: all,
    make: perRun(FetchHttpClient.layer, (acc, stream) => Response.collectWith((c) => onChunk(acc, c))(stream))
  },
  {
    // collectWith over FetchHttpClient (the portable client), one runtime for every run.
    name: "ours collectWith",
    families: all,
    make: collectWithOn(FetchHttpClient.layer)
  },
  {
    // An Effect per chunk: Stream.tap, then Response.collect, the layers provided per run.
    name: "ours tap+collect",
    families: all,
    make: perRun(
      FetchHttpClient.layer,
      (acc, stream) => Response.collect(Stream.tap(stream, (c) => Effect.sync(() => onChunk(acc, c))))
    )
  },
  {
    name: "ours runForEach",
    families: all,
    make: runForEachOn(FetchHttpClient.layer)
  },
  {
    name: "ours toAsyncIterable",
    families: all,
    make: withRuntime(FetchHttpClient.layer, async (runtime, acc) => {
      for await (const c of Interop.toAsyncIterable(LanguageModel.stream("benchmark"), runtime)) onChunk(acc, c)
    })
  },
  {
    name: "ours collect, undici",
    families: all,
    make: collectOn(NodeHttp.layer)
  },
  {
    name: "ours runForEach, undici",
    families: all,
    make: runForEachOn(NodeHttp.layer)
  }
]

export const floor: Client = {
  name: "floor",
  families: all,
  make: (base, family) => ({
    run: (acc, signal) => Floors.run(base, family, acc, signal),
    dispose: () => Promise.resolve()
  })
}

/**
 * The platform's HTTP client alone under the floor's framing and decoding: what an Effect program
 * pays for `HttpClient` (the request, the response's body `Stream`) before any SDK. Its error (the
 * platform's `ResponseError`) is recorded when the consumer sees it.
 */
const platformOn = (http: Layer.Layer<HttpClient.HttpClient>) => (base: string, family: Family): Instance => {
  const runtime = ManagedRuntime.make(http)
  const request = HttpClientRequest.bodyUnsafeJson(HttpClientRequest.post(Floors.endpoint(base, family)), {})
  const stream = (acc: Acc) =>
    Effect.gen(function*() {
      const response = yield* (yield* HttpClient.HttpClient).execute(request)
      const decoder = new TextDecoder()
      const feed = Floors.framer(Floors.handler(family, acc))
      yield* Stream.runForEachChunk(response.stream, (bytes) =>
        Effect.sync(() => {
          for (const b of bytes) feed(decoder.decode(b, { stream: true }))
        }))
    }).pipe(Effect.scoped, Effect.catchAll((e) => Effect.sync(() => acc.fail(e.message))))
  return {
    run: (acc, signal) => runtime.runPromise(stream(acc), opts(signal)).then(() => settle(acc)),
    dispose: () => runtime.dispose()
  }
}

/** Baselines between the floor and ours: the platform's `HttpClient` alone, over fetch and over undici. */
export const platform: ReadonlyArray<Client> = [
  { name: "platform fetch", families: all, make: platformOn(FetchHttpClient.layer) },
  { name: "platform undici", families: all, make: platformOn(NodeHttpClient.layerUndici) }
]

/** Where the peers' package lives, and whether it is installed. */
export const peersDir = fileURLToPath(new URL("./peers/", import.meta.url))
export const peersInstalled = (): boolean => existsSync(`${peersDir}node_modules/openai/package.json`)

/** The peers (bench/peers/clients.mjs), when installed; plain JS, so the library's typecheck never needs them. */
export const peers = async (): Promise<ReadonlyArray<Client>> => {
  if (!peersInstalled()) return []
  const spec: string = new URL("./peers/clients.mjs", import.meta.url).href
  const mod = (await import(spec)) as { readonly clients: (key: string) => ReadonlyArray<Client> }
  return mod.clients(key)
}

/**
 * Whether a client's consumer sees each chunk as it arrives (a first chunk, a held stream's first
 * event): all but ours that only collect (`Response.collect`), which see the answer at the end.
 */
export const seesChunks = (name: string): boolean =>
  !(name.includes("collect") && !name.includes("collectWith") && !name.includes("tap"))

/** Whether a client is one of the platform baselines. */
export const isPlatform = (name: string): boolean => name.startsWith("platform ")

/** The clients that need no peers' package: the floor, the platform baselines and ours. */
export const local: ReadonlyArray<Client> = [floor, ...platform, ...ours]

/**
 * The clients of these names, in order. The peers' modules are loaded only when one is named: they
 * would weigh on a process that measures only ours.
 */
export const named = async (names: ReadonlyArray<string>): Promise<Array<Client>> => {
  const all = names.every((n) => local.some((c) => c.name === n)) ? local : await clients()
  return names.map((name) => {
    const c = all.find((x) => x.name === name)
    if (c === undefined) throw new Error(`no client ${name}`)
    return c
  })
}

/** The client of this name ({@link named}). */
export const one = async (name: string): Promise<Client> => (await named([name]))[0]!

/** Every client, floor first. */
export const clients = async (): Promise<ReadonlyArray<Client>> => [...local, ...(await peers())]
