import { describe, expect, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import * as fc from "fast-check"
import * as Json from "../../src/internal/json.js"
import * as Arb from "../core/arbitraries.js"

const nest = (levels: number): string => "[".repeat(levels) + "]".repeat(levels)

describe("Json.check", () => {
  it("counts depth as JSON nesting: a scalar is 0, [] is 1", () => {
    expect([1, "s", null, true].map((v) => Json.check(v, 0))).toStrictEqual([
      undefined,
      undefined,
      undefined,
      undefined
    ])
    expect(Json.check([], 0)).toBe("too-deep")
    expect(Json.check([], 1)).toBe(undefined)
    expect(Json.check({ a: [{}] }, 3)).toBe(undefined)
    expect(Json.check({ a: [{}] }, 2)).toBe("too-deep")
  })

  it("uses a cap of 64 levels by default and walks 100,000 levels without recursion", () => {
    expect(Json.maxDepth).toBe(64)
    expect(Json.check(JSON.parse(nest(64)))).toBe(undefined)
    expect(Json.check(JSON.parse(nest(65)))).toBe("too-deep")
    expect(Json.check(JSON.parse(nest(100_000)))).toBe("too-deep")
    expect(Json.check(JSON.parse("{\"a\":".repeat(100_000) + "1" + "}".repeat(100_000)))).toBe("too-deep")
  })

  it("finds numbers that read as Infinity, at any depth", () => {
    expect(Json.check(JSON.parse("1e999"))).toBe("non-finite-number")
    expect(Json.check(JSON.parse("{\"a\":[1,{\"b\":-1e400}]}"))).toBe("non-finite-number")
    expect(Json.check(JSON.parse("{\"a\":[1,{\"b\":1e308}]}"))).toBe(undefined)
    expect(Json.check({ n: Number.NaN })).toBe("non-finite-number")
  })

  it("describes each problem", () => {
    expect(Json.describe("too-deep")).toBe("is nested too deeply (more than 64 levels of arrays and objects)")
    expect(Json.describe("too-deep", 3)).toBe("is nested too deeply (more than 3 levels of arrays and objects)")
    expect(Json.describe("non-finite-number")).toBe("holds a number too large for JSON (it reads as Infinity)")
  })
})

describe("Json.stringify", () => {
  it("writes what JSON.stringify writes", () => {
    fc.assert(
      fc.property(Arb.json, (value) => {
        expect(Json.stringify(value)).toBe(JSON.stringify(value))
      }),
      { numRuns: 300 }
    )
    const tricky = JSON.parse("{\"__proto__\":{\"x\":[1.5,-0,\"\\u2028\\\"\"]},\"\":null,\"b\":false}") as unknown
    expect(Json.stringify(tricky)).toBe(JSON.stringify(tricky))
  })

  it("writes values 100,000 levels deep, which JSON.stringify cannot", () => {
    const text = "{\"a\":".repeat(100_000) + "[1,\"x\"]" + "}".repeat(100_000)
    const value = JSON.parse(text) as unknown
    expect(() => JSON.stringify(value)).toThrow(RangeError)
    expect(Json.stringify(value)).toBe(text)
    expect(Json.stringify(JSON.parse(nest(100_000)))).toBe(nest(100_000))
  })

  it("writes numbers that read as Infinity so that they read back the same", () => {
    expect(Json.stringify(JSON.parse("{\"a\":1e999,\"b\":[-1e999]}"))).toBe("{\"a\":1e999,\"b\":[-1e999]}")
  })
})

describe("Json.JsonObject", () => {
  it("decodes and encodes a JSON object as the same object, \"__proto__\" key and all", () => {
    const value = JSON.parse("{\"__proto__\":{\"polluted\":true},\"k\":1}") as Record<string, unknown>
    const decoded = Schema.decodeUnknownSync(Json.JsonObject)(value)
    const encoded = Schema.encodeSync(Json.JsonObject)(value)
    expect(decoded).toBe(value)
    expect(encoded).toBe(value)
    expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype)
    expect(Object.keys(decoded)).toStrictEqual(["__proto__", "k"])
  })

  it("refuses what is not a JSON object", () => {
    expect([[], null, "s", 1].map((u) => Schema.is(Json.JsonObject)(u))).toStrictEqual([false, false, false, false])
    expect(Schema.is(Json.JsonObject)({})).toBe(true)
  })
})
