/**
 * One measurement in a process of its own (spawned by bench/main.ts): the job is JSON in argv[2],
 * the result one `RESULT {json}` line on stdout. Modes:
 * - `seq`: the clients take turns (in a new order each round, shuffled) on one scenario, after `warmup`
 *   rounds (a `sparse` client only in every `every`-th round); per request its total time, time to
 *   first content and CPU time. With warmup 0 and one
 *   client in a fresh process, these are the cold figures.
 * - `concurrent`: for each of `levels`, that many streams of one client at once, `reps` times after a
 *   warm-up batch (a level after one that took over a second: once, after a smaller warm-up).
 * - `hold`: `n` streams that received their first event and wait (heap per open stream), then the
 *   server cuts them all (time until every client has seen the error).
 * - `pass`: one stream of `bytes` drained without collecting (peak RSS growth).
 * Every run's result is checked against what the stream must decode to.
 */
import * as Effect from "effect/Effect"
import * as Random from "effect/Random"
import { strictEqual } from "node:assert"
import { Acc, check } from "./acc.js"
import * as Clients from "./clients.js"
import * as Hold from "./hold.js"
import { median } from "./stats.js"
import * as Streams from "./streams.js"

export interface Job {
  readonly mode: "seq" | "concurrent" | "hold" | "pass"
  readonly server: string
  readonly clients: ReadonlyArray<string>
  readonly scenario?: string
  readonly warmup?: number
  readonly runs?: number
  /** `seq`: clients that take part in every `every`-th round only (slow peers: fewer runs, still alternating). */
  readonly sparse?: ReadonlyArray<string>
  readonly every?: number
  readonly n?: number
  /** `concurrent`: the numbers of streams at once, in order (each level after a warm-up batch). */
  readonly levels?: ReadonlyArray<number>
  readonly reps?: number
  readonly bytes?: number
}

/** One batch of concurrent streams: its wall time and each stream's. */
export interface Batch {
  readonly wall: number
  readonly totals: Array<number>
}

/** One level of the `concurrent` mode: `n` streams at once, its batches, the peak RSS so far. */
export interface Level {
  readonly n: number
  readonly batches: ReadonlyArray<Batch>
  readonly peakRss: number
}

export interface Sample {
  readonly total: number
  readonly first: number
  readonly cpu: number
}

const job = JSON.parse(process.argv[2]!) as Job

// tsx (which loads this harness) turns source maps on, so every error's stack, once read (Node's
// streams read it when a socket is destroyed with an error), is mapped frame by frame: a cost that
// a program running the published JavaScript does not pay, and that falls unevenly (frames from
// files in node_modules, such as undici's, are looked up; Node's own are not). Off, as in production.
process.setSourceMapsEnabled(false)
const gc = (): void => (globalThis as { gc?: () => void }).gc?.()
const mb = (): number => process.memoryUsage().rss

const main = async (): Promise<unknown> => {
  const chosen = await Clients.named(job.clients)

  if (job.mode === "seq") {
    const s = Streams.scenario(job.scenario!)
    const built = s.build()
    const base = `${job.server}/s/${s.name}`
    const instances = chosen.filter((c) => c.families.includes(s.family)).map((c) => ({ c, i: c.make(base, s.family) }))
    const samples: Record<string, Array<Sample>> = {}
    for (const { c } of instances) samples[c.name] = []
    const once = async (c: Clients.Client, i: Clients.Instance): Promise<Sample> => {
      const acc = new Acc()
      const cpu0 = process.cpuUsage()
      const t0 = performance.now()
      await i.run(acc)
      const total = performance.now() - t0
      const cpu = process.cpuUsage(cpu0)
      check(c.name, acc.summary(), built.expected)
      return { total, first: acc.firstAt - t0, cpu: (cpu.user + cpu.system) / 1000 }
    }
    const rounds = (job.warmup ?? 0) + (job.runs ?? 10)
    // A new order each round, reproducibly: a request leaves work behind (its garbage, its stream's
    // and socket's cleanup) that lands on the next request, ≈ 0.1 ms after a `fetch` on the
    // 10-event answer; a rotated order gave each client the same predecessor in every round.
    const random = Random.make("bench order")
    const sparse = new Set(job.sparse ?? [])
    const every = job.every ?? 1
    for (let r = 0; r < rounds; r++) {
      const round = r % every === 0 ? instances : instances.filter(({ c }) => !sparse.has(c.name))
      const order = Effect.runSync(random.shuffle(round))
      for (const { c, i } of order) {
        const sample = await once(c, i)
        if (r >= (job.warmup ?? 0)) samples[c.name]!.push(sample)
      }
    }
    for (const { i } of instances) await i.dispose()
    return { samples, events: built.events, bytes: built.body.length, peakRss: process.resourceUsage().maxRSS * 1024 }
  }

  const c = chosen[0]!
  if (job.mode === "concurrent") {
    const s = Streams.scenario("concurrent")
    const built = s.build()
    const inst = c.make(`${job.server}/s/${s.name}`, s.family)
    const batch = async (n: number): Promise<Batch> => {
      const t0 = performance.now()
      const totals = await Promise.all(Array.from({ length: n }, async () => {
        const acc = new Acc()
        const t = performance.now()
        await inst.run(acc)
        check(c.name, acc.summary(), built.expected)
        return performance.now() - t
      }))
      return { wall: performance.now() - t0, totals }
    }
    const levels: Array<Level> = []
    for (const n of job.levels ?? []) {
      // A client that took over a second for the level before runs this one once, after a warm-up
      // at the first level's size (`ai` 6 at 1,000: ≈ 25 s a batch).
      const before = levels[levels.length - 1]
      const slow = before !== undefined && median(before.batches.map((b) => b.wall)) > 1000
      await batch(slow ? levels[0]!.n : n)
      const batches: Array<Batch> = []
      for (let r = 0; r < (slow ? 1 : job.reps ?? 3); r++) batches.push(await batch(n))
      levels.push({ n, batches, peakRss: process.resourceUsage().maxRSS * 1024 })
    }
    await inst.dispose()
    return { levels }
  }

  if (job.mode === "hold") {
    const inst = c.make(`${job.server}/hold`, "chat")
    // One warm request first, so lazily built runtimes and modules are not counted per stream.
    const warm = c.make(`${job.server}/s/small`, "chat")
    await warm.run(new Acc())
    // `reps` rounds of n streams held, then cut: the heap is measured in the first, the error
    // latency is the median over the rounds (one cut of a thousand streams varies by ±50 ms).
    const rounds: Array<Hold.Round> = []
    for (let round = 0; round < (job.reps ?? 1); round++) {
      rounds.push(
        await Hold.holdAndCut(inst, job.server, job.n!).catch((e: unknown) => {
          throw new Error(`${c.name}: ${e instanceof Error ? e.message : String(e)}`)
        })
      )
    }
    const first = rounds[0]!
    const medians = rounds.map((r) => median(r.latencies))
    const lasts = rounds.map((r) => r.latencies[r.latencies.length - 1]!)
    await inst.dispose()
    await warm.dispose()
    return {
      heapPerStream: first.heapPerStream,
      rssPerStream: first.rssPerStream,
      errorLatencyMedian: median(medians),
      errorLatencyMax: median(lasts),
      errorLatencyMedians: medians,
      failed: rounds.reduce((n, r) => n + r.failed, 0)
    }
  }

  // pass
  const inst = c.make(`${job.server}/pass/${job.bytes!}`, "chat")
  const warm = c.make(`${job.server}/s/small`, "chat")
  await warm.run(new Acc())
  gc()
  const rss0 = mb()
  const acc = new Acc(false)
  const t0 = performance.now()
  await inst.run(acc)
  const ms = performance.now() - t0
  const pass = Streams.passBlock()
  const blocks = Math.ceil(job.bytes! / Buffer.byteLength(pass.block))
  strictEqual(acc.summary().textLength, blocks * pass.textPerBlock + 0)
  return { ms, peakGrowth: process.resourceUsage().maxRSS * 1024 - rss0 }
}

main().then(
  (result) => {
    process.stdout.write(`RESULT ${JSON.stringify(result)}\n`)
    // Peers may hold keep-alive sockets open.
    process.exit(0)
  },
  (e: unknown) => {
    process.stderr.write(
      `worker failed (${job.mode} ${job.clients.join(",")} ${job.scenario ?? ""}): ${
        e instanceof Error ? e.stack ?? e.message : String(e)
      }\n`
    )
    process.exit(1)
  }
)
