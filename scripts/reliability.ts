/**
 * `npm run reliability`: runs the reliability suites (test/reliability, the Chaos tests) and renders
 * RELIABILITY.md from their own output — the figures the load, cancellation and secrets suites
 * write (test/reliability/results.ts) and the test counts of Vitest's JSON report.
 */
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"

const root = path.resolve(import.meta.dirname, "..")
const dir = mkdtempSync(path.join(tmpdir(), "effect-llm-stream-reliability-"))
const report = path.join(dir, "vitest.json")
execFileSync(
  process.execPath,
  [
    path.join(root, "node_modules/vitest/vitest.mjs"),
    "run",
    "test/reliability",
    "test/testing/Chaos.test.ts",
    "test/examples/chaos.test.ts",
    "--reporter=default",
    "--reporter=json",
    `--outputFile.json=${report}`
  ],
  { cwd: root, stdio: "inherit", env: { ...process.env, RELIABILITY_RESULTS: dir } }
)

const read = <A>(name: string): A => JSON.parse(readFileSync(path.join(dir, `${name}.json`), "utf8")) as A

interface Vitest {
  readonly testResults: ReadonlyArray<{
    readonly name: string
    readonly assertionResults: ReadonlyArray<
      { readonly status: string; readonly ancestorTitles: ReadonlyArray<string> }
    >
  }>
}
const vitest = read<Vitest>("vitest")
const tests = (file: string) => {
  const results = vitest.testResults.filter((r) => r.name.endsWith(file)).flatMap((r) => r.assertionResults)
  return { passed: results.filter((a) => a.status === "passed").length, total: results.length }
}

const load = read<{
  streams: number
  seed: number
  families: number
  attempts: number
  faults: Record<string, number>
  outcomes: Record<string, number>
  problemCount: number
  usage: { inputTokens: number; outputTokens: number; errors: number }
  meter: { requests: number; errors: number; inputTokens: number; outputTokens: number }
  openAfter: number
  heapMb: { baseline: number; peak: number; after: number }
  elapsedMs: number
}>("load")
const cancel = read<
  { cases: number; families: number; points: ReadonlyArray<string>; closed: number; fibersDone: number }
>(
  "cancel"
)
const secrets = read<{ families: number; paths: ReadonlyArray<string>; checked: number }>("secrets")
const badInput = tests("test/reliability/badInput.test.ts")
const chaos = tests("test/testing/Chaos.test.ts")
const all = vitest.testResults.flatMap((r) => r.assertionResults)
const failed = all.filter((a) => a.status !== "passed").length

const row = (cells: ReadonlyArray<string | number>) => `| ${cells.join(" | ")} |`
const faultRows = Object.entries(load.faults).sort(([a], [b]) => a.localeCompare(b))
const outcomeText = Object.entries(load.outcomes).map(([k, v]) => `${k} ${v}`).join(", ")

const md = `# Reliability

The promise: whatever the network or the provider does, the consumer gets every chunk that arrived,
then exactly one terminal chunk, with nothing lost, nothing leaked and no key exposed. These figures
are produced by the suites themselves (\`npm run reliability\` runs them and rewrites this file);
the same suites run in \`npm test\`.

Last run: ${all.length} tests, ${failed} failed.

## Summary

| suite | held | lost |
|---|---|---|
${
  row([
    "load",
    `${load.streams} concurrent streams over ${load.families} provider families, ${load.attempts} attempts, ${
      load.attempts - (load.faults["none"] ?? 0)
    } faults injected`,
    `${load.problemCount} streams differed from their prediction`
  ])
}
${
  row([
    "usage",
    `UsageMeter ${load.meter.inputTokens} in / ${load.meter.outputTokens} out / ${load.meter.requests} requests / ${load.meter.errors} errors; the streams' own usages ${load.usage.inputTokens} / ${load.usage.outputTokens} / ${load.usage.errors} errors`,
    `${
      Math.abs(load.meter.inputTokens - load.usage.inputTokens) +
      Math.abs(load.meter.outputTokens - load.usage.outputTokens)
    } tokens`
  ])
}
${row(["connections", "server open requests after the run", String(load.openAfter)])}
${
  row([
    "heap",
    `baseline ${load.heapMb.baseline} MB, peak ${load.heapMb.peak} MB, after ${load.heapMb.after} MB (after \`gc()\`)`,
    `${Math.round((load.heapMb.after - load.heapMb.baseline) * 10) / 10} MB kept`
  ])
}
${
  row([
    "cancellation",
    `${cancel.cases} interruptions (${cancel.families} families × ${cancel.points.join(" / ")} × 4 seeded delays)`,
    `${cancel.cases - cancel.closed} sockets left open, ${
      cancel.cases - cancel.fibersDone
    } fibers running; the process exited on its own`
  ])
}
${
  row([
    "secrets",
    `${secrets.checked} error paths (${secrets.families} families × ${secrets.paths.length}) with a fake key echoed by the server`,
    "0 appearances in chunks, errors, log lines or span attributes"
  ])
}
${
  row([
    "bad input",
    `${badInput.passed} of ${badInput.total} cases passed (${secrets.families} families × ${
      badInput.total / secrets.families
    } cases)`,
    `${badInput.total - badInput.passed} failed`
  ])
}
${
  row([
    "Chaos",
    `${chaos.passed} of ${chaos.total} tests of the user-facing fault injection passed`,
    `${chaos.total - chaos.passed} failed`
  ])
}

## Load: faults injected and survived

${load.streams} streams at once (seed ${load.seed}), one loopback server, each family's real layer over
\`FetchHttpClient\`, retries 3 (5 ms apart, Retry-After honoured), idle timeout 3 s. Each attempt
met one of these, drawn by seed; each stream's chunks were then compared with what the faults of its
attempts predict (the answer whole, or the text so far and the right error, or the error alone when
the retries ran out), exactly.

| what the server did | attempts |
|---|---|
${faultRows.map(([k, v]) => row([k, v])).join("\n")}

Outcomes: ${outcomeText}. Time: ${(load.elapsedMs / 1000).toFixed(1)} s on this machine (not a benchmark).

## Secrets: the error paths

${secrets.paths.map((p) => `- ${p}`).join("\n")}

## Bad input

test/reliability/badInput.test.ts: for every family, an invalid JSON event, wrong field types (a
number for text, strings for token counts, an array for tool arguments), an event over the size cap,
an endless event, binary garbage, an HTML page with status 200, a mislabelled stream, a JSON error on
a 200, an empty 200 body, 5xx with an empty body (with and without a retry), a 401 with an HTML body
and a body cut inside a UTF-8 character — each with its exact outcome.

Besides: the conformance suite (test/support/conformance.ts) runs random re-splitting, cuts at every
(or a sample of) byte offset, dropped connections and random garbage injected anywhere on every
recording and transcript of every family.

## Rerun

\`\`\`sh
npm run reliability
\`\`\`
`
writeFileSync(path.join(root, "RELIABILITY.md"), md)
process.stdout.write(`RELIABILITY.md written (${all.length} tests, ${failed} failed)\n`)
