/**
 * The final response of one model call, reassembled from its chunks in a single pass.
 *
 * `Response.sink`, `Response.collect` and `Response.fromChunks` give identical results. A stream that
 * ended in an error still yields everything received before it, plus the error.
 *
 * @example
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { LanguageModel, Response } from "effect-llm-stream"
 *
 * // Show the answer as it streams, and keep the whole Response: one pass.
 * const program = LanguageModel.stream("Hi").pipe(
 *   Stream.tap((chunk) => Effect.sync(() => chunk.type === "text-delta" && process.stdout.write(chunk.delta))),
 *   Response.collect
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Sink from "effect/Sink"
import type * as Stream from "effect/Stream"
import type * as ChatRequest from "./ChatRequest.js"
import type * as ContentPart from "./ContentPart.js"
import { Joiner } from "./internal/joiner.js"
import * as Source from "./internal/source.js"
import type * as LlmError from "./LlmError.js"
import * as Pricing from "./Pricing.js"
import type * as StreamChunk from "./StreamChunk.js"
import * as ToolCall from "./ToolCall.js"
import * as Usage from "./Usage.js"

/**
 * Who produced a response.
 *
 * @since 0.1.0
 * @category models
 */
export interface Metadata {
  readonly provider: string
  readonly model?: string
  readonly responseId?: string
}

/**
 * A reassembled response.
 *
 * @since 0.1.0
 * @category models
 */
export interface Response {
  /** The answer text. */
  readonly text: string
  /** The whole reasoning trace. */
  readonly reasoning: string
  /** Finished reasoning blocks, with signature / redacted data to send back next turn. */
  readonly reasoningParts: ReadonlyArray<ChatRequest.ReasoningPart>
  /** Every tool call, in order of first appearance; unfinished fragments are finalized too. */
  readonly toolCalls: ReadonlyArray<ToolCall.ToolCall>
  /** Non-text output, without stream-only previews. */
  readonly contentParts: ReadonlyArray<ContentPart.ContentPart>
  /** The last usage snapshot, merged last-wins per field. */
  readonly usage: Usage.Usage | undefined
  /** The normalized finish reason; `error` when the stream ended in an error. */
  readonly finishReason: StreamChunk.FinishReason | undefined
  /** The provider's own finish reason string. */
  readonly rawFinishReason: string | undefined
  /** The error the stream ended with, if any. */
  readonly error: LlmError.ErrorInfo | undefined
  /** Provider, model and response id, when the provider said. */
  readonly metadata: Metadata | undefined
  /** The assistant message to append to the next request. */
  readonly message: ChatRequest.AssistantMessage
  /**
   * What went back to the model for each tool call the loop ran (`tool-result` chunks), in call
   * order: this step's, or the last step's for a whole loop. Empty for a single model call.
   */
  readonly toolResults: ReadonlyArray<ToolResult>
  /**
   * Each step of an agent loop (`LanguageModel.streamWithTools`), as a response of its own, with its
   * own usage and finish reason; a step cut short by an error is the last, carrying the error. Empty
   * for a single model call. The response's own text, tool calls and message are its last step's;
   * its usage sums every step.
   */
  readonly steps: ReadonlyArray<Response>
  /**
   * The messages to continue the conversation from. From `LanguageModel.chatWithTools`: the
   * request's messages followed by every step's. From a stream collected here (which does not carry
   * its request): what the response added — each step's assistant message, then its tool results.
   */
  readonly messages: ReadonlyArray<ChatRequest.Message>
  /**
   * What the response cost in US dollars, by the price table in use (`Pricing`), from its
   * metadata's provider and model and its usage; `undefined` when the table does not know the model
   * or the usage holds a kind of token its price does not list. Never a guess.
   */
  readonly cost: number | undefined
}

/**
 * What went back to the model for one tool call.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolResult {
  readonly toolCallId: string
  readonly name: string
  /** The result as the model got it: the encoded success or failure, or an error message. */
  readonly result: unknown
  readonly isError: boolean
}

/**
 * The tool message that carries a result back to the model: a string result as it is, anything
 * else as JSON.
 *
 * @since 0.1.0
 * @category utils
 */
export const toolMessage = (result: ToolResult): ChatRequest.Message => ({
  role: "tool",
  toolCallId: result.toolCallId,
  name: result.name,
  content: typeof result.result === "string" ? result.result : JSON.stringify(result.result) ?? "null",
  ...(result.isError ? { isError: true } : {})
})

/** A mutable single-pass accumulator; one per reassembly, never shared. */
class Builder {
  // What belongs to the step in progress (the whole response when there are no steps).
  private text = new Joiner()
  private reasoningText = new Joiner()
  private pendingReasoning = new Joiner()
  private reasoningParts: Array<ChatRequest.ReasoningPart> = []
  private fragments = new ToolCall.Assembler()
  private finished = new Map<number, ToolCall.ToolCall>()
  private callOrder: Array<number> = []
  private contentParts: Array<ContentPart.ContentPart> = []
  private toolResults: Array<ToolResult> = []
  private stepStarted = false
  // What belongs to the whole response.
  private readonly steps: Array<Response> = []
  private idPrefix: string | undefined = undefined
  private usage: Usage.Usage | undefined = undefined
  private finishReason: StreamChunk.FinishReason | undefined = undefined
  private rawFinishReason: string | undefined = undefined
  private error: LlmError.ErrorInfo | undefined = undefined
  private metadata: Metadata | undefined = undefined
  private ended = false

  /**
   * Adds a batch, handing each chunk to `onChunk` first. A method, so that the loop is one function
   * for every response, optimized once (a loop in a closure made per response is optimized anew).
   */
  addAll(
    chunks: Iterable<StreamChunk.StreamChunk>,
    onChunk: ((chunk: StreamChunk.StreamChunk) => void) | undefined
  ): void {
    if (onChunk === undefined) {
      for (const c of chunks) this.add(c)
    } else {
      for (const c of chunks) {
        onChunk(c)
        this.add(c)
      }
    }
  }

  add(chunk: StreamChunk.StreamChunk): void {
    if (this.ended) return
    if (chunk.type !== "metadata" && chunk.type !== "finish" && chunk.type !== "error") this.stepStarted = true
    switch (chunk.type) {
      case "text-delta":
        this.text.push(chunk.delta)
        return
      case "reasoning-delta":
        this.reasoningText.push(chunk.delta)
        this.pendingReasoning.push(chunk.delta)
        return
      case "reasoning": {
        const part: { text: string; signature?: string; redacted?: string; provider?: string } = { text: chunk.text }
        if (chunk.signature !== undefined) part.signature = chunk.signature
        if (chunk.redacted !== undefined) part.redacted = chunk.redacted
        // Whose blob it is: only that provider may get it back (metadata always comes first).
        if ((chunk.signature !== undefined || chunk.redacted !== undefined) && this.metadata !== undefined) {
          part.provider = this.metadata.provider
        }
        this.reasoningParts.push(part)
        // A block that streamed no deltas of its own (redacted, or sent whole) still belongs to the trace.
        if (this.pendingReasoning.pieces === 0) this.reasoningText.push(chunk.text)
        this.pendingReasoning = new Joiner()
        return
      }
      case "tool-call-delta":
        this.noteCall(chunk.index)
        this.fragments.add(chunk.index, chunk.argumentsDelta, chunk.id, chunk.name)
        return
      case "tool-call":
        this.noteCall(chunk.toolCall.index)
        this.finished.set(chunk.toolCall.index, chunk.toolCall)
        return
      case "content-part":
        if (chunk.streamOnly !== true) this.contentParts.push(chunk.part)
        return
      case "usage":
        this.usage = Usage.merge(this.usage, chunk.usage)
        return
      case "metadata":
        if (this.metadata === undefined) {
          // Calls finalized from fragments get the same ids a decoder would synthesize.
          if (chunk.responseId !== undefined) {
            this.fragments.idPrefix = chunk.responseId
            this.idPrefix = chunk.responseId
          }
          const m: { provider: string; model?: string; responseId?: string } = { provider: chunk.provider }
          if (chunk.model !== undefined) m.model = chunk.model
          if (chunk.responseId !== undefined) m.responseId = chunk.responseId
          this.metadata = m
        }
        return
      case "cache-read":
      case "cache-write":
      case "partial-object":
      case "object":
        return
      case "tool-result":
        this.toolResults.push({
          toolCallId: chunk.toolCallId,
          name: chunk.name,
          result: chunk.result,
          isError: chunk.isError
        })
        return
      case "step-finish":
        this.steps.push(this.step(chunk.usage, chunk.finishReason, chunk.rawReason, undefined, undefined))
        this.resetStep()
        return
      case "finish":
        this.finishReason = chunk.reason
        this.rawFinishReason = chunk.rawReason
        this.ended = true
        return
      case "error":
        this.error = chunk.error
        this.finishReason = "error"
        this.ended = true
        return
    }
  }

  private noteCall(index: number): void {
    if (!this.finished.has(index) && !this.fragments.has(index)) this.callOrder.push(index)
  }

  /** Starts the next step afresh. */
  private resetStep(): void {
    this.text = new Joiner()
    this.reasoningText = new Joiner()
    this.pendingReasoning = new Joiner()
    this.reasoningParts = []
    this.fragments = new ToolCall.Assembler()
    if (this.idPrefix !== undefined) this.fragments.idPrefix = this.idPrefix
    this.finished = new Map()
    this.callOrder = []
    this.contentParts = []
    this.toolResults = []
    this.stepStarted = false
  }

  /** The step in progress as a response (the whole response when there are no steps). */
  private step(
    usage: Usage.Usage | undefined,
    finishReason: StreamChunk.FinishReason | undefined,
    rawFinishReason: string | undefined,
    error: LlmError.ErrorInfo | undefined,
    prices: Pricing.Table | undefined
  ): Response {
    const reasoningParts = this.pendingReasoning.pieces > 0
      ? [...this.reasoningParts, { text: this.pendingReasoning.join() }]
      : this.reasoningParts
    const toolCalls = this.callOrder.map((index) => this.finished.get(index) ?? this.fragments.finish(index)!)
    const text = this.text.join()
    const reasoning = this.reasoningText.join()
    const refusal = this.contentParts
      .filter((p): p is Extract<ContentPart.ContentPart, { type: "refusal" }> => p.type === "refusal")
      .map((p) => p.text)
      .join("")
    const message: {
      role: "assistant"
      content: string
      toolCalls?: ReadonlyArray<ToolCall.ToolCall>
      reasoning?: ReadonlyArray<ChatRequest.ReasoningPart>
      refusal?: string
    } = { role: "assistant", content: text }
    if (toolCalls.length > 0) message.toolCalls = toolCalls
    if (reasoningParts.length > 0) message.reasoning = reasoningParts
    if (refusal !== "") message.refusal = refusal
    const toolResults = this.toolResults
    return {
      text,
      reasoning,
      reasoningParts,
      toolCalls,
      contentParts: this.contentParts,
      usage,
      finishReason,
      rawFinishReason,
      error,
      metadata: this.metadata,
      message,
      toolResults,
      steps: [],
      messages: [message, ...toolResults.map(toolMessage)],
      cost: usage === undefined || this.metadata?.model === undefined
        ? undefined
        : Pricing.costOf(prices ?? Pricing.defaults, this.metadata.provider, this.metadata.model, usage)
    }
  }

  done(prices: Pricing.Table): Response {
    if (this.steps.length === 0) {
      return this.step(this.usage, this.finishReason, this.rawFinishReason, this.error, prices)
    }
    // An agent loop: a step cut short (by an error, or a stream that ended mid-step) is the last.
    if (this.stepStarted) {
      this.steps.push(this.step(undefined, this.finishReason, this.rawFinishReason, this.error, prices))
    }
    const last = this.steps[this.steps.length - 1]!
    return {
      ...last,
      usage: this.usage,
      finishReason: this.finishReason,
      rawFinishReason: this.rawFinishReason,
      error: this.error,
      metadata: this.metadata,
      steps: this.steps,
      messages: this.steps.flatMap((step) => step.messages),
      cost: this.usage === undefined || this.metadata?.model === undefined
        ? undefined
        : Pricing.costOf(prices, this.metadata.provider, this.metadata.model, this.usage)
    }
  }
}

/**
 * Reassembles a response from chunks already in memory; its `cost` comes from `prices` (default the
 * built-in `Pricing.defaults`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromChunks = (
  chunks: Iterable<StreamChunk.StreamChunk>,
  prices: Pricing.Table = Pricing.defaults
): Response => {
  const builder = new Builder()
  for (const chunk of chunks) builder.add(chunk)
  return builder.done(prices)
}

/**
 * A `Sink` that reassembles a response, folding whole chunks of elements at a time.
 *
 * @since 0.1.0
 * @category sinks
 */
export const sink: Sink.Sink<Response, StreamChunk.StreamChunk> = Sink.unwrap(
  Effect.map(
    Pricing.Prices,
    (prices) =>
      Sink.foldLeftChunks<Builder, StreamChunk.StreamChunk>(new Builder(), (builder, chunk) => {
        for (const c of chunk) {
          builder.add(c)
        }
        return builder
      }).pipe(Sink.map((builder) => builder.done(prices)))
  )
)

/**
 * Runs a chunk stream to its end and reassembles the response. Same result as running it into
 * {@link sink}, but pulled in the caller's fiber: `Stream.run` forks a fiber for the run and costs a
 * little more per chunk, which shows on a response of many network reads.
 *
 * @since 0.1.0
 * @category sinks
 */
export const collect = <E, R>(stream: Stream.Stream<StreamChunk.StreamChunk, E, R>): Effect.Effect<Response, E, R> =>
  pullAll(stream, undefined)

/**
 * Like {@link collect}, calling `onChunk` on every chunk, in order, as each network read's chunks
 * arrive — the cheapest way to show an answer live and keep the whole `Response`:
 * `LanguageModel.stream(request).pipe(Response.collectWith((chunk) => …))`. `onChunk` runs
 * synchronously, before the next read is pulled; it must not throw (an exception is a defect). To
 * run an Effect per chunk, use `Stream.tap` before {@link collect} (an Effect per chunk costs more).
 *
 * @since 0.1.0
 * @category sinks
 */
export const collectWith =
  (onChunk: (chunk: StreamChunk.StreamChunk) => void) =>
  <E, R>(stream: Stream.Stream<StreamChunk.StreamChunk, E, R>): Effect.Effect<Response, E, R> =>
    pullAll(stream, onChunk)

/**
 * Pulls the stream's chunks in the caller's fiber into a builder, handing each to `onChunk` first.
 * A stream of `LanguageModel` is pulled at its source, past the `Stream` machinery.
 */
const pullAll = <E, R>(
  stream: Stream.Stream<StreamChunk.StreamChunk, E, R>,
  onChunk: ((chunk: StreamChunk.StreamChunk) => void) | undefined
): Effect.Effect<Response, E, R> =>
  Source.use(Source.of(stream), (take) => {
    const builder = new Builder()
    const loop: Effect.Effect<Response, E, R> = Effect.flatMap(take, (next) => {
      // The price table read in one Effect step (accessing the tag took five), made only now: a
      // held stream holds nothing more.
      if (next === undefined) {
        return Effect.withFiberRuntime<Response>((fiber) =>
          Effect.succeed(builder.done(Context.get(fiber.currentContext, Pricing.Prices)))
        )
      }
      builder.addAll(next, onChunk)
      return loop
    })
    return loop
  })
