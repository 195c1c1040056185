import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as LanguageModel from "../../src/LanguageModel.js"
import * as OpenAiChat from "../../src/providers/openai-chat/index.js"
import * as Fixture from "../../src/testing/Fixture.js"
import * as Replay from "../../src/testing/Replay.js"
import { awaitSleepUntil } from "../support/clock.js"

const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes)

describe("Fixture framing", () => {
  it("frames each SSE family as its provider sends it", () => {
    expect(text(Fixture.frame("openai-chat", ["{\"a\":1}", "{\"b\":2}"]))).toBe(
      "data: {\"a\":1}\n\ndata: {\"b\":2}\n\ndata: [DONE]\n\n"
    )
    expect(text(Fixture.frame("anthropic", ["{\"type\":\"message_start\"}", "{\"type\":\"ping\"}"]))).toBe(
      "event: message_start\ndata: {\"type\":\"message_start\"}\n\nevent: ping\ndata: {\"type\":\"ping\"}\n\n"
    )
    expect(text(Fixture.frame("openai-responses", ["{\"type\":\"response.created\"}"]))).toBe(
      "event: response.created\ndata: {\"type\":\"response.created\"}\n\n"
    )
    expect(text(Fixture.frame("cohere", ["{\"type\":\"message-end\"}"]))).toBe(
      "event: message-end\ndata: {\"type\":\"message-end\"}\n\n"
    )
    expect(text(Fixture.frame("google", ["{\"candidates\":[]}"]))).toBe("data: {\"candidates\":[]}\r\n\r\n")
  })

  it("frames a Bedrock line as one AWS event-stream message with valid CRCs", () => {
    const bytes = Fixture.frame("bedrock", [
      "{\"contentBlockDelta\":{\"delta\":{\"text\":\"Hi\"},\"contentBlockIndex\":0}}"
    ])
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    const total = view.getUint32(0)
    const headersLength = view.getUint32(4)
    expect(total).toBe(bytes.length)
    // headers: name length, name, type 7 (string), value length, value
    const headers: Record<string, string> = {}
    let at = 12
    while (at < 12 + headersLength) {
      const nameLength = bytes[at]
      const name = text(bytes.subarray(at + 1, at + 1 + nameLength))
      expect(bytes[at + 1 + nameLength]).toBe(7)
      const valueLength = view.getUint16(at + 2 + nameLength)
      headers[name] = text(bytes.subarray(at + 4 + nameLength, at + 4 + nameLength + valueLength))
      at += 4 + nameLength + valueLength
    }
    expect(headers).toStrictEqual({
      ":message-type": "event",
      ":event-type": "contentBlockDelta",
      ":content-type": "application/json"
    })
    expect(JSON.parse(text(bytes.subarray(12 + headersLength, total - 4)))).toStrictEqual({
      delta: { text: "Hi" },
      contentBlockIndex: 0
    })
  })

  it("an event-stream frame matches the published golden vector, CRCs included", () => {
    // wire-formats §6: a contentBlockDelta "Hello" with Bedrock's padding field `p`.
    const bytes = Fixture.eventStreamFrame(
      { ":message-type": "event", ":event-type": "contentBlockDelta", ":content-type": "application/json" },
      new TextEncoder().encode("{\"contentBlockIndex\":0,\"delta\":{\"text\":\"Hello\"},\"p\":\"abcd\"}")
    )
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    expect([view.getUint32(0), view.getUint32(4), view.getUint32(8)]).toStrictEqual([162, 87, 0x9acad7c8])
    expect(view.getUint32(158)).toBe(0x9b1cfb23)
    expect(bytes.length).toBe(162)
  })

  it("splits at offsets and reproducibly at random, losing no byte", () => {
    const bytes = new TextEncoder().encode("abcdefghij")
    expect(Fixture.splitAt(bytes, [7, 3, 3, 0, 99]).map(text)).toStrictEqual(["abc", "defg", "hij"])
    const a = Fixture.splitRandom(bytes, 42, 4).map(text)
    expect(Fixture.splitRandom(bytes, 42, 4).map(text)).toStrictEqual(a)
    expect(a.join("")).toBe("abcdefghij")
    expect(a.every((p) => p.length >= 1 && p.length <= 4)).toBe(true)
  })
})

describe("Replay.fromRecording", () => {
  const lines = [
    `data: {"id":"c1","model":"gpt-4.1-mini","choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}\n\n`,
    `data: {"id":"c1","model":"gpt-4.1-mini","choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":"stop"}]}\n\n`,
    `data: [DONE]\n\n`
  ]
  const recording: Replay.Recording = {
    version: 1,
    provider: "openai",
    status: 200,
    headers: { "content-type": "text/event-stream" },
    reads: [
      { atMs: 100, base64: Buffer.from(lines[0]).toString("base64") },
      { atMs: 350, base64: Buffer.from(lines[1] + lines[2]).toString("base64") }
    ]
  }

  it.effect("plays the recorded reads back with the recorded gaps", () =>
    Effect.gen(function*() {
      const seen: Array<string> = []
      const fiber = yield* LanguageModel.stream("hi").pipe(
        Stream.runForEach((c) => Effect.sync(() => void seen.push(c.type === "text-delta" ? c.delta : c.type))),
        Effect.provide(
          OpenAiChat.layer({ model: "gpt-4.1-mini", apiKey: Redacted.make("k"), baseUrl: "http://replay.invalid/v1" })
        ),
        Effect.fork
      )
      yield* awaitSleepUntil(100)
      expect(seen).toStrictEqual([])
      yield* TestClock.adjust("100 millis")
      yield* awaitSleepUntil(350)
      expect(seen).toStrictEqual(["metadata", "Hel"])
      yield* TestClock.adjust("250 millis")
      yield* Fiber.join(fiber)
      expect(seen).toStrictEqual(["metadata", "Hel", "lo", "finish"])
    }).pipe(Effect.provide(Replay.layer(Replay.fromRecording(recording)))))
})
