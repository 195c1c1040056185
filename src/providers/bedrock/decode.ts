/**
 * The Bedrock ConverseStream decoder: event-stream messages in, `StreamChunk`s out. One pure,
 * synchronous state machine; one `JSON.parse` per event, guards on the fields it reads.
 *
 * What it emits, in order: `metadata` first (the provider and the configured model: the wire names
 * neither the model nor a response id). Then per content block, keyed by `contentBlockIndex`: text
 * deltas (text blocks have no start event); reasoning deltas closed by one `reasoning` chunk at the
 * block's stop, carrying its `signature`, or its `redactedContent` as `redacted`; for a tool call
 * (`contentBlockStart` with `toolUse`), tool-call deltas, then the `tool-call` at the block's stop
 * (fragments joined and parsed once; none → `{}`). Nothing else is dropped: a `citation` delta
 * (whole in one delta, its cited text following as text) is a `source` part — `url` for a `web`
 * location, else `document` — with the citation as sent in `providerMetadata.citation`; a tool the
 * service runs itself (`toolUse.type: "server_tool_use"`) is a `provider-tool` call part at its
 * stop, and a `toolResult` block a `provider-tool` result part (its text joined, or its `{json}` /
 * `{text}` items as sent); an `image` block an `image` part (base64 pieces joined). The tool
 * `json_response` (added by the request encoder for `responseFormat`) streams its input as text,
 * and its `tool_use` stop is a `stop`. `messageStop` closes any block still open and
 * brings the stop reason; `metadata` brings the usage — its `inputTokens` leave out cache reads and
 * writes, which the `usage` chunk adds back (DESIGN "Usage") — then `cache-read` / `cache-write`
 * when non-zero; `metrics` (latency), `trace`, `performanceConfig` and `serviceTier` are kept in
 * the usage's `raw`.
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
 * `error` message ends the stream with that error (see `errors.ts`); a payload of a known event
 * that is not a JSON object is a `protocol` error. Events of another type (newer than this decoder)
 * are skipped unread.
 *
 * @since 0.1.0
 */
import type * as ContentPart from "../../ContentPart.js"
import type { ChunkDecoder } from "../../internal/ChunkDecoder.js"
import type * as EventStream from "../../internal/framing/EventStream.js"
import * as Json from "../../internal/json.js"
import { Emitter, type Out, protocolError } from "../../internal/kit/Emitter.js"
import * as Guards from "../../internal/kit/guards.js"
import { Reasoning } from "../../internal/kit/Reasoning.js"
import { UsageSnapshots } from "../../internal/kit/UsageSnapshots.js"
import * as StreamChunk from "../../StreamChunk.js"
import * as ToolCall from "../../ToolCall.js"
import * as Usage from "../../Usage.js"
import * as Errors from "./errors.js"
import * as Events from "./events.js"

/** One open content block, by its `contentBlockIndex`. */
type Block =
  | { readonly kind: "text" }
  | { readonly kind: "reasoning" }
  | { readonly kind: "tool"; readonly call: number; readonly id: string; announced: boolean }
  /** The request's JSON response tool: its input is the answer, streamed as text. */
  | { readonly kind: "json" }
  /** A tool the service runs itself (`type: "server_tool_use"`): a provider-tool call part at its stop. */
  | { readonly kind: "server"; readonly id: string; readonly name: string; readonly input: Array<string> }
  /** A tool result the service streams (its own tools' output): a provider-tool result part at its stop. */
  | {
    readonly kind: "result"
    readonly id: string
    readonly meta: Record<string, unknown>
    readonly isError: boolean
    readonly items: Array<unknown>
  }
  /** A generated image: base64 pieces joined at its stop. */
  | { readonly kind: "image"; readonly format: string | undefined; readonly data: Array<string> }

/** The events read; `messageStart` carries only the role. */
const known: ReadonlySet<string> = new Set([
  "contentBlockStart",
  "contentBlockDelta",
  "contentBlockStop",
  "messageStop",
  "metadata"
])

/** A JSON text parsed, or `undefined` when it does not parse. */
const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** A tool result's output: its text pieces joined when it is all text, else the items as sent. */
const resultOutput = (items: ReadonlyArray<unknown>): unknown => {
  let text = ""
  for (const item of items) {
    if (!Guards.isObject<{ text: string }>(item) || typeof item.text !== "string") return items
    text += item.text
  }
  return text
}

/** The stop reasons that mean the model's output was unusable. */
const malformed: ReadonlySet<string> = new Set(["malformed_model_output", "malformed_tool_use"])

/** The finish reason of a raw stop reason. */
export const finishReason = (raw: string | undefined): StreamChunk.FinishReason =>
  raw !== undefined && malformed.has(raw) ? "error" : StreamChunk.normalizeFinishReason(raw)

/** Creates a decoder for one response; `provider` names the host in chunks and errors, `model` the model asked for. */
export const make = (options: {
  readonly provider: string
  readonly model?: string | undefined
}): ChunkDecoder<EventStream.Frame> => new Decoder(options.provider, options.model)

/** One response's state machine: a class, as every decoder is (see {@link ChunkDecoder}). */
class Decoder implements ChunkDecoder<EventStream.Frame> {
  private readonly emitter: Emitter
  private readonly reasoning: Reasoning
  private readonly usages: UsageSnapshots
  private readonly blocks = new Map<number, Block>()
  private readonly assembler = new ToolCall.Assembler()
  private callCount = 0
  /** Whether the JSON response tool answered (its `tool_use` stop is then a plain stop). */
  private jsonAnswered = false
  /** Names of the service's own tool calls, by id, for their results. */
  private readonly serverNames = new Map<string, string>()
  /** The raw stop reason, once `messageStop` arrived. */
  private stopped: { readonly raw: string | undefined } | undefined = undefined
  private metadataSeen = false

  constructor(private readonly provider: string, private readonly model: string | undefined) {
    this.emitter = new Emitter(provider)
    this.reasoning = new Reasoning(this.emitter)
    this.usages = new UsageSnapshots(this.emitter)
  }

  // --- one message -----------------------------------------------------------------------------

  push(frame: EventStream.Frame, out: Out): void {
    const emitter = this.emitter
    if (emitter.ended) return
    emitter.announce(out, this.model)
    switch (frame.messageType) {
      case "event":
        return this.event(out, frame.eventType, frame.payload)
      case "exception":
        return emitter.fail(out, Errors.fromException(frame.exceptionType, frame.payload, this.provider))
      case "error":
        return emitter.fail(out, Errors.fromErrorMessage(frame.errorCode, frame.errorMessage, this.provider))
      default:
        // Another message type (none is defined): skipped, like an unknown event.
        return
    }
  }

  /**
   * A finish held for `metadata` goes out at the end of the body; without `messageStop` there is
   * none, and `StreamChunk.ensureTerminal` reports `truncated`.
   */
  end(out: Out): void {
    if (!this.emitter.ended && this.stopped !== undefined) this.finish(out)
  }

  private event(out: Out, type: string | undefined, payload: string): void {
    // `messageStart` says nothing the metadata chunk did not; events newer than this decoder are
    // skipped unread, whatever their payload.
    if (type === undefined || !known.has(type)) return
    const e = Guards.parseObject<Record<string, unknown>>(payload)
    if (e === undefined) return this.emitter.fail(out, protocolError(this.provider, payload))
    const index = ToolCall.isIndex(e.contentBlockIndex) ? e.contentBlockIndex : 0
    switch (type) {
      case "contentBlockDelta":
        if (Guards.isObject<Events.Delta>(e.delta)) this.delta(out, index, e.delta)
        return
      case "contentBlockStart":
        if (Guards.isObject<Events.ContentBlockStart["start"]>(e.start)) this.blockStart(out, index, e.start)
        return
      case "contentBlockStop":
        return this.closeBlock(out, index)
      case "messageStop":
        return this.messageStop(out, e)
      case "metadata":
        return this.metadata(out, e)
    }
  }

  private finish(out: Out): void {
    const raw = this.stopped?.raw
    const reason = finishReason(raw)
    this.emitter.finish(
      out,
      reason === "tool_calls" && this.jsonAnswered && this.callCount === 0 ? "stop" : reason,
      raw
    )
  }

  // --- blocks ----------------------------------------------------------------------------------

  private closeBlock(out: Out, index: number): void {
    const block = this.blocks.get(index)
    if (block === undefined) return
    this.blocks.delete(index)
    switch (block.kind) {
      case "reasoning":
        return this.reasoning.close(out)
      case "tool": {
        const call = this.assembler.finish(block.call)
        if (call !== undefined) this.emitter.emit(out, StreamChunk.toolCall(call))
        return
      }
      case "server": {
        const raw = block.input.join("")
        const input = raw === "" ? {} : parseJson(raw)
        return this.part(out, {
          type: "provider-tool",
          kind: "call",
          id: block.id,
          name: block.name,
          input: input === undefined || Json.check(input) !== undefined ? { raw } : input
        })
      }
      case "result":
        return this.part(out, {
          type: "provider-tool",
          kind: "result",
          id: block.id,
          name: this.serverNames.get(block.id) ?? "tool",
          output: resultOutput(block.items),
          isError: block.isError,
          ...(Object.keys(block.meta).length > 0 ? { providerMetadata: block.meta } : {})
        })
      case "image":
        return this.part(out, {
          type: "image",
          ...(block.format !== undefined ? { mediaType: `image/${block.format}` } : {}),
          data: block.data.join("")
        })
      default:
        return
    }
  }

  /**
   * A content part; what the service sent as it is (provider data, a tool's output) is kept only
   * when it always serializes (depth, finite numbers), else left out.
   */
  private part(out: Out, p: ContentPart.ContentPart): void {
    if (Json.check(p) === undefined) return this.emitter.emit(out, StreamChunk.contentPart(p))
    const { output: _output, providerMetadata: _meta, ...rest } = p as ContentPart.ContentPart & { output?: unknown }
    this.emitter.emit(out, StreamChunk.contentPart(rest as ContentPart.ContentPart))
  }

  /** The block at `index`, opened as `kind` when it is new; another kind there is closed first. */
  private blockAt(out: Out, index: number, kind: "text" | "reasoning"): void {
    const blocks = this.blocks
    const block = blocks.get(index)
    if (block?.kind === kind) return
    if (block !== undefined) this.closeBlock(out, index)
    // One reasoning run per block: a block never closed is not merged into the next.
    if (kind === "reasoning") {
      for (const [i, b] of blocks) if (b.kind === "reasoning") this.closeBlock(out, i)
      this.reasoning.open()
    }
    blocks.set(index, kind === "text" ? { kind: "text" } : { kind: "reasoning" })
  }

  private toolStart(out: Out, index: number, start: Guards.Unchecked<Events.ToolUseStart>): void {
    const blocks = this.blocks
    if (blocks.has(index)) this.closeBlock(out, index)
    if (start.name === Events.jsonToolName) {
      this.jsonAnswered = true
      return void blocks.set(index, { kind: "json" })
    }
    if (start.type === "server_tool_use") {
      const id = Guards.isNonEmptyString(start.toolUseId) ? start.toolUseId : `server_${index}`
      const name = Guards.isNonEmptyString(start.name) ? start.name : "tool"
      this.serverNames.set(id, name)
      return void blocks.set(index, { kind: "server", id, name, input: [] })
    }
    const call = this.callCount++
    const id = Guards.isNonEmptyString(start.toolUseId) ? start.toolUseId : ToolCall.synthesizeId(call)
    this.assembler.add(call, "", id, Guards.isNonEmptyString(start.name) ? start.name : undefined)
    blocks.set(index, { kind: "tool", call, id, announced: false })
  }

  private toolFragment(out: Out, index: number, fragment: string): void {
    const emitter = this.emitter
    let block = this.blocks.get(index)
    if (block?.kind === "json") return fragment === "" ? undefined : emitter.emit(out, StreamChunk.textDelta(fragment))
    if (block?.kind === "server") return void block.input.push(fragment)
    if (block?.kind !== "tool") {
      // Input with no start event: still a call (its id synthesized), never dropped.
      this.toolStart(out, index, {})
      block = this.blocks.get(index)!
    }
    if (block.kind !== "tool" || fragment === "") return
    const assembler = this.assembler
    assembler.add(block.call, fragment)
    if (block.announced) return emitter.emit(out, StreamChunk.toolCallDelta(block.call, fragment))
    block.announced = true
    emitter.emit(
      out,
      StreamChunk.toolCallDelta(block.call, fragment, { id: block.id, name: assembler.nameOf(block.call) })
    )
  }

  private delta(out: Out, index: number, d: Guards.Unchecked<Events.Delta>): void {
    if (typeof d.text === "string") {
      this.blockAt(out, index, "text")
      if (d.text !== "") this.emitter.emit(out, StreamChunk.textDelta(d.text))
      return
    }
    if (Guards.isObject<Events.ReasoningDelta>(d.reasoningContent)) {
      const r = d.reasoningContent
      const reasoning = this.reasoning
      this.blockAt(out, index, "reasoning")
      if (Guards.isNonEmptyString(r.text)) reasoning.delta(out, r.text)
      if (Guards.isNonEmptyString(r.signature)) reasoning.sign(r.signature)
      if (Guards.isNonEmptyString(r.redactedContent)) reasoning.redact(out, r.redactedContent)
      return
    }
    if (Guards.isObject<{ input: string }>(d.toolUse)) {
      if (typeof d.toolUse.input === "string") this.toolFragment(out, index, d.toolUse.input)
      else if (!this.blocks.has(index)) this.toolStart(out, index, {})
      return
    }
    if (Guards.isObject<Events.Citation>(d.citation)) return this.citation(out, d.citation)
    if (d.toolResult !== undefined) {
      const blocks = this.blocks
      const block = blocks.get(index)
      const items = Guards.isArray(d.toolResult) ? d.toolResult : [d.toolResult]
      if (block?.kind === "result") { for (const item of items) block.items.push(item) }
      else blocks.set(index, { kind: "result", id: `result_${index}`, meta: {}, isError: false, items: [...items] })
      return
    }
    if (Guards.isObject<Events.ImageDelta>(d.image)) {
      let block = this.blocks.get(index)
      if (block?.kind !== "image") {
        if (block !== undefined) this.closeBlock(out, index)
        block = { kind: "image", format: undefined, data: [] }
        this.blocks.set(index, block)
      }
      const bytes = Guards.isObject<{ bytes: string }>(d.image.source) ? d.image.source.bytes : undefined
      if (Guards.isNonEmptyString(bytes)) block.data.push(bytes)
    }
    // Delta kinds newer than this decoder: skipped, never fatal.
  }

  /** A citation (complete in one delta): a `source` part, the citation as sent in its provider data. */
  private citation(out: Out, c: Guards.Unchecked<Events.Citation>): void {
    const location = Guards.isObject<{ web: unknown }>(c.location) ? c.location : undefined
    const web = Guards.isObject<{ url: string }>(location?.web) ? location.web : undefined
    const url = Guards.isNonEmptyString(web?.url) ? web.url : undefined
    this.part(out, {
      type: "source",
      sourceType: url !== undefined ? "url" : "document",
      ...(url !== undefined ? { url } : {}),
      ...(Guards.isNonEmptyString(c.title) ? { title: c.title } : {}),
      providerMetadata: { citation: c }
    })
  }

  private blockStart(out: Out, index: number, start: Guards.Unchecked<Events.ContentBlockStart["start"]>): void {
    if (Guards.isObject<Events.ToolUseStart>(start.toolUse)) return this.toolStart(out, index, start.toolUse)
    const blocks = this.blocks
    if (Guards.isObject<Events.ToolResultStart>(start.toolResult)) {
      if (blocks.has(index)) this.closeBlock(out, index)
      const r = start.toolResult
      const meta: Record<string, unknown> = {}
      if (Guards.isNonEmptyString(r.type)) meta.type = r.type
      if (Guards.isNonEmptyString(r.status)) meta.status = r.status
      const id = Guards.isNonEmptyString(r.toolUseId) ? r.toolUseId : `result_${index}`
      return void blocks.set(index, { kind: "result", id, meta, isError: r.status === "error", items: [] })
    }
    if (Guards.isObject<{ format: string }>(start.image)) {
      if (blocks.has(index)) this.closeBlock(out, index)
      const format = Guards.isNonEmptyString(start.image.format) ? start.image.format : undefined
      blocks.set(index, { kind: "image", format, data: [] })
    }
    // A start for text (`start: {}`) or of a kind newer than this decoder: its deltas decide.
  }

  // --- the message -----------------------------------------------------------------------------

  private messageStop(out: Out, e: Guards.Unchecked<Events.MessageStop>): void {
    // Blocks the server never closed are closed now, so nothing that arrived is lost.
    for (const index of [...this.blocks.keys()]) this.closeBlock(out, index)
    this.stopped = { raw: Guards.isNonEmptyString(e.stopReason) ? e.stopReason : undefined }
    if (this.metadataSeen) this.finish(out)
  }

  private metadata(out: Out, e: Guards.Unchecked<Events.Metadata>): void {
    this.metadataSeen = true
    if (Guards.isObject<Events.TokenUsage>(e.usage)) {
      const u = e.usage
      // What else the event reports (latency, guardrail trace, tier) rides in the usage's raw.
      const raw: Record<string, unknown> = { ...u }
      if (Guards.isObject(e.metrics)) raw.metrics = e.metrics
      if (e.trace !== undefined) raw.trace = e.trace
      if (e.performanceConfig !== undefined) raw.performanceConfig = e.performanceConfig
      if (e.serviceTier !== undefined) raw.serviceTier = e.serviceTier
      this.usages.push(
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
      this.usages.cache(out)
    }
    if (this.stopped !== undefined) this.finish(out)
  }
}
