/**
 * What the Bedrock tests share: frames built from objects as the event-stream framer hands them
 * over, our own transcripts read and framed, and a decode helper.
 */
import { readdirSync, readFileSync } from "node:fs"
import * as ChunkDecoder from "../../../src/internal/ChunkDecoder.js"
import type * as EventStream from "../../../src/internal/framing/EventStream.js"
import * as Decode from "../../../src/providers/bedrock/decode.js"
import * as Fixture from "../../../src/providers/bedrock/fixture.js"
import type * as StreamChunk from "../../../src/StreamChunk.js"

/** One `event` frame, as the framer gives it. */
export const ev = (eventType: string, payload: unknown): EventStream.Frame => ({
  messageType: "event",
  eventType,
  exceptionType: undefined,
  errorCode: undefined,
  errorMessage: undefined,
  payload: typeof payload === "string" ? payload : JSON.stringify(payload)
})

/** One `exception` frame. */
export const exception = (exceptionType: string, payload: unknown): EventStream.Frame => ({
  ...ev("", payload),
  messageType: "exception",
  eventType: undefined,
  exceptionType
})

/** `contentBlockDelta` at `index`. */
export const delta = (index: number, d: Record<string, unknown>) =>
  ev("contentBlockDelta", { contentBlockIndex: index, delta: d })

/** `contentBlockStart` of a tool call at `index`. */
export const toolStart = (index: number, toolUseId: string, name: string) =>
  ev("contentBlockStart", { contentBlockIndex: index, start: { toolUse: { toolUseId, name } } })

/** `contentBlockStop` at `index`. */
export const blockStop = (index: number) => ev("contentBlockStop", { contentBlockIndex: index })

/** `messageStart`. */
export const start = ev("messageStart", { role: "assistant" })

/** `messageStop` with a stop reason. */
export const stop = (stopReason: string) => ev("messageStop", { stopReason })

/** `metadata` with usage (and latency 10 ms). */
export const metadata = (usage: Record<string, unknown>) => ev("metadata", { usage, metrics: { latencyMs: 10 } })

/** The model the tests configure. */
export const MODEL = "anthropic.claude-test-v1:0"

/** The metadata chunk every response starts with. */
export const META = { type: "metadata", provider: "bedrock", model: MODEL }

/** Decodes frames with a fresh decoder (provider `bedrock`, model {@link MODEL}). */
export const decode = (frames: ReadonlyArray<EventStream.Frame>): Array<StreamChunk.StreamChunk> =>
  ChunkDecoder.decodeAll(Decode.make({ provider: "bedrock", model: MODEL }), frames)

/** The folder of our own transcripts. */
export const ownDir = new URL("../../fixtures/bedrock/", import.meta.url)

/** Our own transcript names, sorted. */
export const ownTranscripts = (): Array<string> => readdirSync(ownDir).filter((f) => f.endsWith(".jsonl")).sort()

/** One of our own transcripts, framed as Bedrock sends it. */
export const own = (name: string): Uint8Array =>
  Fixture.eventStreamBytes(Fixture.linesOf(readFileSync(new URL(name, ownDir), "utf8")))
