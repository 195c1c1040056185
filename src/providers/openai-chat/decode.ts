/**
 * The Chat Completions stream decoder: SSE events in, `StreamChunk`s out. One pure, synchronous
 * state machine serves OpenAI and every OpenAI-compatible host; their quirks are handled where the
 * field is read, and each is named in a comment.
 *
 * Order of what it emits: `metadata` first; then text, reasoning and tool-call deltas as they come
 * (a `reasoning` chunk closes each reasoning run); finished `tool-call`s when `finish_reason`
 * arrives; `usage` whenever a chunk carries it. The finish itself waits for `[DONE]`, because usage
 * may still follow it; at `[DONE]` come sources, a refusal, `cache-read` / `cache-write`, `finish`.
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

/** Marks a piece of the deprecated `function_call`: a symbol, so no wire `index` can ever equal it. */
const functionCallSlot: unique symbol = Symbol("function_call")

/** What we know of one tool call while its pieces arrive. */
interface Call {
  /** Our index: the call's position among this response's calls, whatever the host numbered it. */
  readonly index: number
  id: string | undefined
  name: string | undefined
  /** Argument pieces that arrived before the name, emitted together once it comes. */
  held: Array<string> | undefined
  /** Whether the delta carrying `name` and `id` has been emitted. */
  announced: boolean
}

/** Creates a decoder for one response; `provider` names the host in chunks and errors. */
export const make = (options: { readonly provider: string }): ChunkDecoder<Sse.Event> => new Decoder(options.provider)

/** One response's state machine: a class, as every decoder is (see {@link ChunkDecoder}). */
class Decoder implements ChunkDecoder<Sse.Event> {
  // Metadata first and nothing after the terminal chunk; reasoning runs; repeated usage dropped.
  private readonly emitter: Emitter
  private readonly reasoning: Reasoning
  private readonly usages: UsageSnapshots

  private readonly assembler = new ToolCall.Assembler()
  private readonly callsByIndex = new Map<number, Call>()
  /** The deprecated `function_call` is one call of its own, in a slot no `tool_calls` index can reach. */
  private functionCall: Call | undefined = undefined
  /** The last call started from `tool_calls`: a piece with no index and no name continues it. */
  private lastListed: Call | undefined = undefined
  private callCount = 0
  private emittedToolCall = false

  private readonly refusal: Array<string> = []
  private citations: unknown = undefined
  private searchResults: unknown = undefined
  private rawFinish: string | undefined = undefined

  constructor(private readonly provider: string) {
    this.emitter = new Emitter(provider)
    this.reasoning = new Reasoning(this.emitter)
    this.usages = new UsageSnapshots(this.emitter)
  }

  // --- one event -------------------------------------------------------------------------------

  push(event: Sse.Event, out: Out): void {
    const emitter = this.emitter
    if (emitter.ended) return
    // Old llama.cpp builds send errors in a non-standard `error:` SSE field.
    if (event.error !== undefined) return emitter.fail(out, Errors.fromBody(undefined, event.error, this.provider))
    const data = event.data
    if (data === "") return
    if (Events.isDone(data)) return this.done(out)
    if (event.event === "error") {
      // A JSON body cut short is a broken stream, not the provider's words (plain text is its words).
      const cut = /^\s*[[{]/.test(data) && Guards.parseObject(data) === undefined && !isJsonArray(data)
      return emitter.fail(
        out,
        cut ? protocolError(this.provider, data) : Errors.fromBody(undefined, data, this.provider)
      )
    }
    const parsed = Guards.parseObject<Events.ChatCompletionChunk>(data)
    if (parsed === undefined) return emitter.fail(out, protocolError(this.provider, data))
    this.announceFrom(out, parsed)
    // OpenAI, vLLM, llama.cpp, Groq and OpenRouter (with finish_reason "error") report in-band here.
    if (parsed.error !== undefined && parsed.error !== null) {
      return emitter.fail(out, Errors.fromBody(undefined, parsed, this.provider))
    }
    this.chunk(out, parsed)
  }

  /**
   * Everything owed is emitted at `[DONE]`; without it the response is truncated, and
   * `StreamChunk.ensureTerminal` says so: a held finish must not pass for a complete answer.
   */
  end(_out: Out): void {}

  private announceFrom(out: Out, c: Guards.Unchecked<Events.ChatCompletionChunk>): void {
    // Azure's first chunk has id "" and model "": wait for one that names them.
    if (this.emitter.announced || !(Guards.isNonEmptyString(c.model) || Guards.isNonEmptyString(c.id))) return
    if (Guards.isNonEmptyString(c.id)) this.assembler.idPrefix = c.id
    this.emitter.announce(
      out,
      Guards.isNonEmptyString(c.model) ? c.model : undefined,
      Guards.isNonEmptyString(c.id) ? c.id : undefined
    )
  }

  private chunk(out: Out, c: Guards.Unchecked<Events.ChatCompletionChunk>): void {
    // Perplexity repeats its full source lists on every chunk: the latest one is the answer's.
    if (c.citations !== undefined) this.citations = c.citations
    if (c.search_results !== undefined) this.searchResults = c.search_results
    if (Guards.isArray(c.choices)) {
      for (const choice of c.choices) {
        if (!Guards.isObject<Events.Choice>(choice)) continue
        // With `n > 1` the other choices are other answers; this stream reports the first.
        if (typeof choice.index === "number" && choice.index !== 0) continue
        if (Guards.isObject<Events.Delta>(choice.delta)) this.delta(out, choice.delta)
        if (Guards.isNonEmptyString(choice.finish_reason)) {
          this.rawFinish = choice.finish_reason
          // Mistral sends whole calls on this same chunk, so they were read above.
          this.reasoning.close(out)
          this.finishToolCalls(out)
          if (this.emitter.ended) return
        }
      }
    }
    // Groq puts the same totals in `usage` and `x_groq.usage`: one snapshot, not two.
    const groq = Guards.isObject<{ usage: unknown }>(c.x_groq) ? c.x_groq : undefined
    const u = Guards.isObject<Events.ChatUsage>(c.usage)
      ? c.usage
      : Guards.isObject<Events.ChatUsage>(groq?.usage)
      ? groq.usage
      : undefined
    if (u !== undefined) this.usage(out, u)
  }

  // --- one delta -------------------------------------------------------------------------------

  private delta(out: Out, d: Guards.Unchecked<Events.Delta>): void {
    // One field of the two: vLLM has sent both names with the same text.
    const thought = Guards.isNonEmptyString(d.reasoning_content)
      ? d.reasoning_content
      : Guards.isNonEmptyString(d.reasoning)
      ? d.reasoning
      : undefined
    if (thought !== undefined) this.reasoning.delta(out, thought)
    if (Guards.isArray(d.reasoning_details)) this.reasoningDetails(out, d.reasoning_details, thought === undefined)
    const content = d.content
    if (typeof content === "string") {
      if (content !== "") this.text(out, content)
    } else if (Guards.isArray(content)) {
      for (const part of content) this.mistralPart(out, part)
    }
    if (Guards.isNonEmptyString(d.refusal)) {
      this.reasoning.close(out)
      this.refusal.push(d.refusal)
    }
    if (Guards.isArray(d.tool_calls)) {
      for (const piece of d.tool_calls) {
        if (Guards.isObject<Events.ToolCallFragment>(piece)) this.toolPiece(out, piece.index, piece.id, piece.function)
      }
    }
    if (Guards.isObject(d.function_call)) this.toolPiece(out, functionCallSlot, undefined, d.function_call)
  }

  // --- reasoning -------------------------------------------------------------------------------

  /** OpenRouter's structured reasoning; its text duplicates `delta.reasoning` when both are sent. */
  private reasoningDetails(out: Out, details: ReadonlyArray<unknown>, takeText: boolean): void {
    const reasoning = this.reasoning
    for (const detail of details) {
      if (!Guards.isObject<Events.ReasoningDetailFields>(detail)) continue
      if (detail.type === "reasoning.text") {
        if (takeText && Guards.isNonEmptyString(detail.text)) reasoning.delta(out, detail.text)
        if (Guards.isNonEmptyString(detail.signature)) reasoning.sign(detail.signature)
      } else if (detail.type === "reasoning.summary") {
        if (takeText && Guards.isNonEmptyString(detail.summary)) reasoning.delta(out, detail.summary)
      } else if (detail.type === "reasoning.encrypted" && Guards.isNonEmptyString(detail.data)) {
        // Each encrypted block must go back verbatim (the kit closes a run already holding one).
        reasoning.redact(out, detail.data)
      }
    }
  }

  // --- text ------------------------------------------------------------------------------------

  private text(out: Out, delta: string): void {
    this.reasoning.close(out)
    this.emitter.emit(out, StreamChunk.textDelta(delta))
  }

  /** Magistral streams `content` as typed parts: answer text, or thinking wrapping text parts. */
  private mistralPart(out: Out, part: unknown): void {
    if (!Guards.isObject<Events.MistralContentPartFields>(part)) return
    if (part.type === "text") {
      if (Guards.isNonEmptyString(part.text)) this.text(out, part.text)
    } else if (part.type === "thinking") {
      if (Guards.isNonEmptyString(part.thinking)) this.reasoning.delta(out, part.thinking)
      else if (Guards.isArray(part.thinking)) {
        for (const inner of part.thinking) {
          if (Guards.isObject<{ text: string }>(inner) && Guards.isNonEmptyString(inner.text)) {
            this.reasoning.delta(out, inner.text)
          }
        }
      }
    }
  }

  // --- tool calls ------------------------------------------------------------------------------

  private newCall(): Call {
    return { index: this.callCount++, id: undefined, name: undefined, held: undefined, announced: false }
  }

  /**
   * Finds the `tool_calls` call a piece belongs to; the host's `index` is only a key, never our index.
   * Only a non-negative safe integer is an index: anything else (-1, 0.5, 2^53, 1e308, "0") is read
   * as no index, so hostile numbering can neither merge two calls nor reach the `function_call` slot.
   */
  private callFor(index: unknown, id: string | undefined, name: string | undefined): Call {
    if (ToolCall.isIndex(index)) {
      const known = this.callsByIndex.get(index)
      // A new id under a known index is a new call (hosts that send whole calls may reuse an index).
      if (known !== undefined && (id === undefined || known.id === undefined || known.id === id)) return known
      const call = this.newCall()
      this.callsByIndex.set(index, call)
      return (this.lastListed = call)
    }
    // Mistral sends whole calls without `index`: each piece that names itself starts a new call.
    if (this.lastListed !== undefined && id === undefined && name === undefined) return this.lastListed
    return (this.lastListed = this.newCall())
  }

  /** One piece of a call: from `tool_calls` with the host's `index`, or the legacy `function_call`. */
  private toolPiece(out: Out, index: unknown, rawId: unknown, fn: unknown): void {
    this.reasoning.close(out)
    const f = Guards.isObject<Events.FunctionFragment>(fn) ? fn : undefined
    const id = Guards.isNonEmptyString(rawId) ? rawId : undefined
    // Mistral continuation pieces carry `"name":""`: an empty name never renames a call.
    const name = Guards.isNonEmptyString(f?.name) ? f.name : undefined
    const args = typeof f?.arguments === "string"
      ? f.arguments
      : Guards.isObject(f?.arguments)
      // A few servers send whole calls with object arguments. Written back without recursion: a deep
      // object would overflow JSON.stringify; as text it ends as `{ raw }` with a parse error.
      ? Json.stringify(f.arguments)
      : ""
    const call = index === functionCallSlot ? (this.functionCall ??= this.newCall()) : this.callFor(index, id, name)
    if (call.id === undefined) call.id = id
    if (call.name === undefined) call.name = name
    const assembler = this.assembler
    assembler.add(call.index, args, id, name)
    if (call.name === undefined) {
      if (args !== "") (call.held ??= []).push(args)
      return
    }
    if (!call.announced) {
      const first = call.held === undefined ? args : call.held.join("") + args
      if (first === "") return
      call.held = undefined
      call.announced = true
      // A call the host gave no id gets its stable one now, so the delta and the call agree.
      if (call.id === undefined) {
        call.id = ToolCall.synthesizeId(call.index, assembler.idPrefix)
        assembler.add(call.index, "", call.id)
      }
      this.emitter.emit(out, StreamChunk.toolCallDelta(call.index, first, { id: call.id, name: call.name }))
    } else if (args !== "") {
      this.emitter.emit(out, StreamChunk.toolCallDelta(call.index, args))
    }
  }

  private finishToolCalls(out: Out): void {
    for (const call of this.assembler.finishAll()) {
      // A call is nothing without a name: say so, keeping what arrived, rather than invent one.
      if (call.name === "") {
        return this.emitter.fail(
          out,
          LlmError.info({
            code: "protocol",
            message: "A tool call ended without a name",
            provider: this.provider,
            details: { index: call.index, id: call.id, rawArguments: call.rawArguments }
          })
        )
      }
      this.emittedToolCall = true
      this.emitter.emit(out, StreamChunk.toolCall(call))
    }
  }

  // --- usage -----------------------------------------------------------------------------------

  private usage(out: Out, u: Guards.Unchecked<Events.ChatUsage>): void {
    const prompt = Guards.isObject<{ cached_tokens: number; cache_write_tokens: number }>(u.prompt_tokens_details)
      ? u.prompt_tokens_details
      : undefined
    const completion = Guards.isObject<{ reasoning_tokens: number }>(u.completion_tokens_details)
      ? u.completion_tokens_details
      : undefined
    // Counts that are not safe non-negative integers (strings, -1, 0.5, 1e308) are absent: Usage.count.
    const input = Guards.count(u.prompt_tokens)
    const output = Guards.count(u.completion_tokens)
    const total = Guards.count(u.total_tokens)
    const reasoning = Guards.count(completion?.reasoning_tokens)
    // xAI leaves reasoning out of completion_tokens and says so only through the sum.
    const outputExcludesReasoning = Usage.reasoningOutsideOutput(input, output, reasoning, total)
    const next = Usage.normalize({
      input,
      output,
      total,
      cacheRead: Guards.count(u.prompt_cache_hit_tokens) ?? Guards.count(prompt?.cached_tokens), // DeepSeek first
      cacheWrite: Guards.count(prompt?.cache_write_tokens),
      reasoning,
      outputExcludesReasoning
    })
    // Perplexity repeats its running totals on every chunk, unchanged at the end: the kit drops repeats.
    this.usages.push(out, next, u)
  }

  // --- the end ---------------------------------------------------------------------------------

  /** Perplexity's sources, each URL once: titled search results first, then bare citations. */
  private sources(out: Out): void {
    const seen = new Set<string>()
    const source = (url: unknown, title: unknown): void => {
      if (!Guards.isNonEmptyString(url) || seen.has(url)) return
      seen.add(url)
      const part: { type: "source"; sourceType: "url"; url: string; title?: string } = {
        type: "source",
        sourceType: "url",
        url
      }
      if (Guards.isNonEmptyString(title)) part.title = title
      this.emitter.emit(out, StreamChunk.contentPart(part))
    }
    if (Guards.isArray(this.searchResults)) {
      for (const r of this.searchResults) if (Guards.isObject<Events.SearchResult>(r)) source(r.url, r.title)
    }
    if (Guards.isArray(this.citations)) { for (const url of this.citations) source(url, undefined) }
  }

  private done(out: Out): void {
    const emitter = this.emitter
    this.reasoning.close(out)
    this.finishToolCalls(out)
    if (emitter.ended) return
    this.sources(out)
    const refusal = this.refusal
    if (refusal.length > 0) {
      const part: ContentPart.ContentPart = { type: "refusal", text: refusal.join("") }
      emitter.emit(out, StreamChunk.contentPart(part))
    }
    this.usages.cache(out)
    // Some hosts end a failed generation with a finish reason instead of an error body.
    const rawFinish = this.rawFinish
    const failedCode = rawFinish === undefined ? undefined : failedFinish.get(rawFinish.toLowerCase())
    if (failedCode !== undefined) {
      return emitter.fail(
        out,
        LlmError.info({
          code: failedCode,
          message: `The provider ended the response with finish_reason "${rawFinish}"`,
          provider: this.provider
        })
      )
    }
    const normalized = StreamChunk.normalizeFinishReason(rawFinish)
    // A refusal arrives with finish_reason "stop"; hosts like Ollama say "stop" after tool calls.
    const reason = refusal.length > 0
      ? "content_filter"
      : this.emittedToolCall && normalized === "stop"
      ? "tool_calls"
      : normalized
    emitter.finish(out, reason, rawFinish)
  }
}

/** Finish reasons that mean the generation failed (Mistral's bare "error", DeepSeek's overload). */
const failedFinish: ReadonlyMap<string, LlmError.ErrorCode> = new Map<string, LlmError.ErrorCode>([
  ["error", "server"],
  ["insufficient_system_resource", "overloaded"]
])

/** Whether a text is a JSON array (an error body may be one). */
const isJsonArray = (text: string): boolean => {
  try {
    return Array.isArray(JSON.parse(text))
  } catch {
    return false
  }
}
