/**
 * The hand-written floor for Anthropic Messages: fetch + TextDecoder + indexOf framing + JSON.parse
 * + the same accumulation (text, tool input joined and parsed once, usage, stop reason). No SSE
 * generality, no error handling: the fastest correct-for-this-input client.
 */
import type { FloorResult } from "./floor.js"

interface EventJson {
  readonly type: string
  readonly index?: number
  readonly message?: { readonly usage?: { readonly input_tokens?: number; readonly output_tokens?: number } }
  readonly content_block?: { readonly type: string; readonly name?: string }
  readonly delta?: {
    readonly type?: string
    readonly text?: string
    readonly partial_json?: string
    readonly stop_reason?: string | null
  }
  readonly usage?: { readonly output_tokens?: number }
}

/** Streams one response from `url` the fastest plain way. */
export const run = async (url: string): Promise<FloorResult> => {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  let buffer = ""
  const text: Array<string> = []
  const calls = new Map<number, { name: string; args: Array<string> }>()
  let inputTokens = 0
  let outputTokens = 0
  let finish: string | undefined
  const onEvent = (data: string): void => {
    const e = JSON.parse(data) as EventJson
    switch (e.type) {
      case "message_start":
        inputTokens = e.message?.usage?.input_tokens ?? 0
        outputTokens = e.message?.usage?.output_tokens ?? 0
        break
      case "content_block_start":
        if (e.content_block?.type === "tool_use") {
          calls.set(e.index ?? 0, { name: e.content_block.name ?? "", args: [] })
        }
        break
      case "content_block_delta":
        if (e.delta?.type === "text_delta" && e.delta.text !== undefined) text.push(e.delta.text)
        else if (e.delta?.type === "input_json_delta" && e.delta.partial_json) {
          calls.get(e.index ?? 0)?.args.push(e.delta.partial_json)
        }
        break
      case "message_delta":
        if (e.delta?.stop_reason) finish = e.delta.stop_reason
        if (e.usage?.output_tokens !== undefined) outputTokens = e.usage.output_tokens
        break
    }
  }
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    buffer += decoder.decode(value, { stream: true })
    let start = 0
    let end: number
    while ((end = buffer.indexOf("\n\n", start)) !== -1) {
      const block = buffer.slice(start, end)
      const at = block.indexOf("\ndata: ")
      if (at !== -1) onEvent(block.slice(at + 7))
      start = end + 2
    }
    buffer = buffer.slice(start)
  }
  return {
    text: text.join(""),
    toolCalls: [...calls.values()].map((c) => ({ name: c.name, arguments: JSON.parse(c.args.join("")) as unknown })),
    inputTokens,
    outputTokens,
    finishReason: finish
  }
}
