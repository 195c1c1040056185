/**
 * The Cohere decoder driven with plain arrays of events: every chunk written out.
 */
import { describe, expect, it } from "vitest"
import * as Response from "../../../src/Response.js"
import {
  contentDelta,
  contentEnd,
  contentStart,
  decode,
  end,
  ev,
  frame,
  META,
  own,
  plan,
  start,
  toolDelta,
  toolEnd,
  toolStart,
  USAGE
} from "./support.js"

describe("text", () => {
  it("metadata from message-start, text deltas, then usage, cache-read and the finish of message-end", () => {
    expect(decode(frame(own("text.sse")))).toStrictEqual([
      { type: "metadata", provider: "cohere", responseId: "c0h-text-1" },
      { type: "text-delta", delta: "Bonjour" },
      { type: "text-delta", delta: "! Comment ça va" },
      { type: "text-delta", delta: " aujourd'hui ?" },
      {
        type: "usage",
        usage: {
          inputTokens: 512,
          outputTokens: 14,
          totalTokens: 526,
          cacheReadTokens: 448,
          raw: {
            billed_units: { input_tokens: 9, output_tokens: 11 },
            tokens: { input_tokens: 512, output_tokens: 14 },
            cached_tokens: 448
          }
        }
      },
      { type: "cache-read", cacheReadTokens: 448, accumulated: 448 },
      { type: "finish", reason: "stop", rawReason: "COMPLETE" }
    ])
  })

  it("text given whole at content-start, and a delta for a block never started, are text", () => {
    expect(decode([
      start(),
      contentStart(0, "text", "Hello"),
      contentDelta(0, "text", " there"),
      contentDelta(7, "text", "!"),
      contentEnd(0),
      end("COMPLETE")
    ])).toStrictEqual([
      META,
      { type: "text-delta", delta: "Hello" },
      { type: "text-delta", delta: " there" },
      { type: "text-delta", delta: "!" },
      USAGE,
      { type: "finish", reason: "stop", rawReason: "COMPLETE" }
    ])
  })

  it("finish reasons: STOP_SEQUENCE → stop, MAX_TOKENS → length, TOOL_CALL → tool_calls, none → stop", () => {
    const finish = (reason: string | null) => decode([start(), end(reason)]).at(-1)
    expect([finish("STOP_SEQUENCE"), finish("MAX_TOKENS"), finish("TOOL_CALL"), finish(null)]).toStrictEqual([
      { type: "finish", reason: "stop", rawReason: "STOP_SEQUENCE" },
      { type: "finish", reason: "length", rawReason: "MAX_TOKENS" },
      { type: "finish", reason: "tool_calls", rawReason: "TOOL_CALL" },
      { type: "finish", reason: "stop" }
    ])
    const r = Response.fromChunks(decode(frame(own("max-tokens.sse"))))
    expect([r.text, r.finishReason, r.rawFinishReason]).toStrictEqual([
      "Once upon a time, in a land",
      "length",
      "MAX_TOKENS"
    ])
  })
})

describe("reasoning", () => {
  it("thinking deltas, then one reasoning chunk at content-end, then the answer", () => {
    const chunks = decode(frame(own("thinking.sse")))
    expect(chunks.filter((c) => c.type !== "usage")).toStrictEqual([
      { type: "metadata", provider: "cohere", responseId: "c0h-think-1" },
      { type: "reasoning-delta", delta: "925 ÷ 5", accumulated: "925 ÷ 5" },
      { type: "reasoning-delta", delta: " = 185", accumulated: "925 ÷ 5 = 185" },
      { type: "reasoning", text: "925 ÷ 5 = 185" },
      { type: "text-delta", delta: "185" },
      { type: "finish", reason: "stop", rawReason: "COMPLETE" }
    ])
  })

  it("a thinking block never ended is closed by the next output; two blocks are two runs", () => {
    const chunks = decode([
      start(),
      contentStart(0, "thinking"),
      contentDelta(0, "thinking", "one"),
      contentStart(1, "thinking", "two"),
      contentStart(2, "text"),
      contentDelta(2, "text", "answer"),
      contentStart(3, "thinking"),
      contentDelta(3, "thinking", "three"),
      end("COMPLETE")
    ])
    expect(chunks.filter((c) => c.type.startsWith("reasoning") || c.type === "text-delta")).toStrictEqual([
      { type: "reasoning-delta", delta: "one", accumulated: "one" },
      { type: "reasoning", text: "one" },
      { type: "reasoning-delta", delta: "two", accumulated: "onetwo" },
      { type: "reasoning", text: "two" },
      { type: "text-delta", delta: "answer" },
      { type: "reasoning-delta", delta: "three", accumulated: "onetwothree" },
      { type: "reasoning", text: "three" }
    ])
  })
})

describe("tool calls", () => {
  it("the plan as text, fragments keyed by the tool index, id and name on the first, a no-argument call as {}", () => {
    const chunks = decode(frame(own("tool-call.sse")))
    expect(chunks.filter((c) => c.type !== "usage" && c.type !== "cache-read")).toStrictEqual([
      { type: "metadata", provider: "cohere", responseId: "c0h-tool-1" },
      { type: "text-delta", delta: "I will check" },
      { type: "text-delta", delta: " the weather" },
      { type: "text-delta", delta: " and the time." },
      {
        type: "tool-call-delta",
        index: 0,
        argumentsDelta: "{\"city\": \"Par",
        id: "get_weather_k2x9q1",
        name: "get_weather"
      },
      { type: "tool-call-delta", index: 0, argumentsDelta: "is\", \"unit\": \"celsius\"}" },
      {
        type: "tool-call",
        toolCall: {
          index: 0,
          id: "get_weather_k2x9q1",
          name: "get_weather",
          arguments: { city: "Paris", unit: "celsius" },
          rawArguments: "{\"city\": \"Paris\", \"unit\": \"celsius\"}"
        }
      },
      {
        type: "tool-call",
        toolCall: { index: 1, id: "current_time_p7d3m0", name: "current_time", arguments: {}, rawArguments: "" }
      },
      { type: "finish", reason: "tool_calls", rawReason: "TOOL_CALL" }
    ])
    // The `data: [DONE]` after message-end adds nothing.
    expect(chunks.at(-1)).toStrictEqual({ type: "finish", reason: "tool_calls", rawReason: "TOOL_CALL" })
  })

  it("arguments given at the start; tool indices that do not start at 0; calls never ended are ended at message-end", () => {
    const chunks = decode([
      start(),
      toolStart(3, "a_1", "alpha", "{\"x\":"),
      toolDelta(3, "1}"),
      toolStart(5, "b_2", "beta"),
      toolDelta(5, "{\"y\":2}"),
      end("COMPLETE")
    ])
    expect(Response.fromChunks(chunks).toolCalls).toStrictEqual([
      { index: 0, id: "a_1", name: "alpha", arguments: { x: 1 }, rawArguments: "{\"x\":1}" },
      { index: 1, id: "b_2", name: "beta", arguments: { y: 2 }, rawArguments: "{\"y\":2}" }
    ])
    // Calls went out, and the reason only says the message is complete: tool_calls, raw kept.
    expect(chunks.at(-1)).toStrictEqual({ type: "finish", reason: "tool_calls", rawReason: "COMPLETE" })
  })

  it("a delta with no start gets a synthesized id; bad arguments are kept raw with a parse error", () => {
    const chunks = decode([start("gen_9"), toolDelta(0, "{\"broken\": "), toolEnd(0), end("TOOL_CALL")])
    expect(chunks.filter((c) => c.type.startsWith("tool-call"))).toStrictEqual([
      { type: "tool-call-delta", index: 0, argumentsDelta: "{\"broken\": ", id: "gen_9_call_0" },
      {
        type: "tool-call",
        toolCall: {
          index: 0,
          id: "gen_9_call_0",
          name: "",
          arguments: { raw: "{\"broken\": " },
          rawArguments: "{\"broken\": ",
          parseError: expect.any(String)
        }
      }
    ])
  })

  it("a second start at the same tool index ends the first call", () => {
    const calls = Response.fromChunks(decode([
      start(),
      toolStart(0, "one", "first", "{}"),
      toolStart(0, "two", "second", "{\"n\":2}"),
      toolEnd(0),
      end("TOOL_CALL")
    ])).toolCalls
    expect(calls.map((c) => [c.index, c.id, c.name, c.arguments])).toStrictEqual([
      [0, "one", "first", {}],
      [1, "two", "second", { n: 2 }]
    ])
  })

  it("the plan before the calls is text, in order", () => {
    const chunks = decode([
      start(),
      plan("I will"),
      plan(" call."),
      toolStart(0, "c", "f"),
      toolEnd(0),
      end("TOOL_CALL")
    ])
    expect(Response.fromChunks(chunks).text).toBe("I will call.")
  })
})

describe("citations", () => {
  it("one source part per source, the span and the source as sent in providerMetadata", () => {
    const chunks = decode(frame(own("citations.sse")))
    const parts = chunks.filter((c) => c.type === "content-part")
    const span1 = { start: 0, end: 32, text: "Emperor penguins are the tallest", type: "TEXT_CONTENT" }
    const span2 = { start: 37, end: 52, text: "breed in winter", type: "TEXT_CONTENT" }
    expect(parts).toStrictEqual([
      {
        type: "content-part",
        part: {
          type: "source",
          sourceType: "document",
          id: "doc:0",
          url: "https://example.org/penguins",
          title: "Penguins of Antarctica",
          providerMetadata: {
            ...span1,
            source: {
              type: "document",
              id: "doc:0",
              document: {
                id: "doc:0",
                text: "Emperor penguins are the tallest penguins, up to 1.2 m.",
                title: "Penguins of Antarctica",
                url: "https://example.org/penguins"
              }
            }
          }
        }
      },
      {
        type: "content-part",
        part: {
          type: "source",
          sourceType: "document",
          id: "doc:1",
          providerMetadata: {
            ...span2,
            source: {
              type: "document",
              id: "doc:1",
              document: { id: "doc:1", text: "They breed in the Antarctic winter." }
            }
          }
        }
      },
      {
        type: "content-part",
        part: {
          type: "source",
          sourceType: "document",
          id: "penguin_facts_w1:0",
          providerMetadata: {
            ...span2,
            source: { type: "tool", id: "penguin_facts_w1:0", tool_output: { fact: "They dive to 500 m." } }
          }
        }
      }
    ])
    const r = Response.fromChunks(chunks)
    expect([r.text, r.contentParts.length, r.finishReason]).toStrictEqual([
      "Emperor penguins are the tallest and breed in winter.",
      3,
      "stop"
    ])
  })
})

describe("usage", () => {
  it("tokens are reported, billed units kept in raw; billed units stand in when tokens are absent", () => {
    const billedOnly = decode([start(), end("COMPLETE", { billed_units: { input_tokens: 7, output_tokens: 3 } })])
    expect(billedOnly.find((c) => c.type === "usage")).toStrictEqual({
      type: "usage",
      usage: {
        inputTokens: 7,
        outputTokens: 3,
        totalTokens: 10,
        raw: { billed_units: { input_tokens: 7, output_tokens: 3 } }
      }
    })
  })

  it("no usage object, or one with no counts: no usage chunk", () => {
    expect(decode([start(), end("COMPLETE", null)])).toStrictEqual([
      META,
      { type: "finish", reason: "stop", rawReason: "COMPLETE" }
    ])
    expect(decode([start(), end("COMPLETE", { tokens: { input_tokens: "x" } })]).map((c) => c.type)).toStrictEqual([
      "metadata",
      "finish"
    ])
  })
})

describe("errors and endings", () => {
  it("finish_reason ERROR: the text and usage kept, then a server error", () => {
    const chunks = decode(frame(own("error-finish.sse")))
    expect(chunks.slice(-2)).toStrictEqual([
      {
        type: "usage",
        usage: {
          inputTokens: 500,
          outputTokens: 3,
          totalTokens: 503,
          raw: { billed_units: { input_tokens: 5, output_tokens: 3 }, tokens: { input_tokens: 500, output_tokens: 3 } }
        }
      },
      {
        type: "error",
        error: {
          code: "server",
          message: "Cohere ended the response with finish_reason ERROR: generation failed",
          retryable: true,
          provider: "cohere",
          details: { finish_reason: "ERROR" }
        }
      }
    ])
    expect(Response.fromChunks(chunks).text).toBe("The first part")
  })

  it("finish_reason TIMEOUT is a timeout error", () => {
    expect(decode([start(), end("TIMEOUT", null)]).at(-1)).toStrictEqual({
      type: "error",
      error: {
        code: "timeout",
        message: "Cohere ended the response with finish_reason TIMEOUT",
        retryable: true,
        provider: "cohere",
        details: { finish_reason: "TIMEOUT" }
      }
    })
  })

  it("an in-band {message} body, an event: error, and plain text in an event: error are errors", () => {
    const inBand = decode([
      start(),
      contentDelta(0, "text", "Hi"),
      ev({ id: "req_1", message: "too many tokens" }, "message")
    ])
    expect(inBand.at(-1)).toStrictEqual({
      type: "error",
      error: {
        code: "context_length",
        message: "too many tokens",
        retryable: false,
        provider: "cohere",
        requestId: "req_1",
        details: { id: "req_1", message: "too many tokens" }
      }
    })
    const typed = decode([start(), ev({ type: "error", message: "internal error" })])
    expect(typed.at(-1)).toMatchObject({ type: "error", error: { code: "unknown", message: "internal error" } })
    const plain = decode([start(), ev("upstream connect error", "error")])
    expect(plain.at(-1)).toMatchObject({ type: "error", error: { code: "unknown", message: "upstream connect error" } })
  })

  it("broken JSON is a protocol error; nothing after a terminal chunk", () => {
    const chunks = decode([start(), ev("{\"type\":\"content-delta\",", "content-delta"), contentDelta(0, "text", "x")])
    expect(chunks).toStrictEqual([
      META,
      {
        type: "error",
        error: {
          code: "protocol",
          message: "The stream sent an event that is not a JSON object: \"{\\\"type\\\":\\\"content-delta\\\",\"",
          retryable: false,
          provider: "cohere"
        }
      }
    ])
    expect(decode([start(), end("COMPLETE"), contentDelta(0, "text", "late")]).at(-1)?.type).toBe("finish")
  })

  it("no message-end: no terminal chunk from the decoder (ensureTerminal adds truncated)", () => {
    expect(decode([start(), contentDelta(0, "text", "cut"), ev("[DONE]", "message")])).toStrictEqual([
      META,
      { type: "text-delta", delta: "cut" }
    ])
  })

  it("debug, citation-end and unknown events are skipped; an event before message-start gets a bare metadata", () => {
    expect(decode([
      contentDelta(0, "text", "a"),
      ev({ type: "debug", prompt: "…" }),
      ev({ type: "citation-end", index: 0 }),
      ev({ type: "brand-new-event", delta: {} }),
      end("COMPLETE", null)
    ])).toStrictEqual([
      { type: "metadata", provider: "cohere" },
      { type: "text-delta", delta: "a" },
      { type: "finish", reason: "stop", rawReason: "COMPLETE" }
    ])
  })
})

describe("hostile shapes", () => {
  it("a tool-call-delta before its tool-call-start: one call, the synthesized id kept, the start's name adopted", () => {
    const chunks = decode([
      start("gen_9"),
      toolDelta(0, "{\"city\":"),
      toolStart(0, "weather_real", "get_weather"),
      toolDelta(0, "\"Paris\"}"),
      toolEnd(0),
      end("TOOL_CALL")
    ])
    expect(chunks.filter((c) => c.type.startsWith("tool-call"))).toStrictEqual([
      { type: "tool-call-delta", index: 0, argumentsDelta: "{\"city\":", id: "gen_9_call_0" },
      // Later fragments carry the id once the service layer adds it to each (DESIGN "tool-call-delta").
      { type: "tool-call-delta", index: 0, argumentsDelta: "\"Paris\"}" },
      {
        type: "tool-call",
        toolCall: {
          index: 0,
          id: "gen_9_call_0",
          name: "get_weather",
          arguments: { city: "Paris" },
          rawArguments: "{\"city\":\"Paris\"}"
        }
      }
    ])
  })

  it("tool_calls sent as an array of one call is read like the object", () => {
    const chunks = decode([
      start(),
      ev({
        type: "tool-call-start",
        index: 0,
        delta: {
          message: { tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{\"a\":1}" } }] }
        }
      }),
      ev({ type: "tool-call-delta", index: 0, delta: { message: { tool_calls: [{ function: { arguments: "" } }] } } }),
      toolEnd(0),
      end("TOOL_CALL")
    ])
    expect(Response.fromChunks(chunks).toolCalls).toStrictEqual([
      { index: 0, id: "c1", name: "f", arguments: { a: 1 }, rawArguments: "{\"a\":1}" }
    ])
  })

  it("usage at the top of message-end (not under delta) is read too", () => {
    const usage = { tokens: { input_tokens: 5, output_tokens: 2 } }
    expect(
      decode([
        start(),
        contentDelta(0, "text", "Hi"),
        ev({ type: "message-end", delta: { finish_reason: "COMPLETE" }, usage })
      ])
    )
      .toStrictEqual([
        META,
        { type: "text-delta", delta: "Hi" },
        { type: "usage", usage: { inputTokens: 5, outputTokens: 2, totalTokens: 7, raw: usage } },
        { type: "finish", reason: "stop", rawReason: "COMPLETE" }
      ])
  })

  it("a [DONE] in the middle ends nothing: what follows is read, message-end finishes", () => {
    const chunks = decode([
      start(),
      contentDelta(0, "text", "a"),
      ev("[DONE]"),
      contentDelta(0, "text", "b"),
      end("COMPLETE", null)
    ])
    expect(Response.fromChunks(chunks).text).toBe("ab")
    expect(chunks.at(-1)).toStrictEqual({ type: "finish", reason: "stop", rawReason: "COMPLETE" })
  })

  it("thinking interleaved with tool calls: each thinking run closes before the call, nothing merged", () => {
    const chunks = decode([
      start(),
      contentStart(0, "thinking"),
      contentDelta(0, "thinking", "First."),
      toolStart(0, "c1", "f", "{}"),
      contentDelta(0, "thinking", "Then."),
      toolEnd(0),
      end("TOOL_CALL", null)
    ])
    expect(
      chunks.filter((c) => c.type === "reasoning" || c.type === "tool-call").map((c) =>
        c.type === "reasoning" ? c.text : c.toolCall.id
      )
    )
      .toStrictEqual(["First.", "Then.", "c1"])
  })
})
