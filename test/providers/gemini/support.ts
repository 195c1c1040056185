/**
 * What the Gemini tests share: events built from objects as the SSE framer hands them over, our own
 * transcripts read and framed.
 */
import { readdirSync, readFileSync } from "node:fs"
import * as ChunkDecoder from "../../../src/internal/ChunkDecoder.js"
import * as Sse from "../../../src/internal/framing/Sse.js"
import * as Decode from "../../../src/providers/gemini/decode.js"
import type * as StreamChunk from "../../../src/StreamChunk.js"

/** One unnamed SSE event holding a payload (an object as JSON, a string as it is). */
export const ev = (payload: unknown): Sse.Event => ({
  event: "message",
  data: typeof payload === "string" ? payload : JSON.stringify(payload),
  id: undefined
})

/** A response event: the first candidate's parts, its finish reason and the usage snapshot. */
export const chunk = (
  parts: ReadonlyArray<unknown>,
  options: { readonly finish?: string; readonly usage?: Record<string, unknown>; readonly id?: string } = {}
) =>
  ev({
    candidates: [{
      content: { parts, role: "model" },
      ...(options.finish !== undefined ? { finishReason: options.finish } : {}),
      index: 0
    }],
    ...(options.usage !== undefined ? { usageMetadata: options.usage } : {}),
    modelVersion: "gemini-test",
    responseId: options.id ?? "resp_1"
  })

/** Decodes events with a fresh decoder (provider `google`). */
export const decode = (events: ReadonlyArray<Sse.Event>): Array<StreamChunk.StreamChunk> =>
  ChunkDecoder.decodeAll(Decode.make({ provider: "google" }), events)

/** The metadata chunk of {@link chunk}. */
export const META = { type: "metadata", provider: "google", model: "gemini-test", responseId: "resp_1" } as const

/** The folder of our own transcripts. */
export const ownDir = new URL("../../fixtures/gemini/", import.meta.url)

/** Our own transcript names, sorted. */
export const ownTranscripts = (): Array<string> => readdirSync(ownDir).filter((f) => f.endsWith(".sse")).sort()

/** One of our own transcripts, as wire text. */
export const own = (name: string): string => readFileSync(new URL(name, ownDir), "utf8")

/** A wire text framed by the real SSE framer. */
export const frame = (body: string): Array<Sse.Event> => {
  const framer = new Sse.Framer()
  return [...framer.push(new TextEncoder().encode(body)), ...framer.end()]
}
