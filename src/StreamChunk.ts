/**
 * The protocol: one discriminated union of chunks (on `type`) for every provider.
 *
 * Every stream a provider returns ends with exactly one terminal chunk, `finish` or `error`; see
 * {@link ensureTerminal}, the one place that guarantees it.
 *
 * @example
 * ```ts
 * import { StreamChunk } from "effect-llm-stream"
 *
 * const describe = (chunk: StreamChunk.StreamChunk): string => {
 *   switch (chunk.type) {
 *     case "text-delta":
 *       return chunk.delta
 *     case "tool-call":
 *       return `call ${chunk.toolCall.name}(${chunk.toolCall.rawArguments})`
 *     case "finish":
 *       return `[${chunk.reason}]`
 *     case "error":
 *       return `[${chunk.error.code}] ${chunk.error.message}`
 *     default:
 *       return ""
 *   }
 * }
 * describe(StreamChunk.textDelta("Hello"))
 * ```
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type * as Stream from "effect/Stream"
import * as ContentPart from "./ContentPart.js"
import * as Json from "./internal/json.js"
import * as JsonText from "./internal/jsonText.js"
import * as QuickError from "./internal/llmError.js"
import * as LlmError from "./LlmError.js"
import * as ToolCall from "./ToolCall.js"
import * as Usage from "./Usage.js"

import * as Reason from "./FinishReason.js"
import * as Source from "./internal/source.js"
import * as Validate from "./internal/validate.js"

export {
  /** Schema of the normalized finish reason, and its type. */
  FinishReason,
  /** Normalizes a provider's finish-reason string (case-insensitive); anything unknown is `stop`. */
  normalizeFinishReason
} from "./FinishReason.js"

// ---------------------------------------------------------------------------------------------
// Chunk schemas
// ---------------------------------------------------------------------------------------------

/**
 * Who answered: at most once, first, when known.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Metadata = Schema.Struct({
  type: Schema.Literal("metadata"),
  provider: Schema.String,
  model: Schema.optional(Schema.String),
  responseId: Schema.optional(Schema.String)
})

/**
 * A piece of the answer.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TextDelta = Schema.Struct({ type: Schema.Literal("text-delta"), delta: Schema.String })

/**
 * A piece of the reasoning trace; `accumulated` is this response's reasoning so far.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ReasoningDelta = Schema.Struct({
  type: Schema.Literal("reasoning-delta"),
  delta: Schema.String,
  accumulated: Schema.String
})

/**
 * A finished reasoning block with what must be sent back on the next turn.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Reasoning = Schema.Struct({
  type: Schema.Literal("reasoning"),
  text: Schema.String,
  signature: Schema.optional(Schema.String),
  redacted: Schema.optional(Schema.String)
})

/**
 * A raw JSON fragment of a tool call's arguments; `name`/`id` ride on its first fragment.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolCallDelta = Schema.Struct({
  type: Schema.Literal("tool-call-delta"),
  index: Schema.Number,
  id: Schema.optional(Schema.String),
  name: Schema.optional(Schema.String),
  argumentsDelta: Schema.String
})

/**
 * A complete tool call, arguments decoded once.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolCallChunk = Schema.Struct({ type: Schema.Literal("tool-call"), toolCall: ToolCall.ToolCall })

/**
 * Non-text output; `streamOnly` parts (previews) are left out of the Response.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ContentPartChunk = Schema.Struct({
  type: Schema.Literal("content-part"),
  part: ContentPart.ContentPart,
  streamOnly: Schema.optional(Schema.Boolean)
})

/**
 * This response's running usage totals (a snapshot: the last one wins).
 *
 * @since 0.1.0
 * @category schemas
 */
export const UsageChunk = Schema.Struct({ type: Schema.Literal("usage"), usage: Usage.Usage })

/**
 * Prompt-cache hits; `accumulated` is the UsageMeter's running total.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CacheRead = Schema.Struct({
  type: Schema.Literal("cache-read"),
  cacheReadTokens: Usage.Count,
  accumulated: Usage.Count
})

/**
 * Prompt-cache writes; `accumulated` is the UsageMeter's running total.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CacheWrite = Schema.Struct({
  type: Schema.Literal("cache-write"),
  cacheWriteTokens: Usage.Count,
  accumulated: Usage.Count
})

/**
 * Terminal: the response ended normally.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Finish = Schema.Struct({
  type: Schema.Literal("finish"),
  reason: Reason.FinishReason,
  rawReason: Schema.optional(Schema.String)
})

/**
 * Terminal: the response ended in an error.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ErrorChunk = Schema.Struct({ type: Schema.Literal("error"), error: LlmError.ErrorInfo })

/**
 * Agent loop only: what went back to the model for one tool call of step `step` (the handler's
 * result encoded by the tool's `success` Schema, its typed failure by `failure`, or an error message).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolResult = Schema.Struct({
  type: Schema.Literal("tool-result"),
  toolCallId: Schema.String,
  name: Schema.String,
  result: Schema.Unknown,
  isError: Schema.Boolean,
  step: Schema.Number
})

/**
 * Agent loop only: closes one step (its own `finish` becomes this); `usage` is that step's own.
 *
 * @since 0.1.0
 * @category schemas
 */
export const StepFinish = Schema.Struct({
  type: Schema.Literal("step-finish"),
  step: Schema.Number,
  finishReason: Reason.FinishReason,
  rawReason: Schema.optional(Schema.String),
  usage: Schema.optional(Usage.Usage)
})

/**
 * Structured output only: the value parsed so far, each time it grows.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PartialObject = Schema.Struct({ type: Schema.Literal("partial-object"), value: Schema.Unknown })

/**
 * Structured output only: the Schema-decoded value, right before the terminal chunk.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ObjectChunk = Schema.Struct({ type: Schema.Literal("object"), value: Schema.Unknown })

/**
 * Schema of any chunk in memory (the `Type` side).
 *
 * @since 0.1.0
 * @category schemas
 */
export const StreamChunkType = Schema.Union(
  Metadata,
  TextDelta,
  ReasoningDelta,
  Reasoning,
  ToolCallDelta,
  ToolCallChunk,
  ContentPartChunk,
  UsageChunk,
  CacheRead,
  CacheWrite,
  Finish,
  ErrorChunk,
  ToolResult,
  StepFinish,
  PartialObject,
  ObjectChunk
)

/**
 * One chunk of a uniform LLM stream.
 *
 * @since 0.1.0
 * @category models
 */
export type StreamChunk = typeof StreamChunkType.Type

/**
 * The `type` tags of all sixteen chunk kinds.
 *
 * @since 0.1.0
 * @category models
 */
export type ChunkType = StreamChunk["type"]

/**
 * The chunk whose `type` is `T`.
 *
 * @since 0.1.0
 * @category models
 */
export type Of<T extends ChunkType> = Extract<StreamChunk, { readonly type: T }>

/**
 * The structured-output chunks of a stream whose object has type `A` (see `LanguageModel.streamObject`).
 *
 * @since 0.1.0
 * @category models
 */
export type ObjectChunk<A> =
  | { readonly type: "partial-object"; readonly value: unknown }
  | { readonly type: "object"; readonly value: A }

/**
 * The chunks of a structured-output stream: every chunk, with `object.value` typed as `A`
 * (`partial-object.value` stays `unknown`: a partial value need not satisfy the Schema yet).
 *
 * @since 0.1.0
 * @category models
 */
export type WithObject<A> = Exclude<StreamChunk, Of<"object">> | { readonly type: "object"; readonly value: A }

// ---------------------------------------------------------------------------------------------
// Constructors
// ---------------------------------------------------------------------------------------------

/**
 * Builds a `metadata` chunk.
 *
 * @since 0.1.0
 * @category constructors
 */
export const metadata = (provider: string, model?: string, responseId?: string): Of<"metadata"> => {
  const out: { type: "metadata"; provider: string; model?: string; responseId?: string } = {
    type: "metadata",
    provider
  }
  if (model !== undefined) out.model = model
  if (responseId !== undefined) out.responseId = responseId
  return out
}

/**
 * Builds a `text-delta` chunk.
 *
 * @since 0.1.0
 * @category constructors
 */
export const textDelta = (delta: string): Of<"text-delta"> => ({ type: "text-delta", delta })

/**
 * Builds a `reasoning-delta` chunk.
 *
 * @since 0.1.0
 * @category constructors
 */
export const reasoningDelta = (delta: string, accumulated: string): Of<"reasoning-delta"> => ({
  type: "reasoning-delta",
  delta,
  accumulated
})

/**
 * Builds a `reasoning` chunk (a finished block, with signature or redacted data when given).
 *
 * @since 0.1.0
 * @category constructors
 */
export const reasoning = (
  text: string,
  options?: { readonly signature?: string | undefined; readonly redacted?: string | undefined }
): Of<"reasoning"> => {
  const out: { type: "reasoning"; text: string; signature?: string; redacted?: string } = { type: "reasoning", text }
  if (options?.signature !== undefined) out.signature = options.signature
  if (options?.redacted !== undefined) out.redacted = options.redacted
  return out
}

/**
 * Builds a `tool-call-delta` chunk.
 *
 * @since 0.1.0
 * @category constructors
 */
export const toolCallDelta = (
  index: number,
  argumentsDelta: string,
  options?: { readonly id?: string | undefined; readonly name?: string | undefined }
): Of<"tool-call-delta"> => {
  const out: { type: "tool-call-delta"; index: number; argumentsDelta: string; id?: string; name?: string } = {
    type: "tool-call-delta",
    index,
    argumentsDelta
  }
  if (options?.id !== undefined) out.id = options.id
  if (options?.name !== undefined) out.name = options.name
  return out
}

/**
 * Builds a `tool-call` chunk.
 *
 * @since 0.1.0
 * @category constructors
 */
export const toolCall = (call: ToolCall.ToolCall): Of<"tool-call"> => ({ type: "tool-call", toolCall: call })

/**
 * Builds a `content-part` chunk.
 *
 * @since 0.1.0
 * @category constructors
 */
export const contentPart = (part: ContentPart.ContentPart, streamOnly?: boolean): Of<"content-part"> =>
  streamOnly === true ? { type: "content-part", part, streamOnly: true } : { type: "content-part", part }

/**
 * Builds a `usage` chunk.
 *
 * @since 0.1.0
 * @category constructors
 */
export const usage = (value: Usage.Usage): Of<"usage"> => ({ type: "usage", usage: value })

/**
 * Builds a `cache-read` chunk; `accumulated` defaults to this response's value.
 *
 * @since 0.1.0
 * @category constructors
 */
export const cacheRead = (cacheReadTokens: number, accumulated = cacheReadTokens): Of<"cache-read"> => ({
  type: "cache-read",
  cacheReadTokens,
  accumulated
})

/**
 * Builds a `cache-write` chunk; `accumulated` defaults to this response's value.
 *
 * @since 0.1.0
 * @category constructors
 */
export const cacheWrite = (cacheWriteTokens: number, accumulated = cacheWriteTokens): Of<"cache-write"> => ({
  type: "cache-write",
  cacheWriteTokens,
  accumulated
})

/**
 * Builds a terminal `finish` chunk from a normalized reason.
 *
 * @since 0.1.0
 * @category constructors
 */
export const finish = (reason: Reason.FinishReason, rawReason?: string): Of<"finish"> =>
  rawReason === undefined ? { type: "finish", reason } : { type: "finish", reason, rawReason }

/**
 * Builds a terminal `finish` chunk from a provider's raw reason, normalizing it.
 *
 * @since 0.1.0
 * @category constructors
 */
export const finishFromRaw = (rawReason: string | null | undefined): Of<"finish"> =>
  finish(Reason.normalizeFinishReason(rawReason), rawReason ?? undefined)

/**
 * Builds a terminal `error` chunk.
 *
 * @since 0.1.0
 * @category constructors
 */
export const error = (value: LlmError.ErrorInfo | LlmError.LlmError): Of<"error"> => ({
  type: "error",
  error: LlmError.isLlmError(value) ? LlmError.toInfo(value) : value
})

/**
 * Builds a `tool-result` chunk.
 *
 * @since 0.1.0
 * @category constructors
 */
export const toolResult = (fields: {
  readonly toolCallId: string
  readonly name: string
  readonly result: unknown
  readonly isError: boolean
  readonly step: number
}): Of<"tool-result"> => ({
  type: "tool-result",
  toolCallId: fields.toolCallId,
  name: fields.name,
  result: fields.result,
  isError: fields.isError,
  step: fields.step
})

/**
 * Builds a `step-finish` chunk.
 *
 * @since 0.1.0
 * @category constructors
 */
export const stepFinish = (
  step: number,
  finishReason: Reason.FinishReason,
  options?: { readonly rawReason?: string | undefined; readonly usage?: Usage.Usage | undefined }
): Of<"step-finish"> => {
  const out: {
    type: "step-finish"
    step: number
    finishReason: Reason.FinishReason
    rawReason?: string
    usage?: Usage.Usage
  } = { type: "step-finish", step, finishReason }
  if (options?.rawReason !== undefined) out.rawReason = options.rawReason
  if (options?.usage !== undefined) out.usage = options.usage
  return out
}

/**
 * Builds a `partial-object` chunk.
 *
 * @since 0.1.0
 * @category constructors
 */
export const partialObject = (value: unknown): Of<"partial-object"> => ({ type: "partial-object", value })

/**
 * Builds an `object` chunk.
 *
 * @since 0.1.0
 * @category constructors
 */
export const object = <A>(value: A): { readonly type: "object"; readonly value: A } => ({ type: "object", value })

// ---------------------------------------------------------------------------------------------
// Guards
// ---------------------------------------------------------------------------------------------

/**
 * Whether a chunk ends the stream (`finish` or `error`).
 *
 * @since 0.1.0
 * @category guards
 */
export const isTerminal = (chunk: StreamChunk): chunk is Of<"finish"> | Of<"error"> =>
  chunk.type === "finish" || chunk.type === "error"

/**
 * Whether a chunk is output (text, reasoning, tool call, content part, tool result, object): retries
 * stop after one.
 *
 * @since 0.1.0
 * @category guards
 */
export const isContent = (chunk: StreamChunk): boolean => {
  switch (chunk.type) {
    case "text-delta":
    case "reasoning-delta":
    case "reasoning":
    case "tool-call-delta":
    case "tool-call":
    case "content-part":
    case "tool-result":
    case "partial-object":
    case "object":
      return true
    default:
      return false
  }
}

/**
 * Returns a guard for one chunk type, e.g. `Stream.filter(StreamChunk.is("text-delta"))`.
 *
 * @since 0.1.0
 * @category utils
 */
export const is = <T extends ChunkType>(type: T) => (chunk: StreamChunk): chunk is Of<T> => chunk.type === type

// ---------------------------------------------------------------------------------------------
// Tool calls
// ---------------------------------------------------------------------------------------------

/**
 * Reassembles a response's tool calls from its chunks: fragments grouped by `index`, concatenated in
 * arrival order, decoded once; a finished `tool-call` chunk wins over fragments of the same index.
 * Returns `undefined` when there were none, so it can be handed straight to a message.
 *
 * @since 0.1.0
 * @category utils
 */
export const finalizeToolCalls = (
  chunks: Iterable<StreamChunk>
): ReadonlyArray<ToolCall.ToolCall> | undefined => {
  const assembler = new ToolCall.Assembler()
  const finished = new Map<number, ToolCall.ToolCall>()
  const order: Array<number> = []
  for (const chunk of chunks) {
    if (chunk.type === "tool-call-delta") {
      if (!assembler.has(chunk.index) && !finished.has(chunk.index)) order.push(chunk.index)
      assembler.add(chunk.index, chunk.argumentsDelta, chunk.id, chunk.name)
    } else if (chunk.type === "tool-call") {
      const index = chunk.toolCall.index
      if (!assembler.has(index) && !finished.has(index)) order.push(index)
      finished.set(index, chunk.toolCall)
    }
  }
  if (order.length === 0) return undefined
  return order.map((index) => finished.get(index) ?? assembler.finish(index)!)
}

// ---------------------------------------------------------------------------------------------
// The terminal invariant
// ---------------------------------------------------------------------------------------------

/**
 * The error data for a failure or defect that reached the end of a stream.
 *
 * @since 0.1.0
 * @category utils
 */
export const errorFromCause = <E>(cause: Cause.Cause<E>, provider?: string): LlmError.ErrorInfo => {
  // A single failure (how a stream's own errors arrive) is read without walking the cause, which
  // allocates at every step: with a thousand streams failing at once, that walk was ≈ 1.5 KB each.
  if (Cause.isFailType(cause)) return failureInfo(cause.error, provider)
  if (Cause.isInterruptedOnly(cause)) {
    return LlmError.info({ code: "unknown", message: "The stream was interrupted", retryable: false, provider })
  }
  const failure = Cause.failureOption(cause)
  if (failure._tag === "Some") return failureInfo(failure.value, provider)
  const defect = Cause.squash(cause)
  return LlmError.info({
    code: "unknown",
    message: `Internal defect: ${defect instanceof Error ? defect.message : String(defect)}`,
    retryable: false,
    provider
  })
}

/** The error data of a stream's failure: an `LlmError`'s own, else `unknown` with its message. */
const failureInfo = (e: unknown, provider: string | undefined): LlmError.ErrorInfo =>
  LlmError.isLlmError(e) ? QuickError.infoOf(e) : LlmError.info({
    code: "unknown",
    message: e instanceof Error ? e.message : `Stream failed: ${String(e)}`,
    provider
  })

/**
 * The error data for a stream that ended without its end marker.
 *
 * @since 0.1.0
 * @category utils
 */
export const truncatedError = (provider?: string): LlmError.ErrorInfo =>
  LlmError.info({
    code: "truncated",
    message: "The stream ended without the provider's end marker",
    provider
  })

/** A `finish` `stop` after a tool call says `tool_calls` (the raw reason is kept). */
const afterToolCall = (terminal: Of<"finish"> | Of<"error">): Of<"finish"> | Of<"error"> =>
  terminal.type === "finish" && terminal.reason === "stop"
    ? (terminal.rawReason === undefined
      ? { type: "finish", reason: "tool_calls" }
      : { type: "finish", reason: "tool_calls", rawReason: terminal.rawReason })
    : terminal

/**
 * A fragment with its call id set, built field by field: a spread that adds a field took about half
 * a microsecond, paid on every fragment of a long argument after the first.
 */
const withCallId = (c: Of<"tool-call-delta">, id: string): Of<"tool-call-delta"> =>
  toolCallDelta(c.index, c.argumentsDelta, { id, name: c.name })

/**
 * The call ids of one response, by tool-call index: the first id a call's fragments carry, else one
 * synthesized at its first fragment ({@link ToolCall.synthesizeId}, from the response id when the
 * `metadata` chunk named it), so every fragment of a call and its finished `tool-call` carry one id.
 */
class CallIds {
  private responseId: string | undefined = undefined
  private readonly ids = new Map<number, string>()

  /** The chunk with its call id filled in or made consistent; the same object when nothing changes. */
  fix(c: StreamChunk): StreamChunk {
    switch (c.type) {
      case "metadata":
        if (this.responseId === undefined) this.responseId = c.responseId
        return c
      case "tool-call-delta": {
        const known = this.ids.get(c.index)
        if (known === undefined) {
          const id = c.id ?? ToolCall.synthesizeId(c.index, this.responseId)
          this.ids.set(c.index, id)
          return c.id === undefined ? withCallId(c, id) : c
        }
        return c.id === known ? c : withCallId(c, known)
      }
      case "tool-call": {
        const known = this.ids.get(c.toolCall.index)
        return known === undefined || known === c.toolCall.id ? c : { ...c, toolCall: { ...c.toolCall, id: known } }
      }
      default:
        return c
    }
  }
}

/**
 * Turns any chunk stream into one that cannot fail and ends with exactly one terminal chunk:
 * failures and defects become an `error` chunk, a stream ending without a terminal chunk gets an
 * `error` chunk with code `truncated`, and nothing is emitted after the first terminal chunk (which
 * also stops pulling from the source: the stream ends there, and closes the source as it ends). A
 * consumer that stops early sees no terminal.
 *
 * It also holds two rules for every provider:
 * - the finish reason: a `finish` with reason `stop` that comes after a `tool-call` (or
 *   `tool-call-delta`) chunk becomes `tool_calls`, its `rawReason` kept, since some hosts say "stop"
 *   after calling a tool;
 * - call ids: every `tool-call-delta` carries its call's `id` — the first id the call's fragments
 *   carried, else one synthesized at its first fragment (`<responseId>_call_<index>`, as decoders
 *   synthesize them) — and the finished `tool-call` carries the same id, so a consumer can buffer
 *   fragments by id.
 *
 * @since 0.1.0
 * @category combinators
 */
export const ensureTerminal = <E, R>(
  self: Stream.Stream<StreamChunk, E, R>,
  options?: { readonly provider?: string | undefined }
): Stream.Stream<StreamChunk, never, R> => Source.toStream(guarded(Source.of(self), options?.provider))

/** The take of a stream that has ended. */
const done: Source.Take<never> = Effect.succeed(undefined)

/**
 * What {@link ensureTerminal} holds for one stream, and its work on each batch. A class, not
 * closures made per stream: its methods are the same functions for every stream, so the code V8
 * optimizes for one stream serves the next ones.
 */
class Guard {
  /** A tool call (or fragment) went out. */
  private called = false
  /** The terminal chunk went out. */
  ended = false
  private ids = new CallIds()

  constructor(private readonly provider: string | undefined) {}

  /** Ends the stream with an `error` chunk. */
  last(info: LlmError.ErrorInfo): Chunk.Chunk<StreamChunk> {
    this.ended = true
    return Chunk.of(error(info))
  }

  /** Reads a whole batch: the guarantees cost next to nothing per network read. */
  batch(chunk: Chunk.Chunk<StreamChunk> | undefined): Chunk.Chunk<StreamChunk> {
    if (chunk === undefined) return this.last(truncatedError(this.provider))
    const chunks = Chunk.toReadonlyArray(chunk)
    // A copy of the batch only once a chunk changes.
    let out: Array<StreamChunk> | undefined = undefined
    for (let i = 0; i < chunks.length; i++) {
      const c = chunks[i]!
      if (c.type === "tool-call" || c.type === "tool-call-delta" || c.type === "metadata") {
        if (c.type !== "metadata") this.called = true
        const fixed = this.ids.fix(c)
        if (fixed !== c) (out ??= chunks.slice(0, i))[i] = fixed
        else if (out !== undefined) out.push(c)
      } else if (c.type === "step-finish") {
        // An agent loop's next step is a response of its own: its calls count from index 0 again.
        this.called = false
        this.ids = new CallIds()
        if (out !== undefined) out.push(c)
      } else if (isTerminal(c)) {
        this.ended = true
        const terminal = this.called ? afterToolCall(c) : c
        if (terminal === c && out === undefined) return i === chunks.length - 1 ? chunk : Chunk.take(chunk, i + 1)
        const head = out ?? chunks.slice(0, i)
        head.push(terminal)
        return Chunk.unsafeFromArray(head)
      } else if (out !== undefined) {
        out.push(c)
      }
    }
    return out === undefined ? chunk : Chunk.unsafeFromArray(out)
  }
}

/**
 * {@link ensureTerminal} on a source. The source is opened in the stream's own scope: once a
 * terminal chunk went out the source is never pulled again, and the stream's next take ends it,
 * which closes that scope (a scope of the guard's own, closed at that take, cost a dozen Effect
 * steps and ≈ 2 KB per stream and closed the source no sooner).
 */
const guarded = <E, R>(
  source: Source.Source<StreamChunk, E, R>,
  provider: string | undefined
): Source.Source<StreamChunk, never, R> =>
(scope) =>
  Effect.suspend(() => {
    const g = new Guard(provider)
    // An interruption seen here started inside the source (the consumer's own interruption never
    // reaches a failure handler), so it is a failure of the source like any other.
    const failed = (cause: Cause.Cause<E>) => g.last(errorFromCause(cause, provider))
    const guard = (chunk: Chunk.Chunk<StreamChunk> | undefined): Chunk.Chunk<StreamChunk> => g.batch(chunk)
    const takeFrom = (upstream: Source.Take<StreamChunk, E, R>): Source.Take<StreamChunk, never, R> =>
      Source.derive(
        upstream,
        Effect.suspend(() => (g.ended ? done : Effect.matchCause(upstream, { onFailure: failed, onSuccess: guard })))
      )
    return Effect.matchCause(source(scope), {
      onFailure: (cause) => Source.prepend(failed(cause), undefined),
      onSuccess: takeFrom
    })
  })

// ---------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------

/**
 * Checks a chunk's per-type required fields, with a readable message on failure.
 *
 * @since 0.1.0
 * @category utils
 */
export const validate = (chunk: unknown): Either.Either<StreamChunk, string> => Validate.validate(chunk)

/**
 * Like {@link validate}, but throws an `Error` with the message: for tests and scripts only.
 *
 * @since 0.1.0
 * @category utils
 */
export const validateOrThrow = (chunk: unknown): StreamChunk => Validate.validateOrThrow(chunk)

// ---------------------------------------------------------------------------------------------
// JSON
// ---------------------------------------------------------------------------------------------

/** On the wire a reasoning delta carries only `delta`: sending `accumulated` would grow quadratically. */
const ReasoningDeltaJson = Schema.transform(
  Schema.Struct({ type: Schema.Literal("reasoning-delta"), delta: Schema.String }),
  Schema.typeSchema(ReasoningDelta),
  {
    strict: true,
    decode: (wire) => ({ type: wire.type, delta: wire.delta, accumulated: wire.delta }),
    encode: (chunk) => ({ type: chunk.type, delta: chunk.delta })
  }
)

/**
 * JSON codec of one chunk (for sending a stream to a browser and reading it back). A decoded
 * `reasoning-delta` holds only its own delta in `accumulated`; read a sequence with
 * {@link decodeJsonLines} (or {@link accumulateReasoning}) to rebuild the running value.
 *
 * @since 0.1.0
 * @category schemas
 */
export const schema = Schema.Union(
  Metadata,
  TextDelta,
  ReasoningDeltaJson,
  Reasoning,
  ToolCallDelta,
  ToolCallChunk,
  ContentPartChunk,
  UsageChunk,
  CacheRead,
  CacheWrite,
  Finish,
  ErrorChunk,
  ToolResult,
  StepFinish,
  PartialObject,
  ObjectChunk
)

const encodeSync = Schema.encodeSync(schema)
const jsonMembers: Record<ChunkType, Schema.Schema<StreamChunk, unknown>> = {
  "metadata": Metadata,
  "text-delta": TextDelta,
  "reasoning-delta": ReasoningDeltaJson,
  "reasoning": Reasoning,
  "tool-call-delta": ToolCallDelta,
  "tool-call": ToolCallChunk,
  "content-part": ContentPartChunk,
  "usage": UsageChunk,
  "cache-read": CacheRead,
  "cache-write": CacheWrite,
  "finish": Finish,
  "error": ErrorChunk,
  "tool-result": ToolResult,
  "step-finish": StepFinish,
  "partial-object": PartialObject,
  "object": ObjectChunk
} as unknown as Record<ChunkType, Schema.Schema<StreamChunk, unknown>>

const decodeByType = new Map(
  Object.entries(jsonMembers).map(([type, member]) => [type, Schema.decodeUnknownEither(member)] as const)
)

/**
 * Encodes a chunk as one line of JSON.
 *
 * @since 0.1.0
 * @category codecs
 */
export const encodeJson = (chunk: StreamChunk): string => JSON.stringify(encodeSync(chunk))

/**
 * How deep a chunk line may nest: a value kept from the wire (64 levels, see `internal/json.ts`)
 * under the envelope that holds it (`content-part` → `part` → `providerMetadata` is the deepest).
 */
const maxLineDepth = Json.maxDepth + 3

/**
 * Decodes one line of JSON into a chunk, or a readable message saying why it is not one. A line
 * nesting deeper than any chunk we make, or holding a number that reads as `Infinity`, is refused:
 * what this returns must survive {@link encodeJson} again.
 *
 * @since 0.1.0
 * @category codecs
 */
export const decodeJson = (line: string): Either.Either<StreamChunk, string> => {
  let parsed: unknown
  try {
    parsed = JSON.parse(line)
  } catch (e) {
    return Either.left(`not JSON: ${e instanceof Error ? e.message : String(e)}`)
  }
  const problem = Json.check(parsed, maxLineDepth)
  if (problem !== undefined) return Either.left(`the line ${Json.describe(problem, maxLineDepth)}`)
  const type = typeof parsed === "object" && parsed !== null && "type" in parsed ? parsed.type : undefined
  const decode = typeof type === "string" ? decodeByType.get(type) : undefined
  if (decode === undefined) return Either.left(`unknown chunk type: ${JSON.stringify(type) ?? "none"}`)
  return Either.mapLeft(decode(parsed), (e) => e.message)
}

/**
 * Returns a stateful step that rebuilds `reasoning-delta.accumulated` over a decoded sequence.
 *
 * @since 0.1.0
 * @category combinators
 */
export const accumulateReasoning = (): (chunk: StreamChunk) => StreamChunk => {
  let sofar = ""
  return (chunk) => {
    if (chunk.type !== "reasoning-delta") return chunk
    sofar += chunk.delta
    return reasoningDelta(chunk.delta, sofar)
  }
}

/**
 * Decodes chunk JSON lines, rebuilding reasoning accumulations; stops at the first bad line, naming
 * it (`"line 3: not JSON: …"`). Takes the lines (any iterable of strings, one line each) or a whole
 * text, which is split into lines at LF, CRLF or CR. Blank lines are skipped; lines in SSE form
 * (`data: {…}`, with comments and `event:` / `id:` lines) are read too, see {@link decodeJsonStream}.
 *
 * @since 0.1.0
 * @category codecs
 */
export const decodeJsonLines = (lines: string | Iterable<string>): Either.Either<Array<StreamChunk>, string> => {
  const step = accumulateReasoning()
  const out: Array<StreamChunk> = []
  const reader = JsonText.lineReader(decodeJson, (chunk) => out.push(step(chunk)))
  for (const line of typeof lines === "string" ? JsonText.splitLines(lines) : lines) {
    const problem = reader.line(line)
    if (problem !== undefined) return Either.left(problem)
  }
  const problem = reader.end()
  return problem === undefined ? Either.right(out) : Either.left(problem)
}

/**
 * Decodes a stream of text into chunks, for a client reading a chunk stream sent by
 * {@link encodeJson} (e.g. a browser reading `fetch(…).body` through a `TextDecoderStream`). The text
 * may arrive in pieces of any size, cut anywhere; it is either NDJSON (one chunk per line, blank lines
 * skipped) or SSE whose events carry one chunk each in their `data:` field(s) (comments and `event:`,
 * `id:`, `retry:` lines ignored). `reasoning-delta.accumulated` is rebuilt as in {@link decodeJsonLines}.
 *
 * A line that is not a chunk, or a line (or event) longer than 16 Mi characters, fails the stream with
 * an `LlmError` of code `protocol` naming the line, after every chunk before it. Pipe the result
 * through {@link ensureTerminal} to get the protocol's guarantees instead: the error as a terminal
 * `error` chunk, and `truncated` when the text ends without a terminal chunk.
 *
 * @since 0.1.0
 * @category codecs
 */
export const decodeJsonStream = <E, R>(
  text: Stream.Stream<string, E, R>
): Stream.Stream<StreamChunk, E | LlmError.LlmError, R> => JsonText.decodeStream(text, decodeJson, accumulateReasoning)
