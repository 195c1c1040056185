import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as EventStream from "../../../src/internal/framing/EventStream.js"
import type * as LlmError from "../../../src/LlmError.js"
import * as BedrockFixture from "../../../src/providers/bedrock/fixture.js"
import { splitAnywhere } from "../../support/split.js"

const hex = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s.replace(/\s+/g, ""), "hex"))

/**
 * The golden frame of wire-formats.md §6 (a `contentBlockDelta` with text "Hello" and Bedrock's
 * padding field `p`), byte for byte: total 162, headers 87, prelude CRC 9acad7c8, message CRC 9b1cfb23.
 */
const golden = hex(`
  000000a2 00000057 9acad7c8
  0d 3a6d6573736167652d74797065 07 0005 6576656e74
  0b 3a6576656e742d74797065 07 0011 636f6e74656e74426c6f636b44656c7461
  0d 3a636f6e74656e742d74797065 07 0010 6170706c69636174696f6e2f6a736f6e
  7b22636f6e74656e74426c6f636b496e646578223a302c2264656c7461223a7b2274657874223a2248656c6c6f227d2c2270223a2261626364227d
  9b1cfb23
`)
const goldenPayload = "{\"contentBlockIndex\":0,\"delta\":{\"text\":\"Hello\"},\"p\":\"abcd\"}"

const event = (eventType: string, payload: string): EventStream.Frame => ({
  messageType: "event",
  eventType,
  exceptionType: undefined,
  errorCode: undefined,
  errorMessage: undefined,
  payload
})

const frameReads = (
  reads: ReadonlyArray<Uint8Array>,
  options?: EventStream.FramerOptions
): { frames: Array<EventStream.Frame>; error: LlmError.ErrorInfo | undefined } => {
  const framer = new EventStream.Framer(options)
  const frames = [...reads.flatMap((r) => framer.push(r)), ...framer.end()]
  return { frames, error: framer.error }
}

const concat = (...parts: ReadonlyArray<Uint8Array>): Uint8Array => Uint8Array.from(Buffer.concat(parts))

const three = [
  BedrockFixture.event("messageStart", { role: "assistant" }),
  golden,
  BedrockFixture.event("messageStop", { stopReason: "end_turn" })
]
const threeFrames = [
  event("messageStart", "{\"role\":\"assistant\"}"),
  event("contentBlockDelta", goldenPayload),
  event("messageStop", "{\"stopReason\":\"end_turn\"}")
]

describe("EventStream.Framer", () => {
  it("reads the golden frame of the wire reference, and the fixture encoder writes it byte for byte", () => {
    expect(frameReads([golden])).toStrictEqual({
      frames: [event("contentBlockDelta", goldenPayload)],
      error: undefined
    })
    expect(Buffer.from(BedrockFixture.event("contentBlockDelta", JSON.parse(goldenPayload))).toString("hex"))
      .toBe(Buffer.from(golden).toString("hex"))
  })

  it("frames several messages in one read, and one message over many reads", () => {
    const body = concat(...three)
    expect(frameReads([body]).frames).toStrictEqual(threeFrames)
    const bytes = [...body].map((b) => Uint8Array.of(b))
    expect(frameReads(bytes)).toStrictEqual({ frames: threeFrames, error: undefined })
  })

  it("returns each message as soon as its last byte arrives", () => {
    const framer = new EventStream.Framer()
    expect(framer.push(golden.subarray(0, 5))).toStrictEqual([])
    expect(framer.push(golden.subarray(5, 161))).toStrictEqual([])
    expect(framer.push(concat(golden.subarray(161), three[0]!.subarray(0, 3)))).toStrictEqual([
      event("contentBlockDelta", goldenPayload)
    ])
    expect(framer.push(three[0]!.subarray(3))).toStrictEqual([threeFrames[0]])
    expect(framer.end()).toStrictEqual([])
    expect(framer.error).toBeUndefined()
  })

  it("gives the same frames whatever the reads (empty reads included)", () => {
    const body = concat(...three)
    fc.assert(fc.property(fc.array(fc.nat({ max: body.length }), { maxLength: 40 }), (cuts) => {
      expect(frameReads(splitAnywhere(body, cuts))).toStrictEqual({ frames: threeFrames, error: undefined })
    }))
  })

  it("a corrupt message CRC is a protocol error: the messages before it stay, nothing after is framed", () => {
    const bad = golden.slice()
    bad[bad.length - 1]! ^= 0xff
    const { error, frames } = frameReads([concat(three[0]!, bad, three[2]!)])
    expect(frames).toStrictEqual([threeFrames[0]])
    expect(error?.code).toBe("protocol")
    expect(error?.message).toMatch(/^A corrupt event-stream message: The message checksum/)
  })

  it("a changed payload byte fails the message CRC; a changed prelude fails the prelude CRC", () => {
    const payload = golden.slice()
    payload[120]! ^= 0x01
    expect(frameReads([payload]).error?.message).toMatch(/message checksum/)
    const prelude = golden.slice()
    prelude[9]! ^= 0x01
    expect(frameReads([prelude]).error?.message).toMatch(/prelude checksum/)
    expect(frameReads([prelude]).frames).toStrictEqual([])
  })

  it("impossible lengths are a protocol error at once, without waiting for the bytes they announce", () => {
    const tooShort = hex("00000008 00000000 00000000")
    expect(frameReads([tooShort]).error).toMatchObject({
      code: "protocol",
      message: "An event-stream message has impossible lengths (total 8, headers 0)"
    })
    const headersPastEnd = hex("00000020 00000011 00000000")
    expect(frameReads([headersPastEnd]).error?.message).toBe(
      "An event-stream message has impossible lengths (total 32, headers 17)"
    )
  })

  it("a message over the cap is a protocol error as soon as its prelude arrives", () => {
    const framer = new EventStream.Framer({ maxEventBytes: 100 })
    expect(framer.push(golden.subarray(0, 12))).toStrictEqual([])
    expect(framer.error).toStrictEqual({
      code: "protocol",
      message: "An event-stream message exceeded the 100 bytes limit (162 bytes)",
      retryable: false,
      details: { limit: 100 }
    })
    expect(framer.push(golden.subarray(12))).toStrictEqual([])
  })

  it("a payload whose JSON would cost more than the cap once parsed is a protocol error", () => {
    const dense = "[" + "[],".repeat(2000) + "[]]"
    const { error, frames } = frameReads([BedrockFixture.message({ ":message-type": "event" }, dense)], {
      maxEventBytes: 64 * 1024
    })
    expect(frames).toStrictEqual([])
    expect(error?.message).toBe("An event-stream message exceeded the 65536 bytes limit once parsed")
  })

  it("a body that ends inside a message is truncated; one that ends between messages is not", () => {
    expect(frameReads([concat(three[0]!, golden.subarray(0, 20))])).toStrictEqual({
      frames: [threeFrames[0]],
      error: {
        code: "truncated",
        message: "The stream ended inside an event-stream message (20 of 162 bytes)",
        retryable: false
      }
    })
    expect(frameReads([golden.subarray(0, 5)]).error?.message).toBe(
      "The stream ended inside an event-stream message (5 of at least 16 bytes)"
    )
    expect(frameReads([concat(...three)]).error).toBeUndefined()
    expect(frameReads([]).error).toBeUndefined()
  })

  it("reads exception and error messages by their headers", () => {
    const exception = BedrockFixture.exception("throttlingException", { message: "Too many requests" })
    const error = BedrockFixture.message(
      { ":message-type": "error", ":error-code": "InternalFailure", ":error-message": "Something broke" },
      ""
    )
    expect(frameReads([concat(exception, error)]).frames).toStrictEqual([
      {
        messageType: "exception",
        eventType: undefined,
        exceptionType: "throttlingException",
        errorCode: undefined,
        errorMessage: undefined,
        payload: "{\"message\":\"Too many requests\"}"
      },
      {
        messageType: "error",
        eventType: undefined,
        exceptionType: undefined,
        errorCode: "InternalFailure",
        errorMessage: "Something broke",
        payload: ""
      }
    ])
  })

  it("masks credentials in payloads and the error-message header, and notes JSON escapes", () => {
    const secret = "AKIDEXAMPLESECRET0123456789"
    const framer = new EventStream.Framer({ secrets: [secret] })
    const frames = framer.push(concat(
      BedrockFixture.event("contentBlockDelta", { delta: { text: `key ${secret}` } }),
      BedrockFixture.message({ ":message-type": "error", ":error-message": `bad ${secret}` }, "")
    ))
    expect(frames.map((f) => [f.payload, f.errorMessage])).toStrictEqual([
      ["{\"delta\":{\"text\":\"key [redacted]\"}}", undefined],
      ["", "bad [redacted]"]
    ])
    expect(framer.escaped).toBe(false)
    framer.push(BedrockFixture.message({ ":message-type": "event" }, "{\"t\":\"\\u0041\"}"))
    expect(framer.escaped).toBe(true)
  })
})
