/**
 * The Bedrock ConverseStream decoder: event-stream messages in, `StreamChunk`s out. One pure,
 * synchronous state machine; one `JSON.parse` per event, guards on the fields it reads.
 *
 * What it emits, in order: `metadata` first (the provider and the configured model: the wire names
 * neither the model nor a response id). Then per content block, keyed by `contentBlockIndex`: text
 * deltas (text blocks have no start event); reasoning deltas closed by one `reasoning` chunk at the
 * block's stop, carrying its `signature`, or its `redactedContent` as `redacted`; for a tool call
 * (`contentBlockStart` with `toolUse`), tool-call deltas, then the `tool-call` at the block's stop
 * (fragments joined and parsed once; none → `{}`). `messageStop` closes any block still open and
 * brings the stop reason; `metadata` brings the usage — its `inputTokens` leave out cache reads and
 * writes, which the `usage` chunk adds back (DESIGN "Usage") — then `cache-read` / `cache-write`
 * when non-zero; `metrics` (latency) are kept in the usage's `raw`.
 *
 * The end: `messageStop` is the end marker. Its `finish` waits for `metadata` (which Bedrock sends
 * after it) so the usage comes before the terminal chunk; a body that ends after `messageStop`
 * without `metadata` still finishes (the answer is whole, only the usage is missing). A body that
 * ends before `messageStop` has no terminal chunk here, and `StreamChunk.ensureTerminal` reports
 * `truncated`.
 *
 * Stop reasons: `end_turn` / `stop_sequence` → `stop`, `tool_use` → `tool_calls`, `max_tokens` and
 * `model_context_window_exceeded` → `length`, `guardrail_intervened` / `content_filtered` →
 * `content_filter`, `malformed_model_output` / `malformed_tool_use` → `error` (the model's output
 * was unusable: what arrived is kept, the raw reason says why); the raw reason is always kept.
 *
 * Errors inside the stream: an `exception` message (`throttlingException` → `rate_limit`,
 * `serviceUnavailableException` → `overloaded`, `internalServerException` and
 * `modelStreamErrorException` → `server`, `validationException` → `invalid_request` …) or an
 * `error` message ends the stream with that error (see `errors.ts`); a payload that is not a JSON
 * object is a `protocol` error.
 *
 * @since 0.1.0
 */
import type { ChunkDecoder } from "../../internal/ChunkDecoder.js"
import type * as EventStream from "../../internal/framing/EventStream.js"
import { Emitter, type Out, protocolError } from "../../internal/kit/Emitter.js"
import * as Guards from "../../internal/kit/guards.js"
import { Reasoning } from "../../internal/kit/Reasoning.js"
import { UsageSnapshots } from "../../internal/kit/UsageSnapshots.js"
import * as StreamChunk from "../../StreamChunk.js"
import * as ToolCall from "../../ToolCall.js"
import * as Usage from "../../Usage.js"
import * as Errors from "./errors.js"
import type * as Events from "./events.js"

/** One open content block, by its `contentBlockIndex`. */
type Block =
  | { readonly kind: "text" }
  | { readonly kind: "reasoning" }
  | { readonly kind: "tool"; readonly call: number; readonly id: string; announced: boolean }

/** The stop reasons that mean the model's output was unusable. */
const malformed: ReadonlySet<string> = new Set(["malformed_model_output", "malformed_tool_use"])

/** The finish reason of a raw stop reason. */
export const finishReason = (raw: string | undefined): StreamChunk.FinishReason =>
  raw !== undefined && malformed.has(raw) ? "error" : StreamChunk.normalizeFinishReason(raw)

/** Creates a decoder for one response; `provider` names the host in chunks and errors, `model` the model asked for. */
export const make = (options: {
  readonly provider: string
  readonly model?: string | undefined
}): ChunkDecoder<EventStream.Frame> => {
  const provider = options.provider
  const emitter = new Emitter(provider)
  const reasoning = new Reasoning(emitter)
  const usages = new UsageSnapshots(emitter)
  const blocks = new Map<number, Block>()
  const assembler = new ToolCall.Assembler()
  let callCount = 0
  /** The raw stop reason, once `messageStop` arrived. */
  let stopped: { readonly raw: string | undefined } | undefined
  let metadataSeen = false

  const finish = (out: Out): void => {
    const raw = stopped?.raw
    emitter.finish(out, finishReason(raw), raw)
  }

  // --- blocks ----------------------------------------------------------------------------------

  const closeBlock = (out: Out, index: number): void => {
    const block = blocks.get(index)
    if (block === undefined) return
    blocks.delete(index)
    if (block.kind === "reasoning") return reasoning.close(out)
    if (block.kind === "tool") {
      const call = assembler.finish(block.call)
      if (call !== undefined) emitter.emit(out, StreamChunk.toolCall(call))
    }
  }

  /** The block at `index`, opened as `kind` when it is new; another kind there is closed first. */
  const blockAt = (out: Out, index: number, kind: "text" | "reasoning"): void => {
    const block = blocks.get(index)
    if (block?.kind === kind) return
    if (block !== undefined) closeBlock(out, index)
    // One reasoning run per block: a block never closed is not merged into the next.
    if (kind === "reasoning") {
      for (const [i, b] of blocks) if (b.kind === "reasoning") closeBlock(out, i)
      reasoning.open()
    }
    blocks.set(index, kind === "text" ? { kind: "text" } : { kind: "reasoning" })
  }

  const toolStart = (out: Out, index: number, start: Guards.Unchecked<Events.ToolUseStart>): void => {
    if (blocks.has(index)) closeBlock(out, index)
    const call = callCount++
    const id = Guards.isNonEmptyString(start.toolUseId) ? start.toolUseId : ToolCall.synthesizeId(call)
    assembler.add(call, "", id, Guards.isNonEmptyString(start.name) ? start.name : undefined)
    blocks.set(index, { kind: "tool", call, id, announced: false })
  }

  const toolFragment = (out: Out, index: number, fragment: string): void => {
    let block = blocks.get(index)
    if (block?.kind !== "tool") {
      // Input with no start event: still a call (its id synthesized), never dropped.
      toolStart(out, index, {})
      block = blocks.get(index)!
    }
    if (block.kind !== "tool" || fragment === "") return
    assembler.add(block.call, fragment)
    if (block.announced) return emitter.emit(out, StreamChunk.toolCallDelta(block.call, fragment))
    block.announced = true
    emitter.emit(
      out,
      StreamChunk.toolCallDelta(block.call, fragment, { id: block.id, name: assembler.nameOf(block.call) })
    )
  }

  const delta = (out: Out, index: number, d: Guards.Unchecked<Events.Delta>): void => {
    if (typeof d.text === "string") {
      blockAt(out, index, "text")
      if (d.text !== "") emitter.emit(out, StreamChunk.textDelta(d.text))
      return
    }
    if (Guards.isObject<Events.ReasoningDelta>(d.reasoningContent)) {
      const r = d.reasoningContent
      blockAt(out, index, "reasoning")
      if (Guards.isNonEmptyString(r.text)) reasoning.delta(out, r.text)
      if (Guards.isNonEmptyString(r.signature)) reasoning.sign(r.signature)
      if (Guards.isNonEmptyString(r.redactedContent)) reasoning.redact(out, r.redactedContent)
      return
    }
    if (Guards.isObject<{ input: string }>(d.toolUse)) {
      if (typeof d.toolUse.input === "string") toolFragment(out, index, d.toolUse.input)
      else if (!blocks.has(index)) toolStart(out, index, {})
    }
    // Citations, tool results and images of newer models: skipped, never fatal.
  }

  // --- the message -----------------------------------------------------------------------------

  const messageStop = (out: Out, e: Guards.Unchecked<Events.MessageStop>): void => {
    // Blocks the server never closed are closed now, so nothing that arrived is lost.
    for (const index of [...blocks.keys()]) closeBlock(out, index)
    stopped = { raw: Guards.isNonEmptyString(e.stopReason) ? e.stopReason : undefined }
    if (metadataSeen) finish(out)
  }

  const metadata = (out: Out, e: Guards.Unchecked<Events.Metadata>): void => {
    metadataSeen = true
    if (Guards.isObject<Events.TokenUsage>(e.usage)) {
      const u = e.usage
      const raw = Guards.isObject(e.metrics) ? { ...u, metrics: e.metrics } : u
      usages.push(
        out,
        Usage.normalize({
          input: u.inputTokens,
          output: u.outputTokens,
          total: u.totalTokens,
          cacheRead: u.cacheReadInputTokens,
          cacheWrite: u.cacheWriteInputTokens,
          inputExcludesCache: true
        }),
        raw
      )
      usages.cache(out)
    }
    if (stopped !== undefined) finish(out)
  }

  // --- one message -----------------------------------------------------------------------------

  const event = (out: Out, type: string | undefined, payload: string): void => {
    const e = Guards.parseObject<Record<string, unknown>>(payload)
    if (e === undefined) return emitter.fail(out, protocolError(provider, payload))
    const index = ToolCall.isIndex(e.contentBlockIndex) ? e.contentBlockIndex : 0
    switch (type) {
      case "contentBlockDelta":
        if (Guards.isObject<Events.Delta>(e.delta)) delta(out, index, e.delta)
        return
      case "contentBlockStart": {
        const start = Guards.isObject<Events.ContentBlockStart["start"]>(e.start) ? e.start : undefined
        if (Guards.isObject<Events.ToolUseStart>(start?.toolUse)) toolStart(out, index, start.toolUse)
        return
      }
      case "contentBlockStop":
        return closeBlock(out, index)
      case "messageStop":
        return messageStop(out, e)
      case "metadata":
        return metadata(out, e)
      default:
        // `messageStart` (the metadata chunk went out already), and events newer than this decoder.
        return
    }
  }

  const push = (frame: EventStream.Frame, out: Out): void => {
    if (emitter.ended) return
    emitter.announce(out, options.model)
    switch (frame.messageType) {
      case "event":
        return event(out, frame.eventType, frame.payload)
      case "exception":
        return emitter.fail(out, Errors.fromException(frame.exceptionType, frame.payload, provider))
      case "error":
        return emitter.fail(out, Errors.fromErrorMessage(frame.errorCode, frame.errorMessage, provider))
      default:
        // Another message type (none is defined): skipped, like an unknown event.
        return
    }
  }

  // A finish held for `metadata` goes out at the end of the body; without `messageStop` there is
  // none, and `StreamChunk.ensureTerminal` reports `truncated`.
  const end = (out: Out): void => {
    if (!emitter.ended && stopped !== undefined) finish(out)
  }

  return { push, end }
}
