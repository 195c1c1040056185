/**
 * `npx tsx bench/cut.ts ["client|client…"] [rounds]`: what the open streams' cut costs each client,
 * beyond the time the bench reports. Each client runs in a process of its own (the server in this
 * one, so its work is never charged to a client): `rounds` times, 1,000 streams that received their
 * first event and wait are cut by the server at once (bench/hold.ts), measuring per cut the median
 * error latency, the process's CPU time, and the garbage collections (count and pause) from the cut
 * to the last stream's end; then one more cut under V8's sampling heap profiler (objects the
 * collector freed included), which gives the bytes allocated per stream and the functions that
 * allocated the most (the top 8; `CUT_TOP=n` for more; `CUT_BY=ours` charges each allocation to the
 * innermost frame of the project's own code on its stack); with `CUT_CPU=1`, one more cut under V8's CPU
 * profiler (sampling every 50 µs), which gives the CPU time per stream by function (`CUT_CPU_FILE=path`
 * keeps that profile, for a look at its call stacks). Defaults: the README way, `openai` 6 and the floor, 4 rounds. Needs the
 * peers' package (bench/peers) for a peer client.
 */
import { fork } from "node:child_process"
import { Session } from "node:inspector/promises"
import { PerformanceObserver } from "node:perf_hooks"
import { fileURLToPath } from "node:url"
import { Acc } from "./acc.js"
import * as Clients from "./clients.js"
import * as Hold from "./hold.js"
import * as Server from "./server.js"
import { median } from "./stats.js"

const streams = 1000

interface Cut {
  readonly median: number
  readonly cpu: number
  readonly gcs: number
  readonly gcMs: number
}

interface Measured {
  readonly name: string
  readonly cuts: ReadonlyArray<Cut>
  readonly bytesPerStream: number
  readonly top: ReadonlyArray<readonly [string, number]>
  /** µs of CPU samples per stream by function, when `CUT_CPU=1`. */
  readonly cpuTop: ReadonlyArray<readonly [string, number]>
}

interface CpuProfile {
  readonly nodes: ReadonlyArray<{ readonly id: number; readonly callFrame: AllocationNode["callFrame"] }>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

/** A function's key (`name file:line`): a package's file by its package, ours by the project's folder. */
const keyOf = (frame: AllocationNode["callFrame"]): string => {
  const at = frame.url
  const url = at.includes("/node_modules/")
    ? at.replace(/^.*\/node_modules\//, "")
    : at.replace(/^.*\/(src|dist|bench)\//, "$1/")
  return `${frame.functionName || "(anonymous)"} ${url}:${frame.lineNumber + 1}`
}

/** The `CUT_TOP` (default 8) largest entries of `by`, largest first. */
const topOf = (by: Map<string, number>): Array<readonly [string, number]> =>
  [...by.entries()].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.CUT_TOP ?? 8))

/** µs of samples per function in a CPU profile (each sample charged the time until the next). */
const cpuBy = (profile: CpuProfile): Map<string, number> => {
  const keys = new Map(profile.nodes.map((n) => [n.id, keyOf(n.callFrame)]))
  const by = new Map<string, number>()
  for (let i = 0; i + 1 < profile.samples.length; i++) {
    const key = keys.get(profile.samples[i]!)!
    by.set(key, (by.get(key) ?? 0) + profile.timeDeltas[i + 1]!)
  }
  return by
}

interface AllocationNode {
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number }
  readonly selfSize: number
  readonly children: ReadonlyArray<AllocationNode>
}

/** Whether a frame is the project's own code (its `dist` or `src`), not a package's. */
const isOurs = (frame: AllocationNode["callFrame"]): boolean =>
  !frame.url.includes("/node_modules/") && /\/(src|dist)\//.test(frame.url)

/** Bytes allocated per function (`name file:line`) in a sampling heap profile, and in all. */
const allocations = (head: AllocationNode): { readonly total: number; readonly by: Map<string, number> } => {
  const by = new Map<string, number>()
  let total = 0
  const byOurs = process.env.CUT_BY === "ours"
  const walk = (n: AllocationNode, ours: string): void => {
    const own = byOurs && isOurs(n.callFrame) ? keyOf(n.callFrame) : ours
    if (n.selfSize > 0) {
      const key = byOurs ? own : keyOf(n.callFrame)
      by.set(key, (by.get(key) ?? 0) + n.selfSize)
      total += n.selfSize
    }
    for (const c of n.children) walk(c, own)
  }
  walk(head, "(no frame of ours)")
  return { total, by }
}

/** In the child: measures one client against the server at `server`. */
const measure = async (name: string, server: string, rounds: number): Promise<Measured> => {
  process.setSourceMapsEnabled(false)
  const client = await Clients.one(name)
  const inst = client.make(`${server}/hold`, "chat")
  const warm = client.make(`${server}/s/small`, "chat")
  for (let i = 0; i < 20; i++) await warm.run(new Acc())
  // Every collection (when it began, how long it paused), read for each cut's window once the
  // observer has been told (on a later turn of the event loop): the forced ones before a cut are out.
  const collections: Array<{ readonly start: number; readonly duration: number }> = []
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) collections.push({ start: e.startTime, duration: e.duration })
  })
  observer.observe({ entryTypes: ["gc"] })
  const cuts: Array<Cut> = []
  for (let r = 0; r < rounds; r++) {
    let cpu0 = process.cpuUsage()
    let t0 = 0
    let out = { cpu: 0, t1: 0 }
    const round = await Hold.holdAndCut(inst, server, streams, {
      before: () => {
        cpu0 = process.cpuUsage()
        t0 = performance.now()
        return Promise.resolve()
      },
      after: () => {
        const cpu = process.cpuUsage(cpu0)
        out = { cpu: (cpu.user + cpu.system) / 1000, t1: performance.now() }
        return Promise.resolve()
      }
    })
    await new Promise((resolve) => setTimeout(resolve, 20))
    if (round.failed !== streams) throw new Error(`${name}: ${round.failed} of ${streams} streams reported the cut`)
    const inCut = collections.filter((c) => c.start >= t0 && c.start <= out.t1)
    cuts.push({
      median: median(round.latencies),
      cpu: out.cpu,
      gcs: inCut.length,
      gcMs: inCut.reduce((ms, c) => ms + c.duration, 0)
    })
  }
  observer.disconnect()
  const session = new Session()
  session.connect()
  await session.post("HeapProfiler.enable")
  let profile: AllocationNode | undefined
  await Hold.holdAndCut(inst, server, streams, {
    before: async () => {
      await session.post("HeapProfiler.startSampling", {
        samplingInterval: 256,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true
      })
    },
    after: async () => {
      profile = (await session.post("HeapProfiler.stopSampling")).profile.head as unknown as AllocationNode
    }
  })
  let cpuTop: Array<readonly [string, number]> = []
  if (process.env.CUT_CPU === "1") {
    await session.post("Profiler.enable")
    await session.post("Profiler.setSamplingInterval", { interval: 50 })
    let cpu: CpuProfile | undefined
    await Hold.holdAndCut(inst, server, streams, {
      before: async () => {
        await session.post("Profiler.start")
      },
      after: async () => {
        cpu = (await session.post("Profiler.stop")).profile as unknown as CpuProfile
        if (process.env.CUT_CPU_FILE) {
          ;(await import("node:fs")).writeFileSync(process.env.CUT_CPU_FILE, JSON.stringify(cpu))
        }
      }
    })
    cpuTop = topOf(cpuBy(cpu!))
  }
  session.disconnect()
  await inst.dispose()
  await warm.dispose()
  const { by, total } = allocations(profile!)
  return { name, cuts, bytesPerStream: total / streams, top: topOf(by), cpuTop }
}

const fmt = (ns: ReadonlyArray<number>, digits = 0) => ns.map((n) => n.toFixed(digits)).join(", ")

const main = async (): Promise<void> => {
  const names = (process.argv[2] ?? "ours README (collectWith, undici)|openai 6|floor").split("|")
  const rounds = Number(process.argv[3] ?? 4)
  const server = await Server.start()
  const results: Array<Measured> = []
  for (const name of names) {
    // Spawned asynchronously: the server answers from this process's event loop.
    const child = fork(fileURLToPath(import.meta.url), ["--child", name, server.url, String(rounds)], {
      execArgv: [...process.execArgv, "--expose-gc"],
      stdio: ["ignore", "inherit", "inherit", "ipc"]
    })
    const result = await new Promise<Measured | undefined>((resolve) => {
      let got: Measured | undefined
      child.on("message", (m) => (got = m as Measured))
      child.on("exit", () => resolve(got))
    })
    if (result === undefined) throw new Error(`the child measuring ${name} failed`)
    results.push(result)
  }
  await server.close()
  process.stdout.write(
    `The open streams' cut, ${streams} streams, ${rounds} cuts per client (each its own process)\n\n`
  )
  process.stdout.write(
    "| client | error seen, median (ms) | CPU per cut (ms) | collections per cut | their pause (ms) | allocated per stream (KB) |\n" +
      "|---|---|---|---|---|---|\n"
  )
  for (const r of results) {
    process.stdout.write(
      `| ${r.name} | ${fmt(r.cuts.map((c) => c.median))} | ${fmt(r.cuts.map((c) => c.cpu))} | ${
        fmt(r.cuts.map((c) => c.gcs))
      } | ${fmt(r.cuts.map((c) => c.gcMs), 1)} | ${(r.bytesPerStream / 1024).toFixed(1)} |\n`
    )
  }
  for (const r of results) {
    process.stdout.write(`\nWhere ${r.name} allocated during the cut (KB per stream):\n`)
    for (const [k, v] of r.top) process.stdout.write(`- ${(v / 1024 / streams).toFixed(1)} \`${k}\`\n`)
  }
  for (const r of results.filter((r) => r.cpuTop.length > 0)) {
    process.stdout.write(`\nWhere ${r.name} spent CPU during the cut (µs per stream, sampled):\n`)
    for (const [k, v] of r.cpuTop) process.stdout.write(`- ${(v / streams).toFixed(1)} \`${k}\`\n`)
  }
}

if (process.argv[2] === "--child") {
  measure(process.argv[3]!, process.argv[4]!, Number(process.argv[5])).then(
    (m) => process.send!(m, () => process.exit(0)),
    (e: unknown) => {
      process.stderr.write(`cut failed: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`)
      process.exit(1)
    }
  )
} else {
  main().catch((e: unknown) => {
    process.stderr.write(`cut failed: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`)
    process.exitCode = 1
  })
}
