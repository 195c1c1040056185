import { describe, expect, it } from "vitest"
import { Emitter, type Out, protocolError } from "../../../src/internal/kit/Emitter.js"
import * as Guards from "../../../src/internal/kit/guards.js"
import { Reasoning } from "../../../src/internal/kit/Reasoning.js"
import { UsageSnapshots } from "../../../src/internal/kit/UsageSnapshots.js"

describe("Emitter", () => {
  it("puts a bare metadata chunk first when nothing named the model, and none after announce", () => {
    const a = new Emitter("p")
    const out: Out = []
    a.emit(out, { type: "text-delta", delta: "x" })
    a.announce(out, "m", "r") // too late: metadata already went out
    a.finish(out, "stop", "end_turn")
    expect(out).toStrictEqual([
      { type: "metadata", provider: "p" },
      { type: "text-delta", delta: "x" },
      { type: "finish", reason: "stop", rawReason: "end_turn" }
    ])
    expect(a.ended).toBe(true)
    const b = new Emitter("p")
    const more: Out = []
    b.announce(more, "m", undefined)
    b.fail(more, protocolError("p", "x".repeat(300)))
    expect(more[0]).toStrictEqual({ type: "metadata", provider: "p", model: "m" })
    expect(more[1]).toStrictEqual({
      type: "error",
      error: {
        code: "protocol",
        message: `The stream sent an event that is not a JSON object: "${"x".repeat(200)}…"`,
        retryable: false,
        provider: "p"
      }
    })
    expect([more.length, b.ended]).toStrictEqual([2, true])
  })
})

describe("Reasoning runs", () => {
  it("accumulates across runs; a run closes with its text, signature or redacted data", () => {
    const emitter = new Emitter("p")
    const r = new Reasoning(emitter)
    const out: Out = []
    r.delta(out, "a")
    r.delta(out, "b")
    r.sign("sig")
    r.close(out)
    r.close(out) // nothing open: no chunk
    r.redact(out, "enc1")
    r.redact(out, "enc2") // a second block closes the run holding the first
    r.close(out)
    r.delta(out, "c")
    r.close(out)
    expect(out.slice(1)).toStrictEqual([
      { type: "reasoning-delta", delta: "a", accumulated: "a" },
      { type: "reasoning-delta", delta: "b", accumulated: "ab" },
      { type: "reasoning", text: "ab", signature: "sig" },
      { type: "reasoning", text: "", redacted: "enc1" },
      { type: "reasoning", text: "", redacted: "enc2" },
      { type: "reasoning-delta", delta: "c", accumulated: "abc" },
      { type: "reasoning", text: "c" }
    ])
  })
})

describe("UsageSnapshots", () => {
  it("emits a snapshot once, keeps the provider's object as raw, and reports non-zero cache counts", () => {
    const emitter = new Emitter("p")
    const u = new UsageSnapshots(emitter)
    const out: Out = []
    const snapshot = { inputTokens: 5, outputTokens: 2, totalTokens: 7, cacheReadTokens: 3 }
    u.push(out, snapshot, { a: 1 })
    u.push(out, snapshot, { a: 2 }) // same counts: dropped
    u.push(out, { ...snapshot, outputTokens: 3, totalTokens: 8 }, undefined)
    u.cache(out)
    expect(out.slice(1)).toStrictEqual([
      { type: "usage", usage: { ...snapshot, raw: { a: 1 } } },
      { type: "usage", usage: { ...snapshot, outputTokens: 3, totalTokens: 8 } },
      { type: "cache-read", cacheReadTokens: 3, accumulated: 3 }
    ])
  })
})

describe("guards", () => {
  it("read JSON values without trusting them", () => {
    expect([Guards.isObject({}), Guards.isObject([]), Guards.isObject(null)]).toStrictEqual([true, false, false])
    expect([Guards.isNonEmptyString(""), Guards.isNonEmptyString("a"), Guards.isArray([])]).toStrictEqual([
      false,
      true,
      true
    ])
    expect([Guards.count(3), Guards.count(-1), Guards.count(0.5), Guards.count("3")]).toStrictEqual([
      3,
      undefined,
      undefined,
      undefined
    ])
    expect([Guards.parseObject("{\"a\":1}"), Guards.parseObject("[1]"), Guards.parseObject("{")]).toStrictEqual([
      { a: 1 },
      undefined,
      undefined
    ])
  })
})
