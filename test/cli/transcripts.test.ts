/**
 * The transcripts the command-line tool ships (src/cli/transcripts.ts) are exact copies of our
 * fixtures, so `chat --replay` plays what the provider tests check.
 */
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import * as Replay from "../../src/cli/replay.js"
import * as Transcripts from "../../src/cli/transcripts.js"

const fixture = (family: string, name: string): string =>
  readFileSync(new URL(`../fixtures/${family}/${name}`, import.meta.url), "utf8")

describe("the shipped transcripts", () => {
  it("cover every replay family, each a copy of its fixtures", () => {
    expect(Object.keys(Transcripts.transcripts).sort()).toStrictEqual(Replay.families.map((f) => f.family).sort())
    for (const [family, turns] of Object.entries(Transcripts.transcripts)) {
      const [toolTurn, answerTurn] = turns.files
      // On a mismatch, copy the fixture's text into src/cli/transcripts.ts (JSON string literals).
      expect(turns.toolTurn, `${family}/${toolTurn}`).toBe(fixture(family, toolTurn))
      expect(turns.answerTurn, `${family}/${answerTurn}`).toBe(fixture(family, answerTurn))
    }
  })

  it("map registry providers to families (Azure and unknown names have none)", () => {
    expect(Replay.familyOf("google")?.family).toBe("gemini")
    expect(Replay.familyOf("groq")?.family).toBe("openai-chat")
    expect(Replay.familyOf("openai-responses")?.family).toBe("openai-responses")
    expect(Replay.familyOf("ollama")?.family).toBe("ollama")
    expect(Replay.familyOf("azure")).toBeUndefined()
    expect(Replay.familyOf("nope")).toBeUndefined()
  })
})
