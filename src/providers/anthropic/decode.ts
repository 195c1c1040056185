/**
 * The Anthropic Messages stream decoder: SSE events in, `StreamChunk`s out. One pure, synchronous
 * state machine; one `JSON.parse` per event, guards on the fields it reads.
 *
 * What it emits, in order: at `message_start`, `metadata` (model and message id), the first `usage`
 * and, when the start already reports them, `cache-read` / `cache-write`. Then per content block:
 * text deltas; reasoning deltas closed by a `reasoning` chunk carrying the block's signature at its
 * `content_block_stop` (`redacted_thinking` arrives whole and is one `reasoning` chunk with the
 * opaque data in `redacted`); tool-call deltas, then the `tool-call` at the block's stop (arguments
 * joined and parsed once; none → `{}`); server tools (`server_tool_use`, `mcp_tool_use`) as a
 * `provider-tool` call part at their stop, their results (`*_tool_result`) as a `provider-tool`
 * result part when they start; citations as `source` parts. `message_delta` brings the stop reason,
 * a `refusal` part when `stop_details` explains a refusal, and the cumulative usage (a new snapshot
 * only when a count changed; a cache count that changed is reported again). `message_stop` is the
 * end marker: the `finish` comes only with it, so a stream cut anywhere before it ends in
 * `truncated` (added by `StreamChunk.ensureTerminal`). `ping` and unknown events or blocks are skipped.
 *
 * The JSON answer. The tool `json_response` (added by the request encoder for `responseFormat`) is
 * the answer, not a call: its input streams as `text-delta`s (an input sent whole at its start, with
 * no deltas, is one delta), it emits no tool-call chunk, and its `tool_use` stop is a plain `stop`
 * (the raw reason kept) unless the model also called a tool of the caller's.
 *
 * Two messages in one stream. A proxy that retries upstream can splice a second `message_start`
 * into a response before its `message_stop` (the `duplicate-message-start` and
 * `spliced-message-start` recordings). The rule:
 * - the same `message_start` again (same id) before any content block: a repeat, ignored but for
 *   its usage, which is merged like any snapshot;
 * - anything else (another id, or the same id once blocks have started): the message in progress
 *   was cut off. The stream ends there with an `error` of code `truncated` naming both message ids
 *   (`details: { responseId, nextResponseId }`). What the first message emitted stays as it was
 *   (a tool call left half-way is finalized by `Response` with its raw arguments and a parse
 *   error, never dropped), and nothing of the second message is mixed into it. The error is
 *   retryable only while no content went out, so the transport then simply retries.
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
import * as Events from "./events.js"

/** One open content block, by the wire `index` it was started with. */
type Block =
  | { readonly kind: "text" }
  | { readonly kind: "thinking" }
  | {
    readonly kind: "tool"
    readonly call: number
    readonly id: string
    readonly input: unknown
    announced: boolean
    fragments: number
  }
  | {
    readonly kind: "server"
    readonly id: string
    readonly name: string
    readonly input: unknown
    readonly parts: Array<string>
    readonly serverName: string | undefined
  }
  /** The request's JSON response tool: its input is the answer, streamed as text. */
  | { readonly kind: "json"; readonly input: unknown; fragments: number }
  | { readonly kind: "other" }

/** The counts of the current message, last value per field (a later 0 never erases a count). */
interface Counts {
  input?: number
  output?: number
  cacheRead?: number
  cacheWrite?: number
  thinking?: number
}

/**
 * Creates a decoder for one response; `provider` names the host in chunks and errors, `jsonToolName`
 * the tool whose input is the answer (default {@link Events.jsonToolName}, the one the encoder adds).
 */
export const make = (options: {
  readonly provider: string
  readonly jsonToolName?: string | undefined
}): ChunkDecoder<Sse.Event> => new Decoder(options.provider, options.jsonToolName ?? Events.jsonToolName)

/** One response's state machine: a class, as every decoder is (see {@link ChunkDecoder}). */
class Decoder implements ChunkDecoder<Sse.Event> {
  // Metadata first and nothing after the terminal chunk; reasoning runs; repeated usage dropped.
  private readonly emitter: Emitter
  private readonly reasoning: Reasoning
  private readonly usages: UsageSnapshots
  /** A content chunk went out (a splice is then no longer retryable). */
  private contentSent = false

  private messageId: string | undefined = undefined
  /** A message_start was read. */
  private started = false
  /** A content block of the current message started. */
  private blocksStarted = false

  private readonly blocks = new Map<number, Block>()
  private readonly assembler = new ToolCall.Assembler()
  private callCount = 0
  /** Whether the JSON response tool answered (its `tool_use` stop is then a plain stop). */
  private jsonAnswered = false
  /** Server tool names by call id, to name their results. */
  private readonly serverCalls = new Map<string, string>()

  private rawStop: string | undefined = undefined
  private readonly counts: Counts = {}
  private rawUsage: Record<string, unknown> | undefined = undefined
  private sentCacheRead = 0
  private sentCacheWrite = 0

  constructor(private readonly provider: string, private readonly jsonToolName: string) {
    this.emitter = new Emitter(provider)
    this.reasoning = new Reasoning(this.emitter)
    this.usages = new UsageSnapshots(this.emitter)
  }

  // --- one event -------------------------------------------------------------------------------

  push(event: Sse.Event, out: Out): void {
    if (this.emitter.ended) return
    const data = event.data
    if (data === "") return
    let parsed: unknown
    try {
      parsed = JSON.parse(data)
    } catch {
      // An `event: error` in plain text (a proxy's) is an error; broken JSON is a malformed stream.
      const text = event.event === "error" && !/^\s*[[{]/.test(data)
      return this.emitter.fail(
        out,
        text ? Errors.fromBody(undefined, data, this.provider) : protocolError(this.provider, data)
      )
    }
    if (!Guards.isObject<Events.StreamEvent>(parsed)) return this.emitter.fail(out, protocolError(this.provider, data))
    const type = typeof parsed.type === "string" ? parsed.type : event.event
    switch (type) {
      case "message_start":
        if (Guards.isObject<Events.MessageStart>(parsed.message)) this.messageStart(out, parsed.message)
        return
      case "content_block_start":
        if (Guards.isObject<Events.ContentBlockFields>(parsed.content_block)) {
          this.blockStart(out, parsed.index, parsed.content_block)
        }
        return
      case "content_block_delta":
        if (Guards.isObject<Events.DeltaFields>(parsed.delta)) this.blockDelta(out, parsed.index, parsed.delta)
        return
      case "content_block_stop":
        return this.blockStop(out, parsed.index)
      case "message_delta":
        return this.messageDelta(out, parsed)
      case "message_stop":
        return this.messageStop(out)
      case "error":
        return this.emitter.fail(out, Errors.fromBody(undefined, parsed, this.provider))
      default:
        // `ping`, and events newer than this decoder: skipped, never fatal.
        if (event.event === "error") return this.emitter.fail(out, Errors.fromBody(undefined, parsed, this.provider))
    }
  }

  /**
   * The finish comes only with `message_stop`; without it the response is truncated, and
   * `StreamChunk.ensureTerminal` says so.
   */
  end(_out: Out): void {}

  /** Every content chunk goes out here: after one, a retry would show a second beginning. */
  private content(out: Out, chunk: StreamChunk.StreamChunk): void {
    this.contentSent = true
    this.emitter.emit(out, chunk)
  }

  // --- usage -----------------------------------------------------------------------------------

  private take(field: keyof Counts, value: unknown): void {
    const n = Guards.count(value)
    if (n !== undefined && (n !== 0 || this.counts[field] === undefined)) this.counts[field] = n
  }

  private usage(out: Out, u: Guards.Unchecked<Events.MessageUsage>): void {
    const counts = this.counts
    this.take("input", u.input_tokens)
    this.take("output", u.output_tokens)
    this.take("cacheRead", u.cache_read_input_tokens)
    this.take("cacheWrite", u.cache_creation_input_tokens)
    const details = Guards.isObject<{ thinking_tokens: number }>(u.output_tokens_details)
      ? u.output_tokens_details
      : undefined
    this.take("thinking", details?.thinking_tokens)
    // The provider's objects merged last-wins, so `raw` keeps every field any snapshot sent.
    const rawUsage = this.rawUsage === undefined ? { ...u } : { ...this.rawUsage, ...u }
    this.rawUsage = rawUsage
    const next = Usage.normalize({
      input: counts.input,
      output: counts.output,
      cacheRead: counts.cacheRead,
      cacheWrite: counts.cacheWrite,
      reasoning: counts.thinking,
      inputExcludesCache: true
    })
    this.usages.push(out, next, rawUsage)
    // Reported as soon as known; again only if a later snapshot changes the count.
    const read = next.cacheReadTokens ?? 0
    const write = next.cacheWriteTokens ?? 0
    if (read > 0 && read !== this.sentCacheRead) {
      this.emitter.emit(out, StreamChunk.cacheRead(this.sentCacheRead = read))
    }
    if (write > 0 && write !== this.sentCacheWrite) {
      this.emitter.emit(out, StreamChunk.cacheWrite(this.sentCacheWrite = write))
    }
  }

  // --- the message -----------------------------------------------------------------------------

  private messageStart(out: Out, m: Guards.Unchecked<Events.MessageStart>): void {
    const id = Guards.isNonEmptyString(m.id) ? m.id : undefined
    if (this.started) {
      if (id === this.messageId && !this.blocksStarted) {
        if (Guards.isObject<Events.MessageUsage>(m.usage)) this.usage(out, m.usage)
        return
      }
      const messageId = this.messageId
      return this.emitter.fail(
        out,
        LlmError.info({
          code: "truncated",
          message: `The response ${messageId ?? "(no id)"} was cut off: a second message_start (${
            id ?? "no id"
          }) arrived before its message_stop, as when a proxy splices two responses`,
          provider: this.provider,
          retryable: !this.contentSent,
          details: { responseId: messageId ?? null, nextResponseId: id ?? null }
        })
      )
    }
    this.started = true
    this.messageId = id
    if (id !== undefined) this.assembler.idPrefix = id
    this.emitter.announce(out, Guards.isNonEmptyString(m.model) ? m.model : undefined, id)
    if (Guards.isObject<Events.MessageUsage>(m.usage)) this.usage(out, m.usage)
  }

  private messageDelta(out: Out, e: Guards.Unchecked<Events.StreamEvent>): void {
    const d = Guards.isObject<Events.DeltaFields>(e.delta) ? e.delta : undefined
    if (Guards.isNonEmptyString(d?.stop_reason)) this.rawStop = d.stop_reason
    if (Guards.isObject<{ type: string; explanation: string }>(d?.stop_details) && d.stop_details.type === "refusal") {
      const part: { type: "refusal"; text: string; providerMetadata?: { readonly [key: string]: unknown } } = {
        type: "refusal",
        text: Guards.isNonEmptyString(d.stop_details.explanation) ? d.stop_details.explanation : ""
      }
      if (Json.check(d.stop_details) === undefined) part.providerMetadata = d.stop_details
      this.content(out, StreamChunk.contentPart(part))
    }
    if (Guards.isObject<Events.MessageUsage>(e.usage)) this.usage(out, e.usage)
  }

  private messageStop(out: Out): void {
    // Blocks the server never closed are closed now, so nothing that arrived is lost.
    for (const index of [...this.blocks.keys()]) this.blockStop(out, index)
    const reason = StreamChunk.normalizeFinishReason(this.rawStop)
    this.emitter.finish(
      out,
      reason === "tool_calls" && this.jsonAnswered && this.callCount === 0 ? "stop" : reason,
      this.rawStop
    )
  }

  // --- blocks ----------------------------------------------------------------------------------

  private blockStart(out: Out, index: unknown, b: Guards.Unchecked<Events.ContentBlockFields>): void {
    if (!ToolCall.isIndex(index)) return
    const blocks = this.blocks
    // A second start at an open index closes the first: its content is kept, never merged.
    if (blocks.has(index)) this.blockStop(out, index)
    this.blocksStarted = true
    const type = typeof b.type === "string" ? b.type : ""
    switch (type) {
      case "text":
        blocks.set(index, { kind: "text" })
        if (Guards.isNonEmptyString(b.text)) this.content(out, StreamChunk.textDelta(b.text))
        if (Guards.isArray(b.citations)) { for (const c of b.citations) this.citation(out, c) }
        return
      case "thinking":
        // One run per block: a block never closed is not merged into the next.
        this.closeReasoning(out)
        blocks.set(index, { kind: "thinking" })
        this.reasoning.open()
        if (Guards.isNonEmptyString(b.thinking)) this.thinking(out, b.thinking)
        if (Guards.isNonEmptyString(b.signature)) this.reasoning.sign(b.signature)
        return
      case "redacted_thinking":
        // Arrives whole, and is one block of its own to send back unchanged.
        blocks.set(index, { kind: "other" })
        if (typeof b.data === "string") {
          this.closeReasoning(out)
          this.reasoning.redact(out, b.data)
          this.closeReasoning(out)
        }
        return
      case "tool_use": {
        if (b.name === this.jsonToolName) {
          this.jsonAnswered = true
          return void blocks.set(index, { kind: "json", input: b.input, fragments: 0 })
        }
        const call = this.callCount++
        const assembler = this.assembler
        const id = Guards.isNonEmptyString(b.id) ? b.id : ToolCall.synthesizeId(call, assembler.idPrefix)
        assembler.add(call, "", id, Guards.isNonEmptyString(b.name) ? b.name : undefined)
        blocks.set(index, { kind: "tool", call, id, input: b.input, announced: false, fragments: 0 })
        return
      }
      case "server_tool_use":
      case "mcp_tool_use": {
        const id = Guards.isNonEmptyString(b.id) ? b.id : ""
        const name = Guards.isNonEmptyString(b.name) ? b.name : type
        this.serverCalls.set(id, name)
        blocks.set(index, {
          kind: "server",
          id,
          name,
          input: b.input,
          parts: [],
          serverName: Guards.isNonEmptyString(b.server_name) ? b.server_name : undefined
        })
        return
      }
      default:
        blocks.set(index, { kind: "other" })
        if (type.endsWith("_tool_result")) this.toolResult(out, type, b)
    }
  }

  private blockDelta(out: Out, index: unknown, d: Guards.Unchecked<Events.DeltaFields>): void {
    const block = ToolCall.isIndex(index) ? this.blocks.get(index) : undefined
    switch (d.type) {
      case "text_delta":
        // A text delta is text whatever block it names (or none): dropping it would lose the answer.
        if (Guards.isNonEmptyString(d.text) && (block === undefined || block.kind === "text")) {
          this.content(out, StreamChunk.textDelta(d.text))
        }
        return
      case "thinking_delta":
        if (block?.kind === "thinking" && Guards.isNonEmptyString(d.thinking)) this.thinking(out, d.thinking)
        return
      case "signature_delta":
        if (block?.kind === "thinking" && Guards.isNonEmptyString(d.signature)) this.reasoning.sign(d.signature)
        return
      case "input_json_delta":
        if (typeof d.partial_json !== "string" || d.partial_json === "") return
        if (block?.kind === "tool") this.toolFragment(out, block, d.partial_json)
        else if (block?.kind === "json") {
          block.fragments++
          this.content(out, StreamChunk.textDelta(d.partial_json))
        } else if (block?.kind === "server") block.parts.push(d.partial_json)
        return
      case "citations_delta":
        this.citation(out, d.citation)
        return
    }
  }

  private blockStop(out: Out, index: unknown): void {
    if (!ToolCall.isIndex(index)) return
    const block = this.blocks.get(index)
    if (block === undefined) return
    this.blocks.delete(index)
    switch (block.kind) {
      case "thinking":
        return this.closeReasoning(out)
      case "tool": {
        // Input sent whole at the start, with no deltas (some proxies do): it is the arguments.
        if (block.fragments === 0 && Guards.isObject(block.input) && Object.keys(block.input).length > 0) {
          this.toolFragment(out, block, Json.stringify(block.input))
        }
        const call = this.assembler.finish(block.call)
        if (call !== undefined) this.content(out, StreamChunk.toolCall(call))
        return
      }
      case "server":
        return this.serverCall(out, block)
      case "json":
        // Input sent whole at the start, with no deltas: it is the answer.
        if (block.fragments === 0 && Guards.isObject(block.input) && Object.keys(block.input).length > 0) {
          this.content(out, StreamChunk.textDelta(Json.stringify(block.input)))
        }
        return
    }
  }

  // --- content ---------------------------------------------------------------------------------

  private thinking(out: Out, delta: string): void {
    this.contentSent = true
    this.reasoning.delta(out, delta)
  }

  private closeReasoning(out: Out): void {
    if (!this.reasoning.isOpen) return
    this.contentSent = true
    this.reasoning.close(out)
  }

  private toolFragment(out: Out, block: Extract<Block, { kind: "tool" }>, fragment: string): void {
    block.fragments++
    this.assembler.add(block.call, fragment)
    if (block.announced) return this.content(out, StreamChunk.toolCallDelta(block.call, fragment))
    block.announced = true
    this.content(
      out,
      StreamChunk.toolCallDelta(block.call, fragment, { id: block.id, name: this.assembler.nameOf(block.call) })
    )
  }

  private serverCall(out: Out, block: Extract<Block, { kind: "server" }>): void {
    const raw = block.parts.join("")
    const input = raw === "" ? keep(block.input) ?? {} : ToolCall.decodeArguments(raw).arguments
    const part: ContentPart.ContentPart = {
      type: "provider-tool",
      kind: "call",
      id: block.id,
      name: block.name,
      input,
      ...(block.serverName !== undefined ? { providerMetadata: { serverName: block.serverName } } : {})
    }
    this.content(out, StreamChunk.contentPart(part))
  }

  private toolResult(out: Out, type: string, b: Guards.Unchecked<Events.ContentBlockFields>): void {
    const id = Guards.isNonEmptyString(b.tool_use_id) ? b.tool_use_id : ""
    const output = keep(b.content)
    const kind = Guards.isObject<{ type: string }>(b.content) && typeof b.content.type === "string"
      ? b.content.type
      : undefined
    // Server tools report failure as a `…_error` content type; MCP results say `is_error`.
    const isError = b.is_error === true || (kind !== undefined && kind.endsWith("_error"))
    const part: ContentPart.ContentPart = {
      type: "provider-tool",
      kind: "result",
      id,
      name: this.serverCalls.get(id) ?? type.slice(0, -"_tool_result".length),
      ...(output !== undefined ? { output } : {}),
      ...(isError ? { isError: true } : {})
    }
    this.content(out, StreamChunk.contentPart(part))
  }

  private citation(out: Out, c: unknown): void {
    if (!Guards.isObject<Events.CitationFields>(c)) return
    const metadata = Json.check(c) === undefined ? { providerMetadata: c } : {}
    if (c.type === "web_search_result_location" || c.type === "search_result_location") {
      const url = Guards.isNonEmptyString(c.url) ? c.url : Guards.isNonEmptyString(c.source) ? c.source : undefined
      const part: ContentPart.ContentPart = { type: "source", sourceType: "url", ...metadata }
      this.content(
        out,
        StreamChunk.contentPart(withTitle({ ...part, ...(url !== undefined ? { url } : {}) }, c.title))
      )
    } else {
      const part: ContentPart.ContentPart = { type: "source", sourceType: "document", ...metadata }
      this.content(out, StreamChunk.contentPart(withTitle(part, c.document_title)))
    }
  }
}

/** A value from the wire kept in a chunk only when it always serializes (depth, finite numbers). */
const keep = (value: unknown): unknown => (value !== undefined && Json.check(value) === undefined ? value : undefined)

const withTitle = (part: ContentPart.ContentPart, title: unknown): ContentPart.ContentPart =>
  Guards.isNonEmptyString(title) ? { ...part, title } as ContentPart.ContentPart : part
