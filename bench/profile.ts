/**
 * `npx tsx --conditions=effect-llm-stream/source bench/profile.ts [client] [scenario]`: runs one
 * client warm (20 + 100 requests) under `node --cpu-prof` against the bench server and prints the
 * top functions by self time (the profile is written to a temporary folder). Defaults:
 * `ours runForEach` on the 6,000-event Chat stream.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as Server from "./server.js"

interface Node {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number }
}
interface Profile {
  readonly nodes: ReadonlyArray<Node>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

const client = process.argv[2] ?? "ours runForEach"
const scenario = process.argv[3] ?? "chat"

const main = async (): Promise<void> => {
  const server = await Server.start()
  const dir = mkdtempSync(join(tmpdir(), "bench-prof-"))
  const worker = fileURLToPath(new URL("./worker.ts", import.meta.url))
  const job = {
    mode: "seq",
    server: server.url,
    scenario,
    clients: [client],
    warmup: Number(process.env.PROF_WARMUP ?? 20),
    runs: Number(process.env.PROF_RUNS ?? 100)
  }
  // Spawned asynchronously: the server answers from this process's event loop.
  const status = await new Promise<number | null>((resolve) =>
    spawn(
      process.execPath,
      [...process.execArgv, "--cpu-prof", `--cpu-prof-dir=${dir}`, worker, JSON.stringify(job)],
      { stdio: ["ignore", "ignore", "inherit"] }
    ).on("exit", resolve)
  )
  await server.close()
  if (status !== 0) throw new Error("the profiled worker failed")
  const file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"))!
  const profile = JSON.parse(readFileSync(join(dir, file), "utf8")) as Profile
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const self = new Map<string, number>()
  const origin = new Map<string, number>()
  let total = 0
  profile.samples.forEach((id, i) => {
    const n = byId.get(id)!
    const dt = profile.timeDeltas[i] ?? 0
    total += dt
    const url = n.callFrame.url.replace(/^.*\/node_modules\//, "").replace(/^.*\/work\/[^/]+\//, "")
    const key = `${n.callFrame.functionName || "(anonymous)"}  ${url}:${n.callFrame.lineNumber + 1}`
    self.set(key, (self.get(key) ?? 0) + dt)
    const o = url.startsWith("src/")
      ? url.split(":")[0]!
      : url.startsWith("node:") || url === ""
      ? n.callFrame.functionName.startsWith("(") ? n.callFrame.functionName : "node internals"
      : url.split("/")[0]!.startsWith("@")
      ? url.split("/").slice(0, 2).join("/")
      : url.split("/")[0]!
    origin.set(o, (origin.get(o) ?? 0) + dt)
  })
  const top = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25)
  process.stdout.write(`Self time, ${client} on ${scenario} (120 requests, ${(total / 1000).toFixed(0)} ms sampled)\n`)
  process.stdout.write("| self ms | % | function  location |\n|---|---|---|\n")
  for (const [k, v] of top) {
    process.stdout.write(`| ${(v / 1000).toFixed(0)} | ${(100 * v / total).toFixed(1)} | \`${k}\` |\n`)
  }
  process.stdout.write("\nSelf time by origin (module loading included)\n| self ms | % | origin |\n|---|---|---|\n")
  for (const [k, v] of [...origin.entries()].sort((a, b) => b[1] - a[1]).slice(0, 15)) {
    process.stdout.write(`| ${(v / 1000).toFixed(0)} | ${(100 * v / total).toFixed(1)} | ${k} |\n`)
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`profile failed: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`)
  process.exitCode = 1
})
