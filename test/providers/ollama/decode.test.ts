/**
 * The Ollama decoder on plain arrays of lines: each of our transcripts chunk by chunk, written by
 * hand from the transcript, and the edge cases of the wire (whole tool calls with and without ids,
 * arguments as text, thinking runs, the load / unload and length reasons, error lines, lines that
 * are not objects, lines after the end, a body cut before `done: true`).
 */
import { describe, expect, it } from "vitest"
import { decode, done, frame, line, META, own, part } from "./support.js"

const decodeOwn = (name: string) => decode(frame(own(name)))

describe("Ollama decoder: our transcripts", () => {
  it("text.ndjson: text deltas, the usage with every metric kept in raw, stop", () => {
    expect(decodeOwn("text.ndjson")).toStrictEqual([
      { type: "metadata", provider: "ollama", model: "llama3.2" },
      { type: "text-delta", delta: "The" },
      { type: "text-delta", delta: " sky" },
      { type: "text-delta", delta: " is" },
      { type: "text-delta", delta: " blue, « bleu »." },
      {
        type: "usage",
        usage: {
          inputTokens: 26,
          outputTokens: 8,
          totalTokens: 34,
          raw: {
            prompt_eval_count: 26,
            eval_count: 8,
            total_duration: 482242375,
            load_duration: 41295167,
            prompt_eval_duration: 24573166,
            eval_duration: 115959084
          }
        }
      },
      { type: "finish", reason: "stop", rawReason: "stop" }
    ])
  })

  it("thinking-tool-call.ndjson: reasoning closed by the text, the server's call id, tool_calls though Ollama says stop", () => {
    expect(decodeOwn("thinking-tool-call.ndjson")).toStrictEqual([
      { type: "metadata", provider: "ollama", model: "qwen3" },
      { type: "reasoning-delta", delta: "User wants ", accumulated: "User wants " },
      { type: "reasoning-delta", delta: "Tokyo weather.", accumulated: "User wants Tokyo weather." },
      { type: "reasoning", text: "User wants Tokyo weather." },
      { type: "text-delta", delta: "Checking the weather." },
      {
        type: "tool-call-delta",
        index: 0,
        id: "call_k3d9x0qa",
        name: "get_weather",
        argumentsDelta: "{\"city\":\"Tokyo\"}"
      },
      {
        type: "tool-call",
        toolCall: {
          index: 0,
          id: "call_k3d9x0qa",
          name: "get_weather",
          arguments: { city: "Tokyo" },
          rawArguments: "{\"city\":\"Tokyo\"}"
        }
      },
      {
        type: "usage",
        usage: {
          inputTokens: 169,
          outputTokens: 15,
          totalTokens: 184,
          raw: {
            prompt_eval_count: 169,
            eval_count: 15,
            total_duration: 182242375,
            load_duration: 41295167,
            prompt_eval_duration: 24573166,
            eval_duration: 115959084
          }
        }
      },
      { type: "finish", reason: "tool_calls", rawReason: "stop" }
    ])
  })

  it("parallel-tool-calls.ndjson: three whole calls in one line, no ids (synthesized, in order), no-argument call {}", () => {
    const chunks = decodeOwn("parallel-tool-calls.ndjson")
    expect(chunks).toStrictEqual([
      { type: "metadata", provider: "ollama", model: "llama3.1:8b" },
      {
        type: "tool-call-delta",
        index: 0,
        id: "call_20250302090000000_0",
        name: "get_weather",
        argumentsDelta: "{\"city\":\"Paris\",\"unit\":\"celsius\"}"
      },
      {
        type: "tool-call",
        toolCall: {
          index: 0,
          id: "call_20250302090000000_0",
          name: "get_weather",
          arguments: { city: "Paris", unit: "celsius" },
          rawArguments: "{\"city\":\"Paris\",\"unit\":\"celsius\"}"
        }
      },
      {
        type: "tool-call-delta",
        index: 1,
        id: "call_20250302090000000_1",
        name: "get_weather",
        argumentsDelta: "{\"city\":\"Lyon\",\"days\":[1,2],\"extra\":{\"nested\":true}}"
      },
      {
        type: "tool-call",
        toolCall: {
          index: 1,
          id: "call_20250302090000000_1",
          name: "get_weather",
          arguments: { city: "Lyon", days: [1, 2], extra: { nested: true } },
          rawArguments: "{\"city\":\"Lyon\",\"days\":[1,2],\"extra\":{\"nested\":true}}"
        }
      },
      { type: "tool-call-delta", index: 2, id: "call_20250302090000000_2", name: "current_time", argumentsDelta: "{}" },
      {
        type: "tool-call",
        toolCall: { index: 2, id: "call_20250302090000000_2", name: "current_time", arguments: {}, rawArguments: "{}" }
      },
      {
        type: "usage",
        usage: {
          inputTokens: 212,
          outputTokens: 61,
          totalTokens: 273,
          raw: {
            prompt_eval_count: 212,
            eval_count: 61,
            total_duration: 912000000,
            prompt_eval_duration: 88000000,
            eval_duration: 700000000
          }
        }
      },
      { type: "finish", reason: "tool_calls", rawReason: "stop" }
    ])
  })

  it("thinking.ndjson: one reasoning run across lines, closed when the answer begins", () => {
    expect(decodeOwn("thinking.ndjson")).toStrictEqual([
      { type: "metadata", provider: "ollama", model: "deepseek-r1:8b" },
      { type: "reasoning-delta", delta: "17 × 23 ", accumulated: "17 × 23 " },
      { type: "reasoning-delta", delta: "= 340 + 51", accumulated: "17 × 23 = 340 + 51" },
      { type: "reasoning-delta", delta: " = 391.", accumulated: "17 × 23 = 340 + 51 = 391." },
      { type: "reasoning", text: "17 × 23 = 340 + 51 = 391." },
      { type: "text-delta", delta: "17 × 23" },
      { type: "text-delta", delta: " = 391." },
      {
        type: "usage",
        usage: {
          inputTokens: 12,
          outputTokens: 24,
          totalTokens: 36,
          raw: {
            prompt_eval_count: 12,
            eval_count: 24,
            total_duration: 1250000000,
            load_duration: 5000000,
            prompt_eval_duration: 30000000,
            eval_duration: 1200000000
          }
        }
      },
      { type: "finish", reason: "stop", rawReason: "stop" }
    ])
  })

  it("load.ndjson and unload.ndjson: a request that only loaded or unloaded the model finishes stop, no usage", () => {
    expect(decodeOwn("load.ndjson")).toStrictEqual([
      { type: "metadata", provider: "ollama", model: "llama3.2" },
      { type: "finish", reason: "stop", rawReason: "load" }
    ])
    expect(decodeOwn("unload.ndjson")).toStrictEqual([
      { type: "metadata", provider: "ollama", model: "llama3.2" },
      { type: "finish", reason: "stop", rawReason: "unload" }
    ])
  })

  it("length.ndjson: done_reason length is length", () => {
    const chunks = decodeOwn("length.ndjson")
    expect(chunks.filter((c) => c.type === "text-delta").map((c) => c.delta).join("")).toBe("Once upon a time")
    expect(chunks.slice(-2)).toStrictEqual([
      {
        type: "usage",
        usage: {
          inputTokens: 9,
          outputTokens: 4,
          totalTokens: 13,
          raw: {
            prompt_eval_count: 9,
            eval_count: 4,
            total_duration: 60000000,
            prompt_eval_duration: 10000000,
            eval_duration: 40000000
          }
        }
      },
      { type: "finish", reason: "length", rawReason: "length" }
    ])
  })

  it("error-midstream.ndjson: the text kept, then the error line as a retryable server error (no status)", () => {
    expect(decodeOwn("error-midstream.ndjson")).toStrictEqual([
      { type: "metadata", provider: "ollama", model: "llama3.2" },
      { type: "text-delta", delta: "Once" },
      { type: "text-delta", delta: " upon" },
      {
        type: "error",
        error: {
          code: "server",
          message: "an error was encountered while running the model: unexpected EOF",
          retryable: true,
          provider: "ollama",
          details: { error: "an error was encountered while running the model: unexpected EOF" }
        }
      }
    ])
  })

  it("truncated.ndjson: no done line, so no terminal chunk (ensureTerminal adds truncated); the run left open", () => {
    expect(decodeOwn("truncated.ndjson")).toStrictEqual([
      { type: "metadata", provider: "ollama", model: "llama3.2" },
      { type: "reasoning-delta", delta: "Hmm", accumulated: "Hmm" },
      { type: "reasoning", text: "Hmm" },
      { type: "text-delta", delta: "Half" },
      { type: "text-delta", delta: " an answer" }
    ])
  })

  it("demo-weather-tool-call.ndjson and demo-weather-answer.ndjson: the demo's two turns", () => {
    const first = decodeOwn("demo-weather-tool-call.ndjson")
    const reasoning = first.filter((c) => c.type === "reasoning")
    expect(reasoning).toStrictEqual([{
      type: "reasoning",
      text: "The user wants current weather in Paris. I should call get_weather with city Paris."
    }])
    expect(first.filter((c) => c.type === "text-delta").map((c) => c.delta).join("")).toBe(
      "Let me look up the weather in Paris."
    )
    expect(first.filter((c) => c.type === "tool-call")).toStrictEqual([{
      type: "tool-call",
      toolCall: {
        index: 0,
        id: "call_demo0001",
        name: "get_weather",
        arguments: { city: "Paris" },
        rawArguments: "{\"city\":\"Paris\"}"
      }
    }])
    expect(first.slice(-2)).toStrictEqual([
      {
        type: "usage",
        usage: {
          inputTokens: 188,
          outputTokens: 41,
          totalTokens: 229,
          raw: {
            prompt_eval_count: 188,
            eval_count: 41,
            total_duration: 1480000000,
            load_duration: 52000000,
            prompt_eval_duration: 96000000,
            eval_duration: 1290000000
          }
        }
      },
      { type: "finish", reason: "tool_calls", rawReason: "stop" }
    ])
    const second = decodeOwn("demo-weather-answer.ndjson")
    expect(second[0]).toStrictEqual({ type: "metadata", provider: "ollama", model: "qwen3:8b-demo" })
    expect(second.filter((c) => c.type === "text-delta").map((c) => c.delta).join("")).toBe(
      "It's 18 °C with light rain in Paris right now: mild, but take an umbrella if you head out."
    )
    expect(second.slice(-2)).toStrictEqual([
      {
        type: "usage",
        usage: {
          inputTokens: 246,
          outputTokens: 23,
          totalTokens: 269,
          raw: {
            prompt_eval_count: 246,
            eval_count: 23,
            total_duration: 910000000,
            load_duration: 31000000,
            prompt_eval_duration: 58000000,
            eval_duration: 790000000
          }
        }
      },
      { type: "finish", reason: "stop", rawReason: "stop" }
    ])
  })
})

describe("Ollama decoder: edge cases", () => {
  it("thinking, content and a tool call in one line: the run closes before the text, the call after it", () => {
    const chunks = decode([
      part({ thinking: "Plan.", content: "Sure.", tool_calls: [{ function: { name: "f", arguments: { a: 1 } } }] }),
      done("stop", { prompt_eval_count: 3, eval_count: 2 })
    ])
    expect(chunks).toStrictEqual([
      META,
      { type: "reasoning-delta", delta: "Plan.", accumulated: "Plan." },
      { type: "reasoning", text: "Plan." },
      { type: "text-delta", delta: "Sure." },
      { type: "tool-call-delta", index: 0, id: "call_20250707200000_0", name: "f", argumentsDelta: "{\"a\":1}" },
      {
        type: "tool-call",
        toolCall: { index: 0, id: "call_20250707200000_0", name: "f", arguments: { a: 1 }, rawArguments: "{\"a\":1}" }
      },
      {
        type: "usage",
        usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5, raw: { prompt_eval_count: 3, eval_count: 2 } }
      },
      { type: "finish", reason: "tool_calls", rawReason: "stop" }
    ])
  })

  it("a thinking run still open at done is closed before the usage and finish", () => {
    expect(decode([part({ thinking: "Only thoughts" }), done("stop")])).toStrictEqual([
      META,
      { type: "reasoning-delta", delta: "Only thoughts", accumulated: "Only thoughts" },
      { type: "reasoning", text: "Only thoughts" },
      { type: "finish", reason: "stop", rawReason: "stop" }
    ])
  })

  it("thinking after text opens a second run; accumulated spans both", () => {
    const chunks = decode([part({ thinking: "A" }), part({ content: "x" }), part({ thinking: "B" }), done("stop")])
    expect(chunks.filter((c) => c.type === "reasoning" || c.type === "reasoning-delta")).toStrictEqual([
      { type: "reasoning-delta", delta: "A", accumulated: "A" },
      { type: "reasoning", text: "A" },
      { type: "reasoning-delta", delta: "B", accumulated: "AB" },
      { type: "reasoning", text: "B" }
    ])
  })

  it("calls across lines keep counting (index and synthesized id); function.index is not ours", () => {
    const chunks = decode([
      part({ tool_calls: [{ function: { index: 5, name: "a", arguments: {} } }] }),
      part({ tool_calls: [{ id: "call_srv", function: { index: 0, name: "b", arguments: { q: "x" } } }] }),
      done("stop")
    ])
    expect(chunks.filter((c) => c.type === "tool-call").map((c) => [c.toolCall.index, c.toolCall.id, c.toolCall.name]))
      .toStrictEqual([[0, "call_20250707200000_0", "a"], [1, "call_srv", "b"]])
  })

  it("arguments sent as JSON text are used as they are; missing arguments are {}; text that does not parse is kept raw", () => {
    const chunks = decode([
      part({
        tool_calls: [
          { function: { name: "text", arguments: "{\"city\": \"Oslo\"}" } },
          { function: { name: "none" } },
          { function: { name: "broken", arguments: "{\"city\": " } }
        ]
      }),
      done("stop")
    ])
    const calls = chunks.filter((c) => c.type === "tool-call").map((c) => c.toolCall)
    expect(calls[0]).toStrictEqual({
      index: 0,
      id: "call_20250707200000_0",
      name: "text",
      arguments: { city: "Oslo" },
      rawArguments: "{\"city\": \"Oslo\"}"
    })
    expect(calls[1]).toStrictEqual({
      index: 1,
      id: "call_20250707200000_1",
      name: "none",
      arguments: {},
      rawArguments: ""
    })
    expect(calls[2]).toMatchObject({
      index: 2,
      name: "broken",
      arguments: { raw: "{\"city\": " },
      rawArguments: "{\"city\": "
    })
    expect(typeof calls[2]!.parseError).toBe("string")
    expect(chunks.find((c) => c.type === "tool-call-delta" && c.index === 1)).toStrictEqual({
      type: "tool-call-delta",
      index: 1,
      id: "call_20250707200000_1",
      name: "none",
      argumentsDelta: ""
    })
  })

  it("a tool call without a name is a protocol error quoting the line", () => {
    const bad = part({ tool_calls: [{ function: { arguments: { a: 1 } } }] })
    const chunks = decode([part({ content: "Hi" }), bad, done("stop")])
    expect(chunks.slice(0, 2)).toStrictEqual([META, { type: "text-delta", delta: "Hi" }])
    expect(chunks[2]).toMatchObject({
      type: "error",
      error: { code: "protocol", retryable: false, provider: "ollama" }
    })
    expect(chunks).toHaveLength(3)
    expect((chunks[2] as { error: { message: string } }).error.message).toMatch(
      /^The stream sent a tool call without a name: "\{/
    )
  })

  it("done without done_reason: stop with no raw reason; only eval_count: input 0", () => {
    expect(decode([part({ content: "ok" }), done(undefined, { eval_count: 2 })]).slice(-2)).toStrictEqual([
      { type: "usage", usage: { inputTokens: 0, outputTokens: 2, totalTokens: 2, raw: { eval_count: 2 } } },
      { type: "finish", reason: "stop" }
    ])
  })

  it("counts that are not counts are left out; a done line with none emits no usage", () => {
    expect(decode([done("stop", { prompt_eval_count: -1, eval_count: "7" })])).toStrictEqual([
      META,
      { type: "finish", reason: "stop", rawReason: "stop" }
    ])
  })

  it("content on the done line itself is kept before the finish", () => {
    const last = line({
      model: "llama-test",
      message: { role: "assistant", content: "tail" },
      done: true,
      done_reason: "stop"
    })
    expect(decode([last])).toStrictEqual([
      META,
      { type: "text-delta", delta: "tail" },
      { type: "finish", reason: "stop", rawReason: "stop" }
    ])
  })

  it("lines after done are ignored", () => {
    expect(decode([done("stop"), part({ content: "late" }), line({ error: "late" })])).toStrictEqual([
      META,
      { type: "finish", reason: "stop", rawReason: "stop" }
    ])
  })

  it("an error line is final: a done line after it changes nothing", () => {
    const chunks = decode([part({ content: "a" }), line({ error: "boom" }), done("stop", { eval_count: 1 })])
    expect(chunks.map((c) => c.type)).toStrictEqual(["metadata", "text-delta", "error"])
    expect(chunks[2]).toMatchObject({ error: { code: "server", message: "boom" } })
  })

  it("an error line first: metadata without a model, then the error", () => {
    expect(decode([line({ error: "model \"nope\" not found, try pulling it first" })])).toStrictEqual([
      { type: "metadata", provider: "ollama" },
      {
        type: "error",
        error: {
          code: "not_found",
          message: "model \"nope\" not found, try pulling it first",
          retryable: false,
          provider: "ollama",
          details: { error: "model \"nope\" not found, try pulling it first" }
        }
      }
    ])
  })

  it("a line that is not JSON, or not an object, is a protocol error", () => {
    for (const bad of ["{\"model\":\"llama-test\",\"mess", "[1,2]", "null", "data: {}"]) {
      const chunks = decode([part({ content: "a" }), bad])
      expect(chunks.slice(0, 2)).toStrictEqual([META, { type: "text-delta", delta: "a" }])
      expect(chunks[2]).toMatchObject({ type: "error", error: { code: "protocol", provider: "ollama" } })
      expect(chunks).toHaveLength(3)
    }
  })

  it("a message that is not an object, and unknown fields, are skipped", () => {
    expect(decode([
      line({ model: "llama-test", message: "??", done: false, remote_model: "x", logprobs: [] }),
      part({ content: "ok", images: null }),
      done("stop")
    ])).toStrictEqual([
      META,
      { type: "text-delta", delta: "ok" },
      { type: "finish", reason: "stop", rawReason: "stop" }
    ])
  })

  it("framing: CRLF line ends and blank lines, and a last line without a newline", () => {
    const body = `${part({ content: "a" })}\r\n\r\n${part({ content: "b" })}\n\n${done("stop")}`
    expect(decode(frame(body))).toStrictEqual([
      META,
      { type: "text-delta", delta: "a" },
      { type: "text-delta", delta: "b" },
      { type: "finish", reason: "stop", rawReason: "stop" }
    ])
  })
})

describe("Ollama decoder: synthesized ids and output images", () => {
  const callAt = (createdAt: string | undefined, name: string) =>
    line({
      model: "llama-test",
      ...(createdAt !== undefined ? { created_at: createdAt } : {}),
      message: { role: "assistant", content: "", tool_calls: [{ function: { name, arguments: {} } }] },
      done: false
    })
  const ids = (lines: ReadonlyArray<string>) =>
    decode(lines).flatMap((c) => c.type === "tool-call" ? [c.toolCall.id] : [])

  it("ids without a server id are unique across a conversation's turns, from the stream's first created_at", () => {
    const turn1 = ids([callAt("2025-07-07T20:22:19.123456789Z", "get_weather"), done("stop")])
    const turn2 = ids([callAt("2025-07-07T20:22:31.5Z", "get_time"), callAt("2025-07-07T20:22:32Z", "x"), done("stop")])
    expect(turn1).toStrictEqual(["call_20250707202219123456789_0"])
    expect(turn2).toStrictEqual(["call_202507072022315_0", "call_202507072022315_1"])
  })

  it("the id is stable for a stream: the same lines, however framed, give the same ids; none without a created_at", () => {
    const body = [callAt("2025-07-07T20:22:19Z", "a"), done("stop")].join("\n")
    const whole = decode(frame(body))
    const split = decode([...frame(body.slice(0, 37) + body.slice(37))])
    expect(split).toStrictEqual(whole)
    expect(ids([callAt(undefined, "a"), done("stop")])).toStrictEqual(["call_0"])
    // A server's created_at is kept to its first 32 digits: an id stays short whatever it sends.
    expect(ids([callAt("9".repeat(5000), "a"), done("stop")])).toStrictEqual([`call_${"9".repeat(32)}_0`])
  })

  it("message.images in the output are image parts (media type read from the bytes when known)", () => {
    const chunks = decode([
      part({ content: "Here:", images: ["iVBORw0KGgoAAAANSUhEUg==", "/9j/4AAQSkZJRg==", "AAAA", 7] }),
      done("stop")
    ])
    expect(chunks.filter((c) => c.type !== "metadata")).toStrictEqual([
      { type: "text-delta", delta: "Here:" },
      { type: "content-part", part: { type: "image", mediaType: "image/png", data: "iVBORw0KGgoAAAANSUhEUg==" } },
      { type: "content-part", part: { type: "image", mediaType: "image/jpeg", data: "/9j/4AAQSkZJRg==" } },
      { type: "content-part", part: { type: "image", data: "AAAA" } },
      { type: "finish", reason: "stop", rawReason: "stop" }
    ])
  })
})
