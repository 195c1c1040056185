/**
 * Cancellation at random points (issue 12): ./cancel.ts runs in its own Node process — every
 * family, interrupted while waiting for the headers, mid-body and during a retry's backoff, after
 * seeded delays — and must exit on its own (nothing left running: no fiber, timer or socket), with
 * every connection seen closed by the server, every consumer fiber done and no request after the
 * interruption.
 */
import { execFile } from "node:child_process"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { families } from "./families.js"
import { writeResults } from "./results.js"

const script = path.join(import.meta.dirname, "cancel.ts")

interface Case {
  readonly family: string
  readonly point: string
  readonly delayMs: number
  readonly closed: boolean
  readonly fiberDone: boolean
  readonly requests: number
}

describe("cancellation at random points, every family", () => {
  it("the server sees every socket close, every fiber is done, and the process exits on its own", async () => {
    const { code, signal, stdout } = await new Promise<{ code: number | null; signal: string | null; stdout: string }>(
      (resolve) => {
        const child = execFile(
          process.execPath,
          ["--conditions=effect-llm-stream/source", "--import", "tsx", script],
          { timeout: 60_000 },
          (_error, out) => resolve({ code: child.exitCode, signal: child.signalCode, stdout: out })
        )
      }
    )
    // Not killed by the timeout: it ended by itself, with nothing left to run.
    expect([code, signal]).toStrictEqual([0, null])
    const cases = JSON.parse(stdout) as ReadonlyArray<Case>
    expect(cases.length).toBe(families.length * 3 * 4)
    expect(new Set(cases.map((c) => `${c.family}/${c.point}`)).size).toBe(families.length * 3)
    expect(cases.filter((c) => !c.closed || !c.fiberDone || c.requests !== 1)).toStrictEqual([])
    writeResults("cancel", {
      cases: cases.length,
      families: families.length,
      points: ["headers", "body", "backoff"],
      closed: cases.filter((c) => c.closed).length,
      fibersDone: cases.filter((c) => c.fiberDone).length,
      exitedOnItsOwn: true
    })
  }, 90_000)
})
