import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as Ndjson from "../../../src/internal/framing/Ndjson.js"
import type * as LlmError from "../../../src/LlmError.js"
import { splitAnywhere } from "../../support/split.js"

const encoder = new TextEncoder()
const utf8 = (s: string): Uint8Array => encoder.encode(s)

/** Feeds each read in turn, then ends the body. */
const decodeReads = (
  reads: ReadonlyArray<string | Uint8Array>,
  options?: Ndjson.FramerOptions
): { lines: Array<string>; error: LlmError.ErrorInfo | undefined } => {
  const decoder = new Ndjson.Framer(options)
  const lines: Array<string> = [
    ...reads.flatMap((read) => decoder.push(typeof read === "string" ? utf8(read) : read)),
    ...decoder.end()
  ]
  return { lines, error: decoder.error }
}

const decode = (body: string): Array<string> => decodeReads([body]).lines

describe("Ndjson.Framer", () => {
  it("returns each line as soon as its newline arrives", () => {
    const decoder = new Ndjson.Framer()
    expect(decoder.push(utf8("{\"a\":1}\n{\"b\""))).toStrictEqual(["{\"a\":1}"])
    expect(decoder.push(utf8(":2}\n{\"done\":true}\n"))).toStrictEqual(["{\"b\":2}", "{\"done\":true}"])
    expect(decoder.end()).toStrictEqual([])
  })

  it("counts what parsing a line would build, keeps the lines before it, and frames nothing after", () => {
    const dense = "[" + "[],".repeat(200_000) + "[]]"
    const { lines, error } = decodeReads([`{"a":1}\n${dense}\n{"b":2}\n`], { maxEventBytes: 4 * 1024 * 1024 })
    expect(lines).toStrictEqual(["{\"a\":1}"])
    expect(error?.message).toBe("An NDJSON line exceeded the 4 MiB limit")
  })

  it("strips a trailing CR, also when the CR and LF arrive in different reads", () => {
    expect(decode("{\"a\":1}\r\n{\"b\":2}\r\n")).toStrictEqual(["{\"a\":1}", "{\"b\":2}"])
    expect(decodeReads(["{\"a\":1}\r", "\n{\"b\":2}\r", "\n"]).lines).toStrictEqual(["{\"a\":1}", "{\"b\":2}"])
  })

  it("keeps a CR inside a line (only LF ends a line)", () => {
    expect(decode("{\"a\":\"x\ry\"}\n")).toStrictEqual(["{\"a\":\"x\ry\"}"])
  })

  it("skips blank and whitespace-only lines", () => {
    expect(decode("\n\n{\"a\":1}\n   \n\t\r\n\r\n\u00a0\n{\"b\":2}\n \n")).toStrictEqual(["{\"a\":1}", "{\"b\":2}"])
  })

  it("keeps the inner and leading whitespace of a non-blank line", () => {
    expect(decode("  {\"a\": 1}  \n")).toStrictEqual(["  {\"a\": 1}  "])
  })

  it("flushes a last line with no newline at the end of the body", () => {
    expect(decode("{\"a\":1}\n{\"done\":true}")).toStrictEqual(["{\"a\":1}", "{\"done\":true}"])
    expect(decode("{\"a\":1}\n{\"done\":true}\r")).toStrictEqual(["{\"a\":1}", "{\"done\":true}"])
    expect(decode("{\"a\":1}\n   ")).toStrictEqual(["{\"a\":1}"])
  })

  it("yields nothing after end", () => {
    const decoder = new Ndjson.Framer()
    expect(decoder.push(utf8("{}"))).toStrictEqual([])
    expect(decoder.end()).toStrictEqual(["{}"])
    expect(decoder.end()).toStrictEqual([])
    expect(decoder.push(utf8("{}\n"))).toStrictEqual([])
  })

  it("strips one BOM at the start of the stream, even when split across reads", () => {
    expect(decode("\uFEFF{\"a\":1}\n")).toStrictEqual(["{\"a\":1}"])
    const bom = utf8("\uFEFF")
    expect(decodeReads([bom.subarray(0, 2), bom.subarray(2), "{\"a\":1}\n"]).lines).toStrictEqual(["{\"a\":1}"])
    expect(decode("\uFEFF\uFEFF{\"a\":1}\n")).toStrictEqual(["\uFEFF{\"a\":1}"])
  })

  it("decodes multi-byte characters split inside the character", () => {
    const body = utf8("{\"t\":\"😀中\"}\n")
    // '{"t":"' is 6 bytes; the emoji takes bytes 6-9, the CJK character bytes 10-12.
    for (const cuts of [[7], [8], [9], [11], [12], [7, 8, 9, 11]]) {
      expect(decodeReads(splitAnywhere(body, cuts)).lines).toStrictEqual(["{\"t\":\"😀中\"}"])
    }
  })

  it("turns invalid UTF-8 into U+FFFD; a body cut inside a character is truncated, its last line dropped", () => {
    const bytes = new Uint8Array([...utf8("{\"a\":\""), 0xff, ...utf8("\"}\n{\"b\":\""), 0xe4, 0xb8])
    expect(decodeReads([bytes]).lines).toStrictEqual(["{\"a\":\"\uFFFD\"}"])
    expect(decodeReads([bytes]).error).toStrictEqual({
      code: "truncated",
      message: "The body ended inside a UTF-8 character, before the provider's end marker",
      retryable: false
    })
  })

  describe("size cap", () => {
    it("fails with protocol when one line passes the default 16 MiB, then yields nothing", () => {
      const decoder = new Ndjson.Framer()
      expect(decoder.push(utf8("{\"a\":1}\n{\"big\":\""))).toStrictEqual(["{\"a\":1}"])
      const mib = utf8("x".repeat(1024 * 1024))
      for (let i = 0; i < 15; i++) expect(decoder.push(mib)).toStrictEqual([])
      expect(decoder.error).toBeUndefined()
      expect(decoder.push(mib)).toStrictEqual([])
      expect(decoder.error).toStrictEqual({
        code: "protocol",
        message: "An NDJSON line exceeded the 16 MiB limit",
        retryable: false,
        details: { limit: Ndjson.defaultMaxEventBytes }
      })
      expect(decoder.push(utf8("\"}\n{\"c\":3}\n"))).toStrictEqual([])
      expect(decoder.end()).toStrictEqual([])
      expect(Ndjson.defaultMaxEventBytes).toBe(16 * 1024 * 1024)
    })

    it("keeps the lines completed before the oversized one", () => {
      const { lines, error } = decodeReads(["{\"a\":1}\n" + "y".repeat(100) + "\n{\"b\":2}\n"], { maxEventBytes: 64 })
      expect(lines).toStrictEqual(["{\"a\":1}"])
      expect(error?.code).toBe("protocol")
      expect(error?.message).toBe("An NDJSON line exceeded the 64 bytes limit")
    })

    it("accepts a line exactly at the cap", () => {
      expect(decodeReads(["z".repeat(64) + "\n"], { maxEventBytes: 64 })).toStrictEqual({
        lines: ["z".repeat(64)],
        error: undefined
      })
    })
  })
})

// ---------------------------------------------------------------------------------------------
// Properties

const codePoint = fc
  .oneof(
    fc.constantFrom("a", " ", "{", "\"", "é", "€", "中", "😀", "\u0000", "\uFEFF", "\t", "\r"),
    fc.integer({ min: 0x20, max: 0x10ffff }).filter((c) => c < 0xd800 || c > 0xdfff).map((c) => String.fromCodePoint(c))
  )
  .filter((c) => c !== "\n")

const ndjsonBody = fc.record({
  bom: fc.boolean(),
  lines: fc.array(
    fc.record({
      text: fc.array(codePoint, { maxLength: 10 }).map((cs) => cs.join("")),
      crlf: fc.boolean()
    }),
    { maxLength: 10 }
  ),
  finalNewline: fc.boolean()
})

type NdjsonBody = typeof ndjsonBody extends fc.Arbitrary<infer A> ? A : never

/** Renders the lines as NDJSON and computes what a correct decoder must return. */
const render = (spec: NdjsonBody): { bytes: Uint8Array; expected: Array<string> } => {
  let text = spec.bom ? "\uFEFF" : ""
  const expected: Array<string> = []
  spec.lines.forEach((line, i) => {
    const last = i === spec.lines.length - 1
    const terminated = !last || spec.finalNewline
    let raw = line.text + (terminated && line.crlf ? "\r" : "")
    text += raw + (terminated ? "\n" : "")
    // A U+FEFF opening the body is a BOM even when the generator meant it as content.
    if (i === 0 && !spec.bom && raw.startsWith("\uFEFF")) raw = raw.slice(1)
    // One trailing CR belongs to the line end, whether the LF came or the body ended.
    const content = raw.endsWith("\r") ? raw.slice(0, -1) : raw
    if (content.trim() !== "") expected.push(content)
  })
  return { bytes: utf8(text), expected }
}

const cuts = fc.array(fc.nat({ max: 100_000 }), { maxLength: 24 })

describe("Ndjson.Framer properties", () => {
  it("decodes random bodies exactly, under any split into reads", () => {
    fc.assert(
      fc.property(ndjsonBody, cuts, (spec, points) => {
        const { bytes, expected } = render(spec)
        expect(decodeReads([bytes]).lines).toStrictEqual(expected)
        expect(decodeReads(splitAnywhere(bytes, points)).lines).toStrictEqual(expected)
      }),
      { numRuns: 500 }
    )
  })

  it("gives split-independent lines and errors on arbitrary token soup, with a small cap", () => {
    const token = fc.constantFrom("{}", " ", "\r", "\n", "\r\n", "x", "é", "😀", "\uFEFF", "\t")
    fc.assert(
      fc.property(fc.array(token, { maxLength: 80 }), cuts, fc.integer({ min: 1, max: 40 }), (tokens, points, cap) => {
        const bytes = utf8(tokens.join(""))
        const whole = decodeReads([bytes], { maxEventBytes: cap })
        expect(decodeReads(splitAnywhere(bytes, points), { maxEventBytes: cap })).toStrictEqual(whole)
      }),
      { numRuns: 1000 }
    )
  })
})
