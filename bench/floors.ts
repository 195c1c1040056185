/**
 * The hand-written floors: `fetch` + `TextDecoder` + `indexOf` framing + `JSON.parse`, feeding the
 * same accumulator as every client. No SSE generality, no error handling: the fastest correct client
 * for these inputs, to measure everyone's overhead against.
 */
import type { Acc } from "./acc.js"
import type { Family } from "./streams.js"

export interface ChatJson {
  readonly usage?: { readonly prompt_tokens: number; readonly completion_tokens: number } | null
  readonly choices: ReadonlyArray<{
    readonly finish_reason: string | null
    readonly delta: {
      readonly content?: string | null
      readonly tool_calls?: ReadonlyArray<{ readonly function?: { readonly arguments?: string } }>
    }
  }>
}
export interface AnthropicJson {
  readonly type: string
  readonly message: { readonly usage: { readonly input_tokens: number; readonly output_tokens: number } }
  readonly delta: {
    readonly type: string
    readonly text: string
    readonly thinking: string
    readonly partial_json: string
    readonly stop_reason: string | null
  }
  readonly usage?: { readonly output_tokens?: number }
}
interface ResponsesJson {
  readonly type: string
  readonly delta: string
  readonly response: { readonly usage: { readonly input_tokens: number; readonly output_tokens: number } }
}

/**
 * The floor's framing, fed decoded text as it arrives: each `data:` payload of a finished event goes
 * to `onData`. Shared by the `fetch` floor and the platform-client baselines (bench/clients.ts).
 */
export const framer = (onData: (data: string) => void): (text: string) => void => {
  let buffer = ""
  return (text) => {
    buffer += text
    let start = 0
    let end: number
    while ((end = buffer.indexOf("\n\n", start)) !== -1) {
      let at = start
      if (!buffer.startsWith("data: ", start)) {
        const i = buffer.indexOf("\ndata: ", start)
        at = i !== -1 && i < end ? i + 1 : -1
      }
      if (at !== -1) onData(buffer.slice(at + 6, end))
      start = end + 2
    }
    buffer = buffer.slice(start)
  }
}

const frames = async (url: string, onData: (data: string) => void, signal?: AbortSignal): Promise<void> => {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{}",
    ...(signal ? { signal } : {})
  })
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  const feed = framer(onData)
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    feed(decoder.decode(value, { stream: true }))
  }
}

/**
 * One parsed Chat Completions chunk into the accumulator. Shared with the peers' harness
 * (bench/peers/clients.mjs), whose SDKs hand over the same objects.
 */
export const chatChunk = (acc: Acc, c: ChatJson): void => {
  if (c.usage) acc.usage(c.usage.prompt_tokens, c.usage.completion_tokens)
  const choice = c.choices[0]
  if (choice === undefined) return
  if (choice.finish_reason) acc.finish(choice.finish_reason)
  const d = choice.delta
  if (d.content) acc.text(d.content)
  if (d.tool_calls) { for (const t of d.tool_calls) if (t.function?.arguments) acc.args(t.function.arguments) }
}

/** One parsed Anthropic Messages event into the accumulator (shared as {@link chatChunk}). */
export const anthropicEvent = (acc: Acc, e: AnthropicJson): void => {
  switch (e.type) {
    case "message_start":
      acc.usage(e.message.usage.input_tokens, e.message.usage.output_tokens)
      break
    case "content_block_delta": {
      const d = e.delta
      if (d.type === "text_delta") acc.text(d.text)
      else if (d.type === "thinking_delta") acc.reasoning(d.thinking)
      else if (d.type === "input_json_delta") acc.args(d.partial_json)
      break
    }
    case "message_delta":
      acc.finish(e.delta.stop_reason)
      acc.usage(undefined, e.usage?.output_tokens)
      break
  }
}

/** A family's endpoint under a scenario's server root (`base`). */
export const endpoint = (base: string, family: Family): string =>
  family === "chat"
    ? `${base}/v1/chat/completions`
    : family === "anthropic"
    ? `${base}/v1/messages`
    : `${base}/v1/responses`

/** What the floor does with each event's `data:` payload of a family's stream. */
export const handler = (family: Family, acc: Acc): (data: string) => void => {
  switch (family) {
    case "chat":
      return (data) => {
        if (data !== "[DONE]") chatChunk(acc, JSON.parse(data) as ChatJson)
      }
    case "anthropic":
      return (data) => anthropicEvent(acc, JSON.parse(data) as AnthropicJson)
    case "responses": {
      let calls = false
      return (data) => {
        const e = JSON.parse(data) as ResponsesJson
        switch (e.type) {
          case "response.output_text.delta":
            acc.text(e.delta)
            break
          case "response.function_call_arguments.delta":
            calls = true
            acc.args(e.delta)
            break
          case "response.completed":
            acc.usage(e.response.usage.input_tokens, e.response.usage.output_tokens)
            acc.finish(calls ? "tool_calls" : "stop")
            break
        }
      }
    }
  }
}

/** The floor: one stream of `family` from the scenario root `base`, over `fetch`. */
export const run = (base: string, family: Family, acc: Acc, signal?: AbortSignal): Promise<void> =>
  frames(endpoint(base, family), handler(family, acc), signal)
