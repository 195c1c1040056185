/**
 * `npx tsx bench/coldprofile.ts [client] [scenario] [processes] [all|open|first]` (after `npm run build`): where a
 * cold request's CPU time goes. The client runs its first 10 requests in each of `processes` fresh
 * processes (default 12) under `node --cpu-prof` sampling every 25 µs; only the samples taken
 * during requests 2–10 (the cold figures of `npm run bench`; the first compiles what it touches)
 * are counted, summed over the processes, by function and by origin, in µs per request. Defaults:
 * the README way on the 10-event answer. Sampling moves the figures a little; compare clients and
 * versions run by this tool, not with the bench's times.
 */
import diagnostics from "node:diagnostics_channel"
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Acc, check } from "./acc.js"
import { resultOf } from "./child.js"
import * as Clients from "./clients.js"
import * as Server from "./server.js"
import * as Streams from "./streams.js"

interface Node {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number }
}
interface Profile {
  readonly nodes: ReadonlyArray<Node>
  readonly startTime: number
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

const requests = 10

/** Which part of each request is sampled. */
type Part = "all" | "open" | "first"
const now = (): number => Number(process.hrtime.bigint() / 1000n)

/**
 * The child: 10 requests, printing the µs windows (on the profiler's clock) of requests 2–10: the
 * whole request (`all`), until undici has the request (`open`), or from the response's headers to
 * the consumer's first chunk (`first`).
 */
const child = async (server: string, name: string, scenario: string, part: Part): Promise<void> => {
  process.setSourceMapsEnabled(false)
  let created = NaN
  let headers = NaN
  diagnostics.subscribe("undici:request:create", () => {
    if (Number.isNaN(created)) created = now()
  })
  diagnostics.subscribe("undici:request:headers", () => {
    if (Number.isNaN(headers)) headers = now()
  })
  const s = Streams.scenario(scenario)
  const expected = s.build().expected
  const client = await Clients.one(name)
  const instance = client.make(`${server}/s/${s.name}`, s.family)
  const windows: Array<readonly [number, number]> = []
  for (let i = 0; i < requests; i++) {
    const acc = new Acc()
    created = NaN
    headers = NaN
    const t0 = now()
    const at0 = performance.now()
    await instance.run(acc)
    const t1 = now()
    check(name, acc.summary(), expected)
    const first = t0 + Math.round((acc.firstAt - at0) * 1000)
    if (i > 0) windows.push(part === "open" ? [t0, created] : part === "first" ? [headers, first] : [t0, t1])
  }
  await instance.dispose()
  process.stdout.write(`RESULT ${JSON.stringify(windows)}\n`)
}

const self = fileURLToPath(import.meta.url)

/** One fresh profiled process: its request windows and its profile. */
const profiled = async (server: string, name: string, scenario: string, part: Part) => {
  const dir = mkdtempSync(join(tmpdir(), "bench-coldprof-"))
  try {
    const windows = await resultOf<ReadonlyArray<readonly [number, number]>>(
      ["--cpu-prof", "--cpu-prof-interval=25", `--cpu-prof-dir=${dir}`, self, "--child", server, name, scenario, part],
      `${name} on ${scenario}`
    )
    const file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"))
    if (file === undefined) throw new Error(`${name} on ${scenario}: no profile written`)
    return { windows, profile: JSON.parse(readFileSync(join(dir, file), "utf8")) as Profile }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const originOf = (url: string, fn: string): string =>
  url.startsWith("src/") || url.startsWith("dist/")
    ? url
    : url.startsWith("node:") || url === ""
    ? fn.startsWith("(") ? fn : "node internals"
    : url.split("/")[0]!.startsWith("@")
    ? url.split("/").slice(0, 2).join("/")
    : url.split("/")[0]!

const main = async (): Promise<void> => {
  const name = process.argv[2] ?? "ours README (collectWith, undici)"
  const scenario = process.argv[3] ?? "small"
  const processes = Number(process.argv[4] ?? 12)
  const part = (process.argv[5] ?? "all") as Part
  const server = await Server.start()
  const self = new Map<string, number>()
  const origin = new Map<string, number>()
  let total = 0
  let wall = 0
  let counted = 0
  for (let p = 0; p < processes; p++) {
    const { profile, windows } = await profiled(server.url, name, scenario, part)
    const byId = new Map(profile.nodes.map((n) => [n.id, n]))
    for (const [a, b] of windows) wall += b - a
    counted += windows.length
    let t = profile.startTime
    profile.samples.forEach((id, i) => {
      const dt = profile.timeDeltas[i] ?? 0
      t += dt
      if (!windows.some(([a, b]) => t > a && t <= b)) return
      const n = byId.get(id)!
      const url = n.callFrame.url.replace(/^.*\/node_modules\//, "").replace(/^file:\/\/\/work\/[^/]+\//, "")
        .replace(/^\/work\/[^/]+\//, "")
      const key = `${n.callFrame.functionName || "(anonymous)"}  ${url}:${n.callFrame.lineNumber + 1}`
      self.set(key, (self.get(key) ?? 0) + dt)
      const o = originOf(url, n.callFrame.functionName)
      origin.set(o, (origin.get(o) ?? 0) + dt)
      total += dt
    })
  }
  await server.close()
  const per = (us: number) => (us / counted).toFixed(1)
  process.stdout.write(
    `Cold CPU samples (${part}), ${name} on ${scenario}: requests 2–${requests} of ${processes} processes; ` +
      `${per(wall)} µs wall and ${per(total)} µs sampled per request\n\n`
  )
  process.stdout.write("| µs / request | function  location |\n|---|---|\n")
  for (const [k, v] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 40)) {
    process.stdout.write(`| ${per(v)} | \`${k}\` |\n`)
  }
  process.stdout.write("\n| µs / request | origin |\n|---|---|\n")
  for (const [k, v] of [...origin.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
    process.stdout.write(`| ${per(v)} | ${k} |\n`)
  }
}

if (process.argv[2] === "--child") {
  child(process.argv[3]!, process.argv[4]!, process.argv[5]!, process.argv[6] as Part).catch((e: unknown) => {
    process.stderr.write(`coldprofile child failed: ${e instanceof Error ? e.message : String(e)}\n`)
    process.exitCode = 1
  })
} else {
  main().catch((e: unknown) => {
    process.stderr.write(`coldprofile failed: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`)
    process.exitCode = 1
  })
}
