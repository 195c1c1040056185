import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as Sse from "../../../src/internal/framing/Sse.js"
import { lineCost } from "../../../src/internal/framing/TextFraming.js"
import type * as LlmError from "../../../src/LlmError.js"
import { splitAnywhere } from "../../support/split.js"

const encoder = new TextEncoder()
const utf8 = (s: string): Uint8Array => encoder.encode(s)

/** Feeds each read in turn, then ends the body. */
const decodeReads = (
  reads: ReadonlyArray<string | Uint8Array>,
  options?: Sse.FramerOptions
): { events: Array<Sse.Event>; error: LlmError.ErrorInfo | undefined } => {
  const decoder = new Sse.Framer(options)
  const events: Array<Sse.Event> = [
    ...reads.flatMap((read) => decoder.push(typeof read === "string" ? utf8(read) : read)),
    ...decoder.end()
  ]
  return { events, error: decoder.error }
}

const decode = (body: string): Array<Sse.Event> => decodeReads([body]).events

const message = (data: string, id?: string): Sse.Event => ({ event: "message", data, id })

describe("Sse.Framer", () => {
  it("dispatches on a blank line with the default type", () => {
    expect(decode("data: hello\n\n")).toStrictEqual([message("hello")])
  })

  it("accepts LF, CR and CRLF line endings, and a mix of them in one stream", () => {
    const expected = [message("a"), message("b")]
    expect(decode("data: a\n\ndata: b\n\n")).toStrictEqual(expected)
    expect(decode("data: a\r\rdata: b\r\r")).toStrictEqual(expected)
    expect(decode("data: a\r\n\r\ndata: b\r\n\r\n")).toStrictEqual(expected)
    expect(decode("data: a\r\n\ndata: b\r\r\n")).toStrictEqual(expected)
  })

  it("treats a CR ending one read and an LF starting the next as one line end", () => {
    const { events } = decodeReads(["data: a\r", "\ndata: b\r", "\n\r", "\n"])
    // A spurious blank line after "a" would have dispatched "a" alone and then "b" alone.
    expect(events).toStrictEqual([message("a\nb")])
  })

  it("keeps a CR|LF split when the read after the CR decodes to nothing yet", () => {
    const euro = utf8("€")
    const { events } = decodeReads([
      utf8("data: a\r"),
      euro.subarray(0, 0),
      utf8("\ndata: "),
      euro.subarray(0, 1),
      euro.subarray(1),
      utf8("\n\n")
    ])
    expect(events).toStrictEqual([message("a\n€")])
  })

  it("frames Gemini's CRLF events without waiting for the end of the body", () => {
    const decoder = new Sse.Framer()
    expect(decoder.push(utf8("data: {\"candidates\":[]}\r\n\r\n"))).toStrictEqual([message("{\"candidates\":[]}")])
    expect(decoder.push(utf8("data: {\"usageMetadata\":{}}\r\n\r\n"))).toStrictEqual([
      message("{\"usageMetadata\":{}}")
    ])
    expect(decoder.end()).toStrictEqual([])
  })

  it("strips one BOM at the start of the stream, even when split across reads", () => {
    const bom = utf8("\uFEFF")
    expect(decode("\uFEFFdata: x\n\n")).toStrictEqual([message("x")])
    const { events } = decodeReads([bom.subarray(0, 1), bom.subarray(1, 2), bom.subarray(2), "data: x\n\n"])
    expect(events).toStrictEqual([message("x")])
    // A second BOM is not stripped: the field name becomes "\uFEFFdata", an unknown field.
    expect(decode("\uFEFF\uFEFFdata: x\n\ndata: y\n\n")).toStrictEqual([message("y")])
    expect(decode("data: \uFEFFx\n\n")).toStrictEqual([message("\uFEFFx")])
  })

  it("ignores comments before the first event and between events", () => {
    const body = ": OPENROUTER PROCESSING\n\n: OPENROUTER PROCESSING\n\ndata: a\n\n: keep-alive\n\n:ping\ndata: b\n\n"
    expect(decode(body)).toStrictEqual([message("a"), message("b")])
  })

  it("joins multi-line data with LF", () => {
    expect(decode("data: one\ndata: two\ndata: three\n\n")).toStrictEqual([message("one\ntwo\nthree")])
  })

  it("reads a field with no colon as the field name with an empty value", () => {
    expect(decode("data\n\n")).toStrictEqual([message("")])
    expect(decode("data\ndata\n\n")).toStrictEqual([message("\n")])
    expect(decode("data: a\ndata\ndata: b\n\n")).toStrictEqual([message("a\n\nb")])
  })

  it("removes exactly one leading space from the value", () => {
    expect(decode("data:value\n\n")).toStrictEqual([message("value")])
    expect(decode("data:  two spaces\n\n")).toStrictEqual([message(" two spaces")])
    expect(decode("data:\tx\n\n")).toStrictEqual([message("\tx")])
    expect(decode("data: a: b:c\n\n")).toStrictEqual([message("a: b:c")])
  })

  it("lets the last event field win, and falls back to message when it is empty", () => {
    expect(decode("event: first\nevent: second\ndata: x\n\n")).toStrictEqual([
      { event: "second", data: "x", id: undefined }
    ])
    expect(decode("event:\ndata: x\n\n")).toStrictEqual([message("x")])
    expect(decode("event: content_block_delta\ndata: {}\n\ndata: next\n\n")).toStrictEqual([
      { event: "content_block_delta", data: "{}", id: undefined },
      message("next")
    ])
  })

  it("keeps the last id across events and rejects an id containing NUL", () => {
    const body = "id: 1\ndata: a\n\ndata: b\n\nid: 2\n\ndata: c\n\nid: 3\u0000x\ndata: d\n\nid\ndata: e\n\n"
    expect(decode(body)).toStrictEqual([
      message("a", "1"),
      message("b", "1"),
      message("c", "2"),
      message("d", "2"),
      message("e", "")
    ])
  })

  it("ignores retry fields entirely", () => {
    expect(decode("retry: 10000\ndata: a\n\nretry: soon\n\nretry\ndata: b\n\n")).toStrictEqual([
      message("a"),
      message("b")
    ])
  })

  it("ignores unknown fields, and field names are case-sensitive", () => {
    expect(decode("foo: bar\nData: no\nEVENT: no\ndata: x\n\nfoo: only\n\n")).toStrictEqual([message("x")])
  })

  it("dispatches old llama.cpp error fields even without a data line", () => {
    const body =
      "error: {\"code\":400,\"message\":\"too long\",\"type\":\"exceed_context_size_error\"}\n\ndata: [DONE]\n\n"
    expect(decode(body)).toStrictEqual([
      {
        event: "message",
        data: "",
        id: undefined,
        error: "{\"code\":400,\"message\":\"too long\",\"type\":\"exceed_context_size_error\"}"
      },
      message("[DONE]")
    ])
    expect(decode("event: oops\nerror\ndata: d\n\n")).toStrictEqual([
      { event: "oops", data: "d", id: undefined, error: "" }
    ])
  })

  it("does not dispatch an event with no data and no error", () => {
    expect(decode("event: ping\n\nid: 7\n\n\n\ndata: x\n\n")).toStrictEqual([message("x", "7")])
  })

  it("dispatches empty data lines as an empty payload", () => {
    expect(decode("data:\n\ndata: \n\n")).toStrictEqual([message(""), message("")])
  })

  it("passes [DONE] through as plain data", () => {
    expect(decode("data: {\"a\":1}\n\ndata: [DONE]\n\n")).toStrictEqual([message("{\"a\":1}"), message("[DONE]")])
  })

  it("flushes a last event that no blank line closed", () => {
    expect(decode("data: a\n\ndata: last\n")).toStrictEqual([message("a"), message("last")])
    expect(decode("data: a\n\nevent: end\ndata: last")).toStrictEqual([
      message("a"),
      { event: "end", data: "last", id: undefined }
    ])
    expect(decode("data: a\n\nerror: boom")).toStrictEqual([
      message("a"),
      { event: "message", data: "", id: undefined, error: "boom" }
    ])
    expect(decode("data: a\n\nevent: x\n: comment")).toStrictEqual([message("a")])
  })

  it("returns events as soon as their blank line arrives, and nothing twice", () => {
    const decoder = new Sse.Framer()
    expect(decoder.push(utf8("data: a\n"))).toStrictEqual([])
    expect(decoder.push(utf8("\ndata: b\n\ndata: c"))).toStrictEqual([message("a"), message("b")])
    expect(decoder.end()).toStrictEqual([message("c")])
    expect(decoder.end()).toStrictEqual([])
    expect(decoder.push(utf8("data: d\n\n"))).toStrictEqual([])
  })

  it("decodes multi-byte characters split inside the character", () => {
    const body = utf8("data: 😀中\n\n")
    // "data: " is 6 bytes; the emoji takes bytes 6-9, the CJK character bytes 10-12.
    for (const cuts of [[7], [8], [9], [11], [12], [7, 8, 9, 11]]) {
      expect(decodeReads(splitAnywhere(body, cuts)).events).toStrictEqual([message("😀中")])
    }
  })

  it("turns invalid UTF-8 into U+FFFD; a body cut inside a character is truncated, its last event dropped", () => {
    const bytes = new Uint8Array([...utf8("data: a"), 0xff, ...utf8("b\n\ndata: c"), 0xe4, 0xb8])
    expect(decodeReads([bytes])).toStrictEqual({
      events: [message("a\uFFFDb")],
      error: {
        code: "truncated",
        message: "The body ended inside a UTF-8 character, before the provider's end marker",
        retryable: false
      }
    })
  })

  it("gives the same events for every split of a mixed body, and for one-byte reads", () => {
    const body = utf8(
      "\uFEFF: hi\r\nevent: e\rid: 9\ndata: 😀\r\ndata:x\r\r\ndata: 中文\n\nerror: {}\r\n\r\n" +
        "data\r\rretry: 5\ndata: [DONE]\r"
    )
    const expected = [
      { event: "e", data: "😀\nx", id: "9" },
      message("中文", "9"),
      { event: "message", data: "", id: "9", error: "{}" },
      message("", "9"),
      message("[DONE]", "9")
    ]
    expect(decodeReads([body]).events).toStrictEqual(expected)
    for (let i = 0; i <= body.length; i++) {
      expect(decodeReads(splitAnywhere(body, [i])).events).toStrictEqual(expected)
    }
    expect(decodeReads(Array.from(body, (b) => new Uint8Array([b]))).events).toStrictEqual(expected)
  })

  describe("size cap", () => {
    it("fails with protocol when one event passes the default 16 MiB, then yields nothing", () => {
      const decoder = new Sse.Framer()
      expect(decoder.push(utf8("data: small\n\ndata: "))).toStrictEqual([message("small")])
      const mib = utf8("x".repeat(1024 * 1024))
      for (let i = 0; i < 15; i++) expect(decoder.push(mib)).toStrictEqual([])
      expect(decoder.error).toBeUndefined()
      expect(decoder.push(mib)).toStrictEqual([])
      expect(decoder.push(utf8("\n\ndata: after\n\n"))).toStrictEqual([])
      expect(decoder.error).toStrictEqual({
        code: "protocol",
        message: "An SSE event exceeded the 16 MiB limit",
        retryable: false,
        details: { limit: Sse.defaultMaxEventBytes }
      })
      expect(decoder.push(utf8("data: later\n\n"))).toStrictEqual([])
      expect(decoder.end()).toStrictEqual([])
      expect(Sse.defaultMaxEventBytes).toBe(16 * 1024 * 1024)
    })

    it("keeps the events completed before the oversized one", () => {
      const body = "data: a\n\ndata: " + "x".repeat(100) + "\n\ndata: b\n\n"
      const { events, error } = decodeReads([body], { maxEventBytes: 64 })
      expect(events).toStrictEqual([message("a")])
      expect(error?.code).toBe("protocol")
      expect(error?.message).toBe("An SSE event exceeded the 64 bytes limit")
    })

    it("counts the whole pending data buffer, each line at its characters plus lineCost", () => {
      const line = "data: 0123456789\n"
      // One line holds 10 characters + lineCost (42); the blank line that ends the event adds nothing.
      expect(decodeReads([line + "\n"], { maxEventBytes: 10 + lineCost })).toStrictEqual({
        events: [message("0123456789")],
        error: undefined
      })
      expect(decodeReads([line + "\n"], { maxEventBytes: 10 + lineCost - 1 }).error?.code).toBe("protocol")
      // Three lines: 42 + 43 + 43 = 128 held by the end of the event.
      const three = line + line + line + "\n"
      expect(decodeReads([three], { maxEventBytes: 128 }).events).toStrictEqual([
        message("0123456789\n0123456789\n0123456789")
      ])
      const { events, error } = decodeReads([three], { maxEventBytes: 127 })
      expect(events).toStrictEqual([])
      expect(error?.message).toBe("An SSE event exceeded the 127 bytes limit")
    })

    it("bounds an event of empty data lines by their count, not only their characters", () => {
      // 100,000 empty lines are 100,000 characters but 3.3 MB of held lines: over a 1 MiB cap.
      const decoder = new Sse.Framer({ maxEventBytes: 1024 * 1024 })
      const body = utf8("data:\n".repeat(100_000) + "\n")
      expect(decoder.push(body)).toStrictEqual([])
      expect(decoder.error?.message).toBe("An SSE event exceeded the 1 MiB limit")
      expect(decoder.end()).toStrictEqual([])
    })

    it("counts an event's other fields too: long event: and error: lines are held as surely as data", () => {
      const long = "x".repeat(900)
      const body = `event: ${long}\nerror: ${long}\ndata: ${long}\n\n`
      const { events, error } = decodeReads([body], { maxEventBytes: 2000 })
      expect(events).toStrictEqual([])
      expect(error?.message).toBe("An SSE event exceeded the 2000 bytes limit")
    })

    it("counts what parsing would build: an event of tiny JSON objects is over the cap its text is under", () => {
      // 600 KiB of text, but 200,000 objects once parsed (≈ 12 MB): over a 4 MiB cap.
      const dense = "data: [" + "{},".repeat(200_000) + "{}]\n\n"
      const { events, error } = decodeReads([dense], { maxEventBytes: 4 * 1024 * 1024 })
      expect(events).toStrictEqual([])
      expect(error?.message).toBe("An SSE event exceeded the 4 MiB limit")
      // The same length as one string is fine.
      const flat = `data: ["${"a".repeat(600_000)}"]\n\n`
      expect(decodeReads([flat], { maxEventBytes: 4 * 1024 * 1024 }).events.length).toBe(1)
    })

    it("catches an endless line before it ends", () => {
      const decoder = new Sse.Framer({ maxEventBytes: 1024 })
      expect(decoder.push(utf8(": " + "k".repeat(1000)))).toStrictEqual([])
      expect(decoder.error).toBeUndefined()
      expect(decoder.push(utf8("k".repeat(100)))).toStrictEqual([])
      expect(decoder.error?.message).toBe("An SSE event exceeded the 1 KiB limit")
    })
  })
})

// ---------------------------------------------------------------------------------------------
// Properties

const codePoint = fc
  .oneof(
    fc.constantFrom("a", "Z", " ", ":", "{", "\"", "é", "€", "中", "😀", "\u0000", "\uFEFF", "\t"),
    fc.integer({ min: 0x20, max: 0x10ffff }).filter((c) => c < 0xd800 || c > 0xdfff).map((c) => String.fromCodePoint(c))
  )
  .filter((c) => c !== "\r" && c !== "\n")
const lineText = fc.array(codePoint, { maxLength: 8 }).map((cs) => cs.join(""))
const dataText = fc.array(fc.oneof(codePoint, fc.constant("\n")), { maxLength: 12 }).map((cs) => cs.join(""))

interface EventSpec {
  readonly comment: string | undefined
  readonly type: string | undefined
  readonly id: string | undefined
  readonly error: string | undefined
  readonly data: string | undefined
  readonly noSpace: boolean
  readonly retry: boolean
}

const eventSpec: fc.Arbitrary<EventSpec> = fc.record({
  comment: fc.option(lineText, { nil: undefined }),
  type: fc.option(lineText, { nil: undefined }),
  id: fc.option(fc.oneof(lineText, fc.constant("1\u00002")), { nil: undefined }),
  error: fc.option(lineText, { freq: 6, nil: undefined }),
  data: fc.option(dataText, { freq: 5, nil: undefined }),
  noSpace: fc.boolean(),
  retry: fc.boolean()
})

const lineEnd = fc.constantFrom("\n", "\r", "\r\n")

const sseBody = fc.record({
  bom: fc.boolean(),
  events: fc.array(eventSpec, { maxLength: 6 }),
  ends: fc.array(lineEnd, { minLength: 64, maxLength: 64 }),
  closing: fc.constantFrom("blank", "line-end", "none")
})

type SseBody = typeof sseBody extends fc.Arbitrary<infer A> ? A : never

/** Renders the events as SSE text and computes what a correct decoder must dispatch. */
const render = (spec: SseBody): { bytes: Uint8Array; expected: Array<Sse.Event> } => {
  const lines: Array<string> = []
  const expected: Array<Sse.Event> = []
  let lastId: string | undefined
  spec.events.forEach((e, i) => {
    if (e.comment !== undefined) lines.push(":" + e.comment)
    if (e.type !== undefined) lines.push("event: " + e.type)
    if (e.id !== undefined) lines.push("id: " + e.id)
    if (e.error !== undefined) lines.push("error: " + e.error)
    if (e.data !== undefined) {
      for (const l of e.data.split("\n")) lines.push((e.noSpace && !l.startsWith(" ") ? "data:" : "data: ") + l)
    }
    if (e.retry) lines.push("retry: 3000")
    if (e.id !== undefined && !e.id.includes("\u0000")) lastId = e.id
    const last = i === spec.events.length - 1
    if (!last || spec.closing === "blank") lines.push("")
    if (e.data !== undefined || e.error !== undefined) {
      const base = { event: e.type === undefined || e.type === "" ? "message" : e.type, data: e.data ?? "", id: lastId }
      expected.push(e.error === undefined ? base : { ...base, error: e.error })
    }
  })
  let text = spec.bom ? "\uFEFF" : ""
  let previous = ""
  lines.forEach((line, i) => {
    let end = spec.ends[i % spec.ends.length]
    // A lone CR followed by an empty LF-terminated line would read as one CRLF.
    if (previous === "\r" && line === "" && end === "\n") end = "\r"
    const isLast = i === lines.length - 1
    text += line + (isLast && spec.closing === "none" ? "" : end)
    previous = end
  })
  return { bytes: utf8(text), expected }
}

const cuts = fc.array(fc.nat({ max: 100_000 }), { maxLength: 24 })

describe("Sse.Framer properties", () => {
  it("decodes random bodies exactly, under any split into reads", () => {
    fc.assert(
      fc.property(sseBody, cuts, (spec, points) => {
        const { bytes, expected } = render(spec)
        expect(decodeReads([bytes]).events).toStrictEqual(expected)
        expect(decodeReads(splitAnywhere(bytes, points)).events).toStrictEqual(expected)
      }),
      { numRuns: 500 }
    )
  })

  it("gives split-independent events and errors on arbitrary token soup, with a small cap", () => {
    const token = fc.constantFrom(
      "data",
      "event",
      "id",
      "error",
      "retry",
      ":",
      " ",
      "\r",
      "\n",
      "\r\n",
      "x",
      "é",
      "😀",
      "\uFEFF",
      "\u0000"
    )
    fc.assert(
      fc.property(fc.array(token, { maxLength: 80 }), cuts, fc.integer({ min: 1, max: 40 }), (tokens, points, cap) => {
        const bytes = utf8(tokens.join(""))
        const whole = decodeReads([bytes], { maxEventBytes: cap })
        expect(decodeReads(splitAnywhere(bytes, points), { maxEventBytes: cap })).toStrictEqual(whole)
      }),
      { numRuns: 1000 }
    )
  })

  it("masks a configured key by value in the events, in any letter case, under any split", () => {
    const key = "sk-live-Q1w2E3r4T5y6"
    const piece = fc.constantFrom(
      "data: ",
      "event: x\n",
      "\n",
      "\r\n",
      "\n\n",
      ":",
      "a",
      "é",
      key,
      key.toUpperCase(),
      `Bearer ${key}`
    )
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), cuts, (pieces, points) => {
        const text = pieces.join("")
        const bytes = utf8(text)
        const masked = utf8(text.split(key).join("[redacted]").split(key.toUpperCase()).join("[redacted]"))
        const expected = decodeReads([masked])
        const options = { secrets: [key, `Bearer ${key}`] }
        expect(decodeReads([bytes], options)).toStrictEqual(expected)
        expect(decodeReads(splitAnywhere(bytes, points), options)).toStrictEqual(expected)
        expect(JSON.stringify(decodeReads(splitAnywhere(bytes, points), options)).toLowerCase()).not.toContain(
          key.toLowerCase()
        )
      }),
      { numRuns: 1000 }
    )
  })
})
