/**
 * Builds the benchmark's Anthropic Messages stream: the same size and shape as the Chat one (about
 * 1.2 MB in 6,000 events) — text deltas, a tool_use block whose input arrives in ~300
 * `input_json_delta` fragments, then `message_delta` usage and `message_stop`.
 */
import type { Expected } from "./openai-chat-stream.js"

const words = ["stream", "chunk", "effect", "token", "model", "layer", "sink", "usage", "reason", "call"]

const event = (type: string, payload: unknown): string => `event: ${type}\ndata: ${JSON.stringify(payload)}\n\n`

/** The stream's wire text and what it should decode to. */
export const build = (
  events = 6_000,
  argumentFragments = 300
): { readonly body: string; readonly expected: Expected } => {
  const items = Array.from({ length: argumentFragments - 2 }, (_, i) => i)
  const args = JSON.stringify({ query: "benchmark", items })
  const size = Math.ceil(args.length / argumentFragments)
  const fragments: Array<string> = []
  for (let i = 0; i < args.length; i += size) fragments.push(args.slice(i, i + size))
  // start + text block (start, deltas, stop) + tool block (start, fragments, stop) + delta + stop
  const textEvents = events - fragments.length - 7
  const parts: Array<string> = [
    event("message_start", {
      type: "message_start",
      message: {
        id: "msg_bench",
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [],
        stop_reason: null,
        usage: { input_tokens: 1200, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 1 }
      }
    }),
    event("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } })
  ]
  const text: Array<string> = []
  for (let i = 0; i < textEvents; i++) {
    const w = `${words[i % words.length]} `
    text.push(w)
    parts.push(
      event("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: w } })
    )
  }
  parts.push(event("content_block_stop", { type: "content_block_stop", index: 0 }))
  parts.push(event("content_block_start", {
    type: "content_block_start",
    index: 1,
    content_block: { type: "tool_use", id: "toolu_bench", name: "search", input: {} }
  }))
  for (const f of fragments) {
    parts.push(event("content_block_delta", {
      type: "content_block_delta",
      index: 1,
      delta: { type: "input_json_delta", partial_json: f }
    }))
  }
  parts.push(event("content_block_stop", { type: "content_block_stop", index: 1 }))
  const outputTokens = textEvents + argumentFragments
  parts.push(event("message_delta", {
    type: "message_delta",
    delta: { stop_reason: "tool_use", stop_sequence: null },
    usage: { output_tokens: outputTokens }
  }))
  parts.push(event("message_stop", { type: "message_stop" }))
  return {
    body: parts.join(""),
    expected: { text: text.join(""), toolArguments: JSON.parse(args) as unknown, inputTokens: 1200, outputTokens }
  }
}
