/**
 * Builds the benchmark's Chat Completions stream: about 1 MB in 6,000 events — short text deltas,
 * a tool call whose arguments arrive in a few hundred fragments, a finish and a usage chunk.
 */
const head = `{"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1764460800,"model":"gpt-4.1-mini"`

const event = (delta: string, finish: string | null = null): string =>
  `data: ${head},"choices":[{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${
    finish === null ? "null" : `"${finish}"`
  }}],"usage":null}\n\n`

const words = ["stream", "chunk", "effect", "token", "model", "layer", "sink", "usage", "reason", "call"]

/** The expected result, so the benchmark can check both clients agree before timing them. */
export interface Expected {
  readonly text: string
  readonly toolArguments: unknown
  readonly inputTokens: number
  readonly outputTokens: number
}

/** The stream's wire text and what it should decode to. */
export const build = (
  events = 6_000,
  argumentFragments = 300
): { readonly body: string; readonly expected: Expected } => {
  const items = Array.from({ length: argumentFragments - 2 }, (_, i) => i)
  const args = JSON.stringify({ query: "benchmark", items })
  const size = Math.ceil(args.length / argumentFragments)
  const fragments: Array<string> = []
  for (let i = 0; i < args.length; i += size) fragments.push(args.slice(i, i + size))
  // role + text + tool start + fragments + finish + usage + [DONE] = exactly `events` events
  const textEvents = events - fragments.length - 5
  const parts: Array<string> = [event(`{"role":"assistant","content":""}`)]
  const text: Array<string> = []
  for (let i = 0; i < textEvents; i++) {
    const w = `${words[i % words.length]} `
    text.push(w)
    parts.push(event(`{"content":${JSON.stringify(w)}}`))
  }
  parts.push(
    event(
      `{"tool_calls":[{"index":0,"id":"call_bench","type":"function","function":{"name":"search","arguments":""}}]}`
    )
  )
  for (const f of fragments) {
    parts.push(event(`{"tool_calls":[{"index":0,"function":{"arguments":${JSON.stringify(f)}}}]}`))
  }
  parts.push(event(`{}`, "tool_calls"))
  parts.push(
    `data: ${head},"choices":[],"usage":{"prompt_tokens":1200,"completion_tokens":${
      textEvents + argumentFragments
    },"total_tokens":${
      1200 + textEvents + argumentFragments
    },"prompt_tokens_details":{"cached_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}}\n\n`
  )
  parts.push("data: [DONE]\n\n")
  return {
    body: parts.join(""),
    expected: {
      text: text.join(""),
      toolArguments: JSON.parse(args) as unknown,
      inputTokens: 1200,
      outputTokens: textEvents + argumentFragments
    }
  }
}
