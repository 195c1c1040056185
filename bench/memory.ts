/**
 * Memory figures for `npm run bench` (run by bench/main.ts in a fresh process of its own), each
 * against a baseline in the same run:
 * - the worst case of one stream: its single event sits just under the 16 MiB event cap, drained
 *   without collecting (peak RSS growth, measured first, while the process is still small);
 * - the heap each open stream holds while it waits for the server (N streams that received their
 *   first chunk and stay open), against the same N streams read with plain `fetch`.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { LanguageModel, OpenAiChat, StreamChunk } from "effect-llm-stream"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import { spawn } from "node:child_process"

const mb = (n: number): string => `${(n / 1024 / 1024).toFixed(1)} MB`
const kb = (n: number): string => `${(n / 1024).toFixed(1)} KB`

const gc = (): void => {
  const collect = (globalThis as { gc?: () => void }).gc
  if (collect !== undefined) {
    collect()
    collect()
  }
}

const first = `data: ${
  JSON.stringify({ id: "chatcmpl-m", model: "m", choices: [{ index: 0, delta: { content: "hi" } }] })
}\n\n`

/**
 * The server, in a child process so its own per-connection memory is not counted: `/big` sends one
 * event just under the cap; any other path sends one event and holds the connection open.
 */
const serverSource = (bigChars: number): string => `
const http = require("node:http")
const first = ${JSON.stringify(first)}
const big = "data: " + JSON.stringify({ id: "chatcmpl-m", model: "m", choices: [{ index: 0, delta: { content: "x".repeat(${bigChars}) } }] }) + "\\n\\ndata: [DONE]\\n\\n"
const server = http.createServer((req, res) => {
  req.resume()
  req.on("end", () => {
    res.writeHead(200, { "content-type": "text/event-stream" })
    if (req.url.startsWith("/big")) res.end(big)
    else res.write(first)
  })
})
server.listen(0, "127.0.0.1", () => process.stdout.write(String(server.address().port) + "\\n"))
`

const start = (bigChars: number): Promise<{ readonly url: string; readonly close: () => Promise<void> }> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["-e", serverSource(bigChars)], { stdio: ["ignore", "pipe", "inherit"] })
    child.once("error", reject)
    child.stdout.once("data", (port: Buffer) =>
      resolve({
        url: `http://127.0.0.1:${String(port).trim()}`,
        close: () =>
          new Promise<void>((done) => {
            child.once("exit", () => done())
            child.kill()
          })
      }))
  })

const layer = (url: string) =>
  OpenAiChat.layer({
    model: "m",
    baseUrl: url,
    apiKey: Redacted.make(process.env.BENCH_KEY ?? "sk-bench-0123456789abcdef"),
    retry: { times: 0 }
  })

/** Peak RSS growth of one stream whose single event is just under the cap. */
const worstCase = async (url: string, bigChars: number): Promise<string> => {
  gc()
  const rssBefore = process.memoryUsage().rss
  const peakBefore = process.resourceUsage().maxRSS * 1024
  const chunks = await LanguageModel.stream("hi").pipe(
    Stream.map((c) => (c.type === "text-delta" ? c.delta.length : c.type)),
    Stream.runCollect,
    Effect.provide(layer(`${url}/big`)),
    Effect.provide(FetchHttpClient.layer),
    Effect.runPromise
  )
  const got = [...chunks]
  if (got[1] !== bigChars || got[got.length - 1] !== "finish") {
    throw new Error(`worst case decoded ${JSON.stringify(got)}`)
  }
  const peakGrowth = process.resourceUsage().maxRSS * 1024 - Math.max(peakBefore, rssBefore)
  return `  one stream, one event just under the 16 MiB cap (${mb(bigChars)} of text), drained: peak RSS growth ${
    mb(Math.max(0, peakGrowth))
  }`
}

/** Heap held per open stream: `n` streams that received their first chunk and wait for more. */
const perOpenStream = async (url: string, n: number): Promise<string> => {
  // Plain fetch: the floor.
  gc()
  const base = process.memoryUsage().heapUsed
  const controllers: Array<AbortController> = []
  const readers = await Promise.all(Array.from({ length: n }, async () => {
    const controller = new AbortController()
    controllers.push(controller)
    const response = await fetch(`${url}/hold/chat/completions`, {
      method: "POST",
      body: "{}",
      signal: controller.signal
    })
    const reader = response.body!.getReader()
    await reader.read()
    return reader
  }))
  gc()
  const floor = (process.memoryUsage().heapUsed - base) / n
  for (const c of controllers) c.abort()
  await Promise.all(readers.map((r) => r.cancel().catch(() => undefined)))
  await new Promise((r) => setTimeout(r, 200))

  // Ours: OpenAiChat, each stream consumed with runForEach.
  let firsts = 0
  // One model for all the streams, as a program provides it once.
  const runtime = ManagedRuntime.make(Layer.provide(layer(`${url}/hold`), FetchHttpClient.layer))
  await runtime.runPromise(Effect.void)
  gc()
  const base2 = process.memoryUsage().heapUsed
  const fibers = await runtime.runPromise(Effect.forEach(
    Array.from({ length: n }, (_, i) => i),
    () =>
      // Daemons: they outlive the effect that starts them.
      Effect.forkDaemon(
        LanguageModel.stream("hi").pipe(
          Stream.runForEach((c) =>
            Effect.sync(() => {
              if (c.type === "text-delta") firsts++
              if (StreamChunk.isTerminal(c)) throw new Error(`a held stream ended: ${JSON.stringify(c)}`)
            })
          )
        )
      )
  ))
  while (firsts < n) await new Promise((r) => setTimeout(r, 10))
  gc()
  const ours = (process.memoryUsage().heapUsed - base2) / n
  await Effect.runPromise(Fiber.interruptAll(fibers))
  await runtime.dispose()
  return `  heap per open stream (${n} streams after their first chunk): plain fetch ${kb(floor)}, ours ${
    kb(ours)
  } (each stream Stream.runForEach in a daemon fiber, over FetchHttpClient), ratio ${(ours / floor).toFixed(2)}x`
}

/** Runs both measurements and returns the lines to print. */
const run = async (): Promise<Array<string>> => {
  const bigChars = 16 * 1024 * 1024 - 1024 - 33
  const server = await start(bigChars)
  try {
    const lines = [
      "Memory" +
      ((globalThis as { gc?: unknown }).gc === undefined ? " (run with --expose-gc for steadier figures)" : "")
    ]
    lines.push(await worstCase(server.url, bigChars))
    lines.push(await perOpenStream(server.url, Number(process.env.BENCH_OPEN_STREAMS ?? 500)))
    return lines
  } finally {
    await server.close()
  }
}

run().then(
  (lines) => process.stdout.write(lines.join("\n") + "\n"),
  (e: unknown) => {
    process.stderr.write(`memory bench failed: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`)
    process.exitCode = 1
  }
)
