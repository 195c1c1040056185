/**
 * What the Anthropic tests share: events built from objects as the SSE framer hands them over,
 * our own transcripts read and framed, and the expected chunks written out.
 */
import { readdirSync, readFileSync } from "node:fs"
import * as ChunkDecoder from "../../../src/internal/ChunkDecoder.js"
import * as Sse from "../../../src/internal/framing/Sse.js"
import * as Decode from "../../../src/providers/anthropic/decode.js"
import type * as StreamChunk from "../../../src/StreamChunk.js"

/** One SSE event whose `event:` name is the payload's `type` (or `name` when given). */
export const ev = (payload: unknown, name?: string): Sse.Event => ({
  event: name ?? (payload as { type: string }).type,
  data: typeof payload === "string" ? payload : JSON.stringify(payload),
  id: undefined
})

/** Decodes events with a fresh decoder (provider `anthropic`). */
export const decode = (events: ReadonlyArray<Sse.Event>): Array<StreamChunk.StreamChunk> =>
  ChunkDecoder.decodeAll(Decode.make({ provider: "anthropic" }), events)

/** A `message_start` with the given id, model `claude-test` and usage. */
export const start = (usage: Record<string, unknown> = { input_tokens: 10, output_tokens: 1 }, id = "msg_1") =>
  ev({
    type: "message_start",
    message: {
      id,
      type: "message",
      role: "assistant",
      model: "claude-test",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage
    }
  })

/** `content_block_start` at `index`. */
export const blockStart = (index: number, block: Record<string, unknown>) =>
  ev({ type: "content_block_start", index, content_block: block })

/** `content_block_delta` at `index`. */
export const delta = (index: number, d: Record<string, unknown>) => ev({ type: "content_block_delta", index, delta: d })

/** `content_block_stop` at `index`. */
export const blockStop = (index: number) => ev({ type: "content_block_stop", index })

/** `message_delta` with a stop reason and usage. */
export const messageDelta = (stopReason: string | null, usage?: Record<string, unknown>, extra?: object) =>
  ev({
    type: "message_delta",
    delta: { stop_reason: stopReason, stop_sequence: null, ...extra },
    ...(usage !== undefined ? { usage } : {})
  })

/** `message_stop`. */
export const stop = ev({ type: "message_stop" })

/** `ping`. */
export const ping = ev({ type: "ping" })

/** The metadata chunk of {@link start}. */
export const META = { type: "metadata", provider: "anthropic", model: "claude-test", responseId: "msg_1" }

/** The folder of our own transcripts. */
export const ownDir = new URL("../../fixtures/anthropic/", import.meta.url)

/** Our own transcript names, sorted. */
export const ownTranscripts = (): Array<string> => readdirSync(ownDir).filter((f) => f.endsWith(".sse")).sort()

/** One of our own transcripts, as wire text. */
export const own = (name: string): string => readFileSync(new URL(name, ownDir), "utf8")

/** A wire text framed by the real SSE framer. */
export const frame = (body: string): Array<Sse.Event> => {
  const framer = new Sse.Framer()
  return [...framer.push(new TextEncoder().encode(body)), ...framer.end()]
}
