/**
 * A conversation that moves between providers (a fallback, a switch of model) carries reasoning
 * blobs that only their own provider accepts: each encoder sends back its own (or untagged) parts and
 * leaves the others out, and `Response` tags every signed or redacted part with its provider.
 */
import * as Either from "effect/Either"
import { describe, expect, it } from "vitest"
import type * as ChatRequest from "../../src/ChatRequest.js"
import * as AnthropicRequest from "../../src/providers/anthropic/request.js"
import * as ResponsesRequest from "../../src/providers/openai-responses/request.js"
import * as Response from "../../src/Response.js"
import * as StreamChunk from "../../src/StreamChunk.js"

const answered = (provider: string, part: { signature?: string; redacted?: string }) =>
  Response.fromChunks([
    StreamChunk.metadata(provider, "m", "r1"),
    StreamChunk.reasoning("thought", part),
    StreamChunk.textDelta("Hi"),
    StreamChunk.finish("stop")
  ]).message

const next = (message: ChatRequest.AssistantMessage): ChatRequest.ChatRequest => ({
  messages: [{ role: "user", content: "a" }, message, { role: "user", content: "b" }]
})

const anthropicBody = (request: ChatRequest.ChatRequest) =>
  Either.getOrThrow(AnthropicRequest.encode(request, { model: "c", maxTokens: 100, provider: "anthropic" })) as {
    messages: Array<{ role: string; content: unknown }>
  }
const responsesBody = (request: ChatRequest.ChatRequest) =>
  ResponsesRequest.encode(request, { model: "o4-mini", provider: "openai" }) as { input: Array<unknown> }

describe("reasoning blobs go back only to the provider that made them", () => {
  it("Response tags signed and redacted parts with the stream's provider, and plain ones not at all", () => {
    expect(answered("openai", { signature: "rs_1", redacted: "gAAAA-blob" }).reasoning).toStrictEqual([
      { text: "thought", signature: "rs_1", redacted: "gAAAA-blob", provider: "openai" }
    ])
  })

  it("Anthropic leaves out OpenAI's encrypted reasoning, and keeps its own", () => {
    const foreign = anthropicBody(next(answered("openai", { signature: "rs_1", redacted: "gAAAA-blob" })))
    expect(foreign.messages[1]).toStrictEqual({ role: "assistant", content: [{ type: "text", text: "Hi" }] })
    const own = anthropicBody(next(answered("anthropic", { signature: "sig-1" })))
    expect(own.messages[1]).toStrictEqual({
      role: "assistant",
      content: [{ type: "thinking", thinking: "thought", signature: "sig-1" }, { type: "text", text: "Hi" }]
    })
  })

  it("OpenAI Responses leaves out Anthropic's redacted thinking, and keeps its own", () => {
    const foreign = responsesBody(next(answered("anthropic", { redacted: "EmwK-blob" })))
    expect(foreign.input.filter((item) => (item as { type?: string }).type === "reasoning")).toStrictEqual([])
    const own = responsesBody(next(answered("openai", { signature: "rs_1", redacted: "gAAAA-blob" })))
    expect(own.input.filter((item) => (item as { type?: string }).type === "reasoning")).toStrictEqual([
      {
        type: "reasoning",
        id: "rs_1",
        summary: [{ type: "summary_text", text: "thought" }],
        encrypted_content: "gAAAA-blob"
      }
    ])
  })
})
