/**
 * The Ollama native chat decoder (`POST /api/chat`): NDJSON lines in, `StreamChunk`s out. One pure,
 * synchronous state machine; one `JSON.parse` per line, guards on the fields it reads.
 *
 * What it emits, in order:
 * - `metadata` at the first line, naming the model (Ollama gives no response id);
 * - per line, in the order the message's fields stream: `message.thinking` as reasoning deltas (one
 *   run, closed by a `reasoning` chunk as soon as content or a tool call begins, or at the end);
 *   `message.content` as text deltas; each entry of `message.tool_calls` — which arrive whole,
 *   arguments as an object — as one `tool-call-delta` holding the whole arguments
 *   (`JSON.stringify` of the object), then its `tool-call`. The call's id is the server's `id` when
 *   it sends one (recent servers), else `call_<digits of the stream's first created_at>_<n>`
 *   (unique across a conversation's turns, stable for a stream); its index is its position among
 *   this response's calls, whatever `function.index` says; `message.images` (image-generation
 *   models) as `image` parts;
 * - at `done: true`: `usage` (`prompt_eval_count` → input, `eval_count` → output; Ollama reports no
 *   cache or reasoning breakdown, and leaves a count out when it is zero; the metrics, durations in
 *   nanoseconds, are kept in `usage.raw`), then `finish`. `done_reason` is kept as the raw reason:
 *   `stop` is `stop`, or `tool_calls` when the response called a tool (Ollama says `stop` either
 *   way); `length` is `length`; `load` / `unload` (a request with no messages, which only loaded or
 *   unloaded the model) finish as `stop`: the request did what it asked, with no output.
 *
 * An error line (`{"error":"…"}`) ends the stream with an `error` chunk through `errors.ts`. A
 * line that is not a JSON object, or a tool call without a name, is a `protocol` error. Lines after
 * `done: true` are ignored. A body that ends without `done: true` appends nothing here, and
 * `StreamChunk.ensureTerminal` reports it `truncated`.
 *
 * @since 0.1.0
 */
import type { ChunkDecoder } from "../../internal/ChunkDecoder.js"
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

/** Creates a decoder for one response; `provider` names the host in chunks and errors. */
export const make = (options: { readonly provider: string }): ChunkDecoder<string> => new Decoder(options.provider)

/** One response's state machine: a class, as every decoder is (see {@link ChunkDecoder}). */
class Decoder implements ChunkDecoder<string> {
  // Metadata first and nothing after the terminal chunk; the thinking run; usage.
  private readonly emitter: Emitter
  private readonly reasoning: Reasoning
  private readonly usages: UsageSnapshots
  private calls = 0
  /** The digits of the stream's first `created_at`, naming its synthesized call ids (see {@link callId}). */
  private stamp: string | undefined = undefined
  private started = false

  constructor(private readonly provider: string) {
    this.emitter = new Emitter(provider)
    this.reasoning = new Reasoning(this.emitter)
    this.usages = new UsageSnapshots(this.emitter)
  }

  push(line: string, out: Out): void {
    const emitter = this.emitter
    if (emitter.ended) return
    const l = Guards.parseObject<Events.ChatLine>(line)
    if (l === undefined) return emitter.fail(out, protocolError(this.provider, line))
    emitter.announce(out, Guards.isNonEmptyString(l.model) ? l.model : undefined)
    if (!this.started) {
      this.started = true
      if (typeof l.created_at === "string") {
        this.stamp = l.created_at.replace(/\D/g, "").slice(0, maxStampDigits) || undefined
      }
    }
    if (l.error !== undefined && l.error !== null) {
      return emitter.fail(out, Errors.fromBody(undefined, l, this.provider))
    }
    if (Guards.isObject<Events.MessageFields>(l.message) && !this.message(out, l.message, line)) return
    if (l.done === true) this.done(out, l)
  }

  /**
   * The finish comes only with `done: true`; without it the response is truncated, and
   * `StreamChunk.ensureTerminal` says so.
   */
  end(_out: Out): void {}

  private toolCall(out: Out, entry: unknown, line: string): boolean {
    const call = Guards.isObject<Events.ToolCallFields>(entry) ? entry : undefined
    const fn = Guards.isObject<Events.FunctionFields>(call?.function) ? call.function : undefined
    if (fn === undefined || !Guards.isNonEmptyString(fn.name)) {
      this.emitter.fail(out, protocolError(this.provider, line, "The stream sent a tool call without a name"))
      return false
    }
    const index = this.calls++
    const id = Guards.isNonEmptyString(call?.id) ? call.id : callId(index, this.stamp)
    const rawArguments = argumentsText(fn.arguments)
    this.emitter.emit(out, StreamChunk.toolCallDelta(index, rawArguments, { id, name: fn.name }))
    this.emitter.emit(out, StreamChunk.toolCall(ToolCall.make({ index, id, name: fn.name, rawArguments })))
    return true
  }

  private message(out: Out, m: Guards.Unchecked<Events.MessageFields>, line: string): boolean {
    const reasoning = this.reasoning
    if (Guards.isNonEmptyString(m.thinking)) reasoning.delta(out, m.thinking)
    if (Guards.isNonEmptyString(m.content)) {
      reasoning.close(out)
      this.emitter.emit(out, StreamChunk.textDelta(m.content))
    }
    if (Guards.isArray(m.tool_calls) && m.tool_calls.length > 0) {
      reasoning.close(out)
      for (const entry of m.tool_calls) if (!this.toolCall(out, entry, line)) return false
    }
    if (Guards.isArray(m.images)) {
      for (const data of m.images) {
        if (!Guards.isNonEmptyString(data)) continue
        reasoning.close(out)
        const mediaType = imageType(data)
        this.emitter.emit(out, StreamChunk.contentPart({ type: "image", ...(mediaType ? { mediaType } : {}), data }))
      }
    }
    return true
  }

  private done(out: Out, l: Guards.Unchecked<Events.ChatLine>): void {
    this.reasoning.close(out)
    const input = Guards.count(l.prompt_eval_count)
    const output = Guards.count(l.eval_count)
    if (input !== undefined || output !== undefined) {
      const raw: Record<string, unknown> = {}
      for (const field of Events.metricFields) if (l[field] !== undefined) raw[field] = l[field]
      this.usages.push(out, Usage.normalize({ input, output }), raw)
    }
    const rawReason = Guards.isNonEmptyString(l.done_reason) ? l.done_reason : undefined
    const reason = StreamChunk.normalizeFinishReason(rawReason)
    this.emitter.finish(out, reason === "stop" && this.calls > 0 ? "tool_calls" : reason, rawReason)
  }
}

/** The most digits of `created_at` an id carries (RFC 3339 with nanoseconds has 23). */
const maxStampDigits = 32

/**
 * The id of a call the server sent none for: `call_<digits of the stream's first created_at>_<n>`.
 * Ollama numbers nothing across requests, so `call_<n>` alone would repeat in every turn of a
 * conversation (and hosts key results by id); the stamp makes it unique across turns, and it is the
 * same however the stream is split or replayed. `call_<n>` when the server sent no `created_at`.
 */
export const callId = (index: number, stamp: string | undefined): string =>
  stamp === undefined ? `call_${index}` : `call_${stamp}_${index}`

/** An image's media type from its first base64 characters (PNG, JPEG, GIF, WebP), when known. */
const imageType = (base64: string): string | undefined =>
  base64.startsWith("iVBORw0KGgo")
    ? "image/png"
    : base64.startsWith("/9j/")
    ? "image/jpeg"
    : base64.startsWith("R0lGOD")
    ? "image/gif"
    : base64.startsWith("UklGR")
    ? "image/webp"
    : undefined

/**
 * A call's arguments as JSON text: the object written back (`Json.stringify` survives any depth);
 * text a proxy sent as it is; none at all as `""` (which decodes to `{}`).
 */
const argumentsText = (args: unknown): string => {
  if (args === undefined || args === null) return ""
  if (typeof args === "string") return args
  return Json.stringify(args)
}
