import { describe, expect, it } from "@effect/vitest"
import * as ToolCall from "../../src/ToolCall.js"

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
    expect(a.finish(0)).toStrictEqual({ index: 0, id: "call_x", name: "sum", arguments: { a: 1 }, rawArguments: "{\"a\":1}" })
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
      { index: 3, id: "t3", name: "search", arguments: { q: "effect", n: [1, 2] }, rawArguments: "{\"q\":\"effect\",\"n\":[1,2]}" }
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
