/**
 * The seven wire families as the agent tests see them: where each posts, its layer pointed at a
 * loopback `ReplayServer`, the chunks its decoder makes of the steps `wire.ts` builds (written out
 * from the family's wire format, not computed by its decoder), the error chunk of its 500, and the
 * exact request body it sends for a conversation (the native shapes of each `request.ts`).
 */
import type { HttpClient } from "@effect/platform/HttpClient"
import {
  Anthropic,
  Bedrock,
  Cohere,
  Gemini,
  type LanguageModel,
  Ollama,
  OpenAiChat,
  OpenAiResponses,
  StreamChunk,
  type Usage
} from "effect-llm-stream"
import type * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import {
  argumentsText,
  type Family,
  models,
  type TextStep,
  type Tokens,
  type ToolStep,
  type Wire,
  wires
} from "./wire.js"

type Json = Record<string, unknown>

/** What a family's decoder makes of a step, as the agent loop passes it on. */
export interface StepChunks {
  /** The step's chunks without its `finish` (the loop withholds it). */
  readonly chunks: ReadonlyArray<StreamChunk.StreamChunk>
  /** The step's own `finish`. */
  readonly finish: StreamChunk.Of<"finish">
  /** The step's own usage (its last snapshot, `raw` included): what its `step-finish` carries. */
  readonly usage: Usage.Usage
}

/** Where a step stands in the loop: whether it is the first (its `metadata` passes), and the usage of the steps before. */
export interface Position {
  readonly first: boolean
  readonly prior?: Usage.Usage | undefined
}

/** One call as the next request carries it back. */
export interface SentCall {
  readonly id: string
  readonly name: string
  readonly arguments: Json
  readonly rawArguments: string
}

/** One tool result as the next request carries it: the `tool-result`'s value as JSON text (a string as is). */
export interface SentResult {
  readonly id: string
  readonly name: string
  readonly content: string
  readonly isError: boolean
}

/** A conversation as a request sends it: the user's prompt, then each step's answer and results. */
export interface Conversation {
  readonly prompt: string
  readonly steps: ReadonlyArray<{
    readonly text: string
    readonly calls: ReadonlyArray<SentCall>
    readonly results: ReadonlyArray<SentResult>
  }>
  /** The tools offered: name, description and the JSON Schema of the parameters. */
  readonly tools: ReadonlyArray<{ readonly name: string; readonly description: string; readonly parameters: Json }>
}

/** One family's row of the table. */
export interface Case {
  readonly family: Family
  readonly wire: Wire
  /** The path the provider posts to. */
  readonly path: string
  readonly layer: (root: string) => Layer.Layer<LanguageModel.LanguageModel, never, HttpClient>
  /** The id the decoder gives call `index` of a step (the provider's, or one it synthesizes). */
  readonly callId: (step: ToolStep, index: number) => string
  readonly toolStep: (step: ToolStep, at: Position) => StepChunks
  readonly textStep: (step: TextStep, at: Position) => StepChunks
  /** A structured-output step (the JSON mechanism's own finish reason). */
  readonly jsonStep: (step: TextStep, at: Position) => StepChunks
  /** The error chunk the family's `serverError` reply ends a stream with. */
  readonly serverError: StreamChunk.Of<"error">
  /** The exact body of a request holding the conversation. */
  readonly body: (conversation: Conversation) => Json
  /** The exact body of a structured-output request for `prompt` (schema named `response`). */
  readonly objectBody: (prompt: string, schema: Json) => Json
}

const key = Redacted.make("test-key")
/** No retries: a 500 must end the stream at once (a retry would sleep on the test clock). */
const retry = { times: 0 }

// ---------------------------------------------------------------------------------------------
// What every family's decoder has in common, parameterized by what differs
// ---------------------------------------------------------------------------------------------

interface Shape {
  readonly metadata: (responseId: string) => StreamChunk.Of<"metadata">
  /** The provider's own usage object for a snapshot. */
  readonly raw: (tokens: Tokens) => Json
  /** Counters the family reports beside input and output (zeros it sends). */
  readonly extra?: Partial<Usage.Usage>
  /** A usage snapshot sent before the content (Anthropic's `message_start`): its output count. */
  readonly earlyOutput?: number
  /** Calls arrive whole (one fragment each: the compact JSON of their arguments). */
  readonly wholeCalls: boolean
  /** The finished calls come together at the end (OpenAI Chat), not each after its own fragments. */
  readonly callsAtEnd: boolean
  readonly callId: (step: ToolStep, index: number) => string
  readonly rawReason: { readonly tool: string; readonly text: string; readonly json: string }
}

/** The sum of two steps' usage, as the loop adds them up (no `raw`: it belongs to one response). */
export const addUsage = (a: Usage.Usage, b: Usage.Usage): Usage.Usage => {
  const out: { -readonly [K in keyof Usage.Usage]: Usage.Usage[K] } = {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens
  }
  if (a.cacheReadTokens !== undefined) out.cacheReadTokens = a.cacheReadTokens + (b.cacheReadTokens ?? 0)
  if (a.reasoningTokens !== undefined) out.reasoningTokens = a.reasoningTokens + (b.reasoningTokens ?? 0)
  return out
}

const usageOf = (shape: Shape, tokens: Tokens): Usage.Usage => ({
  inputTokens: tokens.input,
  outputTokens: tokens.output,
  totalTokens: tokens.input + tokens.output,
  ...shape.extra,
  raw: shape.raw(tokens)
})

/** A usage chunk as the loop passes it: the step's own snapshot in step 1, else summed with the steps before (no `raw`). */
const usageChunk = (shape: Shape, tokens: Tokens, at: Position): StreamChunk.Of<"usage"> =>
  StreamChunk.usage(at.prior === undefined ? usageOf(shape, tokens) : addUsage(at.prior, usageOf(shape, tokens)))

const opening = (shape: Shape, responseId: string, usage: Tokens, at: Position): Array<StreamChunk.StreamChunk> => [
  ...(at.first ? [shape.metadata(responseId)] : []),
  ...(shape.earlyOutput === undefined ? [] : [usageChunk(shape, { input: usage.input, output: shape.earlyOutput }, at)])
]

const toolStepOf = (shape: Shape) => (step: ToolStep, at: Position): StepChunks => {
  const calls = step.calls.map((call, index) => {
    const id = shape.callId(step, index)
    const raw = argumentsText(call)
    const fragments = shape.wholeCalls ? [JSON.stringify(JSON.parse(raw))] : call.fragments
    return {
      deltas: fragments.map((fragment, i) =>
        StreamChunk.toolCallDelta(index, fragment, i === 0 ? { id, name: call.name } : { id })
      ),
      done: StreamChunk.toolCall({ index, id, name: call.name, arguments: JSON.parse(raw), rawArguments: raw })
    }
  })
  return {
    chunks: [
      ...opening(shape, step.responseId, step.usage, at),
      ...(step.text ?? []).map(StreamChunk.textDelta),
      ...(shape.callsAtEnd
        ? [...calls.flatMap((call) => call.deltas), ...calls.map((call) => call.done)]
        : calls.flatMap((call) => [...call.deltas, call.done])),
      usageChunk(shape, step.usage, at)
    ],
    finish: StreamChunk.finish("tool_calls", shape.rawReason.tool),
    usage: usageOf(shape, step.usage)
  }
}

const textStepOf =
  (shape: Shape, rawReason: (shape: Shape) => string) => (step: TextStep, at: Position): StepChunks => ({
    chunks: [
      ...opening(shape, step.responseId, step.usage, at),
      ...step.deltas.map(StreamChunk.textDelta),
      usageChunk(shape, step.usage, at)
    ],
    finish: StreamChunk.finish("stop", rawReason(shape)),
    usage: usageOf(shape, step.usage)
  })

const serverError = (
  provider: string,
  message: string,
  details: Json,
  requestId?: string
): StreamChunk.Of<"error"> =>
  StreamChunk.error({
    code: "server",
    message,
    retryable: true,
    status: 500,
    provider,
    ...(requestId === undefined ? {} : { requestId }),
    details
  })

const rowOf = (
  family: Family,
  path: string,
  layer: Case["layer"],
  shape: Shape,
  rest: Pick<Case, "serverError" | "body" | "objectBody">
): Case => ({
  family,
  wire: wires[family],
  path,
  layer,
  callId: shape.callId,
  toolStep: toolStepOf(shape),
  textStep: textStepOf(shape, (s) => s.rawReason.text),
  jsonStep: textStepOf(shape, (s) => s.rawReason.json),
  ...rest
})

const givenId = (step: ToolStep, index: number): string => step.calls[index]!.id

// ---------------------------------------------------------------------------------------------
// The table
// ---------------------------------------------------------------------------------------------

const openAiChat = rowOf(
  "openai-chat",
  "/v1/chat/completions",
  (root) => OpenAiChat.layer({ model: models["openai-chat"], baseUrl: `${root}/v1`, apiKey: key, retry }),
  {
    metadata: (id) => StreamChunk.metadata("openai", models["openai-chat"], id),
    raw: (t) => ({ prompt_tokens: t.input, completion_tokens: t.output, total_tokens: t.input + t.output }),
    wholeCalls: false,
    callsAtEnd: true,
    callId: givenId,
    rawReason: { tool: "tool_calls", text: "stop", json: "stop" }
  },
  {
    serverError: serverError("openai", "The server had an error while processing your request.", {
      error: { message: "The server had an error while processing your request.", type: "server_error", code: null }
    }),
    body: (c) => ({
      model: models["openai-chat"],
      messages: [
        { role: "user", content: c.prompt },
        ...c.steps.flatMap((s) => [
          {
            role: "assistant",
            content: s.text === "" ? null : s.text,
            tool_calls: s.calls.map((call) => ({
              id: call.id,
              type: "function",
              function: { name: call.name, arguments: call.rawArguments }
            }))
          },
          ...s.results.map((r) => ({ role: "tool", tool_call_id: r.id, content: r.content }))
        ])
      ],
      tools: c.tools.map((t) => ({
        type: "function",
        function: { name: t.name, description: t.description, parameters: t.parameters }
      })),
      stream: true,
      stream_options: { include_usage: true }
    }),
    objectBody: (prompt, schema) => ({
      model: models["openai-chat"],
      messages: [{ role: "user", content: prompt }],
      response_format: { type: "json_schema", json_schema: { name: "response", schema } },
      stream: true,
      stream_options: { include_usage: true }
    })
  }
)

const openAiResponses = rowOf(
  "openai-responses",
  "/v1/responses",
  (root) => OpenAiResponses.layer({ model: models["openai-responses"], baseUrl: `${root}/v1`, apiKey: key, retry }),
  {
    metadata: (id) => StreamChunk.metadata("openai", models["openai-responses"], id),
    raw: (t) => ({
      input_tokens: t.input,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: t.output,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: t.input + t.output
    }),
    extra: { cacheReadTokens: 0, reasoningTokens: 0 },
    wholeCalls: false,
    callsAtEnd: false,
    callId: givenId,
    rawReason: { tool: "completed", text: "completed", json: "completed" }
  },
  {
    serverError: serverError("openai", "The server had an error while processing your request.", {
      error: { message: "The server had an error while processing your request.", type: "server_error", code: null }
    }),
    body: (c) => ({
      model: models["openai-responses"],
      input: [
        { role: "user", content: c.prompt },
        ...c.steps.flatMap((s) => [
          ...(s.text === "" ? [] : [{ role: "assistant", content: s.text }]),
          ...s.calls.map((call) => ({
            type: "function_call",
            call_id: call.id,
            name: call.name,
            arguments: call.rawArguments
          })),
          ...s.results.map((r) => ({ type: "function_call_output", call_id: r.id, output: r.content }))
        ])
      ],
      tools: c.tools.map((t) => ({
        type: "function",
        name: t.name,
        description: t.description,
        parameters: t.parameters,
        strict: false
      })),
      store: false,
      stream: true
    }),
    objectBody: (prompt, schema) => ({
      model: models["openai-responses"],
      input: [{ role: "user", content: prompt }],
      text: { format: { type: "json_schema", name: "response", schema } },
      store: false,
      stream: true
    })
  }
)

const anthropicMaxTokens = 1024

const anthropic = rowOf(
  "anthropic",
  "/v1/messages",
  (root) =>
    Anthropic.layer({ model: models.anthropic, baseUrl: root, apiKey: key, maxTokens: anthropicMaxTokens, retry }),
  {
    metadata: (id) => StreamChunk.metadata("anthropic", models.anthropic, id),
    raw: (t) => ({ input_tokens: t.input, output_tokens: t.output }),
    earlyOutput: 1,
    wholeCalls: false,
    callsAtEnd: false,
    callId: givenId,
    rawReason: { tool: "tool_use", text: "end_turn", json: "tool_use" }
  },
  {
    serverError: serverError("anthropic", "Internal server error", {
      type: "error",
      error: { type: "api_error", message: "Internal server error" }
    }),
    body: (c) => ({
      model: models.anthropic,
      messages: [
        { role: "user", content: c.prompt },
        ...c.steps.flatMap((s) => [
          {
            role: "assistant",
            content: [
              ...(s.text === "" ? [] : [{ type: "text", text: s.text }]),
              ...s.calls.map((call) => ({ type: "tool_use", id: call.id, name: call.name, input: call.arguments }))
            ]
          },
          {
            role: "user",
            content: s.results.map((r) => ({
              type: "tool_result",
              tool_use_id: r.id,
              content: r.content,
              ...(r.isError ? { is_error: true } : {})
            }))
          }
        ])
      ],
      max_tokens: anthropicMaxTokens,
      tools: c.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters })),
      stream: true
    }),
    objectBody: (prompt, schema) => ({
      model: models.anthropic,
      messages: [{ role: "user", content: prompt }],
      max_tokens: anthropicMaxTokens,
      tools: [{
        name: "json_response",
        description: "Respond with a JSON object matching this schema: call this tool once, with the whole answer.",
        input_schema: schema
      }],
      tool_choice: { type: "tool", name: "json_response" },
      stream: true
    })
  }
)

/** A JSON Schema as Gemini's `Schema` takes it: no `additionalProperties` at any level. */
const geminiSchema = (schema: unknown): unknown => {
  if (Array.isArray(schema)) return schema.map(geminiSchema)
  if (typeof schema !== "object" || schema === null) return schema
  const out: Json = {}
  for (const [k, v] of Object.entries(schema)) {
    if (k === "additionalProperties") continue
    out[k] = k === "properties"
      ? Object.fromEntries(Object.entries(v as Json).map(([name, s]) => [name, geminiSchema(s)]))
      : geminiSchema(v)
  }
  return out
}

/** A tool result's `response` object: a JSON object as it is, other values under `output` (`error` for failures). */
const geminiResponse = (r: SentResult): unknown => {
  let value: unknown = r.content
  try {
    value = JSON.parse(r.content)
  } catch {
    // plain text stays text
  }
  if (r.isError) return { error: value }
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value : { output: value }
}

const gemini = rowOf(
  "gemini",
  `/v1beta/models/${models.gemini}:streamGenerateContent`,
  (root) => Gemini.layer({ model: models.gemini, baseUrl: `${root}/v1beta`, apiKey: key, retry }),
  {
    metadata: (id) => StreamChunk.metadata("google", models.gemini, id),
    raw: (t) => ({ promptTokenCount: t.input, candidatesTokenCount: t.output, totalTokenCount: t.input + t.output }),
    wholeCalls: true,
    callsAtEnd: false,
    // Gemini sends no call ids: the decoder names each call after the response.
    callId: (step, index) => `${step.responseId}_call_${index}`,
    rawReason: { tool: "STOP", text: "STOP", json: "STOP" }
  },
  {
    serverError: serverError("google", "Internal error encountered.", {
      error: { code: 500, message: "Internal error encountered.", status: "INTERNAL" }
    }),
    body: (c) => ({
      contents: [
        { role: "user", parts: [{ text: c.prompt }] },
        ...c.steps.flatMap((s) => [
          {
            role: "model",
            parts: [
              ...(s.text === "" ? [] : [{ text: s.text }]),
              ...s.calls.map((call) => ({ functionCall: { name: call.name, args: call.arguments } }))
            ]
          },
          {
            role: "user",
            parts: s.results.map((r) => ({ functionResponse: { name: r.name, response: geminiResponse(r) } }))
          }
        ])
      ],
      tools: [{
        functionDeclarations: c.tools.map((t) => ({
          name: t.name,
          description: t.description,
          parameters: geminiSchema(t.parameters)
        }))
      }]
    }),
    objectBody: (prompt, schema) => ({
      contents: [{ role: "user", parts: [{ text: prompt }] }],
      generationConfig: { responseMimeType: "application/json", responseJsonSchema: schema }
    })
  }
)

const ollama = rowOf(
  "ollama",
  "/api/chat",
  (root) => Ollama.layer({ model: models.ollama, baseUrl: root, retry }),
  {
    metadata: () => StreamChunk.metadata("ollama", models.ollama),
    raw: (t) => ({ prompt_eval_count: t.input, eval_count: t.output, total_duration: 900000000 }),
    wholeCalls: true,
    callsAtEnd: false,
    callId: givenId,
    rawReason: { tool: "stop", text: "stop", json: "stop" }
  },
  {
    serverError: serverError("ollama", "model runner has unexpectedly stopped", {
      error: "model runner has unexpectedly stopped"
    }),
    body: (c) => ({
      model: models.ollama,
      messages: [
        { role: "user", content: c.prompt },
        ...c.steps.flatMap((s) => [
          {
            role: "assistant",
            content: s.text,
            tool_calls: s.calls.map((call) => ({ function: { name: call.name, arguments: call.arguments } }))
          },
          ...s.results.map((r) => ({ role: "tool", tool_name: r.name, content: r.content }))
        ])
      ],
      tools: c.tools.map((t) => ({
        type: "function",
        function: { name: t.name, description: t.description, parameters: t.parameters }
      })),
      stream: true
    }),
    objectBody: (prompt, schema) => ({
      model: models.ollama,
      messages: [{ role: "user", content: prompt }],
      format: schema,
      stream: true
    })
  }
)

const bedrock = rowOf(
  "bedrock",
  `/model/${models.bedrock}/converse-stream`,
  (root) => Bedrock.layer({ model: models.bedrock, baseUrl: root, apiKey: key, retry }),
  {
    metadata: () => StreamChunk.metadata("bedrock", models.bedrock),
    raw: (t) => ({
      inputTokens: t.input,
      outputTokens: t.output,
      totalTokens: t.input + t.output,
      metrics: { latencyMs: 420 }
    }),
    wholeCalls: false,
    callsAtEnd: false,
    callId: givenId,
    rawReason: { tool: "tool_use", text: "end_turn", json: "tool_use" }
  },
  {
    serverError: serverError("bedrock", "The server encountered an internal error.", {
      type: "InternalServerException",
      body: { message: "The server encountered an internal error." }
    }),
    body: (c) => ({
      messages: [
        { role: "user", content: [{ text: c.prompt }] },
        ...c.steps.flatMap((s) => [
          {
            role: "assistant",
            content: [
              ...(s.text === "" ? [] : [{ text: s.text }]),
              ...s.calls.map((call) => ({ toolUse: { toolUseId: call.id, name: call.name, input: call.arguments } }))
            ]
          },
          {
            role: "user",
            content: s.results.map((r) => ({
              toolResult: { toolUseId: r.id, content: [{ text: r.content }], ...(r.isError ? { status: "error" } : {}) }
            }))
          }
        ])
      ],
      toolConfig: {
        tools: c.tools.map((t) => ({
          toolSpec: { name: t.name, description: t.description, inputSchema: { json: t.parameters } }
        }))
      }
    }),
    objectBody: (prompt, schema) => ({
      messages: [{ role: "user", content: [{ text: prompt }] }],
      toolConfig: {
        tools: [{
          toolSpec: {
            name: "json_response",
            description: "Respond with a JSON object matching this schema: call this tool once, with the whole answer.",
            inputSchema: { json: schema }
          }
        }],
        toolChoice: { tool: { name: "json_response" } }
      }
    })
  }
)

const cohere = rowOf(
  "cohere",
  "/v2/chat",
  (root) => Cohere.layer({ model: models.cohere, baseUrl: root, apiKey: key, retry }),
  {
    metadata: (id) => StreamChunk.metadata("cohere", undefined, id),
    raw: (t) => ({
      billed_units: { input_tokens: t.input, output_tokens: t.output },
      tokens: { input_tokens: t.input, output_tokens: t.output }
    }),
    wholeCalls: false,
    callsAtEnd: false,
    callId: givenId,
    rawReason: { tool: "TOOL_CALL", text: "COMPLETE", json: "COMPLETE" }
  },
  {
    serverError: serverError(
      "cohere",
      "internal server error, this has been reported to our developers",
      { id: "c0h-error-1", message: "internal server error, this has been reported to our developers" },
      "c0h-error-1"
    ),
    body: (c) => ({
      model: models.cohere,
      messages: [
        { role: "user", content: c.prompt },
        ...c.steps.flatMap((s) => [
          {
            role: "assistant",
            ...(s.text === "" ? {} : { tool_plan: s.text }),
            tool_calls: s.calls.map((call) => ({
              id: call.id,
              type: "function",
              function: { name: call.name, arguments: JSON.stringify(call.arguments) }
            }))
          },
          ...s.results.map((r) => ({ role: "tool", tool_call_id: r.id, content: r.content }))
        ])
      ],
      tools: c.tools.map((t) => ({
        type: "function",
        function: { name: t.name, description: t.description, parameters: t.parameters }
      })),
      stream: true
    }),
    objectBody: (prompt, schema) => ({
      model: models.cohere,
      messages: [{ role: "user", content: prompt }],
      response_format: { type: "json_object", json_schema: schema },
      stream: true
    })
  }
)

/** Every family, one row each. */
export const cases: ReadonlyArray<Case> = [openAiChat, openAiResponses, anthropic, gemini, ollama, bedrock, cohere]
