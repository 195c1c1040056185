/**
 * What the Chat Completions decoder tests share: SSE events as the framer hands them over, and the
 * chunks they expect, written out.
 */
import type * as Sse from "../../src/internal/framing/Sse.js"

/** One SSE event with `data` (and optionally a named event or the llama.cpp `error:` field). */
export const event = (data: string, extra?: { event?: string; error?: string }): Sse.Event => ({
  event: extra?.event ?? "message",
  data,
  id: undefined,
  ...(extra?.error !== undefined ? { error: extra.error } : {})
})

/** The end marker. */
export const DONE = event("[DONE]")

/** The metadata chunk of the test responses (`chatcmpl-1`, model `gpt-test`). */
export const META = { type: "metadata", provider: "openai", model: "gpt-test", responseId: "chatcmpl-1" }

/** An expected `tool-call-delta`; `head` carries the id and name of a call's first fragment. */
export const argDelta = (index: number, argumentsDelta: string, head?: { id?: string; name: string }) => ({
  type: "tool-call-delta",
  index,
  argumentsDelta,
  ...head
})

/** An expected finished `tool-call`. */
export const call = (index: number, id: string, name: string, rawArguments: string, args: unknown) => ({
  type: "tool-call",
  toolCall: { index, id, name, arguments: args, rawArguments }
})

/** An expected `finish`. */
export const finish = (reason: string, rawReason?: string) =>
  rawReason === undefined ? { type: "finish", reason } : { type: "finish", reason, rawReason }
