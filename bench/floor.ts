/**
 * The hand-written floor: fetch + TextDecoder + indexOf framing + JSON.parse + the same accumulation
 * our Response does (text, tool-call arguments parsed once, usage, finish reason). No SSE generality,
 * no error handling: the fastest correct-for-this-input client, to measure our overhead against.
 */
interface Delta {
  readonly content?: string | null
  readonly tool_calls?: ReadonlyArray<{ index: number; id?: string; function?: { name?: string; arguments?: string } }>
}
interface ChunkJson {
  readonly choices: ReadonlyArray<{ delta: Delta; finish_reason: string | null }>
  readonly usage?: { prompt_tokens: number; completion_tokens: number } | null
}

/** What the floor collects. */
export interface FloorResult {
  readonly text: string
  readonly toolCalls: ReadonlyArray<{ name: string; arguments: unknown }>
  readonly inputTokens: number
  readonly outputTokens: number
  readonly finishReason: string | undefined
}

/** Streams one response from `url` the fastest plain way. */
export const run = async (url: string): Promise<FloorResult> => {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  let buffer = ""
  const text: Array<string> = []
  const calls = new Map<number, { name: string; args: Array<string> }>()
  let usage: ChunkJson["usage"] = null
  let finish: string | undefined
  const onEvent = (data: string): void => {
    if (data === "[DONE]") return
    const chunk = JSON.parse(data) as ChunkJson
    if (chunk.usage) usage = chunk.usage
    const choice = chunk.choices[0]
    if (choice === undefined) return
    if (choice.finish_reason) finish = choice.finish_reason
    const d = choice.delta
    if (d.content) text.push(d.content)
    if (d.tool_calls) {
      for (const t of d.tool_calls) {
        let c = calls.get(t.index)
        if (c === undefined) calls.set(t.index, c = { name: t.function?.name ?? "", args: [] })
        if (t.function?.arguments) c.args.push(t.function.arguments)
      }
    }
  }
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    buffer += decoder.decode(value, { stream: true })
    let start = 0
    let end: number
    while ((end = buffer.indexOf("\n\n", start)) !== -1) {
      const line = buffer.slice(start, end)
      if (line.startsWith("data: ")) onEvent(line.slice(6))
      start = end + 2
    }
    buffer = buffer.slice(start)
  }
  const u = usage as ChunkJson["usage"]
  return {
    text: text.join(""),
    toolCalls: [...calls.values()].map((c) => ({ name: c.name, arguments: JSON.parse(c.args.join("")) as unknown })),
    inputTokens: u?.prompt_tokens ?? 0,
    outputTokens: u?.completion_tokens ?? 0,
    finishReason: finish
  }
}
