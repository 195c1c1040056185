/**
 * One round of the open-streams measurement, shared by bench/worker.ts and bench/fixed.ts: `n`
 * streams of one client that each received their first event and wait, then the server cuts them
 * all (`POST /drop`).
 */
import { Acc } from "./acc.js"
import type { Instance } from "./clients.js"

/** What one round measured. */
export interface Round {
  /** Heap per held stream, in bytes; undefined without the collector exposed (`--expose-gc`). */
  readonly heapPerStream: number | undefined
  /** Resident memory per held stream, in bytes. */
  readonly rssPerStream: number
  /** When each consumer saw its stream end, in ms after the cut, ascending. */
  readonly latencies: ReadonlyArray<number>
  /** How many runs ended in an error (all of them, for a client that reports the cut). */
  readonly failed: number
}

/** Around the cut itself (a profiler started before it and stopped after every stream ended). */
export interface AroundCut {
  readonly before: () => Promise<void>
  readonly after: () => Promise<void>
}

/** Holds `n` streams of `inst` (made for `${server}/hold`) open, then cuts them all. */
export const holdAndCut = async (inst: Instance, server: string, n: number, around?: AroundCut): Promise<Round> => {
  const gc = (globalThis as { readonly gc?: () => void }).gc
  gc?.()
  gc?.()
  const heap0 = process.memoryUsage().heapUsed
  const rss0 = process.memoryUsage().rss
  const accs = Array.from({ length: n }, () => new Acc())
  const settled: Array<number> = []
  const runs = accs.map((acc) =>
    inst.run(acc).then(() => "ended", (e: unknown) => String(e)).then((how) => {
      settled.push(acc.endSeenAt())
      return how
    })
  )
  while (accs.some((a) => a.firstAt === 0)) {
    if (settled.length > 0) throw new Error("a held stream ended before its first event")
    await new Promise((r) => setTimeout(r, 10))
  }
  gc?.()
  gc?.()
  const heapPerStream = gc === undefined ? undefined : (process.memoryUsage().heapUsed - heap0) / n
  const rssPerStream = (process.memoryUsage().rss - rss0) / n
  await around?.before()
  const t0 = performance.now()
  await fetch(`${server}/drop`, { method: "POST", body: "{}" }).then((r) => r.text())
  const hows = await Promise.all(runs)
  await around?.after()
  return {
    heapPerStream,
    rssPerStream,
    latencies: settled.map((t) => t - t0).sort((a, b) => a - b),
    failed: hows.filter((h) => h !== "ended").length
  }
}
