/**
 * The Cohere v2 chat stream decoder: SSE events in, `StreamChunk`s out. One pure, synchronous state
 * machine; one `JSON.parse` per event, guards on the fields it reads.
 *
 * What it emits, in order of the wire:
 * - `message-start`: `metadata` with the response id (the stream names no model).
 * - `content-start` / `content-delta` of a `text` block: text deltas; of a `thinking` block:
 *   reasoning deltas, closed by one `reasoning` chunk (no signature: Cohere signs nothing) at the
 *   block's `content-end`, or at the next output when the end never came.
 * - `tool-plan-delta`: text deltas. The plan ("I will look up the weather in Paris.") is what
 *   Cohere says before its tool calls, as other providers' text before a tool-use block; the
 *   request encoder sends an assistant turn's text back as `tool_plan` when it has tool calls.
 * - `tool-call-start` / `tool-call-delta` / `tool-call-end`: tool-call deltas (the id and name on
 *   the first), then the `tool-call` at the end (arguments joined and parsed once; none → `{}`).
 *   The wire's tool `index` counts apart from the content `index`; calls are numbered 0, 1, 2 … in
 *   order of their start. Arguments already given at the start are the first fragment. Fragments
 *   that come before their call's start open the call (its id synthesized); the start then only
 *   names it, so the call stays one. `tool_calls` sent as an array (some hosts) is read as its call.
 * - `citation-start`: one `source` part per source of the citation (`sourceType: "document"`, the
 *   source's `id`, the document's `title` and `url` when given), with the cited span in
 *   `providerMetadata` (`start`, `end`, `text`, `type`, and the `source` as sent).
 * - `message-end`: calls and reasoning left open are closed, then the usage (`delta.usage`, or a
 *   `usage` beside `delta`), `cache-read` when
 *   `cached_tokens` is non-zero, and the finish: `COMPLETE` / `STOP_SEQUENCE` → `stop`, `MAX_TOKENS`
 *   → `length`, `TOOL_CALL` → `tool_calls` (also when calls were emitted and the reason says only
 *   that the message is complete), each with the raw reason. `ERROR` ends in an `error` of code
 *   `server` and `TIMEOUT` in one of code `timeout`, after the usage.
 *
 * Usage: `inputTokens` / `outputTokens` are `usage.tokens` — what the model read and wrote, the
 * prompt template included, the measure the context window and `cached_tokens` (reported as
 * `cacheReadTokens`, part of the input) are counted in. `usage.billed_units`, what is charged, is
 * kept with the rest in `usage.raw`; it stands in only for a response that has no `tokens`.
 *
 * `message-end` is the end marker: a stream cut anywhere before it ends in `truncated` (added by
 * `StreamChunk.ensureTerminal`). An `event: error`, or a type-less `{"message": …}` body, is an
 * error; `debug`, `citation-end`, a `data: [DONE]` and unknown events are skipped.
 *
 * @since 0.1.0
 */
import type * as ContentPart from "../../ContentPart.js"
import type { ChunkDecoder } from "../../internal/ChunkDecoder.js"
import type * as Sse from "../../internal/framing/Sse.js"
import * as Json from "../../internal/json.js"
import { Emitter, type Out, protocolError } from "../../internal/kit/Emitter.js"
import * as Guards from "../../internal/kit/guards.js"
import { Reasoning } from "../../internal/kit/Reasoning.js"
import { UsageSnapshots } from "../../internal/kit/UsageSnapshots.js"
import * as LlmError from "../../LlmError.js"
import * as StreamChunk from "../../StreamChunk.js"
import * as ToolCall from "../../ToolCall.js"
import * as Usage from "../../Usage.js"
import * as Errors from "./errors.js"
import type * as Events from "./events.js"

/** The call of a tool event: an object, or (from some hosts) an array holding it. */
const oneCall = (u: unknown): Guards.Unchecked<Events.ToolCallFields> | undefined => {
  const call = Guards.isArray(u) ? u[0] : u
  return Guards.isObject<Events.ToolCallFields>(call) ? call : undefined
}

/** A call in progress, by the wire's tool index. */
interface Call {
  /** Its position among this response's calls. */
  readonly call: number
  readonly id: string
  announced: boolean
  /** Whether its `tool-call-start` came (a call opened by a delta waits for it, to take its name). */
  started: boolean
}

/** Creates a decoder for one response; `provider` names the host in chunks and errors. */
export const make = (options: { readonly provider: string }): ChunkDecoder<Sse.Event> => new Decoder(options.provider)

/** One response's state machine: a class, as every decoder is (see {@link ChunkDecoder}). */
class Decoder implements ChunkDecoder<Sse.Event> {
  // Metadata first and nothing after the terminal chunk; reasoning runs; the usage snapshot.
  private readonly emitter: Emitter
  private readonly reasoning: Reasoning
  private readonly usages: UsageSnapshots

  private readonly assembler = new ToolCall.Assembler()
  private readonly calls = new Map<number, Call>()
  private callCount = 0

  constructor(private readonly provider: string) {
    this.emitter = new Emitter(provider)
    this.reasoning = new Reasoning(this.emitter)
    this.usages = new UsageSnapshots(this.emitter)
  }

  // --- one event -------------------------------------------------------------------------------

  push(event: Sse.Event, out: Out): void {
    const emitter = this.emitter
    if (emitter.ended) return
    const data = event.data
    // `[DONE]`, which gateways add after `message-end`, says nothing `message-end` did not.
    if (data === "" || data === "[DONE]") return
    let parsed: unknown
    try {
      parsed = JSON.parse(data)
    } catch {
      // An `event: error` in plain text (a proxy's) is an error; broken JSON is a malformed stream.
      const plain = event.event === "error" && !/^\s*[[{]/.test(data)
      return emitter.fail(
        out,
        plain ? Errors.fromBody(undefined, data, this.provider) : protocolError(this.provider, data)
      )
    }
    if (!Guards.isObject<Events.StreamEvent>(parsed)) return emitter.fail(out, protocolError(this.provider, data))
    const type = typeof parsed.type === "string" ? parsed.type : event.event
    const d = Guards.isObject<Events.Delta>(parsed.delta) ? parsed.delta : undefined
    const m = Guards.isObject<Events.DeltaMessage>(d?.message) ? d.message : undefined
    switch (type) {
      case "message-start": {
        const id = Guards.isNonEmptyString(parsed.id) ? parsed.id : undefined
        if (id !== undefined && this.assembler.idPrefix === undefined) this.assembler.idPrefix = id
        return emitter.announce(out, undefined, id)
      }
      case "content-start":
        if (Guards.isObject<Events.ContentFields>(m?.content)) this.contentStart(out, m.content)
        return
      case "content-delta":
        if (Guards.isObject<Events.ContentFields>(m?.content)) this.contentDelta(out, m.content)
        return
      case "content-end":
        return this.reasoning.close(out)
      case "tool-plan-delta":
        return this.text(out, m?.tool_plan)
      case "tool-call-start": {
        const t = oneCall(m?.tool_calls)
        if (t !== undefined) this.toolStart(out, parsed.index, t)
        return
      }
      case "tool-call-delta": {
        const t = oneCall(m?.tool_calls)
        if (t !== undefined) this.toolDelta(out, parsed.index, t)
        return
      }
      case "tool-call-end":
        return this.toolEnd(out, parsed.index)
      case "citation-start":
        return this.citation(out, m?.citations)
      case "message-end":
        return this.messageEnd(out, d, parsed.usage)
      case "error":
        return emitter.fail(out, Errors.fromBody(undefined, parsed, this.provider))
      default:
        // An error body in-band (no type, a message); else `debug`, `citation-end` and events newer
        // than this decoder: skipped, never fatal.
        if (event.event === "error" || (parsed.type === undefined && typeof parsed.message === "string")) {
          return emitter.fail(out, Errors.fromBody(undefined, parsed, this.provider))
        }
    }
  }

  /**
   * The finish comes only with `message-end`; without it the response is truncated, and
   * `StreamChunk.ensureTerminal` says so.
   */
  end(_out: Out): void {}

  // --- content ---------------------------------------------------------------------------------

  /** Any output but reasoning closes the reasoning run in progress, then goes out. */
  private content(out: Out, chunk: StreamChunk.StreamChunk): void {
    this.reasoning.close(out)
    this.emitter.emit(out, chunk)
  }

  private text(out: Out, delta: unknown): void {
    if (Guards.isNonEmptyString(delta)) this.content(out, StreamChunk.textDelta(delta))
  }

  private thinking(out: Out, delta: unknown): void {
    if (Guards.isNonEmptyString(delta)) this.reasoning.delta(out, delta)
  }

  private contentStart(out: Out, c: Guards.Unchecked<Events.ContentFields>): void {
    // One run per thinking block: a block whose end never came is not merged into the next.
    if (c.type === "thinking") this.reasoning.close(out)
    this.thinking(out, c.thinking)
    this.text(out, c.text)
  }

  private contentDelta(out: Out, c: Guards.Unchecked<Events.ContentFields>): void {
    // The field decides, whatever block the index names: nothing that arrives is dropped.
    this.thinking(out, c.thinking)
    this.text(out, c.text)
  }

  // --- tool calls ------------------------------------------------------------------------------

  private fragment(out: Out, entry: Call, args: unknown): void {
    if (!Guards.isNonEmptyString(args)) return
    const assembler = this.assembler
    assembler.add(entry.call, args)
    if (entry.announced) return this.content(out, StreamChunk.toolCallDelta(entry.call, args))
    entry.announced = true
    this.content(
      out,
      StreamChunk.toolCallDelta(entry.call, args, { id: entry.id, name: assembler.nameOf(entry.call) })
    )
  }

  /** The call at a wire index, started now (id synthesized, no name) when its start never came. */
  private callAt(index: number, id?: unknown, name?: unknown): Call {
    const existing = this.calls.get(index)
    if (existing !== undefined) return existing
    const assembler = this.assembler
    const call = this.callCount++
    const entry: Call = {
      call,
      id: Guards.isNonEmptyString(id) ? id : ToolCall.synthesizeId(call, assembler.idPrefix),
      announced: false,
      started: false
    }
    assembler.add(call, "", entry.id, Guards.isNonEmptyString(name) ? name : undefined)
    this.calls.set(index, entry)
    return entry
  }

  private toolStart(out: Out, index: unknown, t: Guards.Unchecked<Events.ToolCallFields>): void {
    if (!ToolCall.isIndex(index)) return
    const f = Guards.isObject<{ name: string; arguments: string }>(t.function) ? t.function : undefined
    const open = this.calls.get(index)
    if (open !== undefined && !open.started) {
      // The start of a call whose fragments came first: one call, its id (already sent) kept, its name taken.
      open.started = true
      if (Guards.isNonEmptyString(f?.name)) this.assembler.add(open.call, "", undefined, f.name)
      return this.fragment(out, open, f?.arguments)
    }
    // A second start at an open index ends the first: its arguments are kept, never merged.
    if (open !== undefined) this.toolEnd(out, index)
    const entry = this.callAt(index, t.id, f?.name)
    entry.started = true
    this.fragment(out, entry, f?.arguments)
  }

  private toolDelta(out: Out, index: unknown, t: Guards.Unchecked<Events.ToolCallFields>): void {
    if (!ToolCall.isIndex(index)) return
    const f = Guards.isObject<{ name: string; arguments: string }>(t.function) ? t.function : undefined
    this.fragment(out, this.callAt(index, t.id, f?.name), f?.arguments)
  }

  private toolEnd(out: Out, index: unknown): void {
    if (!ToolCall.isIndex(index)) return
    const entry = this.calls.get(index)
    if (entry === undefined) return
    this.calls.delete(index)
    const call = this.assembler.finish(entry.call)
    if (call !== undefined) this.content(out, StreamChunk.toolCall(call))
  }

  // --- citations -------------------------------------------------------------------------------

  private citation(out: Out, c: unknown): void {
    if (!Guards.isObject<Events.CitationFields>(c) || !Guards.isArray(c.sources)) return
    const span: Record<string, unknown> = {}
    if (Guards.count(c.start) !== undefined) span.start = c.start
    if (Guards.count(c.end) !== undefined) span.end = c.end
    if (typeof c.text === "string") span.text = c.text
    if (Guards.isNonEmptyString(c.type)) span.type = c.type
    if (Guards.count(c.content_index) !== undefined) span.contentIndex = c.content_index
    for (const s of c.sources) {
      if (!Guards.isObject<Events.SourceFields>(s)) continue
      const doc = Guards.isObject<{ title: string; url: string }>(s.document) ? s.document : undefined
      const withSource = { ...span, source: s }
      const part: ContentPart.ContentPart = {
        type: "source",
        sourceType: "document",
        ...(Guards.isNonEmptyString(s.id) ? { id: s.id } : {}),
        ...(Guards.isNonEmptyString(doc?.url) ? { url: doc.url } : {}),
        ...(Guards.isNonEmptyString(doc?.title) ? { title: doc.title } : {}),
        // The source as sent is kept only when it always serializes (depth, finite numbers).
        providerMetadata: Json.check(withSource) === undefined ? withSource : span
      }
      this.content(out, StreamChunk.contentPart(part))
    }
  }

  // --- the end ---------------------------------------------------------------------------------

  private messageEnd(out: Out, d: Guards.Unchecked<Events.Delta> | undefined, topUsage: unknown): void {
    // Calls the server never ended are ended now, in order, so no argument is lost.
    for (const index of [...this.calls.keys()]) this.toolEnd(out, index)
    this.reasoning.close(out)
    // The usage belongs under `delta`; some hosts put it beside it.
    const u = d?.usage !== undefined ? d.usage : topUsage
    if (Guards.isObject<Events.Usage>(u)) this.usage(out, u)
    const raw = Guards.isNonEmptyString(d?.finish_reason) ? d.finish_reason : undefined
    const upper = raw?.toUpperCase()
    if (upper === "ERROR" || upper === "TIMEOUT") {
      const said = Guards.isNonEmptyString(d?.error) ? `: ${d.error}` : ""
      return this.emitter.fail(
        out,
        LlmError.info({
          code: upper === "ERROR" ? "server" : "timeout",
          message: `Cohere ended the response with finish_reason ${raw}${said}`,
          provider: this.provider,
          details: { finish_reason: raw }
        })
      )
    }
    const reason = StreamChunk.normalizeFinishReason(raw)
    this.emitter.finish(out, reason === "stop" && this.callCount > 0 ? "tool_calls" : reason, raw)
  }

  private usage(out: Out, u: Guards.Unchecked<Events.Usage>): void {
    const counts = Guards.isObject<Events.TokenCounts>(u.tokens)
      ? u.tokens
      : Guards.isObject<Events.TokenCounts>(u.billed_units)
      ? u.billed_units
      : undefined
    const input = Guards.count(counts?.input_tokens)
    const output = Guards.count(counts?.output_tokens)
    const cached = Guards.count(u.cached_tokens)
    if (input === undefined && output === undefined && cached === undefined) return
    this.usages.push(out, Usage.normalize({ input, output, cacheRead: cached }), u)
    this.usages.cache(out)
  }
}
