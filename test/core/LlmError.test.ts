import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Equal from "effect/Equal"
import * as Schema from "effect/Schema"
import * as fc from "fast-check"
import { types } from "node:util"
import { describe, expect, it } from "vitest"
import * as QuickError from "../../src/internal/llmError.js"
import * as LlmError from "../../src/LlmError.js"
import * as Arb from "./arbitraries.js"

/** The three replacements `scrub` applies, without its one-pass check first: the oracle. */
const scrubbedWithoutCheck = (text: string): string =>
  text
    .replace(/(?<![A-Za-z0-9])(sk|rk|pk|gsk|xai|csk)([-_])[A-Za-z0-9_*.-]{8,}/gi, "$1$2[redacted]")
    .replace(/(?<![A-Za-z0-9])AIza[0-9A-Za-z_-]{20,}/g, "AIza[redacted]")
    .replace(/\bBearer\s+[^\s"',]+/gi, "Bearer [redacted]")

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

  it("its one-pass check skips only texts no replacement would change", () => {
    // Texts built from the pieces of every shape, in any case, so keys and near-keys are common.
    const piece = fc.constantFrom(
      "sk",
      "SK",
      "rk",
      "pk",
      "Pk",
      "gsk",
      "xai",
      "XAI",
      "csk",
      "-",
      "_",
      "AIza",
      "aiza",
      "Bearer",
      "bearer",
      "BEARER",
      " ",
      "\t",
      "\n",
      "abcdefgh",
      "ABCD1234",
      "*",
      ".",
      ",",
      "\"",
      "x",
      "9",
      "é"
    )
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }).map((ps) => ps.join("")), (text) => {
        expect(LlmError.scrub(text)).toBe(scrubbedWithoutCheck(text))
      }),
      { numRuns: 3000 }
    )
    fc.assert(fc.property(fc.string(), (text) => {
      expect(LlmError.scrub(text)).toBe(scrubbedWithoutCheck(text))
    }))
    expect(LlmError.scrub("a bearer\ttoken-xyz")).toBe("a Bearer [redacted]")
    expect(LlmError.scrub("Csk_ABCDEFGH1234")).toBe("Csk_[redacted]")
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

describe("errors built on the stream's own path", () => {
  const info = LlmError.info({ code: "network", message: "The connection failed: terminated", provider: "openai" })

  it("one error per data: the error for the same data is the same error, and gives that data back", () => {
    const error = QuickError.fromInfo(info)
    expect(QuickError.fromInfo(info)).toBe(error)
    expect(QuickError.infoOf(error)).toBe(info)
    expect(LlmError.toInfo(error)).toStrictEqual(info)
    expect([error.code, error.message, error.provider, error.retryable]).toStrictEqual([
      "network",
      "The connection failed: terminated",
      "openai",
      true
    ])
  })

  it("the data of an error built elsewhere is normalized from its fields, as LlmError.toInfo", () => {
    const error = new LlmError.LlmError({ code: "server", message: "upstream key sk-abcdefghijkl", retryable: true })
    expect(QuickError.infoOf(error)).toStrictEqual({
      code: "server",
      message: "upstream key sk-[redacted]",
      retryable: true
    })
  })

  it("equal data built apart makes errors apart (the data's identity, not its value)", () => {
    const copy = { ...info }
    expect(QuickError.fromInfo(copy)).not.toBe(QuickError.fromInfo(info))
    expect(QuickError.infoOf(QuickError.fromInfo(copy))).toBe(copy)
  })

  /** `new LlmError(info, true)` with stack traces off, as errors built here have them. */
  const reference = (data: LlmError.ErrorInfo): LlmError.LlmError => {
    const limit = Error.stackTraceLimit
    Error.stackTraceLimit = 0
    try {
      return new LlmError.LlmError(data, true)
    } finally {
      Error.stackTraceLimit = limit
    }
  }

  it("is built through Data.Error directly on this version of Effect", () => {
    expect(QuickError.direct).toBe(true)
  })

  it("builds what the constructor builds, for any data", () => {
    fc.assert(
      fc.property(Arb.errorInfo, (data) => {
        const built = QuickError.fromInfo(data)
        const ref = reference(data)
        expect(QuickError.sameError(built, ref)).toBe(true)
        expect(built).toBeInstanceOf(LlmError.LlmError)
        expect(built).toBeInstanceOf(Error)
        expect(types.isNativeError(built)).toBe(true)
        expect(Object.prototype.toString.call(built)).toBe("[object Error]")
        expect([built._tag, built.name, String(built), built.stack]).toStrictEqual([
          ref._tag,
          ref.name,
          String(ref),
          ref.stack
        ])
        expect(JSON.stringify(built)).toBe(JSON.stringify(ref))
        expect({ ...built }).toStrictEqual({ ...ref })
        expect(Equal.equals(built, ref)).toBe(true)
        expect(Schema.is(LlmError.LlmError)(built)).toBe(true)
        expect(Schema.encodeSync(LlmError.LlmError)(built)).toStrictEqual(Schema.encodeSync(LlmError.LlmError)(ref))
        expect(Effect.runSync(Effect.catchTag(built, "LlmError", (e) => Effect.succeed(e.code)))).toBe(data.code)
      }),
      { numRuns: 300 }
    )
  })

  it("tells apart errors that differ in class, tag, a field or a field's attributes", () => {
    const ref = reference(info)
    const untagged = Reflect.construct(Data.Error, [{ ...info }], LlmError.LlmError) as LlmError.LlmError
    const other = reference({ ...info, message: "another" })
    const hidden = reference(info)
    Object.defineProperty(hidden, "provider", { enumerable: false })
    class Sub extends LlmError.LlmError {}
    const sub = Object.setPrototypeOf(reference(info), Sub.prototype) as LlmError.LlmError
    expect(QuickError.sameError(reference(info), ref)).toBe(true)
    for (const e of [untagged, other, hidden, sub]) expect(QuickError.sameError(e, ref)).toBe(false)
  })
})
