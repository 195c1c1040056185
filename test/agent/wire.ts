/**
 * The exact wire bodies of one step, per provider family, built from payload objects through the
 * family's own framing (`Fixture.sseText` / NDJSON lines / AWS event-stream frames): a step answering
 * with tool calls, one answering with text, one answering with JSON for structured output (for
 * Anthropic and Bedrock the JSON is the input of the forced tool `json_response`), and an HTTP error.
 * Every body follows the shapes of `../shared/reference/wire-formats.md` and our own transcripts in
 * `test/fixtures/<family>/`.
 */
import * as BedrockFrames from "../../src/providers/bedrock/fixture.js"
import * as OllamaFrames from "../../src/providers/ollama/fixture.js"
import * as Fixture from "../../src/testing/Fixture.js"

/** The wire families, by the folder of their transcripts. */
export type Family = "openai-chat" | "openai-responses" | "anthropic" | "gemini" | "ollama" | "bedrock" | "cohere"

/** One tool call of a step: the provider's id, the tool's name, its argument text in the pieces it streams in. */
export interface Call {
  readonly id: string
  readonly name: string
  readonly fragments: ReadonlyArray<string>
}

/** A step's token counts as the provider reports them (no cache, no reasoning). */
export interface Tokens {
  readonly input: number
  readonly output: number
}

/** A step answering with tool calls (optionally after some text). */
export interface ToolStep {
  readonly responseId: string
  readonly text?: ReadonlyArray<string>
  readonly calls: ReadonlyArray<Call>
  readonly usage: Tokens
}

/** A step answering with text (or, for structured output, JSON text) in the given deltas. */
export interface TextStep {
  readonly responseId: string
  readonly deltas: ReadonlyArray<string>
  readonly usage: Tokens
}

/** An HTTP answer: status, headers and body. */
export interface Reply {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string | Uint8Array
}

/** The builders of one family. */
export interface Wire {
  readonly contentType: string
  readonly toolCalls: (step: ToolStep) => string | Uint8Array
  readonly text: (step: TextStep) => string | Uint8Array
  /** Structured output: JSON text in `deltas`, through the family's JSON mechanism. */
  readonly json: (step: TextStep) => string | Uint8Array
  /** A 500 with the family's error body. */
  readonly serverError: Reply
}

/** The model id of each family (the replay table's, `src/cli/replay.ts`). */
export const models: Record<Family, string> = {
  "openai-chat": "demo-reasoner-1",
  "openai-responses": "demo-responses-1",
  anthropic: "claude-demo-1",
  gemini: "gemini-demo-1",
  ollama: "qwen3:8b-demo",
  bedrock: "demo.claude-1",
  cohere: "command-demo-1"
}

/** The arguments a call's fragments add up to. */
export const argumentsText = (call: Call): string => call.fragments.join("")

const lines = (payloads: ReadonlyArray<unknown>): Array<string> => payloads.map((p) => JSON.stringify(p))

// ---------------------------------------------------------------------------------------------
// OpenAI Chat Completions: `data:` chunks, usage on a last chunk with no choices, then [DONE]
// ---------------------------------------------------------------------------------------------

const chat = (responseId: string, choice: unknown): unknown => ({
  id: responseId,
  object: "chat.completion.chunk",
  created: 1767225600,
  model: models["openai-chat"],
  choices: choice === undefined ? [] : [choice],
  usage: null
})

const chatDelta = (responseId: string, delta: unknown, finish: string | null = null): unknown =>
  chat(responseId, { index: 0, delta, logprobs: null, finish_reason: finish })

const chatUsage = (responseId: string, usage: Tokens): unknown => ({
  ...(chat(responseId, undefined) as object),
  usage: {
    prompt_tokens: usage.input,
    completion_tokens: usage.output,
    total_tokens: usage.input + usage.output
  }
})

const chatText = (step: TextStep): string =>
  Fixture.sseText(
    "openai-chat",
    lines([
      chatDelta(step.responseId, { role: "assistant", content: "" }),
      ...step.deltas.map((content) => chatDelta(step.responseId, { content })),
      chatDelta(step.responseId, {}, "stop"),
      chatUsage(step.responseId, step.usage)
    ])
  )

const openAiChat: Wire = {
  contentType: "text/event-stream",
  toolCalls: (step) =>
    Fixture.sseText(
      "openai-chat",
      lines([
        chatDelta(step.responseId, { role: "assistant", content: null }),
        ...(step.text ?? []).map((content) => chatDelta(step.responseId, { content })),
        ...step.calls.flatMap((call, index) => [
          chatDelta(step.responseId, {
            tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }]
          }),
          ...call.fragments.map((arguments_) =>
            chatDelta(step.responseId, { tool_calls: [{ index, function: { arguments: arguments_ } }] })
          )
        ]),
        chatDelta(step.responseId, {}, "tool_calls"),
        chatUsage(step.responseId, step.usage)
      ])
    ),
  text: chatText,
  json: chatText,
  serverError: {
    status: 500,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      error: { message: "The server had an error while processing your request.", type: "server_error", code: null }
    })
  }
}

// ---------------------------------------------------------------------------------------------
// OpenAI Responses: typed events with sequence numbers, ending in response.completed
// ---------------------------------------------------------------------------------------------

const responsesEvents = (
  responseId: string,
  usage: Tokens,
  items: ReadonlyArray<(n: () => number) => Array<unknown>>
) => {
  let sequence = 0
  const n = () => sequence++
  const response = (status: string, extra: object = {}) => ({
    id: responseId,
    object: "response",
    created_at: 1767225600,
    status,
    model: models["openai-responses"],
    output: [],
    ...extra
  })
  return Fixture.sseText(
    "openai-responses",
    lines([
      { type: "response.created", sequence_number: n(), response: response("in_progress") },
      ...items.flatMap((item) => item(n)),
      {
        type: "response.completed",
        sequence_number: n(),
        response: response("completed", {
          usage: {
            input_tokens: usage.input,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: usage.output,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: usage.input + usage.output
          }
        })
      }
    ])
  )
}

const responsesMessage = (itemId: string, outputIndex: number, deltas: ReadonlyArray<string>) => (n: () => number) => {
  const text = deltas.join("")
  const at = { item_id: itemId, output_index: outputIndex, content_index: 0 }
  return [
    {
      type: "response.output_item.added",
      sequence_number: n(),
      output_index: outputIndex,
      item: { id: itemId, type: "message", status: "in_progress", role: "assistant", content: [] }
    },
    {
      type: "response.content_part.added",
      sequence_number: n(),
      ...at,
      part: { type: "output_text", text: "", annotations: [] }
    },
    ...deltas.map((delta) => ({ type: "response.output_text.delta", sequence_number: n(), ...at, delta })),
    { type: "response.output_text.done", sequence_number: n(), ...at, text },
    {
      type: "response.output_item.done",
      sequence_number: n(),
      output_index: outputIndex,
      item: {
        id: itemId,
        type: "message",
        status: "completed",
        role: "assistant",
        content: [{ type: "output_text", text, annotations: [] }]
      }
    }
  ]
}

const responsesCall = (call: Call, outputIndex: number) => (n: () => number) => {
  const itemId = `fc_${call.id}`
  const item = (status: string, arguments_: string) => ({
    id: itemId,
    type: "function_call",
    status,
    arguments: arguments_,
    call_id: call.id,
    name: call.name
  })
  return [
    {
      type: "response.output_item.added",
      sequence_number: n(),
      output_index: outputIndex,
      item: item("in_progress", "")
    },
    ...call.fragments.map((delta) => ({
      type: "response.function_call_arguments.delta",
      sequence_number: n(),
      item_id: itemId,
      output_index: outputIndex,
      delta
    })),
    {
      type: "response.function_call_arguments.done",
      sequence_number: n(),
      item_id: itemId,
      output_index: outputIndex,
      arguments: argumentsText(call)
    },
    {
      type: "response.output_item.done",
      sequence_number: n(),
      output_index: outputIndex,
      item: item("completed", argumentsText(call))
    }
  ]
}

const responsesText = (step: TextStep): string =>
  responsesEvents(step.responseId, step.usage, [responsesMessage(`msg_${step.responseId}`, 0, step.deltas)])

const openAiResponses: Wire = {
  contentType: "text/event-stream",
  toolCalls: (step) => {
    const text = step.text ?? []
    const items = text.length > 0 ? [responsesMessage(`msg_${step.responseId}`, 0, text)] : []
    return responsesEvents(step.responseId, step.usage, [
      ...items,
      ...step.calls.map((call, i) => responsesCall(call, items.length + i))
    ])
  },
  text: responsesText,
  json: responsesText,
  serverError: {
    status: 500,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      error: { message: "The server had an error while processing your request.", type: "server_error", code: null }
    })
  }
}

// ---------------------------------------------------------------------------------------------
// Anthropic Messages: typed events from message_start to message_stop
// ---------------------------------------------------------------------------------------------

const anthropicMessage = (
  step: { readonly responseId: string; readonly usage: Tokens },
  blocks: ReadonlyArray<(index: number) => Array<unknown>>,
  stopReason: string
): string =>
  Fixture.sseText(
    "anthropic",
    lines([
      {
        type: "message_start",
        message: {
          id: step.responseId,
          type: "message",
          role: "assistant",
          model: models.anthropic,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: step.usage.input, output_tokens: 1 }
        }
      },
      ...blocks.flatMap((block, index) => [...block(index), { type: "content_block_stop", index }]),
      {
        type: "message_delta",
        delta: { stop_reason: stopReason, stop_sequence: null },
        usage: { output_tokens: step.usage.output }
      },
      { type: "message_stop" }
    ])
  )

const anthropicText = (deltas: ReadonlyArray<string>) => (index: number) => [
  { type: "content_block_start", index, content_block: { type: "text", text: "" } },
  ...deltas.map((text) => ({ type: "content_block_delta", index, delta: { type: "text_delta", text } }))
]

const anthropicToolUse = (id: string, name: string, fragments: ReadonlyArray<string>) => (index: number) => [
  { type: "content_block_start", index, content_block: { type: "tool_use", id, name, input: {} } },
  ...fragments.map((partial_json) => ({
    type: "content_block_delta",
    index,
    delta: { type: "input_json_delta", partial_json }
  }))
]

const anthropic: Wire = {
  contentType: "text/event-stream",
  toolCalls: (step) =>
    anthropicMessage(
      step,
      [
        ...((step.text ?? []).length > 0 ? [anthropicText(step.text ?? [])] : []),
        ...step.calls.map((call) => anthropicToolUse(call.id, call.name, call.fragments))
      ],
      "tool_use"
    ),
  text: (step) => anthropicMessage(step, [anthropicText(step.deltas)], "end_turn"),
  // The answer is the input of the forced tool `json_response`.
  json: (step) =>
    anthropicMessage(step, [anthropicToolUse(`toolu_${step.responseId}`, "json_response", step.deltas)], "tool_use"),
  serverError: {
    status: 500,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ type: "error", error: { type: "api_error", message: "Internal server error" } })
  }
}

// ---------------------------------------------------------------------------------------------
// Gemini: `data:` events (CRLF), each with the usage so far; the last one has the finishReason
// ---------------------------------------------------------------------------------------------

/**
 * One event. Gemini may leave `usageMetadata` out of an event; ours carry it on the last event only,
 * so a step has one usage snapshot, as the other families' steps do.
 */
const geminiEvent = (responseId: string, parts: ReadonlyArray<unknown>, end?: Tokens): unknown => ({
  candidates: [{ content: { parts, role: "model" }, index: 0, ...(end === undefined ? {} : { finishReason: "STOP" }) }],
  ...(end === undefined ? {} : {
    usageMetadata: {
      promptTokenCount: end.input,
      candidatesTokenCount: end.output,
      totalTokenCount: end.input + end.output
    }
  }),
  modelVersion: models.gemini,
  responseId
})

const geminiText = (step: TextStep): string =>
  Fixture.sseText(
    "google",
    lines([
      ...step.deltas.map((text) => geminiEvent(step.responseId, [{ text }])),
      geminiEvent(step.responseId, [{ text: "" }], step.usage)
    ])
  )

const gemini: Wire = {
  contentType: "text/event-stream",
  // Gemini sends each call whole (`args` an object, no id) in one part; parallel calls share an event.
  toolCalls: (step) =>
    Fixture.sseText(
      "google",
      lines([
        ...(step.text ?? []).map((text) => geminiEvent(step.responseId, [{ text }])),
        geminiEvent(
          step.responseId,
          step.calls.map((call) => ({ functionCall: { name: call.name, args: JSON.parse(argumentsText(call)) } }))
        ),
        geminiEvent(step.responseId, [{ text: "" }], step.usage)
      ])
    ),
  text: geminiText,
  json: geminiText,
  serverError: {
    status: 500,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ error: { code: 500, message: "Internal error encountered.", status: "INTERNAL" } })
  }
}

// ---------------------------------------------------------------------------------------------
// Ollama native: NDJSON objects, each call whole, a last `done: true` object with the counts
// ---------------------------------------------------------------------------------------------

const ollamaLine = (message: object, done = false, extra: object = {}): unknown => ({
  model: models.ollama,
  created_at: "2026-01-01T09:00:00.000Z",
  message: { role: "assistant", content: "", ...message },
  done,
  ...extra
})

const ollamaDone = (usage: Tokens): unknown =>
  ollamaLine({}, true, {
    done_reason: "stop",
    total_duration: 900000000,
    prompt_eval_count: usage.input,
    eval_count: usage.output
  })

const ollamaText = (step: TextStep): string =>
  OllamaFrames.ndjsonText(lines([...step.deltas.map((content) => ollamaLine({ content })), ollamaDone(step.usage)]))

const ollama: Wire = {
  contentType: "application/x-ndjson",
  toolCalls: (step) =>
    OllamaFrames.ndjsonText(lines([
      ...(step.text ?? []).map((content) => ollamaLine({ content })),
      ollamaLine({
        tool_calls: step.calls.map((call, index) => ({
          id: call.id,
          function: { index, name: call.name, arguments: JSON.parse(argumentsText(call)) }
        }))
      }),
      ollamaDone(step.usage)
    ])),
  text: ollamaText,
  json: ollamaText,
  serverError: {
    status: 500,
    headers: { "content-type": "application/json; charset=utf-8" },
    body: JSON.stringify({ error: "model runner has unexpectedly stopped" })
  }
}

// ---------------------------------------------------------------------------------------------
// Bedrock ConverseStream: one binary frame per event, messageStop then metadata
// ---------------------------------------------------------------------------------------------

const frames = (events: ReadonlyArray<readonly [string, unknown]>): Uint8Array =>
  Fixture.concat(events.map(([name, payload]) => BedrockFrames.event(name, payload)))

const bedrockEnd = (stopReason: string, usage: Tokens): Array<readonly [string, unknown]> => [
  ["messageStop", { stopReason }],
  ["metadata", {
    usage: { inputTokens: usage.input, outputTokens: usage.output, totalTokens: usage.input + usage.output },
    metrics: { latencyMs: 420 }
  }]
]

const bedrockTextBlock = (index: number, deltas: ReadonlyArray<string>): Array<readonly [string, unknown]> => [
  ...deltas.map((text) => ["contentBlockDelta", { contentBlockIndex: index, delta: { text } }] as const),
  ["contentBlockStop", { contentBlockIndex: index }]
]

const bedrockToolBlock = (
  index: number,
  id: string,
  name: string,
  fragments: ReadonlyArray<string>
): Array<readonly [string, unknown]> => [
  ["contentBlockStart", { contentBlockIndex: index, start: { toolUse: { toolUseId: id, name } } }],
  ...fragments.map((input) =>
    ["contentBlockDelta", { contentBlockIndex: index, delta: { toolUse: { input } } }] as const
  ),
  ["contentBlockStop", { contentBlockIndex: index }]
]

const bedrock: Wire = {
  contentType: "application/vnd.amazon.eventstream",
  toolCalls: (step) => {
    const text = step.text ?? []
    const first = text.length > 0 ? 1 : 0
    return frames([
      ["messageStart", { role: "assistant" }],
      ...(text.length > 0 ? bedrockTextBlock(0, text) : []),
      ...step.calls.flatMap((call, i) => bedrockToolBlock(first + i, call.id, call.name, call.fragments)),
      ...bedrockEnd("tool_use", step.usage)
    ])
  },
  text: (step) =>
    frames([
      ["messageStart", { role: "assistant" }],
      ...bedrockTextBlock(0, step.deltas),
      ...bedrockEnd("end_turn", step.usage)
    ]),
  // The answer is the input of the forced tool `json_response`.
  json: (step) =>
    frames([
      ["messageStart", { role: "assistant" }],
      ...bedrockToolBlock(0, `tooluse_${step.responseId}`, "json_response", step.deltas),
      ...bedrockEnd("tool_use", step.usage)
    ]),
  serverError: {
    status: 500,
    headers: {
      "content-type": "application/json",
      "x-amzn-errortype": "InternalServerException:http://internal.amazon.com/coral/com.amazon.bedrock/"
    },
    body: JSON.stringify({ message: "The server encountered an internal error." })
  }
}

// ---------------------------------------------------------------------------------------------
// Cohere v2: typed events from message-start to message-end
// ---------------------------------------------------------------------------------------------

const cohereUsage = (usage: Tokens): unknown => ({
  billed_units: { input_tokens: usage.input, output_tokens: usage.output },
  tokens: { input_tokens: usage.input, output_tokens: usage.output }
})

const cohereStart = (responseId: string): unknown => ({
  id: responseId,
  type: "message-start",
  delta: { message: { role: "assistant", content: [], tool_plan: "", tool_calls: [], citations: [] } }
})

const cohereText = (step: TextStep): string =>
  Fixture.sseText(
    "cohere",
    lines([
      cohereStart(step.responseId),
      { type: "content-start", index: 0, delta: { message: { content: { type: "text", text: "" } } } },
      ...step.deltas.map((text) => ({ type: "content-delta", index: 0, delta: { message: { content: { text } } } })),
      { type: "content-end", index: 0 },
      { type: "message-end", delta: { finish_reason: "COMPLETE", usage: cohereUsage(step.usage) } }
    ])
  )

const cohere: Wire = {
  contentType: "text/event-stream",
  toolCalls: (step) =>
    Fixture.sseText(
      "cohere",
      lines([
        cohereStart(step.responseId),
        ...(step.text ?? []).map((tool_plan) => ({ type: "tool-plan-delta", delta: { message: { tool_plan } } })),
        ...step.calls.flatMap((call, index) => [
          {
            type: "tool-call-start",
            index,
            delta: {
              message: { tool_calls: { id: call.id, type: "function", function: { name: call.name, arguments: "" } } }
            }
          },
          ...call.fragments.map((arguments_) => ({
            type: "tool-call-delta",
            index,
            delta: { message: { tool_calls: { function: { arguments: arguments_ } } } }
          })),
          { type: "tool-call-end", index }
        ]),
        { type: "message-end", delta: { finish_reason: "TOOL_CALL", usage: cohereUsage(step.usage) } }
      ])
    ),
  text: cohereText,
  json: cohereText,
  serverError: {
    status: 500,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      id: "c0h-error-1",
      message: "internal server error, this has been reported to our developers"
    })
  }
}

/** Every family's builders. */
export const wires: Record<Family, Wire> = {
  "openai-chat": openAiChat,
  "openai-responses": openAiResponses,
  anthropic,
  gemini,
  ollama,
  bedrock,
  cohere
}

/** Cuts a body into reads of `size` bytes (characters for text), so the client sees several network reads. */
export const reads = (body: string | Uint8Array, size = 64): Array<string | Uint8Array> => {
  const out: Array<string | Uint8Array> = []
  for (let i = 0; i < body.length; i += size) out.push(body.slice(i, i + size))
  return out
}
