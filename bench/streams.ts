/**
 * The benchmark's wire streams, generated deterministically (so the server and every worker build
 * the same bytes), each with what it must decode to. One builder per provider family.
 */

/** What a stream must decode to: every client's result is checked against it. */
export interface Expected {
  readonly text: string
  readonly reasoning: string
  readonly toolArguments: unknown
  readonly inputTokens: number
  readonly outputTokens: number
  readonly finish: string
}

/** A stream's bytes and expected result. */
export interface Built {
  readonly body: string
  readonly events: number
  readonly expected: Expected
}

const words = ["stream", "chunk", "effect", "token", "model", "layer", "sink", "usage", "reason", "call"]
const wordsOf = (n: number, offset = 0): Array<string> =>
  Array.from({ length: n }, (_, i) => `${words[(i + offset) % words.length]} `)

/** A JSON argument object of about `bytes` characters. */
export const argumentsOf = (bytes: number): string => {
  const items: Array<number> = []
  let s = JSON.stringify({ query: "benchmark", items })
  while (s.length < bytes) {
    for (let i = 0; i < 64; i++) items.push(items.length)
    s = JSON.stringify({ query: "benchmark", items })
  }
  return s
}
/** `text` cut into `size`-character pieces. */
export const piecesOf = (text: string, size: number): Array<string> => {
  const out: Array<string> = []
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size))
  return out
}
/** `text` cut into `n` pieces. */
export const fragmentsOf = (text: string, n: number): Array<string> => piecesOf(text, Math.ceil(text.length / n))

// --- OpenAI Chat Completions -------------------------------------------------------------------

const chatHead = `{"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1764460800,"model":"gpt-4.1-mini"`
const chatEvent = (delta: string, finish: string | null = null): string =>
  `data: ${chatHead},"choices":[{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${
    finish === null ? "null" : `"${finish}"`
  }}],"usage":null}\n\n`

/** A Chat Completions stream: text deltas, then optionally one tool call's argument fragments. */
export const chat = (text: ReadonlyArray<string>, argFragments: ReadonlyArray<string> = []): Built => {
  const parts = [chatEvent(`{"role":"assistant","content":""}`)]
  for (const w of text) parts.push(chatEvent(`{"content":${JSON.stringify(w)}}`))
  if (argFragments.length > 0) {
    parts.push(chatEvent(
      `{"tool_calls":[{"index":0,"id":"call_bench","type":"function","function":{"name":"search","arguments":""}}]}`
    ))
    for (const f of argFragments) {
      parts.push(chatEvent(`{"tool_calls":[{"index":0,"function":{"arguments":${JSON.stringify(f)}}}]}`))
    }
  }
  const finish = argFragments.length > 0 ? "tool_calls" : "stop"
  parts.push(chatEvent(`{}`, finish))
  const outputTokens = text.length + argFragments.length
  parts.push(
    `data: ${chatHead},"choices":[],"usage":{"prompt_tokens":1200,"completion_tokens":${outputTokens},"total_tokens":${
      1200 + outputTokens
    },"prompt_tokens_details":{"cached_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}}\n\n`
  )
  parts.push("data: [DONE]\n\n")
  return {
    body: parts.join(""),
    events: parts.length,
    expected: {
      text: text.join(""),
      reasoning: "",
      toolArguments: argFragments.length > 0 ? JSON.parse(argFragments.join("")) : undefined,
      inputTokens: 1200,
      outputTokens,
      finish
    }
  }
}

/** The main scenario: ~1.2 MB in exactly `events` events, with a ~300-fragment tool call. */
export const chatLarge = (events = 6_000): Built => {
  const args = JSON.stringify({ query: "benchmark", items: Array.from({ length: 298 }, (_, i) => i) })
  const fragments = fragmentsOf(args, 300)
  return chat(wordsOf(events - fragments.length - 5), fragments)
}

// --- Anthropic Messages ------------------------------------------------------------------------

const sse = (type: string, payload: unknown): string => `event: ${type}\ndata: ${JSON.stringify(payload)}\n\n`

/** An Anthropic Messages stream: optional thinking block, text block, optional tool_use block. */
export const anthropic = (
  text: ReadonlyArray<string>,
  argFragments: ReadonlyArray<string> = [],
  thinking: ReadonlyArray<string> = []
): Built => {
  const parts = [
    sse("message_start", {
      type: "message_start",
      message: {
        id: "msg_bench",
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 1200, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 1 }
      }
    })
  ]
  let index = 0
  if (thinking.length > 0) {
    parts.push(sse("content_block_start", {
      type: "content_block_start",
      index,
      content_block: { type: "thinking", thinking: "", signature: "" }
    }))
    for (const t of thinking) {
      parts.push(sse("content_block_delta", {
        type: "content_block_delta",
        index,
        delta: { type: "thinking_delta", thinking: t }
      }))
    }
    parts.push(sse("content_block_delta", {
      type: "content_block_delta",
      index,
      delta: { type: "signature_delta", signature: "EqQBCgIYAhIMbenchSignature" }
    }))
    parts.push(sse("content_block_stop", { type: "content_block_stop", index }))
    index++
  }
  parts.push(sse("content_block_start", {
    type: "content_block_start",
    index,
    content_block: { type: "text", text: "" }
  }))
  for (const w of text) {
    parts.push(sse("content_block_delta", {
      type: "content_block_delta",
      index,
      delta: { type: "text_delta", text: w }
    }))
  }
  parts.push(sse("content_block_stop", { type: "content_block_stop", index }))
  index++
  if (argFragments.length > 0) {
    parts.push(sse("content_block_start", {
      type: "content_block_start",
      index,
      content_block: { type: "tool_use", id: "toolu_bench", name: "search", input: {} }
    }))
    for (const f of argFragments) {
      parts.push(sse("content_block_delta", {
        type: "content_block_delta",
        index,
        delta: { type: "input_json_delta", partial_json: f }
      }))
    }
    parts.push(sse("content_block_stop", { type: "content_block_stop", index }))
  }
  const outputTokens = thinking.length + text.length + argFragments.length
  const stop = argFragments.length > 0 ? "tool_use" : "end_turn"
  parts.push(sse("message_delta", {
    type: "message_delta",
    delta: { stop_reason: stop, stop_sequence: null },
    usage: { output_tokens: outputTokens }
  }))
  parts.push(sse("message_stop", { type: "message_stop" }))
  return {
    body: parts.join(""),
    events: parts.length,
    expected: {
      text: text.join(""),
      reasoning: thinking.join(""),
      toolArguments: argFragments.length > 0 ? JSON.parse(argFragments.join("")) : undefined,
      inputTokens: 1200,
      outputTokens,
      finish: argFragments.length > 0 ? "tool_calls" : "stop"
    }
  }
}

/** The Anthropic twin of `chatLarge`: the same event count and about the same size. */
export const anthropicLarge = (events = 6_000): Built => {
  const args = JSON.stringify({ query: "benchmark", items: Array.from({ length: 298 }, (_, i) => i) })
  const fragments = fragmentsOf(args, 300)
  return anthropic(wordsOf(events - fragments.length - 7), fragments)
}

/** A reasoning stream: 4,000 thinking deltas, then 2,000 text deltas (Anthropic extended thinking). */
export const anthropicReasoning = (): Built => anthropic(wordsOf(1_992), [], wordsOf(4_000, 3))

// --- OpenAI Responses --------------------------------------------------------------------------

const response = (status: string, usage: unknown, output: ReadonlyArray<unknown>) => ({
  id: "resp_bench",
  object: "response",
  created_at: 1764460800,
  status,
  error: null,
  incomplete_details: null,
  instructions: null,
  max_output_tokens: null,
  model: "gpt-4.1-mini",
  output,
  parallel_tool_calls: true,
  previous_response_id: null,
  reasoning: { effort: null, summary: null },
  store: false,
  temperature: 1,
  text: { format: { type: "text" } },
  tool_choice: "auto",
  tools: [],
  top_p: 1,
  truncation: "disabled",
  usage,
  user: null,
  metadata: {}
})

/** An OpenAI Responses stream: one message of text deltas, then one function call's fragments. */
export const responses = (text: ReadonlyArray<string>, argFragments: ReadonlyArray<string> = []): Built => {
  let seq = 0
  const ev = (type: string, payload: Record<string, unknown>): string =>
    sse(type, { type, sequence_number: seq++, ...payload })
  const full = text.join("")
  const args = argFragments.join("")
  const message = (status: string, t: string) => ({
    id: "msg_bench",
    type: "message",
    status,
    role: "assistant",
    content: status === "in_progress" ? [] : [{ type: "output_text", text: t, annotations: [], logprobs: [] }]
  })
  const call = (status: string, a: string) => ({
    id: "fc_bench",
    type: "function_call",
    status,
    arguments: a,
    call_id: "call_bench",
    name: "search"
  })
  const outputTokens = text.length + argFragments.length
  const usage = {
    input_tokens: 1200,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 1200 + outputTokens
  }
  const parts = [
    ev("response.created", { response: response("in_progress", null, []) }),
    ev("response.in_progress", { response: response("in_progress", null, []) }),
    ev("response.output_item.added", { output_index: 0, item: message("in_progress", "") }),
    ev("response.content_part.added", {
      item_id: "msg_bench",
      output_index: 0,
      content_index: 0,
      part: { type: "output_text", text: "", annotations: [], logprobs: [] }
    })
  ]
  for (const w of text) {
    parts.push(ev("response.output_text.delta", {
      item_id: "msg_bench",
      output_index: 0,
      content_index: 0,
      delta: w,
      logprobs: []
    }))
  }
  parts.push(ev("response.output_text.done", {
    item_id: "msg_bench",
    output_index: 0,
    content_index: 0,
    text: full,
    logprobs: []
  }))
  parts.push(ev("response.content_part.done", {
    item_id: "msg_bench",
    output_index: 0,
    content_index: 0,
    part: { type: "output_text", text: full, annotations: [], logprobs: [] }
  }))
  parts.push(ev("response.output_item.done", { output_index: 0, item: message("completed", full) }))
  const output: Array<unknown> = [message("completed", full)]
  if (argFragments.length > 0) {
    parts.push(ev("response.output_item.added", { output_index: 1, item: call("in_progress", "") }))
    for (const f of argFragments) {
      parts.push(ev("response.function_call_arguments.delta", { item_id: "fc_bench", output_index: 1, delta: f }))
    }
    parts.push(ev("response.function_call_arguments.done", { item_id: "fc_bench", output_index: 1, arguments: args }))
    parts.push(ev("response.output_item.done", { output_index: 1, item: call("completed", args) }))
    output.push(call("completed", args))
  }
  parts.push(ev("response.completed", { response: response("completed", usage, output) }))
  return {
    body: parts.join(""),
    events: parts.length,
    expected: {
      text: full,
      reasoning: "",
      toolArguments: argFragments.length > 0 ? JSON.parse(args) : undefined,
      inputTokens: 1200,
      outputTokens,
      finish: argFragments.length > 0 ? "tool_calls" : "stop"
    }
  }
}

/** The Responses twin of `chatLarge`: 6,000 events with a ~300-fragment function call. */
export const responsesLarge = (events = 6_000): Built => {
  const args = JSON.stringify({ query: "benchmark", items: Array.from({ length: 298 }, (_, i) => i) })
  const fragments = fragmentsOf(args, 300)
  return responses(wordsOf(events - fragments.length - 12), fragments)
}

// --- The scenarios ------------------------------------------------------------------------------

/** The wire family a scenario speaks, which decides the clients that can read it. */
export type Family = "chat" | "anthropic" | "responses"

/** A named stream. */
export interface Scenario {
  readonly name: string
  readonly family: Family
  readonly title: string
  readonly build: () => Built
}

export const scenarios: ReadonlyArray<Scenario> = [
  { name: "chat", family: "chat", title: "OpenAI Chat, 6,000 events", build: () => chatLarge() },
  { name: "anthropic", family: "anthropic", title: "Anthropic Messages, 6,000 events", build: () => anthropicLarge() },
  { name: "responses", family: "responses", title: "OpenAI Responses, 6,000 events", build: () => responsesLarge() },
  { name: "small", family: "chat", title: "Chat, 10-event answer", build: () => chat(wordsOf(6)) },
  {
    name: "tool64",
    family: "chat",
    title: "Chat, 64 KB tool argument in 20-byte deltas",
    build: () => chat(wordsOf(10), piecesOf(argumentsOf(64 * 1024), 20))
  },
  {
    name: "tool128",
    family: "chat",
    title: "Chat, 128 KB tool argument in 20-byte deltas",
    build: () => chat(wordsOf(10), piecesOf(argumentsOf(128 * 1024), 20))
  },
  {
    name: "reasoning",
    family: "anthropic",
    title: "Anthropic, 4,000 thinking + 2,000 text deltas",
    build: () => anthropicReasoning()
  },
  {
    name: "concurrent",
    family: "chat",
    title: "Chat, 200 events (each of N concurrent streams)",
    build: () => chat(wordsOf(195))
  }
]

export const scenario = (name: string): Scenario => {
  const s = scenarios.find((x) => x.name === name)
  if (s === undefined) throw new Error(`no scenario ${name}`)
  return s
}

/** The pass-through stream: Chat text events repeated to `bytes`, generated as it is sent. */
export const passBlock = (): { readonly block: string; readonly textPerBlock: number } => {
  const text = wordsOf(256)
  return {
    block: text.map((w) => chatEvent(`{"content":${JSON.stringify(w)}}`)).join(""),
    textPerBlock: text.join("").length
  }
}
export const passHead = chatEvent(`{"role":"assistant","content":""}`)
export const passTail = `${chatEvent(`{}`, "stop")}data: [DONE]\n\n`
