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
