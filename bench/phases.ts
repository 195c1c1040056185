/**
 * `npx tsx bench/phases.ts ["client|client…"] [scenario,scenario…] [processes]` (after
 * `npm run build`): where a cold request's time goes, per client. Each client runs in fresh processes
 * (alternating with the others; the bench server in this one), 10 requests each; requests 2–10 are
 * the cold figures (the first, which compiles everything it touches, is shown on its own). Every
 * client here sends its request through undici — ours and the platform client over the npm package,
 * `fetch` (the floor, `openai` 6, `@anthropic-ai/sdk`) over Node's own copy — and both publish the
 * same diagnostics channels, so each request is cut at the same points for every client:
 * - created: undici has the request (`undici:request:create`): everything the client did before;
 * - headers: the response's headers are parsed (`undici:request:headers`);
 * - first chunk: the consumer has the first text, reasoning or argument delta;
 * - total: the consumer's run is over.
 * All in ms after the client's run began, medians. `headers → first` is what the client does between
 * the response's arrival and the consumer's first chunk. Defaults: the floor, the README way,
 * `openai` 6 (and `@anthropic-ai/sdk` on Anthropic), on the 10-event answer and the Anthropic stream,
 * 6 processes per client. A named client is measured on the scenarios whose family it speaks only
 * (the others are listed as not measured); an unknown client or scenario name fails before anything
 * runs. The subscribers cost undici a little on every request, the same for all.
 */
import diagnostics from "node:diagnostics_channel"
import { fileURLToPath } from "node:url"
import { Acc, check } from "./acc.js"
import { resultOf } from "./child.js"
import * as Clients from "./clients.js"
import * as Server from "./server.js"
import { median } from "./stats.js"
import * as Streams from "./streams.js"

/** One request's marks, in ms after its run began. */
interface Marks {
  readonly created: number
  readonly headers: number
  readonly first: number
  readonly total: number
}

const requests = 10

/** A fresh process's requests to one client on one scenario. */
const child = async (server: string, name: string, scenario: string): Promise<void> => {
  process.setSourceMapsEnabled(false)
  let created = NaN
  let headers = NaN
  // The first request of each run: a client's later requests on the same connection pool publish too.
  diagnostics.subscribe("undici:request:create", () => {
    if (Number.isNaN(created)) created = performance.now()
  })
  diagnostics.subscribe("undici:request:headers", () => {
    if (Number.isNaN(headers)) headers = performance.now()
  })
  const s = Streams.scenario(scenario)
  const expected = s.build().expected
  const client = await Clients.one(name)
  const instance = client.make(`${server}/s/${s.name}`, s.family)
  const rows: Array<Marks> = []
  for (let i = 0; i < requests; i++) {
    created = NaN
    headers = NaN
    const acc = new Acc()
    const t0 = performance.now()
    await instance.run(acc)
    const total = performance.now() - t0
    check(name, acc.summary(), expected)
    rows.push({ created: created - t0, headers: headers - t0, first: acc.firstAt - t0, total })
  }
  await instance.dispose()
  process.stdout.write(`RESULT ${JSON.stringify(rows)}\n`)
}

const self = fileURLToPath(import.meta.url)

const inChild = (server: string, name: string, scenario: string): Promise<ReadonlyArray<Marks>> =>
  resultOf<ReadonlyArray<Marks>>([self, "--child", server, name, scenario], `${name} on ${scenario}`)

const f2 = (n: number): string => (Number.isFinite(n) ? n.toFixed(2) : "—")

const main = async (): Promise<void> => {
  const given = (process.argv[2] ?? "").split("|").filter((n) => n !== "")
  // Every name is checked before the server starts: an unknown one fails at once (it used to throw
  // with the server listening, which kept the process alive).
  const scenarios = (process.argv[3] ?? "small,anthropic").split(",").map(Streams.scenario)
  const named = given.length === 0 ? undefined : await Clients.named(given)
  const processes = Number(process.argv[4] ?? 6)
  if (!Number.isInteger(processes) || processes < 1) throw new Error(`processes must be a positive integer`)
  const peers = Clients.peersInstalled()
  const server = await Server.start()
  try {
    process.stdout.write(
      `Where a cold request's time goes: requests 2–${requests} of ${processes} fresh processes per client ` +
        `(ms after the run began, medians)\n`
    )
    for (const s of scenarios) await measure(server.url, s, processes, named, peers)
  } finally {
    await server.close()
  }
}

/** One scenario's table: the named clients that speak its family, else the floor, ours and its peer. */
const measure = async (
  server: string,
  s: Streams.Scenario,
  processes: number,
  named: ReadonlyArray<Clients.Client> | undefined,
  peers: boolean
): Promise<void> => {
  const speaking = named?.filter((c) => c.families.includes(s.family))
  const skipped = named?.filter((c) => !c.families.includes(s.family)) ?? []
  const names = speaking?.map((c) => c.name) ??
    [
      "floor",
      "ours README (collectWith, undici)",
      ...(!peers ? [] : s.family === "anthropic" ? ["@anthropic-ai/sdk"] : ["openai 6"])
    ]
  const marks = new Map<string, { cold: Array<Marks>; first: Array<Marks> }>()
  for (const n of names) marks.set(n, { cold: [], first: [] })
  for (let p = 0; p < processes; p++) {
    for (const n of names) {
      const rows = await inChild(server, n, s.name)
      marks.get(n)!.first.push(rows[0]!)
      for (const row of rows.slice(1)) marks.get(n)!.cold.push(row)
    }
  }
  process.stdout.write(`\n### ${s.title}\n\n`)
  process.stdout.write(
    "| client | created | headers | first chunk | headers → first | total | first request: created / first chunk / total |\n"
  )
  process.stdout.write("|---|---|---|---|---|---|---|\n")
  for (const [n, { cold, first }] of marks) {
    const m = (rows: ReadonlyArray<Marks>, k: keyof Marks) => median(rows.map((r) => r[k]))
    process.stdout.write(
      `| ${n} | ${f2(m(cold, "created"))} | ${f2(m(cold, "headers"))} | ${f2(m(cold, "first"))} | ${
        f2(median(cold.map((r) => r.first - r.headers)))
      } | ${f2(m(cold, "total"))} | ${f2(m(first, "created"))} / ${f2(m(first, "first"))} / ${
        f2(m(first, "total"))
      } |\n`
    )
  }
  if (skipped.length > 0) {
    process.stdout.write(`\nNot measured (they do not speak ${s.family}): ${skipped.map((c) => c.name).join(", ")}\n`)
  }
}

if (process.argv[2] === "--child") {
  child(process.argv[3]!, process.argv[4]!, process.argv[5]!).catch((e: unknown) => {
    process.stderr.write(`phases child failed: ${e instanceof Error ? e.message : String(e)}\n`)
    process.exitCode = 1
  })
} else {
  main().catch((e: unknown) => {
    process.stderr.write(`phases failed: ${e instanceof Error ? e.message : String(e)}\n`)
    process.exitCode = 1
  })
}
