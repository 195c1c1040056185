/**
 * `npm run bench`: ours against the hand-written floor, the platform's `HttpClient` alone (the
 * "platform" rows: the floor's decoding over `FetchHttpClient` and over undici) and the peers
 * (bench/peers, installed here on first use), every client reading the same bytes from one
 * loopback server (bench/server.ts) that runs in this process while each measurement runs in a
 * child process (bench/worker.ts):
 * - warm: per scenario, the clients take turns in one process after a warm-up;
 * - cold: each client alone in a fresh process, its first 10 requests (the floor, the README way and
 *   the peers but `ai` 6 in five such processes each, taking turns: `BENCH_COLD_PROCESSES`);
 * - concurrent streams, open streams (heap per stream, error latency), a pass-through stream.
 * Every request's result is checked (text, reasoning, tool arguments, usage, finish). Prints
 * markdown tables with ratios against the floor measured in the same run. A benchmark, not a test:
 * it asserts nothing about time. `BENCH_QUICK=1` is a ~1-minute smoke run.
 */
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { resultOf } from "./child.js"
import * as Clients from "./clients.js"
import * as Server from "./server.js"
import { median, quantile } from "./stats.js"
import * as Streams from "./streams.js"
import type { Job, Level, Sample } from "./worker.js"

const quick = process.env.BENCH_QUICK === "1"
const warmup = Number(process.env.BENCH_WARMUP ?? (quick ? 3 : 15))
const runs = Number(process.env.BENCH_RUNS ?? (quick ? 8 : 30))
const coldRuns = 10
// The clients the cold targets compare (the floor, the README way, the peers but `ai` 6) run their
// cold requests in this many fresh processes each, taking turns, and the figures are over all of
// them: one process's ten requests moved a median by half between runs, and three processes still
// moved the cold first chunk on Chat by 0.8 ms between runs of nearly the same code (runs 21–22).
// Each process more adds about 16 s to the bench (4 s per scenario).
const coldProcesses = Number(process.env.BENCH_COLD_PROCESSES ?? (quick ? 1 : 5))
const passBytes = Number(process.env.BENCH_PASS_BYTES ?? (quick ? 20e6 : 200e6))
const started = performance.now()
const log = (s: string): void =>
  void process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(0)} s] ${s}\n`)

// --- peers ---------------------------------------------------------------------------------------

const ensurePeers = (): void => {
  if (Clients.peersInstalled() || process.env.BENCH_PEERS === "0") return
  log("installing the peers (npm ci --prefix bench/peers) …")
  const r = spawnSync("npm", ["ci", "--prefix", Clients.peersDir, "--ignore-scripts", "--no-audit", "--no-fund"], {
    stdio: ["ignore", "inherit", "inherit"]
  })
  if (r.status !== 0) log("could not install the peers: measuring ours against the floor only")
}

// --- running workers ------------------------------------------------------------------------------

const workerPath = fileURLToPath(new URL("./worker.ts", import.meta.url))

const work = <A>(job: Job): Promise<A> =>
  resultOf<A>(["--expose-gc", workerPath, JSON.stringify(job)], `worker ${job.mode} ${job.clients.join(",")}`)

// --- formatting -----------------------------------------------------------------------------------

const f1 = (n: number): string => (Number.isFinite(n) ? n.toFixed(1) : "—")
const f2 = (n: number): string => (Number.isFinite(n) ? n.toFixed(2) : "—")
const mb = (n: number): string => `${(n / 1024 / 1024).toFixed(0)} MB`
const kb = (n: number): string => `${(n / 1024).toFixed(1)} KB`

interface SeqResult {
  readonly samples: Record<string, Array<Sample>>
  readonly events: number
  readonly bytes: number
  readonly peakRss: number
}

// --- the plan -------------------------------------------------------------------------------------

const main = async (): Promise<void> => {
  const t0 = performance.now()
  ensurePeers()
  const all = await Clients.clients()
  const names = (family: Streams.Family, filter: (name: string) => boolean = () => true): Array<string> =>
    all.filter((c) => c.families.includes(family) && filter(c.name)).map((c) => c.name)
  const slow = (name: string): boolean => name === "@effect/ai-openai"
  // A peer at 20× the floor and more takes part in every third round only (5 warm-up and 10
  // measured runs, still alternating with the others): its runs took an eighth of the bench's time.
  const sparse = (name: string): boolean => name === "ai 6 + @ai-sdk"
  const every = quick ? 1 : 3
  // The platform baselines run where the targets compare: the main scenarios warm, the
  // concurrent and open streams. The other scenarios (the tool argument, the reasoning stream) run
  // the floor, the peers, the README way (whose first chunk the targets compare with theirs),
  // `Response.collect` and `Stream.runForEach`.
  const lean = (name: string): boolean =>
    (!name.startsWith("ours") && !Clients.isPlatform(name)) || name === "ours collect" ||
    name === "ours runForEach" || name === "ours README (collectWith, undici)"
  // A slow client (`slow`) has no cold run: at 100× the floor and more, its first requests add nothing.
  const comparedCold = (name: string): boolean =>
    name === "floor" || name === "ours README (collectWith, undici)" ||
    (!name.startsWith("ours") && !Clients.isPlatform(name) && !sparse(name) && !slow(name))
  const coldSet = (name: string): boolean =>
    quick ? ["floor", "ours README (collectWith, undici)"].includes(name) : (lean(name) && !slow(name)) ||
      name === "ours README (collectWith, undici)" || name === "ours collectWith, layers per run"

  const server = await Server.start()
  const out: Array<string> = []
  const p = (s = ""): void => void out.push(s)
  try {
    p(`## Sequential scenarios (${runs} warm runs after ${warmup} warm-up rounds, clients alternating${
      every > 1 ? "; `ai` 6 in every third round only" : ""
    }; cold = first ${coldRuns} requests of a fresh process per client${
      coldProcesses > 1
        ? `, in ${coldProcesses} processes each for the floor, the README way and the peers but \`ai\` 6`
        : ""
    })`)
    p()
    p("Times in ms. `× floor` = warm median / the floor's warm median in the same process. First chunk = first text, reasoning or argument delta seen by the consumer, to 0.01 ms (— for collect-only consumers, which see only the end). CPU = process CPU time (user+system, this client's process, loopback server excluded) per 1,000 events, warm median.")
    const seqScenarios = quick ?
      ["chat", "small"] :
      ["chat", "anthropic", "responses", "small", "tool64", "tool128", "reasoning"]
    const warmMedians: Record<string, Record<string, number>> = {}
    for (const name of seqScenarios) {
      const s = Streams.scenario(name)
      const main3 = ["chat", "anthropic", "responses", "small"].includes(name)
      const set = names(s.family, (n) => !slow(n) && (main3 ? !quick || !Clients.isPlatform(n) : lean(n)))
      log(`warm: ${s.title} (${set.length} clients) …`)
      const warm = await work<SeqResult>({
        mode: "seq",
        server: server.url,
        scenario: name,
        clients: set,
        warmup,
        runs,
        sparse: set.filter(sparse),
        every
      })
      const slowSet = names(s.family, slow)
      for (const c of slowSet) {
        log(`warm: ${s.title}, ${c} alone (fewer runs: it is slow) …`)
        const r = await work<SeqResult>({
          mode: "seq",
          server: server.url,
          scenario: name,
          clients: [c],
          warmup: 2,
          runs: Math.min(runs, 6)
        })
        warm.samples[c] = r.samples[c]!
      }
      const cold: Record<string, SeqResult> = {}
      if (main3 && (!quick || name === "chat")) {
        const coldClients = [...set, ...slowSet].filter(coldSet)
        for (let p = 0; p < coldProcesses; p++) {
          for (const c of coldClients.filter((c) => p === 0 || comparedCold(c))) {
            log(`cold: ${s.title}, ${c}${coldProcesses > 1 ? ` (process ${p + 1})` : ""} …`)
            const r = await work<SeqResult>({
              mode: "seq",
              server: server.url,
              scenario: name,
              clients: [c],
              warmup: 0,
              runs: coldRuns
            })
            const before = cold[c]
            cold[c] = before === undefined ? r : {
              ...r,
              samples: { [c]: [...before.samples[c]!, ...r.samples[c]!] },
              peakRss: Math.max(before.peakRss, r.peakRss)
            }
          }
        }
      }
      const floorMedian = median(warm.samples["floor"]!.map((x) => x.total))
      warmMedians[name] = {}
      p()
      p(`### ${s.title} (${(warm.bytes / 1024 / 1024).toFixed(2)} MB, ${warm.events} events)`)
      p()
      p("| client | warm median | warm p90 | × floor | first chunk warm | cold median | cold p90 | × floor cold | first chunk cold | CPU ms / 1k events | peak RSS (cold process) |")
      p("|---|---|---|---|---|---|---|---|---|---|---|")
      const coldFloor = cold["floor"] ? median(cold["floor"].samples["floor"]!.map((x) => x.total)) : NaN
      for (const [client, samples] of Object.entries(warm.samples)) {
        const totals = samples.map((x) => x.total)
        const m = median(totals)
        warmMedians[name][client] = m
        const c = cold[client]?.samples[client]
        const ct = c?.map((x) => x.total) ?? []
        const first = (xs: ReadonlyArray<Sample>): string =>
          !Clients.seesChunks(client) ? "—" : f2(median(xs.map((x) => x.first)))
        p(
          `| ${client} | ${f1(m)} | ${f1(quantile(totals, 0.9))} | ${f2(m / floorMedian)} | ${first(samples)} | ${
            f1(median(ct))
          } | ${f1(quantile(ct, 0.9))} | ${f2(median(ct) / coldFloor)} | ${c ? first(c) : "—"} | ${
            f1(median(samples.map((x) => x.cpu)) / warm.events * 1000)
          } | ${cold[client] ? mb(cold[client].peakRss) : "—"} |`
        )
      }
    }
    if (warmMedians["small"] !== undefined) {
      const fl = warmMedians["small"]["floor"]!
      p()
      p("### Fixed cost per request (the 10-event answer, warm median minus the floor's)")
      p()
      p("| client | fixed cost over the floor |")
      p("|---|---|")
      for (const [c, m] of Object.entries(warmMedians["small"])) if (c !== "floor") p(`| ${c} | ${f2(m - fl)} ms |`)
    }
    if (warmMedians["tool64"] !== undefined && warmMedians["tool128"] !== undefined) {
      p()
      p("### Tool argument: 128 KB vs 64 KB (warm medians; 2.0 is linear)")
      p()
      p("| client | 64 KB | 128 KB | ratio |")
      p("|---|---|---|---|")
      for (const [c, m] of Object.entries(warmMedians["tool64"])) {
        const m2 = warmMedians["tool128"][c]!
        p(`| ${c} | ${f1(m)} ms | ${f1(m2)} ms | ${f2(m2 / m)} |`)
      }
    }

    // Concurrency.
    const concClients = names(
      "chat",
      (n) =>
        !n.startsWith("ours") || n === "ours runForEach" || n === "ours collect" || n === "ours collectWith" ||
        n === "ours README (collectWith, undici)" || n === "ours runForEach, undici"
    )
      .filter((n) =>
        !quick || n === "floor" || n === "ours runForEach" || n === "ours collectWith" || n === "platform undici"
      )
    p()
    // One process per client for both levels; a client slow at 100 streams runs one batch of 1,000
    // after a warm-up of 100 (bench/worker.ts).
    const levels = quick ? [100] : [100, 1000]
    p(`### Concurrent streams (${Streams.scenario("concurrent").title}; each client in its own process, ${
      levels.map((n) => n.toLocaleString("en")).join(" then ")
    }; median of ${quick ? 1 : 3} batches after a warm-up batch${
      quick ? "" : "; 1 batch of 1,000, after a warm-up batch of 100, for a client whose 100 took over a second"
    }; peak RSS of the process so far)`)
    p()
    p("| client | N | wall time for all N | per-stream median | per-stream p90 | peak RSS |")
    p("|---|---|---|---|---|---|")
    const byClient: Array<readonly [string, ReadonlyArray<Level>]> = []
    for (const c of concClients) {
      log(`concurrent: ${levels.join(", ")} × ${c} …`)
      const r = await work<{ levels: ReadonlyArray<Level> }>({
        mode: "concurrent",
        server: server.url,
        clients: [c],
        levels,
        reps: quick ? 1 : 3
      })
      byClient.push([c, r.levels])
    }
    for (let i = 0; i < levels.length; i++) {
      for (const [c, rs] of byClient) {
        const r = rs[i]!
        const walls = r.batches.map((b) => b.wall)
        const totals = r.batches.flatMap((b) => b.totals)
        p(`| ${c} | ${r.n} | ${f1(median(walls))} ms | ${f1(median(totals))} ms | ${f1(quantile(totals, 0.9))} ms | ${
          mb(r.peakRss)
        } |`)
      }
    }

    // Open streams.
    const nOpen = quick ? 100 : 1000
    p()
    // Five rounds (three before run 32) for the clients the targets compare: the medians of a
    // client's rounds spread by up to 2× within a run (the first runs its error path cold), and over
    // three rounds the order of two clients within 10 ms of each other moved from run to run. The
    // others keep three, which holds the bench inside ten minutes on a slow hour of the machine.
    const holdReps = Number(process.env.BENCH_HOLD_ROUNDS ?? (quick ? 1 : 5))
    // The clients the cold targets compare, and the platform's undici client (the open streams' error-latency target).
    const repsOf = (name: string): number =>
      comparedCold(name) || name === "platform undici" ? holdReps : Math.min(3, holdReps)
    p(`### ${nOpen} open streams (each received its first event and waits; then the server cuts them all; ${holdReps} round${
      holdReps === 1 ? "" : "s"
    } per client${
      holdReps > 3
        ? " for the floor, the platform's undici client, the README way and `openai` 6, 3 for the others"
        : ""
    }; each figure the median over them)`)
    p()
    p("| client | heap per open stream | error seen, median after the cut | error seen, last | medians of the rounds |")
    p("|---|---|---|---|---|")
    for (const c of concClients.filter((n) => Clients.seesChunks(n))) {
      log(`open streams: ${nOpen} × ${c} …`)
      const r = await work<
        {
          heapPerStream: number
          errorLatencyMedian: number
          errorLatencyMax: number
          errorLatencyMedians: Array<number>
        }
      >({
        mode: "hold",
        server: server.url,
        clients: [c],
        n: nOpen,
        reps: repsOf(c)
      })
      p(`| ${c} | ${kb(r.heapPerStream)} | ${f1(r.errorLatencyMedian)} ms | ${f1(r.errorLatencyMax)} ms | ${
        r.errorLatencyMedians.map((x) => x.toFixed(0)).join(" / ")
      } ms |`)
    }

    // Pass-through.
    p()
    p(`### Pass-through: a ${mb(passBytes)} Chat stream drained without collecting (own process each)`)
    p()
    p("| client | time | peak RSS growth |")
    p("|---|---|---|")
    const passClients = names(
      "chat",
      (n) => ["floor", "ours runForEach", "ours collectWith", "ours toAsyncIterable", "openai 6"].includes(n)
    )
      .filter((n) => !quick || n === "floor" || n === "ours runForEach" || n === "ours collectWith")
    for (const c of passClients) {
      log(`pass-through: ${c} …`)
      const r = await work<{ ms: number; peakGrowth: number }>({
        mode: "pass",
        server: server.url,
        clients: [c],
        bytes: passBytes
      })
      p(`| ${c} | ${f1(r.ms)} ms | ${mb(Math.max(0, r.peakGrowth))} |`)
    }
  } finally {
    await server.close()
  }
  p()
  p(`Total bench time: ${((performance.now() - t0) / 1000).toFixed(0)} s`)
  process.stdout.write(out.join("\n") + "\n")
}

/** The worst-case single-stream figure, from a fresh process (bench/memory.ts). */
const memory = (): void => {
  if (process.env.BENCH_MEMORY === "0" || quick) return
  const script = fileURLToPath(new URL("./memory.ts", import.meta.url))
  const child = spawnSync(process.execPath, [...process.execArgv, "--expose-gc", script], { stdio: "inherit" })
  if (child.status !== 0) process.exitCode = 1
}

/** The agent loop's own cost per step, over TestModel (bench/loop.ts), in a fresh process. */
const loop = (): void => {
  if (process.env.BENCH_LOOP === "0") return
  const script = fileURLToPath(new URL("./loop.ts", import.meta.url))
  const child = spawnSync(process.execPath, [...process.execArgv, script], { stdio: "inherit" })
  if (child.status !== 0) process.exitCode = 1
}

main().then(memory).then(loop).catch((e: unknown) => {
  process.stderr.write(`bench failed: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`)
  process.exitCode = 1
})
