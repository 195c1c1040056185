/**
 * The seven provider families as the reliability suites see them: how an event is framed on the
 * wire, the stream's content type, the real layer pointed at a loopback server, and a minimal valid
 * answer ("Hé là") with its chunks written out by hand. Adding a family is adding one row.
 */
import type { HttpClient } from "@effect/platform/HttpClient"
import type * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import type * as LanguageModel from "../../src/LanguageModel.js"
import type * as ProviderOptions from "../../src/ProviderOptions.js"
import * as Anthropic from "../../src/providers/anthropic/index.js"
import * as BedrockFixture from "../../src/providers/bedrock/fixture.js"
import * as Bedrock from "../../src/providers/bedrock/index.js"
import * as Cohere from "../../src/providers/cohere/index.js"
import * as Gemini from "../../src/providers/gemini/index.js"
import * as Ollama from "../../src/providers/ollama/index.js"
import * as OpenAiChat from "../../src/providers/openai-chat/index.js"
import * as OpenAiResponses from "../../src/providers/openai-responses/index.js"
import type * as StreamChunk from "../../src/StreamChunk.js"

/** One wire event: its name (SSE `event:`, Bedrock `:event-type`; unused by NDJSON) and its payload text. */
export interface Ev {
  readonly name: string
  readonly data: string
}

/** An event from a payload object (as JSON) or a text (as it is, e.g. broken JSON). */
export const ev = (name: string, payload: unknown): Ev => ({
  name,
  data: typeof payload === "string" ? payload : JSON.stringify(payload)
})

/** The options every reliability test may vary. */
export type Extra = Pick<ProviderOptions.Common, "retry" | "maxEventBytes" | "timeouts">

/** A family: its wire, its layer, and a minimal valid answer. */
export interface Family {
  readonly name: string
  /** The `provider` its chunks report. */
  readonly provider: string
  /** The content type its stream comes with. */
  readonly contentType: string
  /** The path the layer posts to. */
  readonly path: string
  /** The real layer, pointed at `url`, with a fake key built at run time. */
  readonly layer: (url: string, extra: Extra) => Layer.Layer<LanguageModel.LanguageModel, never, HttpClient>
  /** The body of these events, framed as the family sends them. */
  readonly frame: (events: ReadonlyArray<Ev>) => Uint8Array
  /** The events that open the answer and carry its first text, `"Hé "`. */
  readonly head: ReadonlyArray<Ev>
  /** The chunks of {@link head}. */
  readonly headChunks: ReadonlyArray<StreamChunk.StreamChunk>
  /** One event carrying a text delta (after {@link head}). */
  readonly text: (delta: string) => Ev
  /** The events that end the answer (after {@link head} and any {@link text}). */
  readonly tail: ReadonlyArray<Ev>
  /** The chunks of {@link tail}: the usage and the finish. */
  readonly tailChunks: ReadonlyArray<StreamChunk.StreamChunk>
  /** Events whose fields have the wrong types (each set goes after {@link head}, in place of {@link tail}). */
  readonly wrong: {
    /** A text delta whose text is a number, then {@link tail}. */
    readonly textNumber: ReadonlyArray<Ev>
    /** The end of the answer with a usage whose token counts are strings. */
    readonly usageStrings: ReadonlyArray<Ev>
    /** A tool call (`f`) whose arguments is an array, then the end of the answer. */
    readonly toolArgsArray: ReadonlyArray<Ev>
  }
}

/** A fake key, never a real one, built at run time. */
export const fakeKey = ["fake", "reliability", "key", "0123456789abcdef"].join("-")
const apiKey = Redacted.make(fakeKey)

const utf8 = new TextEncoder()

/** SSE framing: `event:` lines when the family names its events. */
const sse = (named: boolean) => (events: ReadonlyArray<Ev>): Uint8Array =>
  utf8.encode(events.map((e) => `${named ? `event: ${e.name}\n` : ""}data: ${e.data}\n\n`).join(""))

const joinBytes = (parts: ReadonlyArray<Uint8Array>): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

/** One Bedrock `event` message whose payload is `data` as it is. */
export const bedrockMessage = (e: Ev): Uint8Array =>
  BedrockFixture.message(
    { ":message-type": "event", ":event-type": e.name, ":content-type": "application/json" },
    e.data
  )

const usage = (inputTokens: number, outputTokens: number, raw: unknown) => ({
  type: "usage" as const,
  usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens, raw }
})

const text = (delta: string) => ({ type: "text-delta" as const, delta })

const stop = (rawReason: string) => ({ type: "finish" as const, reason: "stop" as const, rawReason })

// --- OpenAI Chat Completions ---------------------------------------------------------------------

const chatDelta = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  ev("message", { id: "chatcmpl-r", model: "m", choices: [{ index: 0, delta, ...extra }] })
const chatUsage = { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 }

const openAiChat: Family = {
  name: "OpenAiChat",
  provider: "openai",
  contentType: "text/event-stream",
  path: "/v1/chat/completions",
  layer: (url, extra) => OpenAiChat.layer({ model: "m", apiKey, baseUrl: `${url}/v1`, ...extra }),
  frame: sse(false),
  head: [chatDelta({ role: "assistant", content: "Hé " })],
  headChunks: [{ type: "metadata", provider: "openai", model: "m", responseId: "chatcmpl-r" }, text("Hé ")],
  text: (delta) => chatDelta({ content: delta }),
  tail: [
    chatDelta({}, { finish_reason: "stop" }),
    ev("message", { id: "chatcmpl-r", model: "m", choices: [], usage: chatUsage }),
    ev("message", "[DONE]")
  ],
  tailChunks: [usage(3, 2, chatUsage), stop("stop")],
  wrong: {
    textNumber: [chatDelta({ content: 42 })],
    usageStrings: [
      chatDelta({}, { finish_reason: "stop" }),
      ev("message", {
        id: "chatcmpl-r",
        model: "m",
        choices: [],
        usage: { prompt_tokens: "3", completion_tokens: "2", total_tokens: "5" }
      }),
      ev("message", "[DONE]")
    ],
    toolArgsArray: [
      chatDelta({
        tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "f", arguments: [1, 2] } }]
      }),
      chatDelta({}, { finish_reason: "tool_calls" }),
      ev("message", "[DONE]")
    ]
  }
}

// --- OpenAI Responses ----------------------------------------------------------------------------

const responsesUsage = {
  input_tokens: 3,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 2,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 5
}
const responses = (type: string, fields: Record<string, unknown>) => ev(type, { type, ...fields })

const openAiResponses: Family = {
  name: "OpenAiResponses",
  provider: "openai",
  contentType: "text/event-stream",
  path: "/v1/responses",
  layer: (url, extra) => OpenAiResponses.layer({ model: "m", apiKey, baseUrl: `${url}/v1`, ...extra }),
  frame: sse(true),
  head: [
    responses("response.created", { response: { id: "resp_r", model: "m", status: "in_progress", output: [] } }),
    responses("response.output_item.added", {
      output_index: 0,
      item: { id: "msg_r", type: "message", status: "in_progress", role: "assistant", content: [] }
    }),
    responses("response.output_text.delta", { item_id: "msg_r", output_index: 0, content_index: 0, delta: "Hé " })
  ],
  headChunks: [{ type: "metadata", provider: "openai", model: "m", responseId: "resp_r" }, text("Hé ")],
  text: (delta) =>
    responses("response.output_text.delta", { item_id: "msg_r", output_index: 0, content_index: 0, delta }),
  tail: [
    responses("response.completed", {
      response: { id: "resp_r", model: "m", status: "completed", output: [], usage: responsesUsage }
    })
  ],
  tailChunks: [
    {
      type: "usage",
      usage: {
        inputTokens: 3,
        outputTokens: 2,
        totalTokens: 5,
        cacheReadTokens: 0,
        reasoningTokens: 0,
        raw: responsesUsage
      }
    },
    stop("completed")
  ],
  wrong: {
    textNumber: [
      responses("response.output_text.delta", { item_id: "msg_r", output_index: 0, content_index: 0, delta: 42 })
    ],
    usageStrings: [
      responses("response.completed", {
        response: {
          id: "resp_r",
          model: "m",
          status: "completed",
          output: [],
          usage: { input_tokens: "3", output_tokens: "2", total_tokens: "5" }
        }
      })
    ],
    toolArgsArray: [
      responses("response.output_item.added", {
        output_index: 1,
        item: { id: "fc_1", type: "function_call", status: "in_progress", call_id: "call_1", name: "f", arguments: "" }
      }),
      responses("response.function_call_arguments.delta", { item_id: "fc_1", output_index: 1, delta: [1, 2] }),
      responses("response.output_item.done", {
        output_index: 1,
        item: {
          id: "fc_1",
          type: "function_call",
          status: "completed",
          call_id: "call_1",
          name: "f",
          arguments: [1, 2]
        }
      }),
      responses("response.completed", {
        response: { id: "resp_r", model: "m", status: "completed", output: [], usage: responsesUsage }
      })
    ]
  }
}

// --- Anthropic -----------------------------------------------------------------------------------

const anthropicEvent = (type: string, fields: Record<string, unknown> = {}) => ev(type, { type, ...fields })

const anthropic: Family = {
  name: "Anthropic",
  provider: "anthropic",
  contentType: "text/event-stream",
  path: "/v1/messages",
  layer: (url, extra) => Anthropic.layer({ model: "claude-test", apiKey, baseUrl: url, ...extra }),
  frame: sse(true),
  head: [
    anthropicEvent("message_start", {
      message: {
        id: "msg_r",
        type: "message",
        role: "assistant",
        model: "claude-test",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 3, output_tokens: 1 }
      }
    }),
    anthropicEvent("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
    anthropicEvent("content_block_delta", { index: 0, delta: { type: "text_delta", text: "Hé " } })
  ],
  headChunks: [
    { type: "metadata", provider: "anthropic", model: "claude-test", responseId: "msg_r" },
    usage(3, 1, { input_tokens: 3, output_tokens: 1 }),
    text("Hé ")
  ],
  text: (delta) => anthropicEvent("content_block_delta", { index: 0, delta: { type: "text_delta", text: delta } }),
  tail: [
    anthropicEvent("content_block_stop", { index: 0 }),
    anthropicEvent("message_delta", {
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: { output_tokens: 2 }
    }),
    anthropicEvent("message_stop")
  ],
  tailChunks: [usage(3, 2, { input_tokens: 3, output_tokens: 2 }), stop("end_turn")],
  wrong: {
    textNumber: [anthropicEvent("content_block_delta", { index: 0, delta: { type: "text_delta", text: 42 } })],
    usageStrings: [
      anthropicEvent("content_block_stop", { index: 0 }),
      anthropicEvent("message_delta", {
        delta: { stop_reason: "end_turn", stop_sequence: null },
        usage: { output_tokens: "2" }
      }),
      anthropicEvent("message_stop")
    ],
    toolArgsArray: [
      anthropicEvent("content_block_stop", { index: 0 }),
      anthropicEvent("content_block_start", {
        index: 1,
        content_block: { type: "tool_use", id: "toolu_1", name: "f", input: {} }
      }),
      anthropicEvent("content_block_delta", { index: 1, delta: { type: "input_json_delta", partial_json: [1, 2] } }),
      anthropicEvent("content_block_stop", { index: 1 }),
      anthropicEvent("message_delta", {
        delta: { stop_reason: "tool_use", stop_sequence: null },
        usage: { output_tokens: 2 }
      }),
      anthropicEvent("message_stop")
    ]
  }
}

// --- Gemini --------------------------------------------------------------------------------------

const geminiEvent = (parts: ReadonlyArray<unknown>, extra: Record<string, unknown> = {}) =>
  ev("message", {
    candidates: [{
      content: { parts, role: "model" },
      index: 0,
      ...(extra.finishReason !== undefined ? { finishReason: extra.finishReason } : {})
    }],
    ...(extra.usageMetadata !== undefined ? { usageMetadata: extra.usageMetadata } : {}),
    modelVersion: "gemini-test",
    responseId: "resp_r"
  })
const geminiUsage = { promptTokenCount: 3, candidatesTokenCount: 2, totalTokenCount: 5 }

const gemini: Family = {
  name: "Gemini",
  provider: "google",
  contentType: "text/event-stream",
  path: "/v1beta/models/gemini-test:streamGenerateContent?alt=sse",
  layer: (url, extra) => Gemini.layer({ model: "gemini-test", apiKey, baseUrl: `${url}/v1beta`, ...extra }),
  frame: sse(false),
  head: [geminiEvent([{ text: "Hé " }])],
  headChunks: [{ type: "metadata", provider: "google", model: "gemini-test", responseId: "resp_r" }, text("Hé ")],
  text: (delta) => geminiEvent([{ text: delta }]),
  tail: [geminiEvent([{ text: "" }], { finishReason: "STOP", usageMetadata: geminiUsage })],
  tailChunks: [usage(3, 2, geminiUsage), stop("STOP")],
  wrong: {
    textNumber: [geminiEvent([{ text: 42 }])],
    usageStrings: [
      geminiEvent([{ text: "" }], {
        finishReason: "STOP",
        usageMetadata: { promptTokenCount: "3", candidatesTokenCount: "2", totalTokenCount: "5" }
      })
    ],
    toolArgsArray: [
      geminiEvent([{ functionCall: { name: "f", args: [1, 2] } }], { finishReason: "STOP", usageMetadata: geminiUsage })
    ]
  }
}

// --- Ollama (NDJSON) -----------------------------------------------------------------------------

const ollamaLine = (message: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  ev("line", {
    model: "llama-test",
    created_at: "2025-07-07T20:00:00Z",
    message: { role: "assistant", content: "", ...message },
    done: false,
    ...extra
  })

const ollama: Family = {
  name: "Ollama",
  provider: "ollama",
  contentType: "application/x-ndjson",
  path: "/api/chat",
  layer: (url, extra) => Ollama.layer({ model: "llama-test", baseUrl: url, apiKey, ...extra }),
  frame: (events) => utf8.encode(events.map((e) => `${e.data}\n`).join("")),
  head: [ollamaLine({ content: "Hé " })],
  headChunks: [{ type: "metadata", provider: "ollama", model: "llama-test" }, text("Hé ")],
  text: (delta) => ollamaLine({ content: delta }),
  tail: [ollamaLine({}, { done: true, done_reason: "stop", prompt_eval_count: 3, eval_count: 2 })],
  tailChunks: [usage(3, 2, { prompt_eval_count: 3, eval_count: 2 }), stop("stop")],
  wrong: {
    textNumber: [ollamaLine({ content: 42 })],
    usageStrings: [ollamaLine({}, { done: true, done_reason: "stop", prompt_eval_count: "3", eval_count: "2" })],
    toolArgsArray: [
      ollamaLine({ tool_calls: [{ function: { name: "f", arguments: [1, 2] } }] }),
      ollamaLine({}, { done: true, done_reason: "stop", prompt_eval_count: 3, eval_count: 2 })
    ]
  }
}

// --- Bedrock (AWS event-stream binary frames) ----------------------------------------------------

const bedrock: Family = {
  name: "Bedrock",
  provider: "bedrock",
  contentType: "application/vnd.amazon.eventstream",
  path: "/model/bedrock-test/converse-stream",
  layer: (url, extra) => Bedrock.layer({ model: "bedrock-test", apiKey, baseUrl: url, ...extra }),
  frame: (events) => joinBytes(events.map(bedrockMessage)),
  head: [
    ev("messageStart", { role: "assistant" }),
    ev("contentBlockDelta", { contentBlockIndex: 0, delta: { text: "Hé " } })
  ],
  headChunks: [{ type: "metadata", provider: "bedrock", model: "bedrock-test" }, text("Hé ")],
  text: (delta) => ev("contentBlockDelta", { contentBlockIndex: 0, delta: { text: delta } }),
  tail: [
    ev("contentBlockStop", { contentBlockIndex: 0 }),
    ev("messageStop", { stopReason: "end_turn" }),
    ev("metadata", { usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 }, metrics: { latencyMs: 10 } })
  ],
  tailChunks: [
    usage(3, 2, { inputTokens: 3, outputTokens: 2, totalTokens: 5, metrics: { latencyMs: 10 } }),
    stop("end_turn")
  ],
  wrong: {
    textNumber: [ev("contentBlockDelta", { contentBlockIndex: 0, delta: { text: 42 } })],
    usageStrings: [
      ev("contentBlockStop", { contentBlockIndex: 0 }),
      ev("messageStop", { stopReason: "end_turn" }),
      ev("metadata", { usage: { inputTokens: "3", outputTokens: "2", totalTokens: "5" }, metrics: { latencyMs: 10 } })
    ],
    toolArgsArray: [
      ev("contentBlockStop", { contentBlockIndex: 0 }),
      ev("contentBlockStart", { contentBlockIndex: 1, start: { toolUse: { toolUseId: "tooluse_1", name: "f" } } }),
      ev("contentBlockDelta", { contentBlockIndex: 1, delta: { toolUse: { input: [1, 2] } } }),
      ev("contentBlockStop", { contentBlockIndex: 1 }),
      ev("messageStop", { stopReason: "tool_use" }),
      ev("metadata", { usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 }, metrics: { latencyMs: 10 } })
    ]
  }
}

// --- Cohere --------------------------------------------------------------------------------------

const cohereEvent = (type: string, fields: Record<string, unknown> = {}) => ev(type, { type, ...fields })
const cohereUsage = {
  billed_units: { input_tokens: 3, output_tokens: 2 },
  tokens: { input_tokens: 3, output_tokens: 2 }
}

const cohere: Family = {
  name: "Cohere",
  provider: "cohere",
  contentType: "text/event-stream",
  path: "/v2/chat",
  layer: (url, extra) => Cohere.layer({ model: "command-test", apiKey, baseUrl: url, ...extra }),
  frame: sse(true),
  head: [
    ev("message-start", {
      id: "msg_r",
      type: "message-start",
      delta: { message: { role: "assistant", content: [], tool_plan: "", tool_calls: [], citations: [] } }
    }),
    cohereEvent("content-start", { index: 0, delta: { message: { content: { type: "text", text: "" } } } }),
    cohereEvent("content-delta", { index: 0, delta: { message: { content: { text: "Hé " } } } })
  ],
  headChunks: [{ type: "metadata", provider: "cohere", responseId: "msg_r" }, text("Hé ")],
  text: (delta) => cohereEvent("content-delta", { index: 0, delta: { message: { content: { text: delta } } } }),
  tail: [
    cohereEvent("content-end", { index: 0 }),
    cohereEvent("message-end", { delta: { finish_reason: "COMPLETE", usage: cohereUsage } })
  ],
  tailChunks: [usage(3, 2, cohereUsage), stop("COMPLETE")],
  wrong: {
    textNumber: [cohereEvent("content-delta", { index: 0, delta: { message: { content: { text: 42 } } } })],
    usageStrings: [
      cohereEvent("content-end", { index: 0 }),
      cohereEvent("message-end", {
        delta: { finish_reason: "COMPLETE", usage: { tokens: { input_tokens: "3", output_tokens: "2" } } }
      })
    ],
    toolArgsArray: [
      cohereEvent("content-end", { index: 0 }),
      cohereEvent("tool-call-start", {
        index: 0,
        delta: {
          message: { tool_calls: { id: "call_1", type: "function", function: { name: "f", arguments: [1, 2] } } }
        }
      }),
      cohereEvent("tool-call-end", { index: 0 }),
      cohereEvent("message-end", { delta: { finish_reason: "TOOL_CALL", usage: cohereUsage } })
    ]
  }
}

/** Every family, in the order the tests list them. */
export const families: ReadonlyArray<Family> = [
  openAiChat,
  openAiResponses,
  anthropic,
  gemini,
  ollama,
  bedrock,
  cohere
]

/**
 * Each family's own in-band error (inside a 200 stream, as its servers send one), and the error
 * code it becomes. Cohere's in-band errors name no code, so theirs is `unknown`, never retried.
 */
export const inBandError = (family: Family): { readonly body: Uint8Array; readonly code: string } => {
  switch (family.name) {
    case "OpenAiChat":
      return {
        body: family.frame([ev("message", { error: { message: "Overloaded", type: "overloaded_error" } })]),
        code: "overloaded"
      }
    case "OpenAiResponses":
      return {
        body: family.frame([
          ev("error", { type: "error", code: "server_is_overloaded", message: "Busy", param: null, sequence_number: 1 })
        ]),
        code: "overloaded"
      }
    case "Anthropic":
      return {
        body: family.frame([
          ev("error", { type: "error", error: { type: "overloaded_error", message: "Overloaded" } })
        ]),
        code: "overloaded"
      }
    case "Gemini":
      return {
        body: family.frame([ev("message", { error: { code: 503, message: "Overloaded", status: "UNAVAILABLE" } })]),
        code: "overloaded"
      }
    case "Ollama":
      return { body: family.frame([ev("line", { error: "server busy, please try again" })]), code: "overloaded" }
    case "Bedrock":
      return {
        body: BedrockFixture.message(
          {
            ":message-type": "exception",
            ":exception-type": "serviceUnavailableException",
            ":content-type": "application/json"
          },
          JSON.stringify({ message: "Busy" })
        ),
        code: "overloaded"
      }
    default:
      return { body: family.frame([ev("error", { message: "Busy" })]), code: "unknown" }
  }
}
