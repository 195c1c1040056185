/**
 * Wire bytes from recordings: the framing of every provider family (one event payload per line →
 * the bytes the provider would have sent), and deterministic ways to split them into network reads.
 *
 * @example
 * ```ts
 * import { Fixture } from "effect-llm-stream/testing"
 *
 * // A recording's event payloads, one per line, as the text an SSE server sends:
 * const wire: string = Fixture.sseText("openai-chat", ["{\"choices\":[]}", "[DONE]"])
 * ```
 *
 * @since 0.1.0
 */
import { EventStreamCodec } from "@smithy/eventstream-codec"
import { fromUtf8, toUtf8 } from "@smithy/util-utf8"
import * as RecordingText from "../internal/kit/recordingText.js"
import * as AnthropicFixture from "../providers/anthropic/fixture.js"
import * as OpenAiChatFixture from "../providers/openai-chat/fixture.js"
import * as OpenAiResponsesFixture from "../providers/openai-responses/fixture.js"

/**
 * The provider families whose recordings can be framed.
 *
 * @since 0.1.0
 * @category models
 */
export type Family = "openai-chat" | "openai-responses" | "anthropic" | "google" | "bedrock" | "cohere"

const encoder = new TextEncoder()

/**
 * Each family's framing lives with its provider (`providers/<name>/fixture.ts`); a family whose
 * provider is not written yet uses the kit's generic shapes until it is.
 */
const sseFramings: Record<Exclude<Family, "bedrock">, (lines: ReadonlyArray<string>) => string> = {
  "openai-chat": OpenAiChatFixture.sseText,
  "openai-responses": OpenAiResponsesFixture.sseText,
  anthropic: AnthropicFixture.sseText,
  cohere: RecordingText.typedEvents,
  // Gemini frames with CRLF and has no end marker: the stream just closes.
  google: (lines) => RecordingText.dataEvents(lines, "\r\n")
}

/**
 * The SSE text of a recording, per family (not for `bedrock`, which is binary).
 *
 * @since 0.1.0
 * @category utils
 */
export const sseText = (family: Exclude<Family, "bedrock">, lines: ReadonlyArray<string>): string =>
  sseFramings[family](lines)

const codec = new EventStreamCodec(toUtf8, fromUtf8)

/**
 * One AWS event-stream frame with string headers and a payload, CRCs included (encoded by the
 * maintained `@smithy/eventstream-codec`, the codec the Bedrock provider decodes with).
 *
 * @since 0.1.0
 * @category utils
 */
export const eventStreamFrame = (headers: Readonly<Record<string, string>>, payload: Uint8Array): Uint8Array => {
  const typed: Record<string, { type: "string"; value: string }> = {}
  for (const [name, value] of Object.entries(headers)) typed[name] = { type: "string", value }
  return codec.encode({ headers: typed, body: payload })
}

const bedrockBytes = (lines: ReadonlyArray<string>): Uint8Array => {
  const frames = lines.map((line) => {
    const parsed = JSON.parse(line) as Record<string, unknown>
    const eventType = Object.keys(parsed)[0] ?? "unknown"
    return eventStreamFrame(
      { ":message-type": "event", ":event-type": eventType, ":content-type": "application/json" },
      encoder.encode(JSON.stringify(parsed[eventType]))
    )
  })
  return concat(frames)
}

/**
 * The wire bytes of a recording (one event payload per line), framed as its family sends them.
 *
 * @since 0.1.0
 * @category utils
 */
export const frame = (family: Family, lines: ReadonlyArray<string>): Uint8Array =>
  family === "bedrock" ? bedrockBytes(lines) : encoder.encode(sseText(family, lines))

/**
 * Concatenates byte arrays.
 *
 * @since 0.1.0
 * @category utils
 */
export const concat = (parts: ReadonlyArray<Uint8Array>): Uint8Array => {
  const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

/**
 * Splits bytes at the given offsets (sorted, deduplicated, out-of-range ignored).
 *
 * @since 0.1.0
 * @category utils
 */
export const splitAt = (bytes: Uint8Array, offsets: ReadonlyArray<number>): Array<Uint8Array> => {
  const cuts = [...new Set(offsets)].filter((o) => o > 0 && o < bytes.length).sort((a, b) => a - b)
  const out: Array<Uint8Array> = []
  let prev = 0
  for (const c of cuts) {
    out.push(bytes.subarray(prev, c))
    prev = c
  }
  out.push(bytes.subarray(prev))
  return out
}

/**
 * A small deterministic PRNG (mulberry32), so a random split is reproducible from its seed.
 *
 * @since 0.1.0
 * @category utils
 */
export const prng = (seed: number): () => number => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * Splits bytes into reads of random sizes (1 to `maxRead` bytes), reproducibly from `seed`.
 *
 * @since 0.1.0
 * @category utils
 */
export const splitRandom = (bytes: Uint8Array, seed: number, maxRead = 64): Array<Uint8Array> => {
  const next = prng(seed)
  const out: Array<Uint8Array> = []
  let at = 0
  while (at < bytes.length) {
    const size = 1 + Math.floor(next() * maxRead)
    out.push(bytes.subarray(at, Math.min(bytes.length, at + size)))
    at += size
  }
  return out
}
