/**
 * The Responses API stream decoder: SSE events in, `StreamChunk`s out, one pure state machine.
 *
 * Order of what it emits: `metadata` (from `response.created`); then, as output items stream, text
 * deltas, reasoning deltas (summary or raw reasoning text) closed by a `reasoning` chunk at the item's
 * end carrying its `encrypted_content` as `redacted` and the item id as `signature` (what the next
 * turn sends back), tool-call deltas and each finished `tool-call`, citations as `source` parts and
 * provider-executed tools as `content-part`s, a refusal part when the refusal is complete; at the
 * terminal event `usage`, `cache-read`
 * and `finish` (or the `error` of `response.failed` / an `error` event). Output items are keyed by
 * `output_index` (GitHub Copilot's proxy rotates `item_id` on every event), by `item_id` without one.
 *
 * A custom (freeform) tool call — a `custom_tool_call` item, its input streamed by
 * `response.custom_tool_call_input.delta` / `.done` — is a tool call like a function call (deltas
 * keyed by the call's `call_id`, then one `tool-call`, and a `tool_calls` finish), except that its
 * input is raw text, not JSON: the finished call has `kind: "custom"` and that text, unparsed, as
 * both `arguments` and `rawArguments` (never a `parseError`).
 *
 * @since 0.1.0
 */
import type * as ContentPart from "../../ContentPart.js"
import type { ChunkDecoder } from "../../internal/ChunkDecoder.js"
import type * as Sse from "../../internal/framing/Sse.js"
import { Emitter, type Out, protocolError } from "../../internal/kit/Emitter.js"
import * as Guards from "../../internal/kit/guards.js"
import { Reasoning } from "../../internal/kit/Reasoning.js"
import { UsageSnapshots } from "../../internal/kit/UsageSnapshots.js"
import * as LlmError from "../../LlmError.js"
import * as StreamChunk from "../../StreamChunk.js"
import * as ToolCall from "../../ToolCall.js"
import * as Errors from "./errors.js"
import * as Events from "./events.js"
import * as Tools from "./tools.js"

type Event = Guards.Unchecked<Events.EventFields>
type Item = Guards.Unchecked<Events.OutputItem>

/** What we know of one output item while it streams. */
interface ItemState {
  readonly type: string
  /** The `output_index` and id it is registered under (each set once; Copilot rotates ids). */
  index: number | undefined
  id: string | undefined
  /** Reasoning: where this item's text starts in the response's reasoning, and its last part. */
  start: number
  part: number | undefined
  /** Function or custom tool call: our index, and whether the fragment carrying id and name went out. */
  call: number | undefined
  callId: string | undefined
  announced: boolean
  gotArguments: boolean
  /** Function call: the arguments `added` carried, used only when no delta nor `.done` brings any. */
  addedArguments: string | undefined
  /** Reasoning: the blob and item id from `added`, for an item the stream never finishes. */
  addedBlob: string | undefined
  addedId: string | undefined
  finished: boolean
  /** The parts that streamed deltas (see {@link partKey}), so a `.done` without deltas is not lost. */
  streamed: Set<number> | undefined
  lastStreamed: number | undefined
}

/** Creates a decoder for one response; `provider` names the host in chunks and errors. */
export const make = (options: { readonly provider: string }): ChunkDecoder<Sse.Event> => new Decoder(options.provider)

/** One response's state machine: a class, as every decoder is (see {@link ChunkDecoder}). */
class Decoder implements ChunkDecoder<Sse.Event> {
  // Metadata first and nothing after the terminal chunk; reasoning runs; usage snapshots.
  private readonly emitter: Emitter
  private readonly reasoning: Reasoning
  private readonly usages: UsageSnapshots
  private readonly byIndex = new Map<number, ItemState>()
  private readonly byId = new Map<string, ItemState>()
  private readonly items: Array<ItemState> = []
  private readonly assembler = new ToolCall.Assembler()
  private callCount = 0
  private emittedToolCall = false
  // The refusal streaming now, and whether one went out (the finish is then `content_filter`).
  private refusal: Array<string> = []
  private refused = false
  private readonly sources = new Set<string>()

  constructor(private readonly provider: string) {
    this.emitter = new Emitter(provider)
    this.reasoning = new Reasoning(this.emitter)
    this.usages = new UsageSnapshots(this.emitter)
  }

  // --- one event -------------------------------------------------------------------------------

  push(sse: Sse.Event, out: Out): void {
    const emitter = this.emitter
    if (emitter.ended || sse.data === "") return
    const parsed = Guards.parseObject<Events.EventFields>(sse.data)
    if (parsed === undefined) {
      // An `event: error` in plain text (a proxy's) is an error; broken JSON is a malformed stream.
      const text = sse.event === "error" && !/^\s*[[{]/.test(sse.data)
      return emitter.fail(
        out,
        text ? Errors.fromBody(undefined, sse.data, this.provider) : protocolError(this.provider, sse.data)
      )
    }
    this.announceFrom(out, parsed)
    // The payload's `type` names the event; a payload without one is named by the SSE event.
    const type = typeof parsed.type === "string" ? parsed.type : sse.event
    this.event(out, type, parsed, sse.event)
  }

  /** Without a terminal event the response is truncated: `StreamChunk.ensureTerminal` says so. */
  end(_out: Out): void {}

  private emit(out: Out, chunk: StreamChunk.StreamChunk): void {
    this.emitter.emit(out, chunk)
  }

  private announceFrom(out: Out, e: Event): void {
    if (this.emitter.announced || !Guards.isObject<Events.ResponseObject>(e.response)) return
    const r = e.response
    const id = Guards.isNonEmptyString(r.id) ? r.id : undefined
    const model = Guards.isNonEmptyString(r.model) ? r.model : undefined
    if (id === undefined && model === undefined) return
    if (id !== undefined) this.assembler.idPrefix = id
    this.emitter.announce(out, model, id)
  }

  /** One event of type `type`; `named` is the SSE event name (an `event: error` is an error body). */
  private event(out: Out, type: string | undefined, e: Event, named: string | undefined): void {
    switch (type) {
      case "response.output_text.delta":
        return this.text(out, e, "text", e.delta)
      case "response.output_text.done":
        return this.textDone(out, e, "text", e.text)
      case "response.refusal.delta":
        return this.text(out, e, "refusal", e.delta)
      case "response.refusal.done":
        this.textDone(out, e, "refusal", e.refusal)
        return this.flushRefusal(out)
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta":
        if (typeof e.delta === "string") {
          this.reasoningText(out, this.itemOf(e, "reasoning"), reasoningPart(type, e), e.delta)
        }
        return
      case "response.reasoning_summary_text.done":
      case "response.reasoning_text.done": {
        const state = this.itemOf(e, "reasoning")
        const whole = e.text
        if (state.streamed?.has(reasoningPart(type, e)) !== true && typeof whole === "string") {
          this.reasoningText(out, state, reasoningPart(type, e), whole)
        }
        return
      }
      case "response.function_call_arguments.delta":
        if (Guards.isNonEmptyString(e.delta)) this.fragment(out, this.itemOf(e, "function_call"), e.delta)
        return
      case "response.function_call_arguments.done": {
        const state = this.itemOf(e, "function_call")
        if (!state.gotArguments && Guards.isNonEmptyString(e.arguments)) this.fragment(out, state, e.arguments)
        return this.finishCall(out, state)
      }
      case "response.custom_tool_call_input.delta":
        if (Guards.isNonEmptyString(e.delta)) this.fragment(out, this.itemOf(e, "custom_tool_call"), e.delta)
        return
      case "response.custom_tool_call_input.done": {
        const state = this.itemOf(e, "custom_tool_call")
        if (!state.gotArguments && Guards.isNonEmptyString(e.input)) this.fragment(out, state, e.input)
        return this.finishCall(out, state)
      }
      case "response.output_item.added":
        if (Guards.isObject<Events.OutputItem>(e.item)) this.added(out, e, e.item)
        return
      case "response.output_item.done":
        if (Guards.isObject<Events.OutputItem>(e.item)) this.done(out, e, e.item)
        return
      case "response.output_text.annotation.added":
        return this.source(out, e.annotation)
      case "response.image_generation_call.partial_image": {
        const image = Tools.partialImage(e)
        if (image !== undefined) this.emit(out, StreamChunk.contentPart(image, true))
        return
      }
      case "response.completed":
      case "response.incomplete":
      case "response.failed":
        return this.terminal(out, type, Guards.isObject<Events.ResponseObject>(e.response) ? e.response : undefined)
      case "error":
        return this.emitter.fail(out, Errors.fromBody(undefined, e, this.provider))
      default:
        // Events newer than this decoder are skipped, never fatal; but an `event: error` is an error.
        if (named === "error") return this.emitter.fail(out, Errors.fromBody(undefined, e, this.provider))
    }
  }

  private text(out: Out, e: Event, kind: "text" | "refusal", delta: unknown): void {
    if (!Guards.isNonEmptyString(delta)) return
    const state = this.itemOf(e, "message")
    this.streamed(state, partKey(kind === "refusal" ? 1 : 0, e.content_index))
    if (kind === "text") this.emit(out, StreamChunk.textDelta(delta))
    else this.refusal.push(delta)
  }

  /** A `.done` whose part streamed no deltas: its whole text is the part. */
  private textDone(out: Out, e: Event, kind: "text" | "refusal", whole: unknown): void {
    const state = this.itemOf(e, "message")
    if (state.streamed?.has(partKey(kind === "refusal" ? 1 : 0, e.content_index)) === true) return
    this.text(out, e, kind, whole)
  }

  private source(out: Out, annotation: unknown): void {
    const part = Tools.source(annotation)
    if (part === undefined) return
    const key = part.url ?? part.id ?? ""
    if (this.sources.has(key)) return
    this.sources.add(key)
    this.emit(out, StreamChunk.contentPart(part))
  }

  // --- output items ----------------------------------------------------------------------------

  private newItem(type: string, index: number | undefined, id: string | undefined): ItemState {
    const state: ItemState = {
      type,
      index,
      id,
      start: this.reasoning.accumulated.length,
      part: undefined,
      call: undefined,
      callId: undefined,
      announced: false,
      gotArguments: false,
      addedArguments: undefined,
      addedBlob: undefined,
      addedId: undefined,
      finished: false,
      streamed: undefined,
      lastStreamed: undefined
    }
    this.items.push(state)
    if (index !== undefined) this.byIndex.set(index, state)
    if (id !== undefined) this.byId.set(id, state)
    return state
  }

  /**
   * The item known by `index`, else by `id` (some servers send one on some events and the other on
   * others); the key that missed is registered on the item found, once, so later events find it.
   */
  private lookup(index: number | undefined, id: string | undefined): ItemState | undefined {
    const byIndex = this.byIndex
    const byId = this.byId
    let state = index !== undefined ? byIndex.get(index) : undefined
    if (state === undefined) {
      if (id === undefined) return undefined
      state = byId.get(id)
      // An item already placed at another index is another item (its id reused).
      if (state === undefined || index === undefined) return state
      if (state.index !== undefined) return undefined
      state.index = index
      byIndex.set(index, state)
      return state
    }
    if (id !== undefined && state.id === undefined && !byId.has(id)) {
      state.id = id
      byId.set(id, state)
    }
    return state
  }

  /** The item an event belongs to; one is created when an event names an item never announced. */
  private itemOf(e: Event, type: string, itemId: unknown = e.item_id): ItemState {
    const id = Guards.isNonEmptyString(itemId) ? itemId : undefined
    // An event naming no item at all belongs to one shared anonymous item.
    const index = ToolCall.isIndex(e.output_index) ? e.output_index : id === undefined ? -1 : undefined
    return this.lookup(index, id) ?? this.newItem(type, index, id)
  }

  private added(out: Out, e: Event, item: Item): void {
    const type = typeof item.type === "string" ? item.type : ""
    const index = ToolCall.isIndex(e.output_index) ? e.output_index : undefined
    const id = Guards.isNonEmptyString(item.id) ? item.id : undefined
    // An item announced twice (a proxy repeating the event) is still one item: one call, not two.
    const known = this.lookup(index, id)
    if (known !== undefined && known.type === type) return
    // Reasoning items do not overlap: one never closed ends where the next begins.
    if (type === "reasoning") this.reasoning.close(out)
    const state = this.newItem(type, index, id)
    if (type === "function_call" || type === "custom_tool_call") {
      this.callFor(state, item)
      // Some servers send whole calls: arguments on the item itself. Others send them here and
      // stream them again, so they wait for the end of the call, used only if nothing else came.
      const whole = type === "function_call" ? item.arguments : item.input
      if (Guards.isNonEmptyString(whole)) state.addedArguments = whole
    } else if (type === "reasoning" && Guards.isNonEmptyString(item.encrypted_content)) {
      // A stream cut off before the item's `done` still gives back what `added` carried.
      state.addedBlob = item.encrypted_content
      state.addedId = id
    }
  }

  private done(out: Out, e: Event, item: Item): void {
    const type = typeof item.type === "string" ? item.type : ""
    const state = this.itemOf(e, type, item.id)
    switch (type) {
      case "reasoning":
        return this.closeReasoning(out, state, item)
      case "function_call":
        this.callFor(state, item)
        if (!state.gotArguments && Guards.isNonEmptyString(item.arguments)) this.fragment(out, state, item.arguments)
        return this.finishCall(out, state)
      case "custom_tool_call":
        this.callFor(state, item)
        if (!state.gotArguments && Guards.isNonEmptyString(item.input)) this.fragment(out, state, item.input)
        return this.finishCall(out, state)
      case "image_generation_call": {
        const image = Tools.image(item)
        if (image !== undefined) this.emit(out, StreamChunk.contentPart(image))
        return
      }
      default:
        for (const part of Tools.parts(item)) this.emit(out, StreamChunk.contentPart(part))
    }
  }

  // --- reasoning -------------------------------------------------------------------------------

  /** Notes that a part streamed a delta; the set is touched only when the part changes. */
  private streamed(state: ItemState, part: number): void {
    if (state.lastStreamed === part) return
    state.lastStreamed = part
    ;(state.streamed ??= new Set()).add(part)
  }

  private reasoningText(out: Out, state: ItemState, part: number, delta: string): void {
    if (delta === "") return
    const reasoning = this.reasoning
    // A new summary part of the same item: a paragraph break, so the parts do not run together.
    if (state.part !== undefined && state.part !== part && reasoning.accumulated.length > state.start) {
      reasoning.delta(out, "\n\n")
    }
    state.part = part
    this.streamed(state, part)
    reasoning.delta(out, delta)
  }

  private closeReasoning(out: Out, state: ItemState, item: Item | undefined): void {
    if (state.finished) return
    state.finished = true
    const reasoning = this.reasoning
    // A server that sends the reasoning only on the finished item still has it read.
    if (reasoning.accumulated.length === state.start && item !== undefined) {
      const texts = [...textsOf(item.summary, "summary_text"), ...textsOf(item.content, "")]
      texts.forEach((text, i) => this.reasoningText(out, state, i, text))
    }
    // The finished item's blob (it differs from the one on `added`) goes back next turn, under its
    // id; without a finished one, the blob `added` carried.
    const finished = Guards.isNonEmptyString(item?.encrypted_content) ? item.encrypted_content : undefined
    const blob = finished ?? state.addedBlob
    if (blob !== undefined) {
      const id = finished === undefined ? state.addedId : Guards.isNonEmptyString(item?.id) ? item.id : undefined
      if (id !== undefined) reasoning.sign(id)
      reasoning.redact(out, blob)
    }
    reasoning.close(out)
  }

  // --- function calls --------------------------------------------------------------------------

  private callFor(state: ItemState, item: Item | undefined): number {
    if (state.call === undefined) state.call = this.callCount++
    const id = Guards.isNonEmptyString(item?.call_id) ? item.call_id : undefined
    if (state.callId === undefined) state.callId = id
    const name = Guards.isNonEmptyString(item?.name) ? item.name : undefined
    this.assembler.add(state.call, "", id, name)
    return state.call
  }

  private fragment(out: Out, state: ItemState, args: string): void {
    const index = this.callFor(state, undefined)
    state.gotArguments = true
    this.assembler.add(index, args)
    this.announce(out, state, index, args)
  }

  /** The first emitted fragment carries id and name; fragments before the name wait for it. */
  private announce(out: Out, state: ItemState, index: number, args: string): void {
    if (state.announced) {
      if (args !== "") this.emit(out, StreamChunk.toolCallDelta(index, args))
      return
    }
    const name = this.assembler.nameOf(index)
    const first = this.assembler.rawArguments(index)
    if (name === undefined || first === "") return
    state.announced = true
    this.emit(out, StreamChunk.toolCallDelta(index, first, { id: this.idOf(state, index), name }))
  }

  /** The call's `call_id`, or a stable synthesized one, given to the assembler so both agree. */
  private idOf(state: ItemState, index: number): string {
    if (state.callId === undefined) {
      state.callId = ToolCall.synthesizeId(index, this.assembler.idPrefix)
      this.assembler.add(index, "", state.callId)
    }
    return state.callId
  }

  private finishCall(out: Out, state: ItemState): void {
    if (state.call === undefined || state.finished) return
    if (!state.gotArguments && state.addedArguments !== undefined) this.fragment(out, state, state.addedArguments)
    state.finished = true
    if (!state.announced) this.announce(out, state, state.call, "")
    const call = state.type === "custom_tool_call"
      ? this.customCall(state, state.call)
      : this.assembler.finish(state.call)
    if (call === undefined) return
    if (call.name === "") {
      return this.emitter.fail(
        out,
        LlmError.info({
          code: "protocol",
          message: "A function call ended without a name",
          provider: this.provider,
          details: { index: call.index, id: call.id, rawArguments: call.rawArguments }
        })
      )
    }
    this.emittedToolCall = true
    this.emit(out, StreamChunk.toolCall(call))
  }

  /**
   * A finished custom tool call: its input is freeform text (a patch, a shell command, text in a
   * grammar), so it is kept as it came, a JSON string value, never parsed nor reported as broken.
   */
  private customCall(state: ItemState, index: number): ToolCall.ToolCall {
    const assembler = this.assembler
    const raw = assembler.rawArguments(index)
    const id = this.idOf(state, index)
    return { index, id, name: assembler.nameOf(index) ?? "", arguments: raw, rawArguments: raw, kind: "custom" }
  }

  // --- the end ---------------------------------------------------------------------------------

  /** Emits the refusal streamed so far as one part (at its `.done`, or at the end without one). */
  private flushRefusal(out: Out): void {
    if (this.refusal.length === 0) return
    const part: ContentPart.ContentPart = { type: "refusal", text: this.refusal.join("") }
    this.refusal = []
    this.refused = true
    this.emit(out, StreamChunk.contentPart(part))
  }

  /** Closes what is still open at a terminal event, then emits usage and the cache counts. */
  private wrapUp(out: Out, response: Guards.Unchecked<Events.ResponseObject> | undefined): void {
    for (const state of this.items) {
      if (state.type === "reasoning") this.closeReasoning(out, state, undefined)
      else if (state.call !== undefined) this.finishCall(out, state)
      if (this.emitter.ended) return
    }
    this.flushRefusal(out)
    const usage = Events.usage(response?.usage)
    if (usage !== undefined) this.usages.push(out, usage, response?.usage)
    this.usages.cache(out)
  }

  private terminal(
    out: Out,
    type: Events.Terminal,
    response: Guards.Unchecked<Events.ResponseObject> | undefined
  ): void {
    const emitter = this.emitter
    this.wrapUp(out, response)
    if (emitter.ended) return
    if (type === "response.failed") {
      const error = Guards.isObject<{ code: string; message: string }>(response?.error) ? response.error : undefined
      return emitter.fail(
        out,
        error === undefined
          ? LlmError.info({ code: "server", message: "The response failed", provider: this.provider })
          : Errors.fromBody(undefined, { error }, this.provider)
      )
    }
    const status = Guards.isNonEmptyString(response?.status) ? response.status : "completed"
    let reason: StreamChunk.FinishReason = "stop"
    let raw = status
    if (type === "response.incomplete") {
      const details = Guards.isObject<{ reason: string }>(response?.incomplete_details)
        ? response.incomplete_details
        : undefined
      raw = Guards.isNonEmptyString(details?.reason) ? details.reason : "incomplete"
      reason = details?.reason === undefined ? "length" : StreamChunk.normalizeFinishReason(raw)
    }
    if (this.refused) reason = "content_filter"
    else if (this.emittedToolCall && reason === "stop") reason = "tool_calls"
    emitter.finish(out, reason, raw)
  }
}

/**
 * A part's key within its item, a number so streaming allocates nothing: text, refusal, reasoning
 * summary and raw reasoning parts never share one (an index that is not one reads as -1).
 */
const partKey = (kind: 0 | 1 | 2 | 3, index: unknown): number =>
  (ToolCall.isIndex(index) && index < 2 ** 40 ? index : -1) * 4 + kind

const reasoningPart = (type: string, e: Event): number =>
  type === "response.reasoning_text.delta" || type === "response.reasoning_text.done"
    ? partKey(3, e.content_index)
    : partKey(2, e.summary_index)

/** The texts of a `summary` or `content` array (of `summary_text` / `reasoning_text` parts). */
const textsOf = (parts: unknown, type: string): Array<string> => {
  if (!Guards.isArray(parts)) return []
  const out: Array<string> = []
  for (const p of parts) {
    if (!Guards.isObject<{ type: string; text: string }>(p) || !Guards.isNonEmptyString(p.text)) continue
    if (type === "" ? p.type === "reasoning_text" : p.type === type) out.push(p.text)
  }
  return out
}
