import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as Redact from "../../src/internal/redact.js"

const key = "sk-test-QQQQ9999ZZZZ"
const mask = Redact.make([key])!

/** JSON values whose strings cannot hold any piece of the key (their letters are not in it). */
const clean = fc.jsonValue({
  maxDepth: 4,
  stringUnit: fc.constantFrom("a", "b", "c", " ", "é", "\n")
})

/** `value` with the key put into its first string, or as a new member where it has none. */
const withKey = (value: unknown): unknown => {
  let put = false
  const go = (v: unknown): unknown => {
    if (!put && typeof v === "string") {
      put = true
      return `${v}${key}`
    }
    if (Array.isArray(v)) return v.map(go)
    if (typeof v === "object" && v !== null) {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, go(x)]))
    }
    return v
  }
  const out = go(value)
  return put ? out : { wrapped: out, echo: key }
}

describe("Redact.deep", () => {
  it("gives the value itself when nothing in it holds a piece of a key", () => {
    fc.assert(fc.property(clean, (value) => {
      expect(mask.deep(value)).toBe(value)
    }))
  })

  it("gives a masked copy when something does, and leaves the value as it was", () => {
    fc.assert(fc.property(clean, (base) => {
      const value = withKey(base)
      const before = JSON.stringify(value)
      const masked = mask.deep(value)
      expect(masked).not.toBe(value)
      expect(JSON.stringify(value)).toBe(before)
      expect(JSON.stringify(masked)).toBe(before.replace(key, Redact.placeholder))
    }))
  })

  it("copies only the containers on the way to a masked string", () => {
    const untouched = { list: ["a", "b"], n: 1 }
    const value = { untouched, path: { to: ["x", `key ${key}`] } }
    const masked = mask.deep(value) as typeof value
    expect(masked).toStrictEqual({ untouched, path: { to: ["x", `key ${Redact.placeholder}`] } })
    expect(masked.untouched).toBe(untouched)
    expect(masked.path).not.toBe(value.path)
  })

  it("masks keys of objects too, and a cut piece of the key", () => {
    expect(mask.deep({ [key]: 1, note: "ends with QQQQ9999ZZ" })).toStrictEqual({
      [Redact.placeholder]: 1,
      note: `ends with ${Redact.placeholder}`
    })
  })
})

/**
 * `cut` by its definition, the slow way: every window of `minSecretLength` characters of the
 * searched text (ASCII letters folded to lower case) that is a window of a credential form starts a
 * masked run, which goes on while the next window is one too.
 */
const cutOracle = (secretForms: ReadonlyArray<string>, masked: string): string => {
  const lower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase())
  const n = Redact.minSecretLength
  const windows = new Set<string>()
  for (const f of secretForms.map(lower)) for (let i = 0; i + n <= f.length; i++) windows.add(f.slice(i, i + n))
  const l = lower(masked)
  let out = ""
  let from = 0
  for (let i = 0; i + n <= l.length;) {
    if (!windows.has(l.slice(i, i + n))) {
      i++
      continue
    }
    let end = i + n
    while (end < l.length && windows.has(l.slice(end - n + 1, end + 1))) end++
    out += masked.slice(from, i) + Redact.placeholder
    from = i = end
  }
  return out + masked.slice(from)
}

const base64 = (s: string) => Buffer.from(s, "utf8").toString("base64")
/**
 * The forms the masker searches, as documented: as sent, URL-encoded (once, twice), JSON-escaped,
 * Base64 (padded, unpadded, URL-safe); a form holding a shorter one is left to that one.
 */
const formsOf = (x: string): Array<string> => {
  const b = base64(x)
  const all = [
    ...new Set([
      x,
      encodeURIComponent(x),
      encodeURIComponent(encodeURIComponent(x)),
      JSON.stringify(x).slice(1, -1),
      b,
      b.replace(/=+$/, ""),
      b.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
    ])
  ].filter((f) => f.length >= Redact.minSecretLength)
  const lower = all.map((f) => f.toLowerCase())
  return all.filter((_, i) => !lower.some((o, j) => j !== i && o.length < lower[i]!.length && lower[i]!.includes(o)))
}

describe("Redact cut", () => {
  const forms = formsOf(key)
  /** Text made of pieces of the key (in any case), near-misses and arbitrary characters. */
  const pieces = fc.array(
    fc.oneof(
      fc.tuple(fc.nat(key.length), fc.nat(key.length), fc.boolean()).map(([a, b, upper]) => {
        const piece = key.slice(Math.min(a, b), Math.max(a, b))
        return upper ? piece.toUpperCase() : piece
      }),
      fc.string({ maxLength: 6 }),
      fc.constantFrom("sk-test-", "QQQQ", "9999", "ZZZZ", "İ", "ß", "\u212a")
    ),
    { maxLength: 12 }
  ).map((xs) => xs.join(""))

  it("text masks every form in any case, whatever the text's length (short texts are not searched)", () => {
    const reference = (t: string): string =>
      t.replace(
        new RegExp(
          [...forms].sort((a, b) => b.length - a.length).map((f) => f.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(
            "|"
          ),
          "gi"
        ),
        Redact.placeholder
      )
    fc.assert(
      fc.property(pieces, (t) => {
        expect(mask.text(t)).toBe(reference(t))
      }),
      { numRuns: 3000 }
    )
    expect(mask.text(key)).toBe(Redact.placeholder)
    expect(mask.text(key.slice(1))).toBe(key.slice(1))
    expect(mask.text(key.toUpperCase() + "!")).toBe(`${Redact.placeholder}!`)
  })

  it("masks exactly the windows the definition masks, in 3,000 texts", () => {
    fc.assert(
      fc.property(pieces, (t) => {
        expect(mask.cut(t)).toBe(cutOracle(forms, mask.text(t)))
      }),
      { numRuns: 3000 }
    )
  })

  it("masks exactly the windows of every form of any credential, in 2,000 texts", () => {
    const secretUnit = fc.constantFrom(..."aZ09-_+/=%\"\\ .Kk".split(""))
    const secret = fc.string({ unit: secretUnit, minLength: 8, maxLength: 40 })
    const case_ = fc.constantFrom("as is", "upper", "lower")
    const textOf = (x: string) =>
      fc.array(
        fc.oneof(
          fc.tuple(fc.nat(x.length), fc.nat(x.length), case_).map(([a, b, c]) => {
            const piece = x.slice(Math.min(a, b), Math.max(a, b))
            return c === "upper" ? piece.toUpperCase() : c === "lower" ? piece.toLowerCase() : piece
          }),
          fc.string({ unit: secretUnit, maxLength: 6 })
        ),
        { maxLength: 10 }
      ).map((xs) => xs.join(""))
    fc.assert(
      fc.property(secret.chain((x) => fc.tuple(fc.constant(x), textOf(x))), ([x, t]) => {
        const m = Redact.make([x])!
        expect(m.cut(t)).toBe(cutOracle(formsOf(x), m.text(t)))
      }),
      { numRuns: 2000 }
    )
  })

  it("keeps every index where it was when lower-casing changes a length", () => {
    // "İ" lower-cases to two code units; an index taken from the lower-cased text would shift.
    expect(mask.cut(`İİİ QQQQ9999ZZ tail`)).toBe(`İİİ ${Redact.placeholder} tail`)
  })
})
