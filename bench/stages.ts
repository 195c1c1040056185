/**
 * `npx tsx --conditions=effect-llm-stream/source bench/stages.ts [rounds]`: where the fixed cost per
 * request goes, on the 10-event answer. Alternates in one process: the floor (`fetch`), the bare
 * platform client (`HttpClient.execute` and a drained body, one `runPromise`), the transport alone
 * (`Transport.streamWith` of the OpenAI Chat provider, `Stream.runDrain`), and the whole service
 * (`LanguageModel.stream`, `Stream.runForEach`). Prints each one's median.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import { fork } from "node:child_process"
import { fileURLToPath } from "node:url"
import * as Transport from "../src/internal/transport/Transport.js"
import * as LanguageModel from "../src/LanguageModel.js"
import * as OpenAiChat from "../src/providers/openai-chat/index.js"
import { Acc } from "./acc.js"
import * as Clients from "./clients.js"
import * as Server from "./server.js"
import { median } from "./stats.js"

const main = async (): Promise<void> => {
  const child = fork(fileURLToPath(import.meta.url), ["--serve"], { execArgv: process.execArgv })
  const url = await new Promise<string>((resolve) => child.once("message", (m) => resolve(String(m))))
  const base = `${url}/s/small`
  const floor = Clients.floor.make(base, "chat")
  const runtime = ManagedRuntime.make(
    Layer.provideMerge(
      OpenAiChat.layer({
        model: "gpt-4.1-mini",
        baseUrl: `${base}/v1`,
        apiKey: Redacted.make(Clients.key),
        retry: { times: 0 }
      }),
      FetchHttpClient.layer
    )
  )
  const client = await runtime.runPromise(HttpClient.HttpClient)
  const bare = Effect.flatMap(
    HttpClient.HttpClient,
    (c) =>
      Effect.flatMap(
        c.execute(HttpClientRequest.bodyText(HttpClientRequest.post(`${base}/v1/chat/completions`), "{}")),
        (r) => Stream.runDrain(r.stream)
      )
  )
  const transport = Stream.runDrain(Transport.streamWith(client, {
    provider: "openai",
    url: `${base}/v1/chat/completions`,
    headers: { accept: "text/event-stream" },
    body: {},
    framer: () => ({ push: () => [], end: () => [], error: undefined }),
    decoder: () => ({ push: () => undefined, end: () => undefined }),
    errorFromResponse: () => ({ code: "unknown", message: "", provider: "openai", retryable: false }),
    retry: { times: 0 }
  }))
  const service = Stream.runForEach(LanguageModel.stream("benchmark"), () => Effect.void)
  const variants: Array<[string, () => Promise<unknown>]> = [
    ["floor fetch", () => floor.run(new Acc())],
    ["runPromise(Effect.void)", () => runtime.runPromise(Effect.void)],
    ["platform execute+drain", () => runtime.runPromise(bare)],
    ["Transport.streamWith drain", () => runtime.runPromise(transport)],
    ["LanguageModel.stream runForEach", () => runtime.runPromise(service)]
  ]
  const rounds = Number(process.argv[2] ?? 600)
  const times = variants.map(() => [] as Array<number>)
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < variants.length; k++) {
      const i = (k + r) % variants.length
      const t = performance.now()
      await variants[i]![1]()
      if (r >= rounds / 4) times[i]!.push(performance.now() - t)
    }
  }
  for (let i = 0; i < variants.length; i++) {
    process.stdout.write(`${variants[i]![0].padEnd(34)} ${median(times[i]!).toFixed(3)} ms\n`)
  }
  await runtime.dispose()
  child.kill()
}

if (process.argv[2] === "--serve") Server.start().then((s) => process.send!(s.url))
else {main().then(() => process.exit(0), (e: unknown) => {
    process.stderr.write(`stages failed: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`)
    process.exit(1)
  })}
