import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as ToolCall from "../../src/ToolCall.js"
import * as Arb from "./arbitraries.js"

const jsonParseError = (s: string): string => {
  try {
    JSON.parse(s)
  } catch (e) {
    return e instanceof Error ? e.message : String(e)
  }
  throw new Error(`expected ${s} not to parse`)
}

describe("ToolCall.Assembler", () => {
  it("takes name and id from a later fragment", () => {
    const a = new ToolCall.Assembler()
    a.add(0, "{\"a\"")
    expect(a.nameOf(0)).toBe(undefined)
    a.add(0, ":1}", "call_x", "sum")
    expect(a.nameOf(0)).toBe("sum")
    expect(a.finish(0)).toStrictEqual({
      index: 0,
      id: "call_x",
      name: "sum",
      arguments: { a: 1 },
      rawArguments: "{\"a\":1}"
    })
  })

  it("keeps the first id and name (empty strings do not count)", () => {
    const a = new ToolCall.Assembler()
    a.add(0, "", "", "")
    a.add(0, "{", "id1", "first")
    a.add(0, "}", "id2", "second")
    expect(a.finish(0)).toStrictEqual({ index: 0, id: "id1", name: "first", arguments: {}, rawArguments: "{}" })
  })

  it("assembles a whole call sent in one fragment", () => {
    const a = new ToolCall.Assembler()
    a.add(3, "{\"q\":\"effect\",\"n\":[1,2]}", "t3", "search")
    expect(a.finishAll()).toStrictEqual([
      {
        index: 3,
        id: "t3",
        name: "search",
        arguments: { q: "effect", n: [1, 2] },
        rawArguments: "{\"q\":\"effect\",\"n\":[1,2]}"
      }
    ])
  })

  it("decodes empty or blank arguments to {}", () => {
    const a = new ToolCall.Assembler()
    a.add(0, "", "t0", "now")
    a.add(1, "  ", "t1", "later")
    expect(a.finishAll()).toStrictEqual([
      { index: 0, id: "t0", name: "now", arguments: {}, rawArguments: "" },
      { index: 1, id: "t1", name: "later", arguments: {}, rawArguments: "  " }
    ])
  })

  it("keeps invalid arguments as { raw } with parseError", () => {
    const a = new ToolCall.Assembler()
    a.add(0, "{\"city\": Paris}", "t0", "weather")
    expect(a.finish(0)).toStrictEqual({
      index: 0,
      id: "t0",
      name: "weather",
      arguments: { raw: "{\"city\": Paris}" },
      rawArguments: "{\"city\": Paris}",
      parseError: jsonParseError("{\"city\": Paris}")
    })
  })

  it("keeps interleaved calls apart", () => {
    const a = new ToolCall.Assembler()
    a.add(0, "{\"x\":", "a", "f")
    a.add(1, "{\"y\":", "b", "g")
    a.add(0, "1}")
    a.add(1, "2}")
    expect(a.rawArguments(0)).toBe("{\"x\":1}")
    expect(a.rawArguments(1)).toBe("{\"y\":2}")
    expect(a.rawArguments(7)).toBe("")
    expect(a.finishAll()).toStrictEqual([
      { index: 0, id: "a", name: "f", arguments: { x: 1 }, rawArguments: "{\"x\":1}" },
      { index: 1, id: "b", name: "g", arguments: { y: 2 }, rawArguments: "{\"y\":2}" }
    ])
  })

  it("finishAll returns calls in order of first appearance, skipping finished ones", () => {
    const a = new ToolCall.Assembler()
    a.add(2, "{}", undefined, "c")
    a.add(0, "{}", undefined, "a")
    a.add(1, "{}", undefined, "b")
    a.add(2, "")
    expect(a.size).toBe(3)
    expect(a.has(1)).toBe(true)
    expect(a.has(5)).toBe(false)
    expect(a.finish(0)).toStrictEqual({ index: 0, id: "call_0", name: "a", arguments: {}, rawArguments: "{}" })
    expect(a.finishAll()).toStrictEqual([
      { index: 2, id: "call_2", name: "c", arguments: {}, rawArguments: "{}" },
      { index: 1, id: "call_1", name: "b", arguments: {}, rawArguments: "{}" }
    ])
    expect(a.finishAll()).toStrictEqual([])
  })

  it("finish twice, or of an unknown index, gives undefined", () => {
    const a = new ToolCall.Assembler()
    a.add(0, "{}", "t", "f")
    expect(a.finish(0)).toStrictEqual({ index: 0, id: "t", name: "f", arguments: {}, rawArguments: "{}" })
    expect(a.finish(0)).toBe(undefined)
    expect(a.finish(9)).toBe(undefined)
  })

  it("synthesizes ids from the prefix when the provider sends none", () => {
    const a = new ToolCall.Assembler("resp_9")
    a.add(1, "{}", undefined, "f")
    expect(a.finish(1)).toStrictEqual({ index: 1, id: "resp_9_call_1", name: "f", arguments: {}, rawArguments: "{}" })
    expect(ToolCall.synthesizeId(4)).toBe("call_4")
    expect(ToolCall.synthesizeId(4, "msg")).toBe("msg_call_4")
  })

  it("assembles a 64 KB argument sent in 20-byte fragments exactly (linear-time sanity, not timed)", () => {
    const value = {
      query: "effect \"streams\"\n\tand\\more",
      items: Array.from({ length: 2_000 }, (_, i) => ({ i, label: `item-${i}`, ok: i % 3 === 0, note: "a\"b\\c" }))
    }
    const raw = JSON.stringify(value)
    expect(raw.length).toBeGreaterThanOrEqual(64 * 1024)
    const a = new ToolCall.Assembler()
    let fragments = 0
    for (let at = 0; at < raw.length; at += 20) {
      a.add(0, raw.slice(at, at + 20), at === 0 ? "big" : undefined, at === 0 ? "ingest" : undefined)
      fragments++
    }
    expect(fragments).toBe(Math.ceil(raw.length / 20))
    const call = a.finish(0)
    expect(call).toStrictEqual({ index: 0, id: "big", name: "ingest", arguments: value, rawArguments: raw })
    expect(call?.rawArguments === raw).toBe(true)
  })
})

describe("ToolCall.partialArguments", () => {
  it("reads arguments still streaming", () => {
    expect(ToolCall.partialArguments("{\"city\":\"Par")).toStrictEqual({ city: "Par" })
    expect(ToolCall.partialArguments("{\"a\":[1,2")).toStrictEqual({ a: [1, 2] })
    expect(ToolCall.partialArguments("{\"a\":1,\"b\":{\"c\":\"d\"}}")).toStrictEqual({ a: 1, b: { c: "d" } })
  })

  it("reads empty or blank arguments as {}", () => {
    expect(ToolCall.partialArguments("")).toStrictEqual({})
    expect(ToolCall.partialArguments("   ")).toStrictEqual({})
  })

  it("gives undefined for text that cannot become JSON", () => {
    expect(ToolCall.partialArguments("nope")).toBe(undefined)
  })
})

describe("ToolCall.decodeArguments and make", () => {
  it("decode once: JSON, empty and invalid", () => {
    expect(ToolCall.decodeArguments("[1,\"x\"]")).toStrictEqual({ arguments: [1, "x"] })
    expect(ToolCall.decodeArguments("")).toStrictEqual({ arguments: {} })
    expect(ToolCall.decodeArguments("{")).toStrictEqual({ arguments: { raw: "{" }, parseError: jsonParseError("{") })
  })

  it("make synthesizes an id when given none or an empty one", () => {
    expect(ToolCall.make({ index: 2, name: "f", rawArguments: "{\"k\":true}" })).toStrictEqual({
      index: 2,
      id: "call_2",
      name: "f",
      arguments: { k: true },
      rawArguments: "{\"k\":true}"
    })
    expect(ToolCall.make({ index: 0, id: "", name: "f", rawArguments: "", idPrefix: "r" })).toStrictEqual({
      index: 0,
      id: "r_call_0",
      name: "f",
      arguments: {},
      rawArguments: ""
    })
  })
})

describe("ToolCall: hostile JSON", () => {
  const tooDeep = "The arguments' JSON is nested too deeply (more than 64 levels of arrays and objects)"
  const tooLarge = "The arguments' JSON holds a number too large for JSON (it reads as Infinity)"
  const nest = (levels: number): string => "[".repeat(levels) + "]".repeat(levels)
  const nestObjects = (levels: number): string => "{\"a\":".repeat(levels) + "1" + "}".repeat(levels)

  it("decodeArguments keeps arguments nested 100,000 deep as raw text", () => {
    for (const raw of [nest(100_000), nestObjects(100_000)]) {
      const decoded = ToolCall.decodeArguments(raw)
      expect(decoded).toStrictEqual({ arguments: { raw }, parseError: tooDeep })
      expect(JSON.parse(JSON.stringify(decoded))).toStrictEqual(decoded)
    }
  })

  it("decodeArguments keeps 64 levels and refuses 65", () => {
    expect(ToolCall.decodeArguments(nest(64))).toStrictEqual({ arguments: JSON.parse(nest(64)) })
    expect(ToolCall.decodeArguments(nestObjects(64))).toStrictEqual({ arguments: JSON.parse(nestObjects(64)) })
    expect(ToolCall.decodeArguments(nest(65))).toStrictEqual({ arguments: { raw: nest(65) }, parseError: tooDeep })
    expect(ToolCall.decodeArguments(`{"a":${nest(64)}}`)).toStrictEqual({
      arguments: { raw: `{"a":${nest(64)}}` },
      parseError: tooDeep
    })
  })

  it("decodeArguments keeps arguments with a number beyond JSON's range as raw text", () => {
    expect(ToolCall.decodeArguments("{\"n\":1e999}")).toStrictEqual({
      arguments: { raw: "{\"n\":1e999}" },
      parseError: tooLarge
    })
    expect(ToolCall.decodeArguments("[-1e400]")).toStrictEqual({ arguments: { raw: "[-1e400]" }, parseError: tooLarge })
    expect(ToolCall.decodeArguments("{\"n\":1e308}")).toStrictEqual({ arguments: { n: 1e308 } })
  })

  it("decodeArguments keeps a \"__proto__\" key as an own data property, never the prototype", () => {
    const { arguments: args } = ToolCall.decodeArguments(
      "{\"__proto__\":{\"polluted\":true},\"a\":{\"__proto__\":[1]}}"
    )
    const outer = args as Record<string, unknown>
    expect(Object.getPrototypeOf(outer)).toBe(Object.prototype)
    expect(Object.keys(outer)).toStrictEqual(["__proto__", "a"])
    expect(Object.getOwnPropertyDescriptor(outer, "__proto__")?.value).toStrictEqual({ polluted: true })
    expect(outer.polluted).toBe(undefined)
    const inner = outer.a as Record<string, unknown>
    expect(Object.getPrototypeOf(inner)).toBe(Object.prototype)
    expect(Object.getOwnPropertyDescriptor(inner, "__proto__")?.value).toStrictEqual([1])
  })

  it("partialArguments never lets \"__proto__\" choose a prototype, at any depth", () => {
    const view = ToolCall.partialArguments(
      "{\"__proto__\":{\"polluted\":true},\"a\":{\"__proto__\":{\"x\":1},\"b\":[{\"__proto__\":{\"y\":2}},{\"__proto__\":\"s"
    ) as Record<string, unknown>
    expect(Object.getPrototypeOf(view)).toBe(Object.prototype)
    expect(view.polluted).toBe(undefined)
    expect(Object.keys(view)).toStrictEqual(["__proto__", "a"])
    expect(Object.getOwnPropertyDescriptor(view, "__proto__")?.value).toStrictEqual({ polluted: true })
    const a = view.a as Record<string, unknown>
    expect(Object.getPrototypeOf(a)).toBe(Object.prototype)
    expect(Object.getOwnPropertyDescriptor(a, "__proto__")?.value).toStrictEqual({ x: 1 })
    const b = a.b as Array<Record<string, unknown>>
    expect(b.map((item) => Object.getPrototypeOf(item) === Object.prototype)).toStrictEqual([true, true])
    expect(b.map((item) => Object.getOwnPropertyDescriptor(item, "__proto__")?.value)).toStrictEqual([{ y: 2 }, "s"])
  })

  it("partialArguments keeps a \"__proto__\" key whatever its value, as the finished arguments do", () => {
    for (const value of [1, null, [], "s"]) {
      const view = ToolCall.partialArguments(`{"__proto__":${JSON.stringify(value)}`) as Record<string, unknown>
      expect(Object.getPrototypeOf(view)).toBe(Object.prototype)
      expect(Object.getOwnPropertyDescriptor(view, "__proto__")?.value).toStrictEqual(value)
    }
  })

  it("partialArguments completes what it can and leaves out what it cannot", () => {
    const cases: Array<[string, unknown]> = [
      ["{\"a\":\"x\\", { a: "x" }],
      ["{\"a\":\"\\u00", { a: "" }],
      ["{\"a\":\"\\u00e9", { a: "é" }],
      ["{\"a\":tr", { a: true }],
      ["{\"a\":[true,nu", { a: [true, null] }],
      ["{\"a\":-", {}],
      ["{\"a\":1.", { a: 1 }],
      ["{\"a\":1e", { a: 1 }],
      ["{\"a\":-2.5e+", { a: -2.5 }],
      ["[1,", [1]],
      ["{\"a\"", {}],
      ["{\"a\":", {}],
      ["{\"a\":1,\"b", { a: 1 }],
      ["\"abc", "abc"],
      [" [ {} , { \"k\" : [ ] } ", [{}, { k: [] }]]
    ]
    expect(cases.map(([raw]) => ToolCall.partialArguments(raw))).toStrictEqual(cases.map(([, view]) => view))
  })

  it("partialArguments gives undefined for what no completion makes JSON, too deep or out of range", () => {
    const bad = [
      "{\"a\":1}}",
      "{\"a\":1,}",
      "{\"a\":Infinity",
      "{\"a\":NaN}",
      "{\"a\":1e999}",
      "[\"\u0001\"]",
      nest(65),
      "[".repeat(100_000)
    ]
    expect(bad.map(ToolCall.partialArguments)).toStrictEqual(bad.map(() => undefined))
    expect(ToolCall.partialArguments("[".repeat(64))).toStrictEqual(JSON.parse(nest(64)))
  })

  it("property: every prefix of a JSON text reads without throwing, and the whole text as JSON.parse does", () => {
    fc.assert(
      fc.property(Arb.json, (value) => {
        const text = JSON.stringify(value)
        for (let i = 1; i < text.length; i++) {
          const view = ToolCall.partialArguments(text.slice(0, i))
          if (view !== undefined) expect(JSON.parse(JSON.stringify(view))).toStrictEqual(view)
        }
        expect(ToolCall.partialArguments(text)).toStrictEqual(JSON.parse(text))
      }),
      { numRuns: 300 }
    )
  })

  it("isIndex accepts only non-negative safe integers", () => {
    expect([0, 1, 7, Number.MAX_SAFE_INTEGER].map(ToolCall.isIndex)).toStrictEqual([true, true, true, true])
    const hostile: Array<unknown> = [-1, 0.5, 2 ** 53, 1e308, Infinity, NaN, "0", null, undefined]
    expect(hostile.map(ToolCall.isIndex)).toStrictEqual(hostile.map(() => false))
  })
})
