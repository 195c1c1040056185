/**
 * Per-type checks of a chunk's required fields (`StreamChunk.validate`), with readable messages.
 * Kept apart from the chunk module: it reads plain objects, not the schemas.
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as Reason from "../FinishReason.js"
import * as LlmError from "../LlmError.js"
import type { StreamChunk } from "../StreamChunk.js"
import * as ToolCall from "../ToolCall.js"
import * as Usage from "../Usage.js"

const isObj = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null
const isStr = (u: unknown): u is string => typeof u === "string"
// The same rules the decoders apply: a count or index is a safe non-negative integer.
const isCount = (u: unknown): u is number => Usage.count(u) !== undefined
const isIndex = ToolCall.isIndex

// Agent-loop steps count from 1.
const isStep = (u: unknown): u is number => isIndex(u) && u >= 1

const usageProblem = (u: unknown): string | undefined => {
  if (!isObj(u)) return "usage chunks must carry a usage object"
  return isCount(u.inputTokens) && isCount(u.outputTokens) && isCount(u.totalTokens)
    ? undefined
    : "usage chunks must have non-negative integer inputTokens, outputTokens and totalTokens"
}

const problem = (c: Record<string, unknown>): string | undefined => {
  switch (c.type) {
    case "metadata":
      return isStr(c.provider) && c.provider !== "" ? undefined : "metadata chunks must name a provider"
    case "text-delta":
      return isStr(c.delta) ? undefined : "text-delta chunks must have string text in delta"
    case "reasoning-delta":
      return isStr(c.delta) && isStr(c.accumulated)
        ? undefined
        : "reasoning-delta chunks must have string delta and accumulated"
    case "reasoning":
      return isStr(c.text) ? undefined : "reasoning chunks must have string text"
    case "tool-call-delta":
      if (!isIndex(c.index)) return "tool-call-delta chunks must have a non-negative integer index"
      return isStr(c.argumentsDelta) ? undefined : "tool-call-delta chunks must have a string argumentsDelta"
    case "tool-call": {
      const t = c.toolCall
      if (!isObj(t)) return "tool-call chunks must carry a toolCall"
      if (!isStr(t.name) || t.name === "") return "tool-call chunks must have a non-empty name"
      if (!isStr(t.id) || t.id === "") return "tool-call chunks must have a non-empty id"
      if (!isIndex(t.index)) return "tool-call chunks must have a non-negative integer index"
      if (!("arguments" in t) || t.arguments === undefined) return "tool-call chunks must have arguments"
      return isStr(t.rawArguments) ? undefined : "tool-call chunks must have string rawArguments"
    }
    case "content-part":
      return isObj(c.part) && isStr(c.part.type) ? undefined : "content-part chunks must carry a typed part"
    case "usage":
      return usageProblem(c.usage)
    case "cache-read":
      return isCount(c.cacheReadTokens) && isCount(c.accumulated)
        ? undefined
        : "cache-read chunks must have non-negative integer cacheReadTokens and accumulated"
    case "cache-write":
      return isCount(c.cacheWriteTokens) && isCount(c.accumulated)
        ? undefined
        : "cache-write chunks must have non-negative integer cacheWriteTokens and accumulated"
    case "finish":
      return Schema.is(Reason.FinishReason)(c.reason)
        ? undefined
        : "finish chunks must have a reason among stop, length, tool_calls, content_filter, error"
    case "error": {
      const e = c.error
      if (!isObj(e)) return "error chunks must carry an error object"
      if (!Schema.is(LlmError.ErrorCode)(e.code)) return "error chunks must have a known error code"
      return isStr(e.message) ? undefined : "error chunks must have a string message"
    }
    case "tool-result":
      if (!isStr(c.toolCallId) || c.toolCallId === "") return "tool-result chunks must have a non-empty toolCallId"
      if (!isStr(c.name)) return "tool-result chunks must have a string name"
      if (!("result" in c) || c.result === undefined) return "tool-result chunks must have a result"
      if (typeof c.isError !== "boolean") return "tool-result chunks must have a boolean isError"
      return isStep(c.step) ? undefined : "tool-result chunks must have a positive integer step"
    case "step-finish":
      if (!isStep(c.step)) return "step-finish chunks must have a positive integer step"
      if (!Schema.is(Reason.FinishReason)(c.finishReason)) {
        return "step-finish chunks must have a finishReason among stop, length, tool_calls, content_filter, error"
      }
      return c.usage === undefined || usageProblem(c.usage) === undefined
        ? undefined
        : "step-finish chunks' usage must have non-negative integer inputTokens, outputTokens and totalTokens"
    case "partial-object":
    case "object":
      return "value" in c && c.value !== undefined ? undefined : `${c.type} chunks must have a value`
    default:
      return `unknown chunk type: ${String(c.type)}`
  }
}

/** Checks a chunk's per-type required fields, with a readable message on failure. */
export const validate = (chunk: unknown): Either.Either<StreamChunk, string> => {
  if (!isObj(chunk)) return Either.left("a chunk must be an object")
  const message = problem(chunk)
  return message === undefined ? Either.right(chunk as StreamChunk) : Either.left(message)
}

/** Like {@link validate}, but throws an `Error` with the message: for tests and scripts only. */
export const validateOrThrow = (chunk: unknown): StreamChunk =>
  Either.getOrThrowWith(validate(chunk), (message) => new Error(message))
