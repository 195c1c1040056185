/**
 * The one way tests read the third-party recordings in `../shared/fixtures/recorded/` (real provider
 * streams from the Vercel AI SDK's fixtures, Apache-2.0). They are read in place and never copied
 * into this repository; on a machine without them, their suites are skipped with a visible notice.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe } from "vitest"

/** The repository root: this file lives in `<root>/test/support/`. */
const repoRoot = fileURLToPath(new URL("../../", import.meta.url))

/** `<repo root>/../shared/fixtures/recorded`, where the recordings live when present. */
export const recordedDir = join(repoRoot, "..", "shared", "fixtures", "recorded")

/** Whether the recordings are present on this machine. */
export const hasRecorded = existsSync(recordedDir)

/** The folder of one family (`openai-chat`, `anthropic` …). */
export const familyDir = (family: string): string => join(recordedDir, family)

/** The recording file names of one family, sorted; empty when the folder is absent. */
export const listRecorded = (family: string): Array<string> =>
  existsSync(familyDir(family)) ? readdirSync(familyDir(family)).filter((f) => f.endsWith(".txt")).sort() : []

/** The non-empty lines of one recording (one event payload per line). */
export const readRecorded = (family: string, fileName: string): Array<string> =>
  readFileSync(join(familyDir(family), fileName), "utf8")
    .split("\n")
    .map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line))
    .filter((line) => line.trim() !== "")

/**
 * Declares a suite over one family's recordings. Where the folder is absent the suite is registered
 * as skipped and a warning says why, so `npm test` passes on a fresh clone. Read files inside `it`
 * bodies: a skipped suite's body still runs to collect its tests.
 */
export const describeRecorded = (family: string, fn: () => void): void => {
  const present = existsSync(familyDir(family))
  if (!present) {
    console.warn(
      `[recorded] skipped the "${family}" recordings suite: ../shared/fixtures/recorded/${family} is absent ` +
        `(the third-party recordings live outside this repository, in ../shared/fixtures)`
    )
  }
  describe.runIf(present)(`recorded ${family} streams`, fn)
}
