/**
 * What the Cohere tests share: events built from objects as the SSE framer hands them over, our own
 * transcripts read and framed.
 */
import { readdirSync, readFileSync } from "node:fs"
import * as ChunkDecoder from "../../../src/internal/ChunkDecoder.js"
import * as Sse from "../../../src/internal/framing/Sse.js"
import * as Decode from "../../../src/providers/cohere/decode.js"
import type * as StreamChunk from "../../../src/StreamChunk.js"

/** One SSE event whose `event:` name is the payload's `type` (or `name` when given). */
export const ev = (payload: unknown, name?: string): Sse.Event => ({
  event: name ?? (payload as { type: string }).type,
  data: typeof payload === "string" ? payload : JSON.stringify(payload),
  id: undefined
})

/** Decodes events with a fresh decoder (provider `cohere`). */
export const decode = (events: ReadonlyArray<Sse.Event>): Array<StreamChunk.StreamChunk> =>
  ChunkDecoder.decodeAll(Decode.make({ provider: "cohere" }), events)

/** `message-start` with the given id. */
export const start = (id = "msg_1") =>
  ev({
    id,
    type: "message-start",
    delta: { message: { role: "assistant", content: [], tool_plan: "", tool_calls: [], citations: [] } }
  })

/** `content-start` of a `text` or `thinking` block. */
export const contentStart = (index: number, type: "text" | "thinking", initial = "") =>
  ev({ type: "content-start", index, delta: { message: { content: { type, [type]: initial } } } })

/** `content-delta` with a piece of text or thinking. */
export const contentDelta = (index: number, field: "text" | "thinking", piece: string) =>
  ev({ type: "content-delta", index, delta: { message: { content: { [field]: piece } } } })

/** `content-end`. */
export const contentEnd = (index: number) => ev({ type: "content-end", index })

/** `tool-plan-delta`. */
export const plan = (piece: string) => ev({ type: "tool-plan-delta", delta: { message: { tool_plan: piece } } })

/** `tool-call-start` at a tool index. */
export const toolStart = (index: number, id: string, name: string, args = "") =>
  ev({
    type: "tool-call-start",
    index,
    delta: { message: { tool_calls: { id, type: "function", function: { name, arguments: args } } } }
  })

/** `tool-call-delta` at a tool index. */
export const toolDelta = (index: number, args: string) =>
  ev({ type: "tool-call-delta", index, delta: { message: { tool_calls: { function: { arguments: args } } } } })

/** `tool-call-end`. */
export const toolEnd = (index: number) => ev({ type: "tool-call-end", index })

/** `message-end` with a finish reason and usage (raw tokens, billed units, cached tokens); `null`: no usage. */
export const end = (
  reason: string | null,
  usage: Record<string, unknown> | null = {
    billed_units: { input_tokens: 5, output_tokens: 2 },
    tokens: { input_tokens: 500, output_tokens: 4 }
  },
  extra?: Record<string, unknown>
) => ev({ type: "message-end", delta: { finish_reason: reason, ...(usage !== null ? { usage } : {}), ...extra } })

/** The metadata chunk of {@link start}. */
export const META = { type: "metadata", provider: "cohere", responseId: "msg_1" }

/** The usage chunk of {@link end}'s default usage. */
export const USAGE = {
  type: "usage",
  usage: {
    inputTokens: 500,
    outputTokens: 4,
    totalTokens: 504,
    raw: { billed_units: { input_tokens: 5, output_tokens: 2 }, tokens: { input_tokens: 500, output_tokens: 4 } }
  }
}

/** The folder of our own transcripts. */
export const ownDir = new URL("../../fixtures/cohere/", import.meta.url)

/** Our own transcript names, sorted. */
export const ownTranscripts = (): Array<string> => readdirSync(ownDir).filter((f) => f.endsWith(".sse")).sort()

/** One of our own transcripts, as wire text. */
export const own = (name: string): string => readFileSync(new URL(name, ownDir), "utf8")

/** A wire text framed by the real SSE framer. */
export const frame = (body: string): Array<Sse.Event> => {
  const framer = new Sse.Framer()
  return [...framer.push(new TextEncoder().encode(body)), ...framer.end()]
}
