/**
 * Every recording in `../shared/fixtures/recorded/anthropic/`, decoded and checked against values
 * written by hand from reading the recording (texts, calls, server tools, usage numbers, finish
 * reasons, ids). Each line is framed `event: <type>\ndata: <line>` as the wire carries it.
 */
import * as Either from "effect/Either"
import { expect, it } from "vitest"
import type * as ContentPart from "../../../src/ContentPart.js"
import * as ChunkDecoder from "../../../src/internal/ChunkDecoder.js"
import * as Decode from "../../../src/providers/anthropic/decode.js"
import * as Response from "../../../src/Response.js"
import * as StreamChunk from "../../../src/StreamChunk.js"
import * as Fixture from "../../../src/testing/Fixture.js"
import { expectText, type Long, shapeOf } from "../../support/expectations.js"
import { describeRecorded, listRecorded, readRecorded } from "../../support/recorded.js"
import { decode, frame } from "./support.js"

interface Expected {
  readonly model: string
  readonly responseId: string
  /** The chunk types in order, runs written `type×n`. */
  readonly shape: string
  readonly text: string | Long
  readonly reasoning?: ReadonlyArray<{ readonly text: string; readonly signature?: string }>
  readonly toolCalls?: ReadonlyArray<{ readonly id: string; readonly name: string; readonly arguments: unknown }>
  /** Content parts, each written `call <name> <id>`, `result <name> <id>`, `source <url>` or `refusal`. */
  readonly parts?: ReadonlyArray<string>
  /** Parts checked whole, by their position in `parts`. */
  readonly exactParts?: Readonly<Record<number, ContentPart.ContentPart>>
  readonly usage: {
    readonly inputTokens: number
    readonly outputTokens: number
    readonly totalTokens: number
    readonly cacheReadTokens?: number
    readonly cacheWriteTokens?: number
    readonly reasoningTokens?: number
  }
  readonly finish: readonly [StreamChunk.FinishReason, string | undefined]
  readonly error?: { readonly code: string; readonly details: unknown }
}

const zeroCache = { cacheReadTokens: 0, cacheWriteTokens: 0 }
const apple = "https://www.apple.com/newsroom/2025/09/the-all-new-apple-ginza-opens-this-friday-september-26-in-tokyo/"
const fang = "https://future.forem.com/junyu_fang_a216509a97501d/fang-junyus-technology-weekly-september-26-2025-2ndd"
const omShree = "https://future.forem.com/om_shree_0709/major-tech-news-september-25-2025-5h38"
const ios = "https://9to5mac.com/2025/09/22/ios-26-1-beta-1/"

const expectations: Record<string, Expected> = {
  // Two server-tool calls with no input deltas, each answered by a whole advisor result.
  "anthropic-advisor-stop-reasons.chunks.txt": {
    model: "claude-sonnet-4-6",
    responseId: "msg_advisor_stop_reasons",
    shape: "metadata usage content-part×4 usage finish",
    text: "",
    parts: [
      "call advisor srvtoolu_advisor_plaintext",
      "result advisor srvtoolu_advisor_plaintext",
      "call advisor srvtoolu_advisor_redacted",
      "result advisor srvtoolu_advisor_redacted"
    ],
    exactParts: {
      0: { type: "provider-tool", kind: "call", id: "srvtoolu_advisor_plaintext", name: "advisor", input: {} },
      1: {
        type: "provider-tool",
        kind: "result",
        id: "srvtoolu_advisor_plaintext",
        name: "advisor",
        output: { type: "advisor_result", text: "Partial plaintext advice.", stop_reason: "max_tokens" }
      },
      3: {
        type: "provider-tool",
        kind: "result",
        id: "srvtoolu_advisor_redacted",
        name: "advisor",
        output: {
          type: "advisor_redacted_result",
          encrypted_content: "opaque-encrypted-advice",
          stop_reason: "end_turn"
        }
      }
    },
    usage: { inputTokens: 10, outputTokens: 20, totalTokens: 30, ...zeroCache },
    finish: ["stop", "end_turn"]
  },
  // Nine non-empty thinking deltas (a tenth is ""), the signature, then the answer.
  "anthropic-clear-thinking.1.chunks.txt": {
    model: "claude-sonnet-4-5-20250929",
    responseId: "msg_01Y6V41gqPaKWEw7iPouH7iW",
    shape: "metadata usage reasoning-delta×9 reasoning text-delta×3 usage finish",
    text: "925 ÷ 5 = 185",
    reasoning: [{
      text: "The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185",
      signature:
        "EvQBCkYICxgCKkAxhD4NUKFzudtZ6NzbZdEiBACIScTzqjPViM596iWLZIk4EFKYYBj3B6Ptl3b0dcQv/VeJBNbejNWIWRBn+KPNEgz6HWtKx7p+QRgKsEoaDGjsiqfht7gTRFYHiyIwD1VSmNqHxv3wy8KEMP+LYb/TC4UH3H97tuoaADARFFcA0phdfxnzKQxFnc9lwY+dKlzUsaKSUAFeu1bDL5ikZJ1vL0Fkz6JjoFke0L/wOJRIUDUlDUOFJ1tZ3ea7g6LGE/5hwuvWgLwewdcm64d+43l7F57XrOmqNd6flI2K/oPr/4yzNgvi/EhT6Ca17BgB"
    }],
    usage: { inputTokens: 69, outputTokens: 53, totalTokens: 122, ...zeroCache },
    finish: ["stop", "end_turn"]
  },
  // 197 input pieces of a file the server writes, then the run of it; text around both.
  "anthropic-code-execution-20250825.1.chunks.txt": {
    model: "claude-sonnet-4-5-20250929",
    responseId: "msg_01LEsrXVCLpf7xHaFdFTZNEJ",
    shape: "metadata usage text-delta×3 content-part×2 text-delta×3 content-part×2 text-delta×19 usage finish",
    text: {
      prefix: "I'll create a Python script to calculate",
      suffix: "rs: 0, 1, 1, 2, 3, 5, 8, 13, 21, 34, ...",
      length: 795
    },
    parts: [
      "call text_editor_code_execution srvtoolu_0112cP8RpnKv67t2cscmN4ia",
      "result text_editor_code_execution srvtoolu_0112cP8RpnKv67t2cscmN4ia",
      "call bash_code_execution srvtoolu_01K2E2j5mkxbtLqNBc6RJHds",
      "result bash_code_execution srvtoolu_01K2E2j5mkxbtLqNBc6RJHds"
    ],
    exactParts: {
      1: {
        type: "provider-tool",
        kind: "result",
        id: "srvtoolu_0112cP8RpnKv67t2cscmN4ia",
        name: "text_editor_code_execution",
        output: { type: "text_editor_code_execution_create_result", is_file_update: false }
      },
      2: {
        type: "provider-tool",
        kind: "call",
        id: "srvtoolu_01K2E2j5mkxbtLqNBc6RJHds",
        name: "bash_code_execution",
        input: { command: "python /tmp/fibonacci.py" }
      }
    },
    usage: { inputTokens: 8050, outputTokens: 771, totalTokens: 8821, ...zeroCache },
    finish: ["stop", "end_turn"]
  },
  // The start reports a cache write of 3068; the delta a write of 3337 and a read of 6289.
  "anthropic-code-execution-20260120-prompt-cache.1.chunks.txt": {
    model: "claude-sonnet-5",
    responseId: "msg_011CdYfpjpVtBoXyXCQD1tQP",
    shape: "metadata usage cache-write content-part×4 text-delta×2 usage cache-read cache-write finish",
    text: "The sum of the squares of the numbers 1 through 12 is **650**.",
    parts: [
      "call bash_code_execution srvtoolu_011fxGj786xCAh2kPk9GMxQw",
      "result bash_code_execution srvtoolu_011fxGj786xCAh2kPk9GMxQw",
      "call bash_code_execution srvtoolu_013eUksWZnfcjFk1iarJsYgM",
      "result bash_code_execution srvtoolu_013eUksWZnfcjFk1iarJsYgM"
    ],
    exactParts: {
      0: {
        type: "provider-tool",
        kind: "call",
        id: "srvtoolu_011fxGj786xCAh2kPk9GMxQw",
        name: "bash_code_execution",
        input: { command: "for n in $(seq 1 12); do echo \"$n: $((n*n))\"; done" }
      },
      2: {
        type: "provider-tool",
        kind: "call",
        id: "srvtoolu_013eUksWZnfcjFk1iarJsYgM",
        name: "bash_code_execution",
        input: { command: "sum=0; for n in $(seq 1 12); do sum=$((sum + n*n)); done; echo \"Sum: $sum\"" }
      },
      3: {
        type: "provider-tool",
        kind: "result",
        id: "srvtoolu_013eUksWZnfcjFk1iarJsYgM",
        name: "bash_code_execution",
        output: { type: "bash_code_execution_result", stdout: "Sum: 650\n", stderr: "", return_code: 0, content: [] }
      }
    },
    // 6 + 3337 + 6289 = 9632.
    usage: {
      inputTokens: 9632,
      outputTokens: 198,
      totalTokens: 9830,
      cacheReadTokens: 6289,
      cacheWriteTokens: 3337,
      reasoningTokens: 0
    },
    finish: ["stop", "end_turn"]
  },
  // A `fallback` block (an unknown block type) is skipped; the delta's usage updates the input.
  "anthropic-fallback.chunks.txt": {
    model: "claude-fable-5",
    responseId: "msg_01FallbackStreamAbcdefghij",
    shape: "metadata usage text-delta×2 usage finish",
    text: "The printing press was invented by Johannes Gutenberg around 1440.",
    usage: { inputTokens: 412, outputTokens: 264, totalTokens: 676, ...zeroCache },
    finish: ["stop", "end_turn"]
  },
  "anthropic-json-tool.1.chunks.txt": {
    model: "claude-haiku-4-5-20251001",
    responseId: "msg_01K2JbSUMYhez5RHoK9ZCj9U",
    shape: "metadata usage tool-call-delta×2 tool-call usage finish",
    text: "",
    toolCalls: [{
      id: "toolu_01KFbKqPYSuAKujiL6mTfzYA",
      name: "json",
      arguments: { elements: [{ location: "San Francisco", temperature: 58, condition: "sunny" }] }
    }],
    usage: { inputTokens: 849, outputTokens: 47, totalTokens: 896, ...zeroCache },
    finish: ["tool_calls", "tool_use"]
  },
  // Input 43 at the start, 61 at the delta: the last wins. No cache fields at all.
  "anthropic-message-delta-input-tokens.chunks.txt": {
    model: "claude-opus-4-5-20251101",
    responseId: "msg_3196a1cc08de4d76b85b8f5777c0d42b",
    shape: "metadata usage text-delta×2 usage finish",
    text: "pong",
    usage: { inputTokens: 61, outputTokens: 2, totalTokens: 63 },
    finish: ["stop", "end_turn"]
  },
  // No content block at all: the refusal is told by stop_details.
  "anthropic-refusal.chunks.txt": {
    model: "claude-fable-5",
    responseId: "msg_01RefusalStreamAbcdefghijk",
    shape: "metadata usage content-part usage finish",
    text: "",
    parts: ["refusal"],
    exactParts: {
      0: {
        type: "refusal",
        text:
          "This request triggered restrictions on violative cyber content and was blocked under Anthropic's Usage Policy.",
        providerMetadata: {
          type: "refusal",
          category: "cyber",
          explanation:
            "This request triggered restrictions on violative cyber content and was blocked under Anthropic's Usage Policy.",
          recommended_model: "claude-fable-5"
        }
      }
    },
    usage: { inputTokens: 18, outputTokens: 5, totalTokens: 23, ...zeroCache },
    finish: ["content_filter", "refusal"]
  },
  "anthropic-text.chunks.txt": {
    model: "claude-sonnet-4-5-20250929",
    responseId: "msg_01QC4g3HwBThD4BaNtBckFDJ",
    shape: "metadata usage text-delta×6 usage finish",
    text:
      "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?",
    usage: { inputTokens: 12, outputTokens: 30, totalTokens: 42, ...zeroCache },
    finish: ["stop", "end_turn"]
  },
  // The call's only input piece is "": no delta, arguments {}.
  "anthropic-tool-no-args.chunks.txt": {
    model: "claude-sonnet-4-5-20250929",
    responseId: "msg_01GE2RKp1VYsPzdFs3sS9z5S",
    shape: "metadata usage text-delta×2 tool-call usage finish",
    text: "I'll update the issue list for you.",
    toolCalls: [{ id: "toolu_01QE1WLsSVp5hy5Q3GmGTmjP", name: "updateIssueList", arguments: {} }],
    usage: { inputTokens: 565, outputTokens: 48, totalTokens: 613, ...zeroCache },
    finish: ["tool_calls", "tool_use"]
  },
  "anthropic-tool-search-regex.1.step1.chunks.txt": {
    model: "claude-sonnet-4-5-20250929",
    responseId: "msg_01A4vjL51mNRof8JMvA9CFph",
    shape: "metadata usage content-part×2 text-delta×8 tool-call-delta×2 tool-call usage finish",
    text: "Great! I found a weather tool. Let me get the current weather data for San Francisco.",
    toolCalls: [{
      id: "toolu_01UmPwkecewaEpMupy2ywk8b",
      name: "get_temp_data",
      arguments: { location: "San Francisco, CA" }
    }],
    parts: [
      "call tool_search_tool_regex srvtoolu_01TFsKhwiJYqVMitK2XGtH87",
      "result tool_search_tool_regex srvtoolu_01TFsKhwiJYqVMitK2XGtH87"
    ],
    exactParts: {
      0: {
        type: "provider-tool",
        kind: "call",
        id: "srvtoolu_01TFsKhwiJYqVMitK2XGtH87",
        name: "tool_search_tool_regex",
        input: { pattern: "weather|SF|San Francisco|forecast|temperature|climate", limit: 10 }
      },
      1: {
        type: "provider-tool",
        kind: "result",
        id: "srvtoolu_01TFsKhwiJYqVMitK2XGtH87",
        name: "tool_search_tool_regex",
        output: {
          type: "tool_search_tool_search_result",
          tool_references: [{ type: "tool_reference", tool_name: "get_temp_data" }]
        }
      }
    },
    usage: { inputTokens: 1681, outputTokens: 163, totalTokens: 1844, ...zeroCache },
    finish: ["tool_calls", "tool_use"]
  },
  "anthropic-tool-search-regex.1.step2.chunks.txt": {
    model: "claude-sonnet-4-5-20250929",
    responseId: "msg_01L42mFXxzijtGwwfiLdKoUn",
    shape: "metadata usage text-delta×13 usage finish",
    text: "Here's the current weather data for San Francisco:\n\n- **Location:** San Francisco, CA\n" +
      "- **Temperature:** 64°F\n- **Condition:** Partly cloudy\n- **Humidity:** 65%\n\n" +
      "The weather in SF is pleasant with partly cloudy skies and moderate humidity!",
    usage: { inputTokens: 1071, outputTokens: 67, totalTokens: 1138, ...zeroCache },
    finish: ["stop", "end_turn"]
  },
  // Fourteen citations between the text deltas, one source part each, in place.
  "anthropic-web-search-tool.1.chunks.txt": {
    model: "claude-sonnet-4-20250514",
    responseId: "msg_01LHpEgU4KbfgXGVi3UtHQY1",
    shape: "metadata usage content-part×2 text-delta×5 content-part×3 text-delta×6 content-part×2 text-delta×6 " +
      "content-part text-delta×7 content-part text-delta×11 content-part×2 text-delta×4 content-part text-delta×3 " +
      "content-part text-delta×2 content-part text-delta×3 content-part×2 text-delta×9 usage finish",
    text: {
      prefix: "Based on my search results, here are the",
      suffix: "ir first international retail expansion.",
      length: 2402
    },
    parts: [
      "call web_search srvtoolu_01Bj5uzzLcYG5hfueSLcDH8k",
      "result web_search srvtoolu_01Bj5uzzLcYG5hfueSLcDH8k",
      ...[apple, apple, apple, apple, apple, fang, fang, omShree, omShree, omShree, omShree, omShree, ios, ios]
        .map((url) => `source ${url}`)
    ],
    exactParts: {
      0: {
        type: "provider-tool",
        kind: "call",
        id: "srvtoolu_01Bj5uzzLcYG5hfueSLcDH8k",
        name: "web_search",
        input: { query: "tech news today September 26 2025" }
      }
    },
    usage: { inputTokens: 15665, outputTokens: 795, totalTokens: 16460, ...zeroCache },
    finish: ["stop", "end_turn"]
  },
  // The same message_start twice before any block: one message.
  "duplicate-message-start.chunks.txt": {
    model: "claude-3-haiku-20240307",
    responseId: "msg_dup",
    shape: "metadata usage text-delta usage finish",
    text: "Hello, World!",
    usage: { inputTokens: 17, outputTokens: 227, totalTokens: 244 },
    finish: ["stop", "end_turn"]
  },
  // msg_second starts while msg_first's call is half-way: msg_first is truncated there, kept as it
  // was (its signed reasoning, its call finalized raw), and nothing of msg_second is mixed in.
  "spliced-message-start.chunks.txt": {
    model: "claude-3-haiku-20240307",
    responseId: "msg_first",
    shape: "metadata usage reasoning-delta reasoning tool-call-delta error",
    text: "",
    reasoning: [{ text: "I will call the tool.", signature: "sig-first" }],
    toolCalls: [{ id: "toolu_first", name: "test-tool", arguments: { raw: "{\"value\":\"Spark" } }],
    usage: { inputTokens: 17, outputTokens: 1, totalTokens: 18 },
    finish: ["error", undefined],
    error: { code: "truncated", details: { responseId: "msg_first", nextResponseId: "msg_second" } }
  }
}

/** The chunk types in order, runs of one type written `type×n`. */
const describePart = (part: ContentPart.ContentPart): string => {
  switch (part.type) {
    case "provider-tool":
      return `${part.kind} ${part.name} ${part.id}`
    case "source":
      return `source ${part.url ?? part.title ?? "?"}`
    default:
      return part.type
  }
}

describeRecorded("anthropic", () => {
  it("has an expectation for every recording, and a recording for every expectation", () => {
    expect(listRecorded("anthropic")).toStrictEqual(Object.keys(expectations).sort())
  })

  // The recording's forced tool is the Vercel SDK's `json`; told it is the answer tool, as our own
  // `json_response` is, the decoder streams its input as the answer's text.
  it("anthropic-json-tool.1.chunks.txt, read as a JSON answer: text deltas, no tool call, a stop", () => {
    const events = frame(Fixture.sseText("anthropic", readRecorded("anthropic", "anthropic-json-tool.1.chunks.txt")))
    const chunks = ChunkDecoder.decodeAll(Decode.make({ provider: "anthropic", jsonToolName: "json" }), events)
    expect(chunks.filter((c) => c.type === "text-delta" || c.type === "finish")).toStrictEqual([
      {
        type: "text-delta",
        delta: "{\"elements\": [{\"location\": \"San Francisco\", \"temperature\": 58, \"condition\": \"sunny\"}]"
      },
      { type: "text-delta", delta: "}" },
      { type: "finish", reason: "stop", rawReason: "tool_use" }
    ])
    expect(shapeOf(chunks)).toBe("metadata usage text-delta×2 usage finish")
    const response = Response.fromChunks(chunks)
    expect([JSON.parse(response.text), response.toolCalls]).toStrictEqual([
      { elements: [{ location: "San Francisco", temperature: 58, condition: "sunny" }] },
      []
    ])
  })

  for (const [file, expected] of Object.entries(expectations)) {
    it(file, () => {
      const chunks = decode(frame(Fixture.sseText("anthropic", readRecorded("anthropic", file))))
      for (const chunk of chunks) expect(Either.isRight(StreamChunk.validate(chunk))).toBe(true)
      expect(shapeOf(chunks)).toBe(expected.shape)

      const response = Response.fromChunks(chunks)
      expect(response.metadata).toStrictEqual({
        provider: "anthropic",
        model: expected.model,
        responseId: expected.responseId
      })
      expectText(response.text, expected.text)
      // Every signed or redacted part is tagged with the provider it goes back to.
      expect(response.reasoningParts).toStrictEqual(
        (expected.reasoning ?? []).map((part) =>
          "signature" in part || "redacted" in part ? { ...part, provider: "anthropic" } : part
        )
      )
      expect(response.toolCalls.map(({ arguments: args, id, name }) => ({ id, name, arguments: args })))
        .toStrictEqual(expected.toolCalls ?? [])
      const parts = response.contentParts
      expect(parts.map(describePart)).toStrictEqual(expected.parts ?? [])
      for (const [i, part] of Object.entries(expected.exactParts ?? {})) expect(parts[Number(i)]).toStrictEqual(part)
      const { raw, ...usage } = response.usage ?? { raw: undefined }
      expect(usage).toStrictEqual(expected.usage)
      expect(raw).toBeTypeOf("object")
      expect([response.finishReason, response.rawFinishReason]).toStrictEqual([...expected.finish])
      expect(response.error === undefined ? undefined : { code: response.error.code, details: response.error.details })
        .toStrictEqual(expected.error)
    })
  }
})
