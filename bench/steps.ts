/**
 * `npx tsx --conditions=effect-llm-stream/source bench/steps.ts`: Effect steps (the operations the
 * fiber runtime evaluates, counted by a `Supervisor` with op supervision) of the README way
 * (`Response.collectWith` over `NodeHttp.layer`, the layers built once) against the bench
 * server, per phase of a request. A count is the same on every run and every machine, where a time
 * moves by ±20 %, so a change to the library's Effect plumbing shows here exactly. Phases:
 * - a collected request (the 10-event answer and the 6,000-event streams): until undici has the
 *   request (its `undici:request:create` diagnostics channel), from there to the response's headers
 *   (`undici:request:headers`), from the headers until the first content chunk reached the
 *   callback, and from there to the run's end;
 * - a held stream cut by the server (the open streams' cut): until its first chunk, from the first
 *   chunk to the `error` chunk, and from the `error` chunk to the run's end (closing its scopes, the
 *   span and the metrics; in the mass cut each stream's cleanup runs before the next one's error).
 * Each request is counted three times after one uncounted run. The counts agree between runs except
 * where a body arrived in a different number of network reads (each read taken before it arrived
 * is a wait: an `Async` step and the few around it), which the table shows. With `--ops`
 * it also prints, per phase, how many steps of each kind (`OnSuccess`, `Sync` …) it took; with
 * `--trace`, the last counted run's steps in order, each by its kind and the start of its function's
 * source (the continuation, the thunk, the `commit`; its first 90 characters, `TRACE_CHARS=n` for n),
 * which tells whose code each step is.
 */
import { LanguageModel, Response, StreamChunk } from "effect-llm-stream"
import { NodeHttp } from "effect-llm-stream/node"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as RuntimeFlags from "effect/RuntimeFlags"
import * as RuntimeFlagsPatch from "effect/RuntimeFlagsPatch"
import * as Supervisor from "effect/Supervisor"
import diagnostics from "node:diagnostics_channel"
import * as Clients from "./clients.js"
import * as Server from "./server.js"
import * as Streams from "./streams.js"

const showOps = process.argv.includes("--ops")
const showTrace = process.argv.includes("--trace")

/** What a step runs, told by the source of its function (the first 90 characters, spaces collapsed). */
const describe = (effect: unknown): string => {
  const e = effect as Record<string, unknown>
  const op = typeof e._op === "string" ? e._op : "?"
  const fn = op === "Commit"
    ? e.commit
    : op === "OnSuccessAndFailure" || op === "OnSuccess" || op === "OnFailure"
    ? e.effect_instruction_i1 ?? e.effect_instruction_i2
    : e.effect_instruction_i0
  const text = typeof fn === "function"
    ? String(fn).replace(/\s+/g, " ").slice(0, Number(process.env.TRACE_CHARS ?? 90))
    : ""
  const name = op === "Commit" ? ` ${(e.constructor as { readonly name?: string } | undefined)?.name ?? ""}` : ""
  return `${op}${name} ${text}`
}

/** Counts every step of the fibers it supervises, and the kinds of step in the phase under way. */
class Counter extends Supervisor.AbstractSupervisor<void> {
  readonly value = Effect.void
  steps = 0
  waits = 0
  ops = new Map<string, number>()
  trace: Array<string> = []
  override onEffect(_fiber: unknown, effect: unknown): void {
    this.steps++
    if (showTrace) this.trace.push(describe(effect))
    const op = (effect as { readonly _op?: unknown })._op
    if (op === "Async") this.waits++
    if (!showOps) return
    const kind = typeof op === "string" ? op : "?"
    this.ops.set(kind, (this.ops.get(kind) ?? 0) + 1)
  }
  /** The steps since the last mark (their waits, their kinds), starting a new phase. */
  mark(): {
    readonly steps: number
    readonly waits: number
    readonly ops: Map<string, number>
    readonly trace: ReadonlyArray<string>
  } {
    const out = { steps: this.steps, waits: this.waits, ops: this.ops, trace: this.trace }
    this.trace = []
    this.steps = 0
    this.waits = 0
    this.ops = new Map()
    return out
  }
}

const counter = new Counter()

// undici publishes when it has a request and when its response's headers are parsed: the
// collected requests' phases are cut there too.
let onCreate = (): void => {}
let onHeaders = (): void => {}
diagnostics.subscribe("undici:request:create", () => onCreate())
diagnostics.subscribe("undici:request:headers", () => onHeaders())

/** Runs `effect` with every step of its fibers (and the fibers they fork) counted. */
const counted = <A, E>(effect: Effect.Effect<A, E, LanguageModel.LanguageModel>) =>
  effect.pipe(
    Effect.supervised(counter),
    Effect.withRuntimeFlagsPatch(RuntimeFlagsPatch.enable(RuntimeFlags.OpSupervision))
  )

type Runtime = ManagedRuntime.ManagedRuntime<LanguageModel.LanguageModel, never>

/** One phase's counts over the three counted runs. */
interface Phase {
  readonly name: string
  readonly counts: Array<number>
  /** The asynchronous waits (`Async` steps: a network read not yet arrived, the header phase) of each run. */
  readonly waits: Array<number>
  readonly ops: Map<string, number>
  /** The last counted run's steps, each told by {@link describe} (with `--trace`). */
  trace: ReadonlyArray<string>
}

const phases = new Map<string, Phase>()
const record = (name: string): void => {
  const { ops, steps, trace, waits } = counter.mark()
  const phase = phases.get(name) ?? { name, counts: [], waits: [], ops: new Map<string, number>(), trace: [] }
  phase.trace = trace
  for (const [kind, n] of ops) phase.ops.set(kind, (phase.ops.get(kind) ?? 0) + n)
  phase.counts.push(steps)
  phase.waits.push(waits)
  phases.set(name, phase)
}

/** Collects one request, marking the first content chunk. */
const collected = async (runtime: Runtime, label: string, count: boolean): Promise<void> => {
  let first = false
  let created = false
  let headers = false
  const onChunk = (c: StreamChunk.StreamChunk): void => {
    if (first || !StreamChunk.isContent(c)) return
    first = true
    if (count) record(`${label}: from the headers to the first content chunk`)
  }
  onCreate = () => {
    if (created) return
    created = true
    if (count) record(`${label}: to the request handed to undici`)
  }
  onHeaders = () => {
    if (headers) return
    headers = true
    if (count) record(`${label}: from undici's request to its headers`)
  }
  counter.mark()
  const r = await runtime.runPromise(counted(Response.collectWith(onChunk)(LanguageModel.stream("steps"))))
  onCreate = onHeaders = () => {}
  if (r.error !== undefined) throw new Error(`${label}: ${r.error.code}: ${r.error.message}`)
  if (count) record(`${label}: from the first content chunk to the end`)
}

/** One held stream: its first chunk, then the server cuts it. */
const cut = async (runtime: Runtime, server: string, count: boolean): Promise<void> => {
  let first = false
  let failed: string | undefined
  const onChunk = (c: StreamChunk.StreamChunk): void => {
    if (c.type === "text-delta" && !first) {
      first = true
      if (count) record("cut: to the first content chunk")
    } else if (c.type === "error") {
      failed = c.error.code
      if (count) record("cut: from the first chunk to the error chunk")
    }
  }
  counter.mark()
  const run = runtime.runPromise(counted(Response.collectWith(onChunk)(LanguageModel.stream("steps"))))
  while (!first) await new Promise((resolve) => setTimeout(resolve, 2))
  await fetch(`${server}/drop`, { method: "POST", body: "{}" }).then((r) => r.text())
  await run
  if (failed !== "network") throw new Error(`the cut stream ended in ${failed ?? "no error chunk"}, not network`)
  if (count) record("cut: from the error chunk to the run's end")
}

const main = async (): Promise<void> => {
  const server = await Server.start()
  // Each scenario's stream from the bench server, with the layers the bench's own clients use.
  const runtimeFor = (root: string, family: Streams.Family): Runtime =>
    ManagedRuntime.make(Layer.provide(Clients.ourLayer(`${server.url}/${root}`, family), NodeHttp.layer))
  const runs: Array<readonly [Runtime, (runtime: Runtime, count: boolean) => Promise<void>]> = [
    ...["small", "chat", "anthropic", "responses"].map((name) => {
      const s = Streams.scenario(name)
      return [runtimeFor(`s/${name}`, s.family), (rt: Runtime, c: boolean) => collected(rt, s.title, c)] as const
    }),
    [runtimeFor("hold", "chat"), (rt, c) => cut(rt, server.url, c)]
  ]
  for (const [runtime, run] of runs) {
    await run(runtime, false)
    for (let i = 0; i < 3; i++) await run(runtime, true)
    await runtime.dispose()
  }
  await server.close()
  process.stdout.write("Effect steps per request, the README way (collectWith over undici, layers built once)\n\n")
  process.stdout.write("| phase | steps | of them, waits |\n|---|---|---|\n")
  let unstable = false
  const shown = (ns: ReadonlyArray<number>) => (ns.every((n) => n === ns[0]) ? String(ns[0]) : ns.join(" / "))
  for (const phase of phases.values()) {
    if (!phase.counts.every((n) => n === phase.counts[0])) unstable = true
    process.stdout.write(`| ${phase.name} | ${shown(phase.counts)} | ${shown(phase.waits)} |\n`)
  }
  if (showOps) {
    for (const phase of phases.values()) {
      const ops = [...phase.ops.entries()].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`)
      process.stdout.write(`\n${phase.name} (three runs): ${ops.join(", ")}\n`)
    }
  }
  if (showTrace) {
    for (const phase of phases.values()) {
      process.stdout.write(`\n${phase.name}, the last run's steps in order:\n`)
      for (const step of phase.trace) process.stdout.write(`- ${step}\n`)
    }
  }
  if (unstable) {
    process.stdout.write(
      "\nA phase whose counts differ between runs (shown with /) waited for a different number of network\n" +
        "reads: how the socket delivers the server's 16 KiB writes varies, and each read that has not yet\n" +
        "arrived when taken costs a few steps more.\n"
    )
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`steps failed: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`)
  process.exitCode = 1
})
