/**
 * The load run (issue 12), in its own Node process so that it can measure the heap with `--expose-gc`
 * (load.test.ts runs it and checks its figures). 1,000 concurrent streams, spread over the seven
 * families' real layers and `FetchHttpClient`, against one loopback server that answers each
 * attempt with a fault drawn by seed: a connection dropped before the response or after the first
 * text, a stall shorter than the idle timeout, a 429 with Retry-After 0 or 1 s, the family's own
 * in-band error before or after the first text — or the answer.
 *
 * The server knows which stream each attempt belongs to (the prompt names it), so each stream's
 * outcome is predicted exactly from the fault of its last attempt: nothing lost, nothing repeated.
 * Prints its figures as one JSON line.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as LanguageModel from "../../src/LanguageModel.js"
import * as StreamChunk from "../../src/StreamChunk.js"
import * as Fixture from "../../src/testing/Fixture.js"
import * as UsageMeter from "../../src/UsageMeter.js"
import { families, type Family, inBandError } from "./families.js"

const streams = Number(process.env["LOAD_STREAMS"] ?? 1000)
const seed = Number(process.env["LOAD_SEED"] ?? 12)
/** Retries after the first attempt (so a stream makes at most `retries + 1` attempts). */
const retries = 3

type Fault =
  | "none"
  | "drop_before"
  | "drop_after"
  | "stall"
  | "rate_limit"
  | "in_band_before"
  | "in_band_after"

/** Fault weights out of 100 per attempt. */
const weights: ReadonlyArray<readonly [Fault, number]> = [
  ["none", 46],
  ["drop_before", 9],
  ["drop_after", 9],
  ["stall", 9],
  ["rate_limit", 9],
  ["in_band_before", 9],
  ["in_band_after", 9]
]

interface Attempt {
  readonly fault: Fault
  readonly retryAfterS?: number
  readonly stallMs?: number
}

/** The fault of attempt `a` of stream `i`: drawn from its own generator, so arrival order does not matter. */
const drawFault = (i: number, a: number): Attempt => {
  const next = Fixture.prng((seed * 100_003 + i * 16 + a) >>> 0)
  let roll = next() * 100
  let fault: Fault = "none"
  for (const [f, w] of weights) {
    if (roll < w) {
      fault = f
      break
    }
    roll -= w
  }
  return fault === "rate_limit"
    ? { fault, retryAfterS: next() < 0.5 ? 0 : 1 }
    : fault === "stall"
    ? { fault, stallMs: 10 + Math.floor(next() * 70) }
    : { fault }
}

const familyOf = (i: number): Family => families[i % families.length]!

const bytes = new Map(families.map((f) => {
  const head = f.frame(f.head)
  const rest = f.frame([f.text("là"), ...f.tail])
  return [f.name, { head, rest, whole: Fixture.concat([head, rest]), inBand: inBandError(f) }] as const
}))

// --- the server ----------------------------------------------------------------------------------

const attempts: Array<Array<Attempt>> = Array.from({ length: streams + families.length }, () => [])
let open = 0

const server = http.createServer((req, res) => {
  const parts: Array<Buffer> = []
  req.on("data", (b: Buffer) => parts.push(b))
  req.on("end", () => {
    open++
    res.on("close", () => open--)
    const i = Number(/stream (\d+)/.exec(Buffer.concat(parts).toString("utf8"))?.[1] ?? -1)
    const family = familyOf(i)
    const wire = bytes.get(family.name)!
    const attempt = drawFault(i, attempts[i]!.length)
    attempts[i]!.push(attempt)
    const type = { "content-type": family.contentType }
    switch (attempt.fault) {
      case "none":
        res.writeHead(200, type)
        return void res.end(wire.whole)
      case "drop_before":
        return void req.socket.destroy()
      case "rate_limit":
        res.writeHead(429, { "content-type": "application/json", "retry-after": String(attempt.retryAfterS) })
        return void res.end(JSON.stringify({ error: { message: "Slow down", type: "rate_limit_error" } }))
      case "in_band_before":
        res.writeHead(200, type)
        return void res.end(wire.inBand.body)
      case "in_band_after":
        res.writeHead(200, type)
        return void res.end(Fixture.concat([wire.head, wire.inBand.body]))
      case "drop_after":
        res.writeHead(200, type)
        return void res.write(wire.head, () => setTimeout(() => res.socket?.destroy(), 10))
      case "stall":
        res.writeHead(200, type)
        res.write(wire.head)
        return void setTimeout(() => res.end(wire.rest), attempt.stallMs)
    }
  })
})

// --- what each stream must give ------------------------------------------------------------------

type Chunks = ReadonlyArray<StreamChunk.StreamChunk>

const preOutput: ReadonlySet<Fault> = new Set(["drop_before", "rate_limit", "in_band_before"])

/** What stream `i` must have given, from the faults of its attempts; undefined when it did. */
const problem = (i: number, chunks: Chunks): string | undefined => {
  const family = familyOf(i)
  const tries = attempts[i]!
  const last = tries[tries.length - 1]
  if (last === undefined) return "no attempt reached the server"
  const inBand = bytes.get(family.name)!.inBand.code
  const retryable = (f: Fault) => f !== "in_band_before" || inBand !== "unknown"
  // Every attempt but the last failed before output with a retryable fault.
  for (const t of tries.slice(0, -1)) {
    if (!preOutput.has(t.fault) || !retryable(t.fault)) return `retried after ${t.fault}`
  }
  const head = family.headChunks
  const whole = [...head, StreamChunk.textDelta("là"), ...family.tailChunks]
  const expected: { readonly before: Chunks; readonly code?: string } = last.fault === "none" || last.fault === "stall"
    ? { before: whole }
    : last.fault === "drop_after"
    ? { before: head, code: "network" }
    : last.fault === "in_band_after"
    ? { before: head, code: inBand }
    : {
      before: [],
      code: last.fault === "drop_before" ? "network" : last.fault === "rate_limit" ? "rate_limit" : inBand
    }
  if (preOutput.has(last.fault) && retryable(last.fault) && tries.length !== retries + 1) {
    return `gave up after ${tries.length} attempts`
  }
  const terminals = chunks.filter(StreamChunk.isTerminal).length
  if (terminals !== 1 || !StreamChunk.isTerminal(chunks[chunks.length - 1]!)) return `${terminals} terminal chunks`
  const end = chunks[chunks.length - 1]!
  const before = expected.code === undefined ? chunks : chunks.slice(0, -1)
  // An error before any event that names the model may still come after a metadata chunk naming the provider.
  const providerOnly = JSON.stringify([StreamChunk.metadata(family.provider)])
  if (
    JSON.stringify(before) !== JSON.stringify(expected.before) &&
    !(expected.before.length === 0 && JSON.stringify(before) === providerOnly)
  ) {
    return `chunks ${JSON.stringify(before).slice(0, 300)} after ${tries.map((t) => t.fault).join(",")}`
  }
  if (expected.code !== undefined && (end.type !== "error" || end.error.code !== expected.code)) {
    return `ended ${JSON.stringify(end).slice(0, 200)}, expected ${expected.code}`
  }
  return undefined
}

// --- the run -------------------------------------------------------------------------------------

const gc = (): void => (globalThis as { gc?: () => void }).gc?.()
const heapMb = (): number => Math.round(process.memoryUsage().heapUsed / 1024 / 1024 * 10) / 10

const main = Effect.gen(function*() {
  yield* Effect.promise(() =>
    new Promise<void>((resolve) => server.listen({ port: 0, host: "127.0.0.1", backlog: 4096 }, resolve))
  )
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const extra = {
    retry: { times: retries, schedule: Schedule.spaced("5 millis") },
    timeouts: { headers: "20 seconds", idle: "3 seconds" }
  } as const
  const models = yield* Effect.forEach(
    families,
    (f) => Layer.build(f.layer(url, extra)).pipe(Effect.map((ctx) => Context.get(ctx, LanguageModel.LanguageModel)))
  )
  const run = (i: number) =>
    models[i % families.length]!.stream(`stream ${i}`).pipe(Stream.runCollect, Effect.map((c): Chunks => [...c]))

  // Warm-up (its streams are not part of the figures), then the baseline.
  yield* Effect.forEach(families, (_, i) => run(streams + i), { concurrency: "unbounded", discard: true }).pipe(
    Effect.provide(UsageMeter.layer)
  )
  gc()
  const baseline = heapMb()
  let peak = baseline
  const sampler = setInterval(() => (peak = Math.max(peak, heapMb())), 20)
  const started = performance.now()
  const meter = yield* UsageMeter.make
  const results = yield* Effect.forEach(Array.from({ length: streams }, (_, i) => i), run, {
    concurrency: "unbounded"
  }).pipe(Effect.provideService(UsageMeter.UsageMeter, meter))
  const elapsedMs = Math.round(performance.now() - started)
  clearInterval(sampler)
  peak = Math.max(peak, heapMb())
  const totals = yield* UsageMeter.snapshot.pipe(Effect.provideService(UsageMeter.UsageMeter, meter))

  const problems: Array<string> = []
  const outcomes: Record<string, number> = {}
  let inputTokens = 0
  let outputTokens = 0
  let errors = 0
  let text = 0
  results.forEach((chunks, i) => {
    const p = problem(i, chunks)
    if (p !== undefined) problems.push(`stream ${i} (${familyOf(i).name}): ${p}`)
    const end = chunks[chunks.length - 1]
    const outcome = end === undefined ? "none" : end.type === "error" ? end.error.code : "finish"
    outcomes[outcome] = (outcomes[outcome] ?? 0) + 1
    if (end?.type === "error") errors++
    const usage = [...chunks].reverse().find((c) => c.type === "usage")
    if (usage?.type === "usage") {
      inputTokens += usage.usage.inputTokens
      outputTokens += usage.usage.outputTokens
    }
    for (const c of chunks) if (c.type === "text-delta") text += c.delta.length
  })
  const faults: Record<string, number> = {}
  for (const tries of attempts.slice(0, streams)) for (const t of tries) faults[t.fault] = (faults[t.fault] ?? 0) + 1
  // The connections' close events may trail the last chunk by a tick.
  for (let i = 0; i < 200 && open > 0; i++) yield* Effect.sleep("5 millis")
  const openAfter = open
  results.length = 0
  yield* Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
  server.closeAllConnections()
  gc()
  yield* Effect.sleep("50 millis")
  gc()
  const after = heapMb()
  return {
    streams,
    seed,
    families: families.length,
    attempts: attempts.slice(0, streams).reduce((n, t) => n + t.length, 0),
    faults,
    outcomes,
    problems: problems.slice(0, 10),
    problemCount: problems.length,
    textCharacters: text,
    usage: { inputTokens, outputTokens, errors },
    meter: {
      requests: totals.requests,
      errors: totals.errors,
      inputTokens: totals.inputTokens,
      outputTokens: totals.outputTokens
    },
    openAfter,
    heapMb: { baseline, peak, after },
    gc: typeof (globalThis as { gc?: unknown }).gc === "function",
    elapsedMs
  }
})

Effect.runPromise(Effect.scoped(main.pipe(Effect.provide(FetchHttpClient.layer)))).then((figures) => {
  process.stdout.write(JSON.stringify(figures) + "\n")
})
