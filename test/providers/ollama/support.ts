/**
 * What the Ollama tests share: lines built from objects as the NDJSON framer hands them over, our
 * own transcripts read and framed, and the metadata chunk written out.
 */
import { readdirSync, readFileSync } from "node:fs"
import * as ChunkDecoder from "../../../src/internal/ChunkDecoder.js"
import * as Ndjson from "../../../src/internal/framing/Ndjson.js"
import * as Decode from "../../../src/providers/ollama/decode.js"
import type * as StreamChunk from "../../../src/StreamChunk.js"

/** One line of the stream: an object as JSON text, or a string as it is. */
export const line = (payload: unknown): string => (typeof payload === "string" ? payload : JSON.stringify(payload))

/** A `done: false` line of model `llama-test` carrying `message` fields. */
export const part = (message: Record<string, unknown>) =>
  line({
    model: "llama-test",
    created_at: "2025-07-07T20:00:00Z",
    message: { role: "assistant", content: "", ...message },
    done: false
  })

/** The `done: true` line of model `llama-test`, with a reason and metrics. */
export const done = (doneReason: string | undefined, metrics: Record<string, unknown> = {}) =>
  line({
    model: "llama-test",
    created_at: "2025-07-07T20:00:01Z",
    message: { role: "assistant", content: "" },
    done: true,
    ...(doneReason !== undefined ? { done_reason: doneReason } : {}),
    ...metrics
  })

/** Decodes lines with a fresh decoder (provider `ollama`). */
export const decode = (lines: ReadonlyArray<string>): Array<StreamChunk.StreamChunk> =>
  ChunkDecoder.decodeAll(Decode.make({ provider: "ollama" }), lines)

/** The metadata chunk of {@link part} and {@link done}. */
export const META = { type: "metadata", provider: "ollama", model: "llama-test" }

/** The folder of our own transcripts. */
export const ownDir = new URL("../../fixtures/ollama/", import.meta.url)

/** Our own transcript names, sorted. */
export const ownTranscripts = (): Array<string> => readdirSync(ownDir).filter((f) => f.endsWith(".ndjson")).sort()

/** One of our own transcripts, as wire text. */
export const own = (name: string): string => readFileSync(new URL(name, ownDir), "utf8")

/** A wire text framed by the real NDJSON framer. */
export const frame = (body: string): Array<string> => {
  const framer = new Ndjson.Framer()
  return [...framer.push(new TextEncoder().encode(body)), ...framer.end()]
}
