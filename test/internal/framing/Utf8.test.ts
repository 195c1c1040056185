import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { Utf8Reads } from "../../../src/internal/framing/Utf8.js"
import { splitAnywhere } from "../../support/split.js"

const encoder = new TextEncoder()

/** What one `TextDecoder` in streaming mode makes of the reads: the text, and whether a character was left unfinished. */
const reference = (reads: ReadonlyArray<Uint8Array>): { text: string; cut: boolean } => {
  const d = new TextDecoder("utf-8")
  let text = ""
  for (const r of reads) text += d.decode(r, { stream: true })
  const rest = d.decode()
  return { text, cut: rest !== "" }
}

const ours = (reads: ReadonlyArray<Uint8Array>): { text: string; cut: boolean } => {
  const d = new Utf8Reads()
  let text = ""
  for (const r of reads) text += d.decode(r)
  return { text, cut: d.end() }
}

/** Bytes that make valid, invalid and half characters: ASCII, leads of every length, continuations, never-valid bytes. */
const byte = fc.oneof(
  fc.integer({ min: 0x00, max: 0x7f }),
  fc.integer({ min: 0x80, max: 0xbf }),
  fc.constantFrom(0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff, 0xbb, 0xbf)
)

describe("Utf8Reads", () => {
  it("decodes as a streaming TextDecoder does, however the bytes are split (valid or not)", () => {
    fc.assert(
      fc.property(
        fc.array(byte, { maxLength: 80 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        (bytes, cuts) => {
          const reads = splitAnywhere(Uint8Array.from(bytes), cuts)
          expect(ours(reads)).toStrictEqual(reference(reads))
        }
      ),
      { numRuns: 3000 }
    )
  })

  it("decodes text of every width, switching between its two decoders, as TextDecoder does", () => {
    const piece = fc.constantFrom("a", "data: {\"x\":1}\n\n", "é", "€", "中文", "😀", "\uFEFF", "\r\n", "\u0000")
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 60 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        (pieces, cuts) => {
          const reads = splitAnywhere(encoder.encode(pieces.join("")), cuts)
          const got = ours(reads)
          expect(got).toStrictEqual(reference(reads))
          expect(got.text).toBe(pieces.join("").replace(/^\uFEFF/, ""))
        }
      ),
      { numRuns: 2000 }
    )
  })

  it("drops one BOM at the start of the body, split or not, and keeps a U+FEFF anywhere else", () => {
    const bom = encoder.encode("\uFEFF")
    expect(ours([bom, encoder.encode("hi")]).text).toBe("hi")
    expect(ours([bom.subarray(0, 1), bom.subarray(1, 2), bom.subarray(2), encoder.encode("hi")]).text).toBe("hi")
    expect(ours([new Uint8Array(0), encoder.encode("\uFEFF\uFEFFx")]).text).toBe("\uFEFFx")
    // A read that begins with U+FEFF after text went out: text, not a BOM.
    expect(ours([encoder.encode("a"), encoder.encode("\uFEFFb")]).text).toBe("a\uFEFFb")
  })

  it("joins a character split across reads and says when the body ended inside one", () => {
    const euro = encoder.encode("€")
    const d = new Utf8Reads()
    expect(d.decode(euro.subarray(0, 1))).toBe("")
    expect(d.decode(euro.subarray(1, 2))).toBe("")
    expect(d.decode(Uint8Array.of(euro[2]!, 0x41))).toBe("€A")
    expect(d.end()).toBe(false)
    const cut = new Utf8Reads()
    expect(cut.decode(encoder.encode("ok😀").subarray(0, 5))).toBe("ok")
    expect(cut.end()).toBe(true)
  })

  it("turns invalid bytes into U+FFFD, as the WHATWG decoder does", () => {
    expect(ours([Uint8Array.of(0x41, 0xff, 0x80, 0xc0, 0xaf, 0x42)])).toStrictEqual({
      text: "A\uFFFD\uFFFD\uFFFD\uFFFDB",
      cut: false
    })
    // A surrogate's encoding is never valid: each byte is one U+FFFD, split or not.
    expect(ours([Uint8Array.of(0xed, 0xa0), Uint8Array.of(0x80)]).text).toBe("\uFFFD\uFFFD\uFFFD")
  })

  it("bodies decoded at once, their reads interleaved, each decode as on their own (nothing shared leaks)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(byte, { maxLength: 60 }), { minLength: 2, maxLength: 4 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        fc.array(fc.nat(), { maxLength: 40 }),
        (bodies, cuts, order) => {
          const reads = bodies.map((b) => splitAnywhere(Uint8Array.from(b), cuts))
          const decoders = bodies.map(() => new Utf8Reads())
          const texts = bodies.map(() => "")
          const next = bodies.map(() => 0)
          // Takes turns in the order given, then finishes every body in turn.
          const turns = [...order.map((n) => n % bodies.length), ...bodies.flatMap((_, i) => reads[i]!.map(() => i))]
          for (const i of turns) {
            const read = reads[i]![next[i]!]
            if (read === undefined) continue
            next[i]!++
            texts[i] += decoders[i]!.decode(read)
          }
          bodies.forEach((_, i) => {
            expect({ text: texts[i], cut: decoders[i]!.end() }).toStrictEqual(reference(reads[i]!))
          })
        }
      ),
      { numRuns: 1000 }
    )
  })
})
