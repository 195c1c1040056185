import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { isDeepStrictEqual } from "node:util"
import { complete } from "../../src/internal/partialJson.js"
import { Incremental } from "../../src/internal/partialJsonIncremental.js"

/** What `complete` + `JSON.parse` show for a prefix: the semantics the incremental parser must match. */
const view = (prefix: string): unknown => {
  const text = complete(prefix)
  return text === undefined ? undefined : JSON.parse(text)
}

/** The text cut at the given points (any numbers: taken modulo the length, sorted, deduplicated). */
const split = (text: string, cuts: ReadonlyArray<number>): Array<string> => {
  const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b)
  const pieces: Array<string> = []
  let from = 0
  for (const point of [...points, text.length]) {
    pieces.push(text.slice(from, point))
    from = point
  }
  return pieces
}

const piecesOf = (text: string, size: number): Array<string> => {
  const pieces: Array<string> = []
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size))
  return pieces
}

/** Freezes a value and everything in it (iteratively; shared frozen parts are skipped). */
const deepFreeze = (value: unknown): void => {
  const stack: Array<unknown> = [value]
  while (stack.length > 0) {
    const item = stack.pop()
    if (typeof item === "object" && item !== null && !Object.isFrozen(item)) {
      Object.freeze(item)
      for (const member of Object.values(item)) stack.push(member)
    }
  }
}

interface Report {
  readonly piece: number
  readonly prefix: string
  readonly snapshot: unknown
}

/**
 * Feeds the pieces, taking a snapshot after each push that reports a change (and checking that a
 * push reporting none leaves the snapshot as it was).
 */
const feed = (pieces: ReadonlyArray<string>, parser = new Incremental()) => {
  const reports: Array<Report> = []
  let prefix = ""
  let last: unknown = undefined
  pieces.forEach((piece, index) => {
    prefix += piece
    if (parser.push(piece)) {
      last = parser.snapshot()
      reports.push({ piece: index, prefix, snapshot: last })
    } else {
      expect(parser.snapshot()).toBe(last)
    }
  })
  return { parser, reports }
}

describe("Incremental", () => {
  it("reports a small object fed one character at a time, holding back what the budget does not cover", () => {
    const text = "{\"a\":-1.5,\"s\":\"x\\u00e9\",\"t\":[true]}"
    const { parser, reports } = feed(text.split(""))
    // A change is reported once the characters read since the last report cover the spine's copy
    // cost: members of the open containers + 1 per container + 1 per 32 digits of a number in
    // progress. So `x` (cost 2, read 1 character after the report of "") waits for the `\`, and `t`
    // inside the array (cost 4, then 5 once `true` is a member) waits for the `]`. The `}` changes
    // nothing, so the last push reports nothing.
    expect(reports.map((r) => r.snapshot)).toStrictEqual([
      {},
      { a: -1 },
      { a: -1.5 },
      { a: -1.5, s: "" },
      { a: -1.5, s: "x" },
      { a: -1.5, s: "xé" },
      { a: -1.5, s: "xé", t: [] },
      { a: -1.5, s: "xé", t: [true] }
    ])
    expect(reports.map((r) => r.piece)).toStrictEqual([0, 6, 8, 14, 16, 21, 28, 33])
    expect(parser.done).toBe(true)
    expect(parser.error).toBe(undefined)
    expect(reports[reports.length - 1].snapshot).toStrictEqual(JSON.parse(text))
    // Each reported snapshot is what complete() shows for the same prefix.
    for (const r of reports) expect(r.snapshot).toStrictEqual(view(r.prefix))
    // One scan (35 characters) and the 8 copies of the spine: {} costs 1, {a:-1} 1 + 1 (the number
    // in progress), then 2, 2, 2, 2, and 3 + 1 for the object holding an open array, 4 at the end.
    expect(parser.work).toBe(text.length + 1 + 2 + 2 + 2 + 2 + 2 + 4 + 4)
  })

  it("reports every push that changes a small value, fed in 20-character pieces", () => {
    const small = fc.dictionary(
      fc.string({ maxLength: 8 }),
      fc.oneof(
        fc.string({ maxLength: 40, unit: "binary" }),
        fc.integer({ min: -999, max: 999 }),
        fc.boolean(),
        fc.constant(null),
        fc.array(fc.integer({ min: -999, max: 999 }), { maxLength: 3 })
      ),
      { maxKeys: 4 }
    )
    fc.assert(
      fc.property(fc.oneof(small, fc.integer(), fc.string({ maxLength: 60 })), fc.boolean(), (value, pretty) => {
        const text = pretty ? JSON.stringify(value, null, 2) : JSON.stringify(value)
        const parser = new Incremental()
        let prefix = ""
        let last: unknown = undefined
        for (const piece of piecesOf(text, 20)) {
          prefix += piece
          const expected = view(prefix)
          // The spine costs at most 5 + 4 + 4 < 20 here, so nothing is ever held back: a push
          // reports exactly when the value changed.
          expect(parser.push(piece)).toBe(!isDeepStrictEqual(expected, last))
          expect(parser.snapshot()).toStrictEqual(expected)
          last = expected
        }
        expect(parser.done).toBe(true)
        expect(last).toStrictEqual(JSON.parse(text))
      }),
      { numRuns: 300 }
    )
  })

  it("matches complete() + JSON.parse at every report, whatever the value and the cuts, and never mutates a snapshot", () => {
    const json = fc.oneof(fc.jsonValue(), fc.jsonValue({ stringUnit: "binary" }))
    fc.assert(
      fc.property(json, fc.boolean(), fc.array(fc.nat(), { maxLength: 40 }), (value, pretty, cuts) => {
        const text = pretty ? JSON.stringify(value, null, 2) : JSON.stringify(value)
        for (const pieces of [split(text, cuts), text.split("")]) {
          const parser = new Incremental()
          const handedOut: Array<{ snapshot: unknown; json: string | undefined }> = []
          let prefix = ""
          for (const piece of pieces) {
            prefix += piece
            if (!parser.push(piece)) continue
            const snapshot = parser.snapshot()
            expect(snapshot).toStrictEqual(view(prefix))
            // Frozen when handed out: any later write by the parser would throw (modules are strict).
            handedOut.push({ snapshot, json: JSON.stringify(snapshot) })
            deepFreeze(snapshot)
          }
          expect(parser.error).toBe(undefined)
          expect(parser.done).toBe(true)
          expect(parser.snapshot()).toStrictEqual(JSON.parse(text))
          for (const h of handedOut) expect(JSON.stringify(h.snapshot)).toBe(h.json)
        }
      }),
      { numRuns: 300 }
    )
  })

  it("shares finished values between snapshots and copies only the open containers", () => {
    const { reports } = feed(piecesOf("[{\"a\":[1,2]},{\"b\":\"long enough text\"},{\"c\":3}]", 6))
    const last = reports[reports.length - 1].snapshot as Array<unknown>
    const later = reports.slice(0, -1).filter((r) => (r.snapshot as Array<unknown>).length >= 2)
    expect(later.length).toBeGreaterThan(3)
    // The first element was finished before any snapshot showed a second one: one instance for all.
    for (const r of later) expect((r.snapshot as Array<unknown>)[0]).toBe(last[0])
    // While the open containers are fresh copies each time.
    expect(later[0].snapshot).not.toBe(later[1].snapshot)
  })

  it("keeps a \"__proto__\" key an own data property, as JSON.parse does, at every step", () => {
    const text =
      "{\"__proto__\":{\"polluted\":true},\"list\":[{\"__proto__\":null}],\"constructor\":1,\"toString\":\"x\"}"
    const { parser, reports } = feed(text.split(""))
    const protoShown = reports.filter((r) => Object.hasOwn(r.snapshot as object, "__proto__"))
    expect(protoShown.length).toBeGreaterThan(3) // also while its value is still open: {"__proto__":{}}
    for (const r of reports) {
      expect(Object.getPrototypeOf(r.snapshot)).toBe(Object.prototype)
      expect(r.snapshot).toStrictEqual(view(r.prefix))
    }
    const final = parser.snapshot() as Record<string, unknown>
    expect(final).toStrictEqual(JSON.parse(text))
    expect(Object.getPrototypeOf(final)).toBe(Object.prototype)
    expect(Object.getOwnPropertyDescriptor(final, "__proto__")?.value).toStrictEqual({ polluted: true })
    expect(Object.keys(final)).toStrictEqual(["__proto__", "list", "constructor", "toString"])
    const inner = (final.list as Array<Record<string, unknown>>)[0]
    expect(Object.getPrototypeOf(inner)).toBe(Object.prototype)
    expect(Object.getOwnPropertyDescriptor(inner, "__proto__")?.value).toBe(null)
    expect(({} as Record<string, unknown>).polluted).toBe(undefined)
  })

  it("keeps the first position of a repeated key and the last value, as JSON.parse does", () => {
    const keys = Array.from({ length: 40 }, (_, i) => `"k${i}":${i}`).join(",") // past the Map threshold
    for (const text of ["{\"a\":1,\"b\":2,\"a\":{\"x\":[3]}}", `{${keys},"k3":"again","k39":[{"deep":"er"}]}`]) {
      const { parser, reports } = feed(piecesOf(text, 3))
      for (const r of reports) expect(r.snapshot).toStrictEqual(view(r.prefix))
      expect(parser.snapshot()).toStrictEqual(JSON.parse(text))
      expect(Object.keys(parser.snapshot() as object)).toStrictEqual(Object.keys(JSON.parse(text)))
    }
  })

  it("decodes every escape, surrogate pairs included, cut at any point", () => {
    const text = JSON.stringify("a\"\\/\b\f\n\r\t\u0000é😀\ud800z").replace("/", "\\/") + " "
    expect(text).toContain("\\/")
    const { parser, reports } = feed(text.split(""))
    for (const r of reports) expect(r.snapshot).toStrictEqual(view(r.prefix))
    expect(parser.snapshot()).toBe(JSON.parse(text))
    // A half-written escape is left out until it is complete.
    const p = new Incremental()
    p.push("[\"ab\\u00")
    expect(p.snapshot()).toStrictEqual(["ab"])
    expect(p.push("e9")).toBe(true)
    expect(p.snapshot()).toStrictEqual(["abé"])
    expect(p.push("\\ud83d")).toBe(true)
    expect(p.snapshot()).toStrictEqual(["abé\ud83d"]) // a lone high surrogate, as complete() shows it
    expect(p.push("\\ude00")).toBe(true)
    expect(p.snapshot()).toStrictEqual(["abé😀"])
  })

  it("shows a number's valid prefix and reads every number exactly as JSON.parse does", () => {
    const step = (pieces: ReadonlyArray<string>) => feed(pieces).reports.map((r) => r.snapshot)
    expect(step(["[", "-", "0", ".", "5", "e", "-", "2", "]"])).toStrictEqual([[], [-0], [-0.5], [-0.005]])
    expect(Object.is((step(["[-0"])[0] as Array<number>)[0], -0)).toBe(true)
    expect(step(["[1", ".", "0", "0", "e", "0", "1", "]"])).toStrictEqual([[1], [10]]) // 1.00, 1.00e0 equal 1
    expect(step(["1", "2", " "])).toStrictEqual([1, 12]) // a bare number is complete at each digit
    expect(step(["t", "r", "u", "e"])).toStrictEqual([true])

    // 1 + 2^-53 is exactly halfway between 1 and the next double: it rounds to even (1), but any
    // non-zero digit after it, even 1000 zeros later (past the 800 digits kept), rounds it up.
    const half = "1.00000000000000011102230246251565404236316680908203125"
    // 2^-1075, halfway between 0 and the smallest double: 752 significant digits.
    const digits = (5n ** 1075n).toString()
    const tiny = "0." + "0".repeat(1075 - digits.length) + digits
    const cases = [
      half,
      half + "0".repeat(1000) + "1",
      tiny,
      tiny + "0".repeat(100) + "1",
      "-" + tiny + "1",
      "9".repeat(400),
      "1" + "0".repeat(308) + ".5",
      "1e99999999999999999999",
      "-1e-99999999999999999999",
      "0e99999",
      "-0.0e-5",
      "123456789012345678901234567890e-30"
    ]
    expect(JSON.parse(cases[0])).toBe(1)
    expect(JSON.parse(cases[1])).toBe(1 + 2 ** -52)
    expect(JSON.parse(cases[2])).toBe(0)
    expect(JSON.parse(cases[3])).toBe(5e-324)
    for (const number of cases) {
      for (const text of [number, `[${number}]`]) {
        const pieces = piecesOf(text, 7)
        const { parser, reports } = feed(pieces)
        for (const r of reports) expect(r.snapshot).toStrictEqual(view(r.prefix))
        expect(parser.snapshot()).toStrictEqual(JSON.parse(text))
        // Inside an array, the usual bound; bare, each push re-reads at most 800 digits (25 units).
        expect(parser.work).toBeLessThanOrEqual(2 * text.length + (text === number ? 25 * pieces.length : 0))
      }
    }
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.stringMatching(/^(0|[1-9][0-9]{0,1200})$/),
        fc.option(fc.stringMatching(/^[0-9]{1,1200}$/)),
        fc.option(fc.stringMatching(/^[eE][+-]?[0-9]{1,25}$/)),
        fc.array(fc.nat(), { maxLength: 30 }),
        (negative, int, frac, exp, cuts) => {
          const text = `[${negative ? "-" : ""}${int}${frac === null ? "" : "." + frac}${exp ?? ""}]`
          const { parser, reports } = feed(split(text, cuts))
          for (const r of reports) expect(r.snapshot).toStrictEqual(view(r.prefix))
          expect(parser.snapshot()).toStrictEqual(JSON.parse(text))
        }
      ),
      { numRuns: 200 }
    )
  })

  describe("stays linear: total work counted, not timed", () => {
    const shapes: Record<string, string> = {
      "an array of 20,000 objects": JSON.stringify(
        Array.from({ length: 20_000 }, (_, i) => ({ id: i, name: `item ${i}`, tags: ["a", "b"], price: i / 8 }))
      ),
      "an object with a single 1 MB string": JSON.stringify({ text: "line \"quoted\" é\u0001\n".repeat(55_000) }),
      "an object of 50,000 keys": JSON.stringify(
        Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`key${i}`, `value ${i}`]))
      )
    }
    for (const [name, text] of Object.entries(shapes)) {
      it(name, () => {
        expect(text.length).toBeGreaterThan(1_000_000)
        const parser = new Incremental()
        let changes = 0
        let read = 0
        let prefixes = 0
        for (const piece of piecesOf(text, 20)) {
          read += piece.length
          prefixes += read // what re-reading the whole prefix at each push would scan
          if (parser.push(piece)) {
            changes++
            parser.snapshot()
          }
        }
        // The bound: the scan reads each character once (n); each snapshot, taken right after the
        // push that reported it, copies the spine, whose cost the characters read since the previous
        // report cover (that is when a change is reported), and those stretches are disjoint (≤ n).
        expect(parser.work).toBeLessThanOrEqual(2 * text.length)
        expect(parser.work).toBeGreaterThanOrEqual(text.length)
        expect(changes).toBeGreaterThanOrEqual(100)
        // A parser that re-read each prefix (as complete() does) would scan Σ prefix lengths, about
        // n² / 40 here: thousands of times the bound above.
        expect(prefixes).toBeGreaterThan(100 * text.length)
        expect(parser.done).toBe(true)
        // The text is JSON.stringify's: the final value deep-equals JSON.parse(text) iff it writes back the same.
        expect(JSON.stringify(parser.snapshot())).toBe(text)
      })
    }

    it("within 3 × the length when snapshots are taken late, and 1 × when never taken", () => {
      const text = shapes["an array of 20,000 objects"]
      const late = new Incremental()
      const never = new Incremental()
      let pushes = 0
      for (const piece of piecesOf(text, 20)) {
        late.push(piece)
        never.push(piece)
        if (++pushes % 7 === 0) late.snapshot()
      }
      expect(late.work).toBeLessThanOrEqual(3 * text.length)
      expect(never.work).toBe(text.length)
    })

    it("for a deep value too", () => {
      const text = "[".repeat(64) + "1,".repeat(200_000) + "2" + "]".repeat(64)
      const { parser, reports } = feed(piecesOf(text, 20))
      expect(parser.work).toBeLessThanOrEqual(2 * text.length)
      // 64 open arrays + 2 characters per member: reports grow apart by half each time, so few.
      expect(reports.length).toBeGreaterThanOrEqual(10)
      expect(JSON.stringify(parser.snapshot())).toBe(text)
    })
  })

  it("sets error on text that can no longer be JSON, and keeps the last good value", () => {
    const cases: ReadonlyArray<readonly [string, unknown, string]> = [
      ["{\"a\":1}}", { a: 1 }, "Unexpected \"}\" after the JSON value at position 7"],
      ["[1,,2]", [1], "Unexpected \",\" at position 3"],
      ["[01]", [0], "Unexpected \"1\" in a number at position 2"],
      ["[1.]", [1], "Unexpected \"]\" in a number at position 3"],
      ["[-]", [], "Unexpected \"]\" in a number at position 2"],
      ["{\"a\" 1}", {}, "Unexpected \"1\" where \":\" was expected at position 5"],
      ["{\"a\":1,}", { a: 1 }, "Unexpected \"}\" where a key was expected at position 7"],
      ["[\"a\\x\"]", ["a"], "Bad escape \\x in a string at position 4"],
      ["[\"a\\u12g4\"]", ["a"], "Bad \\u escape (\"g\" is not a hex digit) in a string at position 7"],
      ["[\"a\nb\"]", ["a"], "Unescaped control character U+000A in a string at position 3"],
      ["[tru e]", [true], "Unexpected \" \" in true at position 4"],
      ["[1] 2", [1], "Unexpected \"2\" after the JSON value at position 4"],
      ["{\"a\":[1}", { a: [1] }, "Unexpected \"}\" at position 7"]
    ]
    for (const [text, good, message] of cases) {
      expect(() => JSON.parse(text)).toThrow()
      // Fed at once: the push that meets the bad character still reports what came before it.
      const whole = new Incremental()
      whole.push(text)
      expect(whole.snapshot()).toStrictEqual(good)
      expect(whole.error).toBe(message)
      expect(whole.done).toBe(false)
      // Fed one character at a time: a change held back (`1` in `{"a":[1`) is reported by the push
      // that meets the bad character; then the snapshot stays the last good value, pushes return false.
      const { parser, reports } = feed(text.split(""))
      expect(parser.error).toBe(message)
      expect(reports[reports.length - 1].snapshot).toStrictEqual(good)
      const work = parser.work
      expect(parser.push("]")).toBe(false)
      expect(parser.push("")).toBe(false)
      expect(parser.snapshot()).toStrictEqual(good)
      expect(parser.work).toBe(work)
      expect(parser.error).toBe(message)
    }
  })

  it("reports nothing before a value starts", () => {
    const p = new Incremental()
    expect(p.push("  \n")).toBe(false)
    expect(p.snapshot()).toBe(undefined)
    expect(p.push("-")).toBe(false) // `-` alone shows nothing
    expect(p.snapshot()).toBe(undefined)
    expect(p.done).toBe(false)
    expect(p.push("3")).toBe(true)
    expect(p.snapshot()).toBe(-3)
    expect(p.done).toBe(true)
  })

  it("stops with an error past the maximum depth", () => {
    const ok = new Incremental()
    ok.push("[".repeat(64) + "]".repeat(64))
    expect(ok.done).toBe(true)
    expect(ok.error).toBe(undefined)

    const deep = new Incremental()
    deep.push("[".repeat(64))
    expect(deep.error).toBe(undefined)
    expect(deep.push("[1]")).toBe(false)
    expect(deep.error).toBe(
      "The JSON is nested too deeply (more than 64 levels of arrays and objects) at position 64"
    )
    expect(deep.snapshot()).toStrictEqual(JSON.parse("[".repeat(64) + "]".repeat(64)))
    expect(deep.push("]")).toBe(false)

    const three = new Incremental({ maxDepth: 3 })
    const { reports } = feed(["{\"a\":[", "[  ", "{\"b\":1}]]}"], three)
    expect(three.error).toBe(
      "The JSON is nested too deeply (more than 3 levels of arrays and objects) at position 9"
    )
    expect(reports.map((r) => r.snapshot)).toStrictEqual([{ a: [] }, { a: [[]] }])

    // A hundred thousand levels: no recursion anywhere, the parser just stops.
    const hostile = new Incremental()
    hostile.push("{\"a\":".repeat(100_000))
    expect(hostile.error).toContain("nested too deeply")
  })
})
