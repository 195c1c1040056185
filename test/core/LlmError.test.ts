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
})
