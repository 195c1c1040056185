/**
 * Where the reliability suites leave their figures for scripts/reliability.ts to render into
 * RELIABILITY.md: one JSON file per suite under the system's temporary directory (never in the
 * repository), so a run of `npm test` leaves the checkout clean.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"

/** The directory the figures go to (`RELIABILITY_RESULTS` overrides it). */
export const resultsDir = (): string =>
  process.env["RELIABILITY_RESULTS"] ?? path.join(tmpdir(), "effect-llm-stream-reliability")

/** Writes one suite's figures. */
export const writeResults = (name: string, figures: unknown): void => {
  const dir = resultsDir()
  mkdirSync(dir, { recursive: true })
  writeFileSync(path.join(dir, `${name}.json`), JSON.stringify(figures, null, 2) + "\n")
}

/** Reads one suite's figures, or undefined when that suite has not run. */
export const readResults = (name: string): unknown => {
  try {
    return JSON.parse(readFileSync(path.join(resultsDir(), `${name}.json`), "utf8"))
  } catch {
    return undefined
  }
}
