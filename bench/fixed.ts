/**
 * `npx tsx --conditions=effect-llm-stream/source bench/fixed.ts [rounds] [clients…]` (any client of
 * `bench/clients.ts`, the peers too once installed): the fixed cost
 * per request, focused. The bench server runs in a child process; this process alternates the given
 * clients (default: floor, ours runForEach, ours collect, ours runForEach undici) on the 10-event
 * answer, and prints each one's median total and first-chunk time, and the median minus the floor's.
 * `FIXED_HOLD=n` instead opens n held streams (heap per open stream, error latency after the cut);
 * the heap figure needs the collector exposed: `node --expose-gc --import tsx bench/fixed.ts …`.
 */
import { fork } from "node:child_process"
import { writeFileSync } from "node:fs"
import * as inspector from "node:inspector"
import { fileURLToPath } from "node:url"
import { Acc } from "./acc.js"
import * as Clients from "./clients.js"
import * as Hold from "./hold.js"
import * as Server from "./server.js"
import { median } from "./stats.js"

const post = (session: inspector.Session, method: string): Promise<unknown> =>
  new Promise((resolve, reject) => session.post(method, (e, r) => (e ? reject(e) : resolve(r))))

const serve = async (): Promise<void> => {
  const server = await Server.start()
  process.send!(server.url)
}

const main = async (): Promise<void> => {
  const child = fork(fileURLToPath(import.meta.url), ["--serve"], { execArgv: process.execArgv })
  const url = await new Promise<string>((resolve) => child.once("message", (m) => resolve(String(m))))
  try {
    const rounds = Number(process.argv[2] ?? 400)
    const names = process.argv.slice(3).length > 0
      ? process.argv.slice(3)
      : ["floor", "ours runForEach", "ours collect", "ours runForEach, undici"]
    const all = await Clients.clients()
    const chosen = names.map((n) => {
      const c = all.find((c) => c.name === n)
      if (c === undefined) throw new Error(`no client named ${n} (${all.map((c) => c.name).join(", ")})`)
      return c
    })
    const hold = Number(process.env["FIXED_HOLD"] ?? 0)
    if (hold > 0) {
      for (const c of chosen) {
        // A collect-only client sees nothing until the end, so "received its first event" never shows.
        if (!Clients.seesChunks(c.name)) {
          process.stdout.write(`${c.name}: skipped (held streams need a per-chunk consumer)\n`)
          continue
        }
        const inst = c.make(`${url}/hold`, "chat")
        const warm = c.make(`${url}/s/small`, "chat")
        await warm.run(new Acc())
        const session = process.env["FIXED_PROF"] !== undefined ? new inspector.Session() : undefined
        const round = await Hold.holdAndCut(
          inst,
          url,
          hold,
          session === undefined ? undefined : {
            before: async () => {
              session.connect()
              await post(session, "Profiler.enable")
              await post(session, "Profiler.start")
            },
            after: async () => {
              const { profile } = (await post(session, "Profiler.stop")) as { profile: unknown }
              writeFileSync(process.env["FIXED_PROF"]!, JSON.stringify(profile))
              session.disconnect()
            }
          }
        )
        const lat = round.latencies
        process.stdout.write(
          `${c.name}: heap/stream ${
            round.heapPerStream === undefined
              ? "(needs node --expose-gc)"
              : `${(round.heapPerStream / 1024).toFixed(1)} KB`
          }, error median ${median(lat).toFixed(0)} ms, last ${lat[lat.length - 1]!.toFixed(0)} ms\n`
        )
        await inst.dispose()
        await warm.dispose()
      }
      return
    }
    const insts = chosen.map((c) => c.make(`${url}/s/small`, "chat"))
    const totals = chosen.map(() => [] as Array<number>)
    const firsts = chosen.map(() => [] as Array<number>)
    for (let r = 0; r < rounds; r++) {
      for (let k = 0; k < insts.length; k++) {
        const i = (k + r) % insts.length
        const acc = new Acc()
        const t = performance.now()
        await insts[i]!.run(acc)
        const end = performance.now()
        if (r >= rounds / 4) {
          totals[i]!.push(end - t)
          if (acc.firstAt > 0) firsts[i]!.push(acc.firstAt - t)
        }
      }
    }
    const floor = median(totals[0]!)
    for (let i = 0; i < chosen.length; i++) {
      const m = median(totals[i]!)
      process.stdout.write(
        `${chosen[i]!.name.padEnd(28)} median ${m.toFixed(2)} ms  first ${
          firsts[i]!.length ? median(firsts[i]!).toFixed(2) : "—"
        } ms  over first client ${(m - floor).toFixed(2)} ms\n`
      )
    }
    for (const inst of insts) await inst.dispose()
  } finally {
    child.kill()
  }
}

if (process.argv[2] === "--serve") serve()
else {
  main().then(() => process.exit(0), (e: unknown) => {
    process.stderr.write(`fixed failed: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`)
    process.exit(1)
  })
}
