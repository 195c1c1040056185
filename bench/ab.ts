/**
 * `npx tsx bench/ab.ts <checkout> <checkout> [scenario] [processes] [client]` (after `npm run build`
 * in each checkout): two builds compared warm, each in processes of its own. A checkout is a
 * directory holding this repository at some commit (a `git worktree`, with `node_modules` and
 * `bench/peers/node_modules` linked in) whose `dist/` is built. Each process runs that checkout's
 * bench worker (bench/worker.ts: its own build, through the package's own name) with the floor and
 * the client alternating, 100 measured runs after 40 of warm-up; the checkouts take turns,
 * `processes` each (default 6). Printed per build: each process's ratio of the client's warm median
 * to the floor's in that process, their median, and the median of the first-chunk gap to the floor.
 * Loading both builds into one process instead is biased: they share `effect` and undici, whose
 * call sites see both copies' functions, and the same build loaded twice came out 9–12 % apart.
 * Defaults: the Anthropic stream, the README way.
 */
import { existsSync } from "node:fs"
import { resolve } from "node:path"
import { resultOf } from "./child.js"
import * as Server from "./server.js"
import { median } from "./stats.js"
import * as Streams from "./streams.js"
import type { Sample } from "./worker.js"

const [a, b] = [process.argv[2], process.argv[3]]
const scenario = process.argv[4] ?? "anthropic"
const processes = Number(process.argv[5] ?? 6)
const client = process.argv[6] ?? "ours README (collectWith, undici)"

const main = async (): Promise<void> => {
  if (a === undefined || b === undefined) {
    throw new Error("usage: bench/ab.ts <checkout> <checkout> [scenario] [processes] [client]")
  }
  const dirs = [resolve(a), resolve(b)]
  for (const d of dirs) {
    if (!existsSync(`${d}/dist/index.js`)) throw new Error(`${d}: no dist/index.js (run npm run build there)`)
  }
  Streams.scenario(scenario)
  const server = await Server.start()
  const ratios: Record<string, Array<number>> = {}
  const gaps: Record<string, Array<number>> = {}
  try {
    for (let p = 0; p < processes; p++) {
      for (const d of p % 2 === 0 ? dirs : [...dirs].reverse()) {
        const job = { mode: "seq", server: server.url, scenario, clients: ["floor", client], warmup: 40, runs: 100 }
        const r = await resultOf<{ samples: Record<string, Array<Sample>> }>(
          ["--expose-gc", `${d}/bench/worker.ts`, JSON.stringify(job)],
          `worker in ${d}`
        )
        const floor = r.samples["floor"]!
        const ours = r.samples[client]!
        ;(ratios[d] ??= []).push(median(ours.map((s) => s.total)) / median(floor.map((s) => s.total)))
        ;(gaps[d] ??= []).push(median(ours.map((s) => s.first)) - median(floor.map((s) => s.first)))
      }
    }
  } finally {
    await server.close()
  }
  process.stdout.write(`${client} on ${scenario}, ${processes} processes per build (warm median / the floor's)\n\n`)
  process.stdout.write("| build | per process | median | first chunk after the floor's (ms) |\n|---|---|---|---|\n")
  for (const d of dirs) {
    process.stdout.write(
      `| ${d} | ${ratios[d]!.map((x) => x.toFixed(3)).join(" ")} | ${median(ratios[d]!).toFixed(3)} | ${
        median(gaps[d]!).toFixed(3)
      } |\n`
    )
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`)
    process.exit(1)
  }
)
