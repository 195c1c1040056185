/**
 * What an agent loop over one family must produce for a planned conversation: the whole chunk array
 * (each step's chunks as the loop passes them — `metadata` of step 1 only, each `usage` summed over
 * the steps so far, the step's `finish` withheld — then its `tool-result`s in call order, then its
 * `step-finish`, and one terminal chunk at the end), and the exact body of each request.
 */
import { StreamChunk, type Usage } from "effect-llm-stream"
import { addUsage, type Case, type Conversation, type SentCall, type SentResult } from "./families.js"
import { argumentsText, type TextStep, type ToolStep } from "./wire.js"

/** What the loop sends back for call `index` of a tool step. */
export interface Outcome {
  readonly index: number
  /** The `tool-result`'s value (a string goes back as it is, anything else as JSON). */
  readonly result: unknown
  readonly isError: boolean
}

/** One planned step: the model's answer, and (for tool steps) the results the loop sends back. */
export type Planned =
  | { readonly tool: ToolStep; readonly results: ReadonlyArray<Outcome> }
  | { readonly text: TextStep }

/** A tool the conversation offers, as every request lists it. */
export interface Offered {
  readonly name: string
  readonly description: string
  readonly parameters: Record<string, unknown>
}

/** The whole stream of a loop that runs the plan; it ends with the last step's `finish`, or with `error`. */
export const chunksOf = (
  c: Case,
  plan: ReadonlyArray<Planned>,
  error?: StreamChunk.Of<"error">
): Array<StreamChunk.StreamChunk> => {
  const out: Array<StreamChunk.StreamChunk> = []
  let prior: Usage.Usage | undefined
  let last: StreamChunk.Of<"finish"> | undefined
  plan.forEach((p, i) => {
    const k = i + 1
    const at = { first: k === 1, prior }
    const step = "tool" in p ? c.toolStep(p.tool, at) : c.textStep(p.text, at)
    for (const chunk of step.chunks) out.push(chunk)
    if ("tool" in p) {
      for (const r of p.results) {
        out.push(StreamChunk.toolResult({
          toolCallId: c.callId(p.tool, r.index),
          name: p.tool.calls[r.index]!.name,
          result: r.result,
          isError: r.isError,
          step: k
        }))
      }
    }
    out.push(
      StreamChunk.stepFinish(k, step.finish.reason, { rawReason: step.finish.rawReason, usage: step.usage })
    )
    prior = prior === undefined ? step.usage : addUsage(prior, step.usage)
    last = step.finish
  })
  if (error !== undefined) out.push(error)
  else if (last !== undefined) out.push(last)
  return out
}

/** Call `index` of a step as the next request carries it back. */
export const sentCall = (c: Case, step: ToolStep, index: number): SentCall => {
  const call = step.calls[index]!
  const raw = argumentsText(call)
  return { id: c.callId(step, index), name: call.name, arguments: JSON.parse(raw), rawArguments: raw }
}

/** The bodies of the first `requests` requests of a loop running the plan. */
export const bodiesOf = (
  c: Case,
  prompt: string,
  tools: ReadonlyArray<Offered>,
  plan: ReadonlyArray<Planned>,
  requests: number
): Array<Record<string, unknown>> => {
  const steps: Array<Conversation["steps"][number]> = []
  for (const p of plan) {
    if (!("tool" in p)) break
    const step = p.tool
    steps.push({
      text: (step.text ?? []).join(""),
      calls: step.calls.map((_, index) => sentCall(c, step, index)),
      results: p.results.map((r): SentResult => ({
        id: c.callId(step, r.index),
        name: step.calls[r.index]!.name,
        content: typeof r.result === "string" ? r.result : JSON.stringify(r.result),
        isError: r.isError
      }))
    })
  }
  return Array.from({ length: requests }, (_, n) => c.body({ prompt, tools, steps: steps.slice(0, n) }))
}
