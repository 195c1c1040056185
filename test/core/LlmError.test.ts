import { describe, expect, it } from "vitest"
import * as LlmError from "../../src/LlmError.js"

describe("LlmError.info scrubs and caps", () => {
  it("masks every key shape in messages: OpenAI, Groq (underscore), xAI, Google, bearer tokens", () => {
    expect(LlmError.scrub("bad key sk-proj-abcdefghijklmnop here")).toBe("bad key sk-[redacted] here")
    expect(LlmError.scrub("bad key gsk_abcdefghijklmnopqrstuv")).toBe("bad key gsk_[redacted]")
    expect(LlmError.scrub("xai-ABCDEFGHIJKLMNOP rejected")).toBe("xai-[redacted] rejected")
    expect(LlmError.scrub("key=AIzaSyA1234567890abcdefghijklmno")).toBe("key=AIza[redacted]")
    expect(LlmError.scrub("Authorization: Bearer tok_123456789")).toBe("Authorization: Bearer [redacted]")
    expect(LlmError.scrub("nothing secret, sk-short")).toBe("nothing secret, sk-short")
    // After an underscore or upper-cased, a key is still a key.
    expect(LlmError.scrub("key_sk-proj-abcdefghijklmnop")).toBe("key_sk-[redacted]")
    expect(LlmError.scrub("BAD KEY SK-PROJ-ABCDEFGHIJKLMNOP")).toBe("BAD KEY SK-[redacted]")
    expect(LlmError.scrub("ask-questions-freely")).toBe("ask-questions-freely")
  })

  it("scrubs the message and the details of every error", () => {
    const info = LlmError.info({
      code: "authentication",
      message: "Incorrect API key provided: gsk_abcdefghijklmnopqrstuv",
      details: { error: { message: "Incorrect API key provided: gsk_abcdefghijklmnopqrstuv", code: 401 } }
    })
    expect(info).toStrictEqual({
      code: "authentication",
      message: "Incorrect API key provided: gsk_[redacted]",
      retryable: false,
      details: { error: { message: "Incorrect API key provided: gsk_[redacted]", code: 401 } }
    })
  })

  it("keeps a small body as it is, and turns a huge one into a capped string", () => {
    const small = { error: { message: "nope" } }
    expect(LlmError.capDetails(small)).toBe(small)
    const huge = { text: "x".repeat(20_000) }
    const capped = LlmError.capDetails(huge)
    expect(typeof capped).toBe("string")
    expect((capped as string).length).toBe(LlmError.maxDetailsChars + "…[truncated]".length)
    expect((capped as string).startsWith("{\"text\":\"xxx")).toBe(true)
  })

  it("cuts a body too deep for JSON.stringify to 64 levels, so the error chunk stays serializable", () => {
    const deep = JSON.parse("[".repeat(100_000) + "]".repeat(100_000)) as unknown
    const capped = LlmError.capDetails({ error: { message: "deep", nested: deep } })
    const json = JSON.stringify(capped)
    expect(json).toBe(`{"error":{"message":"deep","nested":${"[".repeat(62)}"[nested too deeply]"${"]".repeat(62)}}}`)
    const info = LlmError.info({ code: "server", message: "m", details: { n: Infinity, list: [-Infinity, 1] } })
    // A non-finite number is no JSON: it reads back as null, so the chunk round-trips.
    expect(info.details).toStrictEqual({ n: null, list: [null, 1] })
  })

  it("keeps a __proto__ key of a cut body as a key, never as a prototype", () => {
    const body = JSON.parse(`{"__proto__":{"polluted":true},"n":1e999}`) as unknown
    const capped = LlmError.capDetails(body) as Record<string, unknown>
    expect(Object.getPrototypeOf(capped)).toBe(Object.prototype)
    expect(Object.keys(capped)).toStrictEqual(["__proto__", "n"])
    expect(JSON.stringify(capped)).toBe(`{"__proto__":{"polluted":true},"n":null}`)
  })

  it("scrubs a body's strings where they stand, so a quoted bearer token cannot break its JSON", () => {
    const body = { error: { message: "Invalid Authorization header \"Bearer abc\"", "Bearer xyz": 1 } }
    expect(LlmError.capDetails(body)).toStrictEqual({
      error: { message: "Invalid Authorization header \"Bearer [redacted]\"", "Bearer [redacted]": 1 }
    })
  })
})
