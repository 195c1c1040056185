/**
 * Load (issue 12): 1,000 concurrent streams over the seven families against one loopback server
 * with faults drawn by seed (./load.ts, run in its own Node process with `--expose-gc` so the heap
 * can be measured after a real collection). Every stream ends with exactly one terminal chunk and
 * gives exactly what the faults of its attempts predict (nothing lost, nothing repeated); the
 * UsageMeter's totals are the sum of the streams' usages; no request is left open; the heap comes
 * back near its baseline. The figures go to RELIABILITY.md through scripts/reliability.ts.
 */
import { execFile } from "node:child_process"
import * as path from "node:path"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"
import { writeResults } from "./results.js"

const script = path.join(import.meta.dirname, "load.ts")

interface Figures {
  readonly streams: number
  readonly attempts: number
  readonly faults: Readonly<Record<string, number>>
  readonly outcomes: Readonly<Record<string, number>>
  readonly problems: ReadonlyArray<string>
  readonly problemCount: number
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number; readonly errors: number }
  readonly meter: {
    readonly requests: number
    readonly errors: number
    readonly inputTokens: number
    readonly outputTokens: number
  }
  readonly openAfter: number
  readonly heapMb: { readonly baseline: number; readonly peak: number; readonly after: number }
  readonly gc: boolean
  readonly elapsedMs: number
}

describe("load: 1,000 concurrent streams with faults, all seven families", () => {
  it(
    "every stream ends as its faults predict, the meter adds up, nothing stays open, the heap comes back",
    async () => {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ["--expose-gc", "--conditions=effect-llm-stream/source", "--import", "tsx", script],
        { timeout: 120_000, env: { ...process.env, LOAD_STREAMS: "1000", LOAD_SEED: "12" } }
      )
      const figures = JSON.parse(stdout) as Figures
      writeResults("load", figures)
      expect(figures.problems).toStrictEqual([])
      expect(figures.problemCount).toBe(0)
      expect(figures.streams).toBe(1000)
      // Every fault kind was met, and more attempts were made than streams (the retries).
      expect(Object.keys(figures.faults).sort()).toStrictEqual(
        ["drop_after", "drop_before", "in_band_after", "in_band_before", "none", "rate_limit", "stall"]
      )
      expect(figures.attempts).toBe(Object.values(figures.faults).reduce((a, b) => a + b, 0))
      expect(figures.attempts).toBeGreaterThan(1000)
      expect(Object.values(figures.outcomes).reduce((a, b) => a + b, 0)).toBe(1000)
      expect(figures.meter).toStrictEqual({ requests: 1000, ...figures.usage })
      expect(figures.openAfter).toBe(0)
      expect(figures.gc).toBe(true)
      // Near the baseline: a generous bound (connection pools and JIT code stay), far below the peak.
      expect(figures.heapMb.after - figures.heapMb.baseline).toBeLessThan(24)
    },
    150_000
  )
})
