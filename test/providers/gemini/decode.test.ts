/**
 * The Gemini decoder on plain arrays of events: our transcripts chunk by chunk, and each rule of
 * decode.ts (thoughts and signatures, whole and streamed calls, the held finish, every finish
 * reason, blocked prompts, in-band errors, usage, sources, CRLF framing).
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { describe, expect, it } from "vitest"
import * as Sse from "../../../src/internal/framing/Sse.js"
import * as PartialArgs from "../../../src/providers/gemini/partialArgs.js"
import * as Response from "../../../src/Response.js"
import * as StreamChunk from "../../../src/StreamChunk.js"
import { chunk, decode, ev, frame, META, own } from "./support.js"

const withTerminal = (chunks: ReadonlyArray<StreamChunk.StreamChunk>) => [
  ...Effect.runSync(
    Stream.runCollect(StreamChunk.ensureTerminal(Stream.fromIterable(chunks), { provider: "google" }))
  )
]

const meta = (model: string, responseId: string) => ({ type: "metadata", provider: "google", model, responseId })

describe("Gemini decoder: our transcripts", () => {
  it("text.sse: text deltas, one usage per changed snapshot, STOP held to the end", () => {
    expect(decode(frame(own("text.sse")))).toStrictEqual([
      meta("gemini-2.5-flash", "resp_text_1"),
      { type: "text-delta", delta: "Hello" },
      {
        type: "usage",
        usage: {
          inputTokens: 8,
          outputTokens: 1,
          totalTokens: 9,
          raw: { promptTokenCount: 8, candidatesTokenCount: 1, totalTokenCount: 9 }
        }
      },
      { type: "text-delta", delta: ", world" },
      {
        type: "usage",
        usage: {
          inputTokens: 8,
          outputTokens: 3,
          totalTokens: 11,
          raw: { promptTokenCount: 8, candidatesTokenCount: 3, totalTokenCount: 11 }
        }
      },
      { type: "text-delta", delta: "! été 🌞" },
      {
        type: "usage",
        usage: {
          inputTokens: 8,
          outputTokens: 6,
          totalTokens: 14,
          raw: { promptTokenCount: 8, candidatesTokenCount: 6, totalTokenCount: 14 }
        }
      },
      { type: "finish", reason: "stop", rawReason: "STOP" }
    ])
  })

  it("thinking.sse: thought deltas, the run closed when the answer begins, the text part's signature as its own block", () => {
    const chunks = decode(frame(own("thinking.sse")))
    expect(chunks.filter((c) => c.type !== "usage")).toStrictEqual([
      meta("gemini-2.5-pro", "resp_think_1"),
      {
        type: "reasoning-delta",
        delta: "**Multiplying**\n\nI need 17 × 23.",
        accumulated: "**Multiplying**\n\nI need 17 × 23."
      },
      {
        type: "reasoning-delta",
        delta: " 17 × 20 = 340, 17 × 3 = 51.",
        accumulated: "**Multiplying**\n\nI need 17 × 23. 17 × 20 = 340, 17 × 3 = 51."
      },
      { type: "reasoning", text: "**Multiplying**\n\nI need 17 × 23. 17 × 20 = 340, 17 × 3 = 51." },
      { type: "text-delta", delta: "17 × 23 = " },
      { type: "text-delta", delta: "391." },
      { type: "reasoning", text: "", signature: "CiQBVKhc7sigTHINKING0123" },
      { type: "finish", reason: "stop", rawReason: "STOP" }
    ])
    const last = Response.fromChunks(chunks).usage!
    expect([last.inputTokens, last.outputTokens, last.totalTokens, last.reasoningTokens]).toStrictEqual([
      12,
      78,
      90,
      70
    ])
  })

  it("tool-calls.sse: two whole calls, the signed one carrying its signature; STOP after calls is tool_calls", () => {
    const chunks = decode(frame(own("tool-calls.sse"))).filter((c) => c.type !== "usage")
    expect(chunks).toStrictEqual([
      meta("gemini-2.5-flash", "resp_tools_1"),
      { type: "text-delta", delta: "Checking both cities." },
      {
        type: "tool-call-delta",
        index: 0,
        argumentsDelta: "{\"city\":\"Paris\",\"unit\":\"celsius\"}",
        id: "resp_tools_1_call_0",
        name: "get_weather"
      },
      {
        type: "tool-call",
        toolCall: {
          index: 0,
          id: "resp_tools_1_call_0",
          name: "get_weather",
          arguments: { city: "Paris", unit: "celsius" },
          rawArguments: "{\"city\":\"Paris\",\"unit\":\"celsius\"}",
          signature: "CiQBVKhc7sigCALL0"
        }
      },
      {
        type: "tool-call-delta",
        index: 1,
        argumentsDelta: "{\"city\":\"Tokyo\",\"days\":[1,2],\"detail\":null}",
        id: "resp_tools_1_call_1",
        name: "get_weather"
      },
      {
        type: "tool-call",
        toolCall: {
          index: 1,
          id: "resp_tools_1_call_1",
          name: "get_weather",
          arguments: { city: "Tokyo", days: [1, 2], detail: null },
          rawArguments: "{\"city\":\"Tokyo\",\"days\":[1,2],\"detail\":null}"
        }
      },
      { type: "finish", reason: "tool_calls", rawReason: "STOP" }
    ])
  })

  it("vertex-partial-args.sse: each value a JSON fragment, strings continued and escaped, closed by {}", () => {
    const chunks = decode(frame(own("vertex-partial-args.sse")))
    const fragments = chunks.flatMap((c) => c.type === "tool-call-delta" ? [c.argumentsDelta] : [])
    expect(fragments).toStrictEqual([
      "{\"trip\":{\"city\":\"Par",
      "is \\\"centre\\\"",
      "\"",
      ",\"nights\":3,\"breakfast\":true",
      "},\"guests\":[{\"name\":\"Ada\"",
      "},{\"name\":\"Grace\",\"note\":null",
      "}]}"
    ])
    const call = chunks.find((c) => c.type === "tool-call")
    expect(call).toStrictEqual({
      type: "tool-call",
      toolCall: {
        index: 0,
        id: "resp_vertex_1_call_0",
        name: "book_trip",
        arguments: {
          trip: { city: "Paris \"centre\"", nights: 3, breakfast: true },
          guests: [{ name: "Ada" }, { name: "Grace", note: null }]
        },
        rawArguments: fragments.join(""),
        signature: "CmIBjz1rVERTEX"
      }
    })
    // The `trafficType`-only snapshots are no usage; the last one is.
    expect(chunks.filter((c) => c.type === "usage").map((c) => c.type === "usage" && c.usage.totalTokens))
      .toStrictEqual([120])
    expect(chunks.at(-1)).toStrictEqual({ type: "finish", reason: "tool_calls", rawReason: "STOP" })
  })

  it("max-tokens.sse: MAX_TOKENS is length; cached prompt tokens inside input and reported once as cache-read", () => {
    const chunks = decode(frame(own("max-tokens.sse")))
    expect(chunks.map((c) => c.type)).toStrictEqual([
      "metadata",
      "text-delta",
      "usage",
      "cache-read",
      "text-delta",
      "usage",
      "finish"
    ])
    expect(chunks[3]).toStrictEqual({ type: "cache-read", cacheReadTokens: 2048, accumulated: 2048 })
    const usage = chunks[5]!.type === "usage" ? chunks[5].usage : undefined
    expect({ ...usage, raw: undefined }).toStrictEqual({
      inputTokens: 2100,
      outputTokens: 8,
      totalTokens: 2108,
      cacheReadTokens: 2048,
      raw: undefined
    })
    expect(chunks.at(-1)).toStrictEqual({ type: "finish", reason: "length", rawReason: "MAX_TOKENS" })
  })

  it("prompt-blocked.sse: a blockReason with no candidate ends in content_filter, the reason kept", () => {
    expect(decode(frame(own("prompt-blocked.sse")))).toStrictEqual([
      meta("gemini-2.5-flash", "resp_block_1"),
      {
        type: "usage",
        usage: { inputTokens: 9, outputTokens: 0, totalTokens: 9, raw: { promptTokenCount: 9, totalTokenCount: 9 } }
      },
      { type: "finish", reason: "content_filter", rawReason: "PROHIBITED_CONTENT" }
    ])
  })

  it("error-midstream.sse: the text kept, then the in-band error as overloaded, retryable", () => {
    const chunks = decode(frame(own("error-midstream.sse")))
    expect(chunks.slice(1, 2)).toStrictEqual([{ type: "text-delta", delta: "The answer is" }])
    expect(chunks.at(-1)).toStrictEqual({
      type: "error",
      error: {
        code: "overloaded",
        message: "The model is overloaded. Please try again later.",
        retryable: true,
        status: 503,
        provider: "google",
        details: {
          error: { code: 503, message: "The model is overloaded. Please try again later.", status: "UNAVAILABLE" }
        }
      }
    })
  })

  it("grounding.sse: the searches as a google_search call, grounding chunks as source parts, each URL once; tool-use prompt tokens count as input", () => {
    const chunks = decode(frame(own("grounding.sse")))
    const parts = chunks.flatMap((c) => c.type === "content-part" ? [c.part] : [])
    expect(parts[0]).toStrictEqual({
      type: "provider-tool",
      kind: "call",
      id: "resp_ground_1_tool_0",
      name: "google_search",
      input: { queries: ["euro 2024 winner"] }
    })
    expect(parts.slice(1).map((p) => p.type === "source" ? [p.url, p.title] : [])).toStrictEqual([
      ["https://vertexaisearch.cloud.google.com/grounding-api-redirect/AAA", "uefa.com"],
      ["https://vertexaisearch.cloud.google.com/grounding-api-redirect/BBB", "bbc.com"]
    ])
    const r = Response.fromChunks(chunks)
    expect([r.text, r.usage?.inputTokens, r.usage?.outputTokens, r.usage?.totalTokens, r.finishReason])
      .toStrictEqual(["Spain won Euro 2024.", 130, 6, 136, "stop"])
  })

  it("demo transcripts: the weather call, then the answer", () => {
    const call = Response.fromChunks(decode(frame(own("demo-weather-tool-call.sse"))))
    expect([call.reasoning, call.text, call.toolCalls, call.finishReason]).toStrictEqual([
      "The user wants the current weather in Paris. I should call get_weather with city Paris.",
      "Let me look up the weather in Paris.",
      [{
        index: 0,
        id: "resp_demo_1_call_0",
        name: "get_weather",
        arguments: { city: "Paris" },
        rawArguments: "{\"city\":\"Paris\"}",
        signature: "CiQBVKhc7sigDEMO0123"
      }],
      "tool_calls"
    ])
    const answer = Response.fromChunks(decode(frame(own("demo-weather-answer.sse"))))
    expect([answer.text, answer.usage?.inputTokens, answer.usage?.outputTokens, answer.usage?.cacheReadTokens])
      .toStrictEqual([
        "It's 18 °C with light rain in Paris right now: mild, but take an umbrella if you head out.",
        140,
        19,
        128
      ])
  })
})

describe("Gemini decoder: rules", () => {
  it("no finishReason: no terminal chunk from the decoder, so the stream ends truncated", () => {
    const chunks = decode([chunk([{ text: "Hel" }])])
    expect(chunks).toStrictEqual([META, { type: "text-delta", delta: "Hel" }])
    expect(withTerminal(chunks).at(-1)).toMatchObject({ type: "error", error: { code: "truncated" } })
  })

  it("a usage-only event after the finishReason still counts: the finish waits for the end", () => {
    const chunks = decode([
      chunk([{ text: "Hi" }], {
        finish: "STOP",
        usage: { promptTokenCount: 3, candidatesTokenCount: 1, totalTokenCount: 4 }
      }),
      ev({
        usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2, thoughtsTokenCount: 5, totalTokenCount: 10 }
      })
    ])
    expect(chunks.map((c) => c.type)).toStrictEqual(["metadata", "text-delta", "usage", "usage", "finish"])
    expect(Response.fromChunks(chunks).usage).toMatchObject({
      inputTokens: 3,
      outputTokens: 7,
      totalTokens: 10,
      reasoningTokens: 5
    })
  })

  const reasons: ReadonlyArray<readonly [string, StreamChunk.FinishReason]> = [
    ["STOP", "stop"],
    ["MAX_TOKENS", "length"],
    ["SAFETY", "content_filter"],
    ["RECITATION", "content_filter"],
    ["LANGUAGE", "content_filter"],
    ["BLOCKLIST", "content_filter"],
    ["PROHIBITED_CONTENT", "content_filter"],
    ["SPII", "content_filter"],
    ["IMAGE_SAFETY", "content_filter"],
    ["IMAGE_PROHIBITED_CONTENT", "content_filter"],
    ["IMAGE_RECITATION", "content_filter"],
    ["MALFORMED_FUNCTION_CALL", "error"],
    ["UNEXPECTED_TOOL_CALL", "error"],
    ["TOO_MANY_TOOL_CALLS", "error"],
    ["OTHER", "stop"],
    ["FINISH_REASON_UNSPECIFIED", "stop"],
    ["NO_IMAGE", "stop"],
    ["IMAGE_OTHER", "stop"]
  ]
  for (const [raw, reason] of reasons) {
    it(`finishReason ${raw} → ${reason}`, () => {
      expect(decode([chunk([{ text: "x" }], { finish: raw })]).at(-1)).toStrictEqual({
        type: "finish",
        reason,
        rawReason: raw
      })
    })
  }

  it("a call then MAX_TOKENS stays length; STOP after a call is tool_calls", () => {
    const call = { functionCall: { name: "f", args: {} } }
    expect(decode([chunk([call], { finish: "MAX_TOKENS" })]).at(-1)).toMatchObject({ reason: "length" })
    expect(decode([chunk([call], { finish: "STOP" })]).at(-1)).toMatchObject({ reason: "tool_calls" })
  })

  it("a blocked prompt is content_filter whatever its reason, even OTHER", () => {
    expect(decode([ev({ promptFeedback: { blockReason: "OTHER" }, responseId: "r" })]).at(-1))
      .toStrictEqual({ type: "finish", reason: "content_filter", rawReason: "OTHER" })
  })

  it("the provider's call id is used; a signature on a thought part signs its run, a second one starts a new run", () => {
    const chunks = decode([
      chunk([{ text: "a", thought: true, thoughtSignature: "sig1" }, {
        text: "b",
        thought: true,
        thoughtSignature: "sig2"
      }]),
      chunk([{ functionCall: { id: "fc_9", name: "f", args: { x: 1 } } }], { finish: "STOP" })
    ])
    expect(chunks.filter((c) => c.type === "reasoning")).toStrictEqual([
      { type: "reasoning", text: "a", signature: "sig1" },
      { type: "reasoning", text: "b", signature: "sig2" }
    ])
    expect(chunks.find((c) => c.type === "tool-call")).toMatchObject({ toolCall: { id: "fc_9", arguments: { x: 1 } } })
  })

  it("a whole call with no args is {}; ids are stable: the n-th call of the response", () => {
    const chunks = decode([
      chunk([{ functionCall: { name: "a" } }, { functionCall: { name: "b", args: { k: "v" } } }], { finish: "STOP" })
    ])
    expect(Response.fromChunks(chunks).toolCalls.map((c) => [c.id, c.name, c.rawArguments])).toStrictEqual([
      ["resp_1_call_0", "a", "{}"],
      ["resp_1_call_1", "b", "{\"k\":\"v\"}"]
    ])
  })

  it("a streamed call cut off by the finish is finished, its arguments closed", () => {
    const chunks = decode([
      chunk([{ functionCall: { name: "f", willContinue: true } }]),
      chunk([{
        functionCall: { partialArgs: [{ jsonPath: "$.q", stringValue: "hel", willContinue: true }], willContinue: true }
      }]),
      chunk([{ text: "" }], { finish: "STOP" })
    ])
    expect(Response.fromChunks(chunks).toolCalls).toStrictEqual([
      { index: 0, id: "resp_1_call_0", name: "f", arguments: { q: "hel" }, rawArguments: "{\"q\":\"hel\"}" }
    ])
  })

  it("a streamed call with no arguments is {}, sent as one fragment", () => {
    const chunks = decode([
      chunk([{ functionCall: { name: "f", willContinue: true } }]),
      chunk([{ functionCall: {} }], { finish: "STOP" })
    ])
    expect(chunks.filter((c) => c.type === "tool-call-delta")).toStrictEqual([
      { type: "tool-call-delta", index: 0, argumentsDelta: "{}", id: "resp_1_call_0", name: "f" }
    ])
  })

  it("values the streamed text cannot hold (a path revisited, an index out of order) are still kept", () => {
    const args = new PartialArgs.PartialArgs()
    args.push({ jsonPath: "$.a.x", numberValue: 1 })
    args.push({ jsonPath: "$.b", numberValue: 2 })
    expect(args.push({ jsonPath: "$.a.y", numberValue: 3 })).toBe("")
    expect(args.push({ jsonPath: "$.list[0]", stringValue: "p" })).toBe("")
    args.close()
    expect(JSON.parse(args.raw())).toStrictEqual({ a: { x: 1, y: 3 }, b: 2, list: ["p"] })
    const holes = new PartialArgs.PartialArgs()
    holes.push({ jsonPath: "$.list[2]", stringValue: "far" })
    holes.push({ jsonPath: "$.ok", boolValue: false })
    holes.close()
    expect(JSON.parse(holes.raw())).toStrictEqual({ ok: false })
  })

  it("a __proto__ path is a key like any other, and the quoted path form is read", () => {
    const args = new PartialArgs.PartialArgs()
    args.push({ jsonPath: "$.__proto__.polluted", stringValue: "yes" })
    args.push({ jsonPath: "$['a.b']", numberValue: 1 })
    args.close()
    const parsed = JSON.parse(args.raw()) as Record<string, unknown>
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype)
    expect(Object.keys(parsed)).toStrictEqual(["__proto__", "a.b"])
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it("inlineData is an image part; other media a file part", () => {
    const chunks = decode([
      chunk([{ inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } }, {
        inlineData: { mimeType: "audio/wav", data: "UklGRg==" }
      }], {
        finish: "STOP"
      })
    ])
    expect(chunks.filter((c) => c.type === "content-part")).toStrictEqual([
      { type: "content-part", part: { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" } },
      { type: "content-part", part: { type: "file", mediaType: "audio/wav", data: "UklGRg==" } }
    ])
  })

  it("citations are sources too", () => {
    const chunks = decode([
      ev({
        candidates: [{
          content: { parts: [{ text: "Quoted." }] },
          citationMetadata: { citations: [{ startIndex: 0, endIndex: 7, uri: "https://example.com/a", title: "A" }] },
          finishReason: "STOP"
        }],
        responseId: "r"
      })
    ])
    expect(chunks.find((c) => c.type === "content-part")).toMatchObject({
      part: { type: "source", sourceType: "url", url: "https://example.com/a", title: "A" }
    })
  })

  it("a body that is not JSON is a protocol error; a JSON array holding an error is that error", () => {
    expect(decode([ev("{\"candidates\":[")]).at(-1)).toMatchObject({ type: "error", error: { code: "protocol" } })
    const arr = decode([ev([{ error: { code: 429, message: "Quota", status: "RESOURCE_EXHAUSTED" } }])])
    expect(arr.at(-1)).toMatchObject({ type: "error", error: { code: "rate_limit", status: 429, retryable: true } })
  })

  it("nothing after the terminal chunk", () => {
    const chunks = decode([
      ev({ error: { code: 500, message: "Internal", status: "INTERNAL" } }),
      chunk([{ text: "late" }], { finish: "STOP" })
    ])
    expect(chunks.map((c) => c.type)).toStrictEqual(["metadata", "error"])
  })
})

describe("Gemini framing: CRLF", () => {
  it("CRLF events, split anywhere (a CR and its LF in two reads too), give the chunks of LF framing", () => {
    const crlf = own("thinking.sse")
    expect(crlf.includes("\r\n\r\n")).toBe(true)
    const lf = crlf.replaceAll("\r\n", "\n")
    const expected = decode(frame(lf))
    expect(decode(frame(crlf))).toStrictEqual(expected)
    const bytes = new TextEncoder().encode(crlf)
    for (let at = 1; at < bytes.length; at += 7) {
      const framer = new Sse.Framer()
      const events = [...framer.push(bytes.subarray(0, at)), ...framer.push(bytes.subarray(at)), ...framer.end()]
      expect(decode(events)).toStrictEqual(expected)
    }
    // Each event is dispatched at its CRLF blank line, not held until the body ends.
    const framer = new Sse.Framer()
    const first = crlf.slice(0, crlf.indexOf("\r\n\r\n") + 4)
    expect(framer.push(new TextEncoder().encode(first)).length).toBe(1)
  })
})

describe("Gemini decoder: every part kind is kept", () => {
  const parts = (chunks: ReadonlyArray<StreamChunk.StreamChunk>) =>
    chunks.flatMap((c) => c.type === "content-part" ? [c.part] : [])

  it("executableCode and codeExecutionResult are a code_execution call and its result, in order with the text", () => {
    const chunks = decode([
      chunk([{ text: "Let me compute." }, {
        executableCode: { language: "PYTHON", code: "print(2**10)" },
        thoughtSignature: "sigCode"
      }]),
      chunk([{ codeExecutionResult: { outcome: "OUTCOME_OK", output: "1024\n" } }, { text: "It is 1024." }]),
      chunk([{ executableCode: { language: "PYTHON", code: "1/0", id: "c9" } }]),
      chunk([{ codeExecutionResult: { outcome: "OUTCOME_FAILED", output: "ZeroDivisionError", id: "c9" } }], {
        finish: "STOP"
      })
    ])
    expect(chunks.filter((c) => c.type !== "metadata")).toStrictEqual([
      { type: "text-delta", delta: "Let me compute." },
      {
        type: "content-part",
        part: {
          type: "provider-tool",
          kind: "call",
          id: "resp_1_tool_0",
          name: "code_execution",
          input: { language: "PYTHON", code: "print(2**10)" },
          providerMetadata: { thoughtSignature: "sigCode" }
        }
      },
      {
        type: "content-part",
        part: {
          type: "provider-tool",
          kind: "result",
          id: "resp_1_tool_0",
          name: "code_execution",
          output: { outcome: "OUTCOME_OK", output: "1024\n" }
        }
      },
      { type: "text-delta", delta: "It is 1024." },
      {
        type: "content-part",
        part: {
          type: "provider-tool",
          kind: "call",
          id: "c9",
          name: "code_execution",
          input: { language: "PYTHON", code: "1/0", id: "c9" }
        }
      },
      {
        type: "content-part",
        part: {
          type: "provider-tool",
          kind: "result",
          id: "c9",
          name: "code_execution",
          output: { outcome: "OUTCOME_FAILED", output: "ZeroDivisionError", id: "c9" },
          isError: true
        }
      },
      { type: "finish", reason: "stop", rawReason: "STOP" }
    ])
    expect(Response.fromChunks(chunks).text).toBe("Let me compute.It is 1024.")
  })

  it("toolCall / toolResponse parts (tools Google runs) are provider-tool call and result, matched by id or order", () => {
    const chunks = decode([
      chunk([
        { toolCall: { id: "s1", toolType: "GOOGLE_SEARCH_WEB", args: { queries: ["weather paris"] } } },
        { toolResponse: { id: "s1", toolType: "GOOGLE_SEARCH_WEB", response: { search_suggestions: "…" } } },
        { toolCall: { toolType: "URL_CONTEXT" }, thoughtSignature: "sigTool" },
        { toolResponse: { response: { pages: 1 } } }
      ], { finish: "STOP" })
    ])
    expect(parts(chunks)).toStrictEqual([
      {
        type: "provider-tool",
        kind: "call",
        id: "s1",
        name: "GOOGLE_SEARCH_WEB",
        input: { queries: ["weather paris"] }
      },
      {
        type: "provider-tool",
        kind: "result",
        id: "s1",
        name: "GOOGLE_SEARCH_WEB",
        output: { search_suggestions: "…" }
      },
      {
        type: "provider-tool",
        kind: "call",
        id: "resp_1_tool_0",
        name: "URL_CONTEXT",
        input: {},
        providerMetadata: { thoughtSignature: "sigTool" }
      },
      { type: "provider-tool", kind: "result", id: "resp_1_tool_0", name: "URL_CONTEXT", output: { pages: 1 } }
    ])
    // Google ran these tools itself: nothing for the caller to run, so the finish stays stop.
    expect(chunks.at(-1)).toStrictEqual({ type: "finish", reason: "stop", rawReason: "STOP" })
  })

  it("an image part keeps its thoughtSignature and says when it is a thought; fileData is media by URI", () => {
    const chunks = decode([
      chunk([{ inlineData: { mimeType: "image/png", data: "AAAA" }, thought: true }]),
      chunk([{ inlineData: { mimeType: "image/png", data: "BBBB" }, thoughtSignature: "sigImg" }]),
      chunk([{ fileData: { mimeType: "video/mp4", fileUri: "https://files.example/v.mp4" } }], { finish: "STOP" })
    ])
    expect(parts(chunks)).toStrictEqual([
      { type: "image", mediaType: "image/png", data: "AAAA", providerMetadata: { thought: true } },
      { type: "image", mediaType: "image/png", data: "BBBB", providerMetadata: { thoughtSignature: "sigImg" } },
      { type: "file", mediaType: "video/mp4", url: "https://files.example/v.mp4" }
    ])
  })

  it("a signature on a part of a kind unknown here is kept as a signed reasoning block of no text", () => {
    const chunks = decode([chunk([{ videoMetadata: { fps: 1 }, thoughtSignature: "sigX" }], { finish: "STOP" })])
    expect(chunks).toStrictEqual([
      META,
      { type: "reasoning", text: "", signature: "sigX" },
      { type: "finish", reason: "stop", rawReason: "STOP" }
    ])
  })

  it("urlContextMetadata: each page read is a source, its retrieval status kept", () => {
    const chunks = decode([
      ev({
        candidates: [{
          content: { parts: [{ text: "The page says hi." }] },
          finishReason: "STOP",
          urlContextMetadata: {
            urlMetadata: [
              { retrievedUrl: "https://a.example/", urlRetrievalStatus: "URL_RETRIEVAL_STATUS_SUCCESS" },
              { retrievedUrl: "https://b.example/", urlRetrievalStatus: "URL_RETRIEVAL_STATUS_ERROR" }
            ]
          }
        }],
        responseId: "r"
      })
    ])
    expect(parts(chunks)).toStrictEqual([
      {
        type: "source",
        sourceType: "url",
        url: "https://a.example/",
        providerMetadata: { retrievedUrl: "https://a.example/", urlRetrievalStatus: "URL_RETRIEVAL_STATUS_SUCCESS" }
      },
      {
        type: "source",
        sourceType: "url",
        url: "https://b.example/",
        providerMetadata: { retrievedUrl: "https://b.example/", urlRetrievalStatus: "URL_RETRIEVAL_STATUS_ERROR" }
      }
    ])
  })

  it("grounding: the search suggestions are kept; the same searches repeated are one call; no queries, no call", () => {
    const grounded = (groundingMetadata: unknown, finish?: string) =>
      ev({
        candidates: [{
          content: { parts: [{ text: "x" }] },
          groundingMetadata,
          ...(finish ? { finishReason: finish } : {})
        }],
        responseId: "g"
      })
    const entry = { renderedContent: "<div>chips</div>" }
    const chunks = decode([
      grounded({ groundingChunks: [] }),
      grounded({ webSearchQueries: ["a", "b"], searchEntryPoint: entry }),
      grounded({ webSearchQueries: ["a", "b"], searchEntryPoint: entry }, "STOP")
    ])
    expect(parts(chunks)).toStrictEqual([
      {
        type: "provider-tool",
        kind: "call",
        id: "g_tool_0",
        name: "google_search",
        input: { queries: ["a", "b"] },
        providerMetadata: { searchEntryPoint: { renderedContent: "<div>chips</div>" } }
      }
    ])
  })
})

describe("Gemini decoder: event shapes", () => {
  it("several parts in one event, text and a call together, a call with args null: all kept in order", () => {
    const chunks = decode([
      chunk([{ text: "One " }, { text: "two." }, { functionCall: { name: "f", args: null } }, {
        functionCall: { name: "g", args: { a: 1 } }
      }], { finish: "STOP" })
    ])
    const r = Response.fromChunks(chunks)
    expect([r.text, r.toolCalls.map((c) => [c.id, c.name, c.arguments, c.rawArguments]), r.finishReason])
      .toStrictEqual([
        "One two.",
        [["resp_1_call_0", "f", {}, "{}"], ["resp_1_call_1", "g", { a: 1 }, "{\"a\":1}"]],
        "tool_calls"
      ])
  })

  it("a JSON array of responses in one event (the non-SSE shape) is read element by element", () => {
    const body = [
      { candidates: [{ content: { parts: [{ text: "Hel" }], role: "model" } }], responseId: "arr" },
      {
        candidates: [{ content: { parts: [{ text: "lo" }], role: "model" }, finishReason: "STOP" }],
        usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2, totalTokenCount: 5 },
        responseId: "arr"
      }
    ]
    const r = Response.fromChunks(decode([ev(body)]))
    expect([r.text, r.usage?.inputTokens, r.usage?.outputTokens, r.finishReason]).toStrictEqual(["Hello", 3, 2, "stop"])
    expect(decode([ev([1])]).at(-1)).toMatchObject({ type: "error", error: { code: "protocol" } })
    expect(decode([ev([])]).at(-1)).toMatchObject({ type: "error", error: { code: "protocol" } })
  })

  it("no role, no index, no parts, safetyRatings-only events, a second candidate: only the first candidate's output", () => {
    const chunks = decode([
      ev({ candidates: [{ content: { parts: [{ text: "A" }] } }, { content: { parts: [{ text: "B" }] }, index: 1 }] }),
      ev({ candidates: [{ content: { role: "model" }, safetyRatings: [{ category: "X", probability: "LOW" }] }] }),
      ev({ candidates: [{ safetyRatings: [] }] }),
      ev({ candidates: [{ finishReason: "STOP" }] })
    ])
    expect(chunks).toStrictEqual([
      { type: "metadata", provider: "google" },
      { type: "text-delta", delta: "A" },
      { type: "finish", reason: "stop", rawReason: "STOP" }
    ])
  })

  it("output after the finishReason is still kept, and the usage of the last event wins", () => {
    const chunks = decode([
      chunk([{ text: "a" }], {
        finish: "STOP",
        usage: { promptTokenCount: 2, candidatesTokenCount: 1, totalTokenCount: 3 }
      }),
      chunk([{ text: "b" }], { usage: { promptTokenCount: 2, candidatesTokenCount: 1, totalTokenCount: 3 } }),
      chunk([], { usage: { promptTokenCount: 2, candidatesTokenCount: 2, totalTokenCount: 4 } })
    ])
    const r = Response.fromChunks(chunks)
    expect([r.text, r.usage?.outputTokens, r.usage?.totalTokens, r.finishReason]).toStrictEqual(["ab", 2, 4, "stop"])
    expect(chunks.filter((c) => c.type === "usage")).toHaveLength(2)
  })

  it("counts that are not counts (text, negative, fractional, beyond 2^53) are left out, never NaN", () => {
    const chunks = decode([
      chunk([{ text: "x" }], {
        finish: "STOP",
        usage: {
          promptTokenCount: "12",
          candidatesTokenCount: -3,
          thoughtsTokenCount: 1.5,
          totalTokenCount: 1e300
        }
      })
    ])
    expect(chunks.filter((c) => c.type === "usage")).toStrictEqual([])
    const some = decode([
      chunk([{ text: "x" }], { finish: "STOP", usage: { promptTokenCount: 4, candidatesTokenCount: "9" } })
    ])
    expect(some.find((c) => c.type === "usage")).toMatchObject({
      usage: { inputTokens: 4, outputTokens: 0, totalTokens: 4 }
    })
  })

  it("with no responseId, synthesized ids take Vertex's createTime, so two turns' calls differ", () => {
    const turn = (createTime: string) =>
      decode([
        ev({ candidates: [{ content: { parts: [{ functionCall: { name: "f", args: {} } }] } }], createTime }),
        ev({ candidates: [{ finishReason: "STOP" }], createTime })
      ]).flatMap((c) => c.type === "tool-call" ? [c.toolCall.id] : [])
    expect([...turn("2025-07-07T20:22:19.123456Z"), ...turn("2025-07-07T20:23:01.5Z")])
      .toStrictEqual(["20250707202219123456_call_0", "202507072023015_call_0"])
    expect(
      decode([ev({ candidates: [{ content: { parts: [{ functionCall: { name: "f" } }] }, finishReason: "STOP" }] })])
        .find((c) => c.type === "tool-call")
    ).toMatchObject({ toolCall: { id: "call_0" } })
  })
})
