import { deepStrictEqual, strictEqual } from "node:assert"
import type { Expected } from "./streams.js"

/**
 * What every client hands its events to: the same accumulation for all of them (text, reasoning,
 * tool-call arguments, usage, finish), so the per-event work outside the client is identical and
 * the result can be checked. With `collect: false` it keeps lengths only (the pass-through run).
 */
export interface Summary {
  readonly text: string
  readonly textLength: number
  readonly reasoning: string
  readonly toolArguments: unknown
  readonly inputTokens: number | undefined
  readonly outputTokens: number | undefined
  readonly finish: string | undefined
}

/** The one place each client reports what it decoded. */
export class Acc {
  private readonly texts: Array<string> = []
  private readonly reasonings: Array<string> = []
  private readonly argParts: Array<string> = []
  private parsedArgs: unknown = undefined
  private textLength = 0
  private first = false
  inputTokens: number | undefined = undefined
  outputTokens: number | undefined = undefined
  finishReason: string | undefined = undefined
  /** `performance.now()` when the first content (text, reasoning or argument delta) arrived. */
  firstAt = 0
  /** The error the stream ended with, if any (thrown by the client once its run is over). */
  failure: string | undefined = undefined
  /** `performance.now()` when the consumer saw that error (an `error` chunk); 0 when none was seen. */
  failedAt = 0

  constructor(readonly collect = true) {}

  /** Records the error a stream ended with, as its consumer sees it (an `error` chunk). */
  fail(message: string): void {
    this.failure = message
    this.failedAt = performance.now()
  }
  /**
   * When the consumer saw its stream end, called once the run settled: the `error` chunk's time
   * (ours), else now (a peer's rejection, or an end without error).
   */
  endSeenAt(): number {
    return this.failedAt > 0 ? this.failedAt : performance.now()
  }
  private seen(): void {
    if (!this.first) {
      this.first = true
      this.firstAt = performance.now()
    }
  }
  text(delta: string): void {
    this.seen()
    this.textLength += delta.length
    if (this.collect) this.texts.push(delta)
  }
  reasoning(delta: string): void {
    this.seen()
    if (this.collect) this.reasonings.push(delta)
  }
  args(delta: string): void {
    this.seen()
    this.argParts.push(delta)
  }
  /** A whole parsed argument object (clients that hand over the finished call). */
  argsParsed(value: unknown): void {
    this.parsedArgs = value
  }
  usage(input: number | undefined, output: number | undefined): void {
    if (input !== undefined) this.inputTokens = input
    if (output !== undefined) this.outputTokens = output
  }
  finish(reason: string | undefined | null): void {
    if (reason) this.finishReason = reason
  }
  summary(): Summary {
    const joined = this.argParts.join("")
    return {
      text: this.texts.join(""),
      textLength: this.textLength,
      reasoning: this.reasonings.join(""),
      toolArguments: this.parsedArgs !== undefined ? this.parsedArgs : joined === "" ? undefined : JSON.parse(joined),
      inputTokens: this.inputTokens,
      outputTokens: this.outputTokens,
      finish: normalizeFinish(this.finishReason)
    }
  }
}

/** Each client's own finish-reason spelling, mapped to ours. */
export const normalizeFinish = (reason: string | undefined): string | undefined => {
  if (reason === undefined) return undefined
  const r = reason.replace(/-/g, "_")
  if (r === "tool_use") return "tool_calls"
  if (r === "end_turn") return "stop"
  return r
}

/** Throws unless a run decoded what its stream must decode to (text, reasoning, tool arguments, usage, finish). */
export const check = (name: string, got: Summary, want: Expected): void => {
  try {
    strictEqual(got.text, want.text)
    strictEqual(got.reasoning, want.reasoning)
    deepStrictEqual(got.toolArguments, want.toolArguments)
    deepStrictEqual([got.inputTokens, got.outputTokens], [want.inputTokens, want.outputTokens])
    strictEqual(got.finish, want.finish)
  } catch (e) {
    throw new Error(`${name} decoded the wrong result: ${e instanceof Error ? e.message.slice(0, 600) : String(e)}`)
  }
}
