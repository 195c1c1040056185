/**
 * fast-check arbitraries of chunks, shared by the core property tests.
 *
 * Every value survives `JSON.stringify` / `JSON.parse` unchanged (no `-0`, no `NaN`, no `undefined`
 * inside unknown payloads), so round-trip properties can compare with `toStrictEqual`.
 */
import * as fc from "fast-check"
import type * as ContentPart from "../../src/ContentPart.js"
import * as LlmError from "../../src/LlmError.js"
import * as StreamChunk from "../../src/StreamChunk.js"
import type * as ToolCall from "../../src/ToolCall.js"
import type * as Usage from "../../src/Usage.js"

/** A short string. */
export const text: fc.Arbitrary<string> = fc.string({ maxLength: 12 })

/** A token count. */
export const count: fc.Arbitrary<number> = fc.nat({ max: 1_000_000 })

/**
 * An object key: often `"__proto__"`, which must stay an own data property through every codec (a
 * copy made by assignment would turn it into the object's prototype instead).
 */
const key: fc.Arbitrary<string> = fc.oneof({ weight: 4, arbitrary: text }, {
  weight: 1,
  arbitrary: fc.constant("__proto__")
})

/** A JSON value that round-trips exactly (integers only, so never `-0`). */
export const json: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer({ min: -1_000, max: 1_000 }).map((n) => (n === 0 ? 0 : n)),
    text,
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(key, tie("value"), { maxKeys: 3, noNullPrototype: true })
  )
})).value

export const usage: fc.Arbitrary<Usage.Usage> = fc.record(
  {
    inputTokens: count,
    outputTokens: count,
    totalTokens: count,
    cacheReadTokens: count,
    cacheWriteTokens: count,
    reasoningTokens: count,
    raw: json
  },
  { noNullPrototype: true, requiredKeys: ["inputTokens", "outputTokens", "totalTokens"] }
)

export const toolCall: fc.Arbitrary<ToolCall.ToolCall> = fc.record(
  {
    index: fc.nat({ max: 5 }),
    id: text,
    name: text,
    arguments: json,
    rawArguments: text,
    parseError: text
  },
  { noNullPrototype: true, requiredKeys: ["index", "id", "name", "arguments", "rawArguments"] }
)

const providerMetadata = fc.dictionary(key, json, { maxKeys: 2, noNullPrototype: true })

export const contentPart: fc.Arbitrary<ContentPart.ContentPart> = fc.oneof(
  fc.record(
    { type: fc.constant("image" as const), mediaType: text, url: text, data: text, providerMetadata },
    { noNullPrototype: true, requiredKeys: ["type"] }
  ),
  fc.record(
    { type: fc.constant("file" as const), mediaType: text, url: text, data: text, filename: text, providerMetadata },
    { noNullPrototype: true, requiredKeys: ["type"] }
  ),
  fc.record(
    {
      type: fc.constant("source" as const),
      sourceType: fc.constantFrom("url" as const, "document" as const),
      id: text,
      url: text,
      title: text,
      mediaType: text,
      providerMetadata
    },
    { noNullPrototype: true, requiredKeys: ["type", "sourceType"] }
  ),
  fc.record({ type: fc.constant("refusal" as const), text, providerMetadata }, {
    noNullPrototype: true,
    requiredKeys: ["type", "text"]
  }),
  fc.record(
    {
      type: fc.constant("provider-tool" as const),
      kind: fc.constantFrom("call" as const, "result" as const),
      id: text,
      name: text,
      input: json,
      output: json,
      isError: fc.boolean(),
      providerMetadata
    },
    { noNullPrototype: true, requiredKeys: ["type", "kind", "id", "name"] }
  )
)

export const errorCode: fc.Arbitrary<LlmError.ErrorCode> = fc.constantFrom(...LlmError.ErrorCode.literals)

export const errorInfo: fc.Arbitrary<LlmError.ErrorInfo> = fc.record(
  {
    code: errorCode,
    message: text,
    status: fc.integer({ min: 100, max: 599 }),
    retryable: fc.boolean(),
    retryAfterMs: count,
    provider: text,
    requestId: text,
    details: json
  },
  { noNullPrototype: true, requiredKeys: ["code", "message", "retryable"] }
)

export const finishReason: fc.Arbitrary<StreamChunk.FinishReason> = fc.constantFrom(
  "stop",
  "length",
  "tool_calls",
  "content_filter",
  "error"
)

/**
 * Any non-terminal chunk (ten of the twelve types). `reasoning-delta.accumulated` is a placeholder:
 * pass a sequence through {@link withConsistentAccumulation} to make it what a decoder rebuilds.
 */
export const nonTerminalChunk: fc.Arbitrary<StreamChunk.StreamChunk> = fc.oneof(
  fc.record({ provider: text, model: text, responseId: text }, { noNullPrototype: true, requiredKeys: ["provider"] })
    .map((m) => StreamChunk.metadata(m.provider, m.model, m.responseId)),
  text.map(StreamChunk.textDelta),
  fc.tuple(text, text).map(([delta, accumulated]) => StreamChunk.reasoningDelta(delta, accumulated)),
  fc.record({ text, signature: text, redacted: text }, { noNullPrototype: true, requiredKeys: ["text"] })
    .map((r) => StreamChunk.reasoning(r.text, r)),
  fc.record({ index: fc.nat({ max: 5 }), argumentsDelta: text, id: text, name: text }, {
    noNullPrototype: true,
    requiredKeys: ["index", "argumentsDelta"]
  }).map((d) => StreamChunk.toolCallDelta(d.index, d.argumentsDelta, d)),
  toolCall.map(StreamChunk.toolCall),
  fc.tuple(contentPart, fc.boolean()).map(([part, streamOnly]) => StreamChunk.contentPart(part, streamOnly)),
  usage.map(StreamChunk.usage),
  fc.tuple(count, count).map(([n, acc]) => StreamChunk.cacheRead(n, acc)),
  fc.tuple(count, count).map(([n, acc]) => StreamChunk.cacheWrite(n, acc))
)

/** A terminal chunk (`finish` or `error`). */
export const terminalChunk: fc.Arbitrary<StreamChunk.StreamChunk> = fc.oneof(
  fc.tuple(finishReason, fc.option(text, { nil: undefined }))
    .map(([reason, raw]) => StreamChunk.finish(reason, raw)),
  errorInfo.map(StreamChunk.error)
)

/** Any chunk of the twelve types. */
export const chunk: fc.Arbitrary<StreamChunk.StreamChunk> = fc.oneof(
  { weight: 10, arbitrary: nonTerminalChunk },
  { weight: 1, arbitrary: terminalChunk }
)

/** Rewrites every `reasoning-delta.accumulated` to the reasoning of the sequence so far. */
export const withConsistentAccumulation = (
  chunks: ReadonlyArray<StreamChunk.StreamChunk>
): Array<StreamChunk.StreamChunk> => {
  let sofar = ""
  return chunks.map((c) => {
    if (c.type !== "reasoning-delta") return c
    sofar += c.delta
    return StreamChunk.reasoningDelta(c.delta, sofar)
  })
}
