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
import * as LlmError from "../../LlmError.js"
import * as StreamChunk from "../../StreamChunk.js"
import * as ToolCall from "../../ToolCall.js"
import * as Usage from "../../Usage.js"
import * as Errors from "./errors.js"
import * as Events from "./events.js"

type Out = Array<StreamChunk.StreamChunk>

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

/** Longest excerpt of a malformed event quoted in a `protocol` error. */
const maxQuoted = 200

/** Creates a decoder for one response; `provider` names the host in chunks and errors. */
export const make = (options: { readonly provider: string }): ChunkDecoder<Sse.Event> => {
  const provider = options.provider

  let ended = false // a terminal chunk went out: nothing more, ever
  let announced = false // the metadata chunk went out

  // Reasoning: everything so far (the protocol's `accumulated`), and the open run inside it.
  let reasoningSoFar = ""
  let runOpen = false
  let runStart = 0
  let runSignature: string | undefined
  let runRedacted: string | undefined

  const assembler = new ToolCall.Assembler()
  const callsByIndex = new Map<number, Call>()
  // The deprecated `function_call` is one call of its own, in a slot no `tool_calls` index can reach.
  let functionCall: Call | undefined
  // The last call started from `tool_calls`: a piece with no index and no name continues it.
  let lastListed: Call | undefined
  let callCount = 0
  let emittedToolCall = false

  const refusal: Array<string> = []
  let citations: unknown
  let searchResults: unknown
  let rawFinish: string | undefined
  let lastUsage: Usage.Usage | undefined

  /** Every chunk but the first `metadata` goes out here, so `metadata` is always first. */
  const emit = (out: Out, chunk: StreamChunk.StreamChunk): void => {
    if (!announced) {
      announced = true
      out.push(StreamChunk.metadata(provider))
    }
    out.push(chunk)
  }

  const fail = (out: Out, error: LlmError.ErrorInfo): void => {
    emit(out, StreamChunk.error(error))
    ended = true
  }

  // --- reasoning -------------------------------------------------------------------------------

  const openRun = (): void => {
    if (runOpen) return
    runOpen = true
    runStart = reasoningSoFar.length
  }

  const reasoningText = (out: Out, delta: string): void => {
    openRun()
    reasoningSoFar += delta
    emit(out, StreamChunk.reasoningDelta(delta, reasoningSoFar))
  }

  const closeReasoning = (out: Out): void => {
    if (!runOpen) return
    runOpen = false
    emit(
      out,
      StreamChunk.reasoning(reasoningSoFar.slice(runStart), { signature: runSignature, redacted: runRedacted })
    )
    runSignature = undefined
    runRedacted = undefined
  }

  /** OpenRouter's structured reasoning; its text duplicates `delta.reasoning` when both are sent. */
  const reasoningDetails = (out: Out, details: ReadonlyArray<unknown>, takeText: boolean): void => {
    for (const detail of details) {
      if (!Events.isObject<Events.ReasoningDetailFields>(detail)) continue
      if (detail.type === "reasoning.text") {
        if (takeText && Events.isNonEmptyString(detail.text)) reasoningText(out, detail.text)
        if (Events.isNonEmptyString(detail.signature)) {
          openRun()
          runSignature = detail.signature
        }
      } else if (detail.type === "reasoning.summary") {
        if (takeText && Events.isNonEmptyString(detail.summary)) reasoningText(out, detail.summary)
      } else if (detail.type === "reasoning.encrypted" && Events.isNonEmptyString(detail.data)) {
        // Each encrypted block must go back verbatim: a second one ends the run that holds the first.
        if (runRedacted !== undefined) closeReasoning(out)
        openRun()
        runRedacted = detail.data
      }
    }
  }

  // --- text ------------------------------------------------------------------------------------

  const text = (out: Out, delta: string): void => {
    closeReasoning(out)
    emit(out, StreamChunk.textDelta(delta))
  }

  /** Magistral streams `content` as typed parts: answer text, or thinking wrapping text parts. */
  const mistralPart = (out: Out, part: unknown): void => {
    if (!Events.isObject<Events.MistralContentPartFields>(part)) return
    if (part.type === "text") {
      if (Events.isNonEmptyString(part.text)) text(out, part.text)
    } else if (part.type === "thinking") {
      if (Events.isNonEmptyString(part.thinking)) reasoningText(out, part.thinking)
      else if (Events.isArray(part.thinking)) {
        for (const inner of part.thinking) {
          if (Events.isObject<{ text: string }>(inner) && Events.isNonEmptyString(inner.text)) {
            reasoningText(out, inner.text)
          }
        }
      }
    }
  }

  // --- tool calls ------------------------------------------------------------------------------

  const newCall = (): Call => ({
    index: callCount++,
    id: undefined,
    name: undefined,
    held: undefined,
    announced: false
  })

  /**
   * Finds the `tool_calls` call a piece belongs to; the host's `index` is only a key, never our index.
   * Only a non-negative safe integer is an index: anything else (-1, 0.5, 2^53, 1e308, "0") is read
   * as no index, so hostile numbering can neither merge two calls nor reach the `function_call` slot.
   */
  const callFor = (index: unknown, id: string | undefined, name: string | undefined): Call => {
    if (ToolCall.isIndex(index)) {
      const known = callsByIndex.get(index)
      // A new id under a known index is a new call (hosts that send whole calls may reuse an index).
      if (known !== undefined && (id === undefined || known.id === undefined || known.id === id)) return known
      const call = newCall()
      callsByIndex.set(index, call)
      return (lastListed = call)
    }
    // Mistral sends whole calls without `index`: each piece that names itself starts a new call.
    if (lastListed !== undefined && id === undefined && name === undefined) return lastListed
    return (lastListed = newCall())
  }

  /** One piece of a call: from `tool_calls` with the host's `index`, or the legacy `function_call`. */
  const toolPiece = (out: Out, index: unknown, rawId: unknown, fn: unknown): void => {
    closeReasoning(out)
    const f = Events.isObject<Events.FunctionFragment>(fn) ? fn : undefined
    const id = Events.isNonEmptyString(rawId) ? rawId : undefined
    // Mistral continuation pieces carry `"name":""`: an empty name never renames a call.
    const name = Events.isNonEmptyString(f?.name) ? f.name : undefined
    const args = typeof f?.arguments === "string"
      ? f.arguments
      : Events.isObject(f?.arguments)
      // A few servers send whole calls with object arguments. Written back without recursion: a deep
      // object would overflow JSON.stringify; as text it ends as `{ raw }` with a parse error.
      ? Json.stringify(f.arguments)
      : ""
    const call = index === functionCallSlot ? (functionCall ??= newCall()) : callFor(index, id, name)
    if (call.id === undefined) call.id = id
    if (call.name === undefined) call.name = name
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
      emit(out, StreamChunk.toolCallDelta(call.index, first, { id: call.id, name: call.name }))
    } else if (args !== "") {
      emit(out, StreamChunk.toolCallDelta(call.index, args))
    }
  }

  const finishToolCalls = (out: Out): void => {
    for (const call of assembler.finishAll()) {
      // A call is nothing without a name: say so, keeping what arrived, rather than invent one.
      if (call.name === "") {
        return fail(
          out,
          LlmError.info({
            code: "protocol",
            message: "A tool call ended without a name",
            provider,
            details: { index: call.index, id: call.id, rawArguments: call.rawArguments }
          })
        )
      }
      emittedToolCall = true
      emit(out, StreamChunk.toolCall(call))
    }
  }

  // --- one delta -------------------------------------------------------------------------------

  const delta = (out: Out, d: Events.Unchecked<Events.Delta>): void => {
    // One field of the two: vLLM has sent both names with the same text.
    const thought = Events.isNonEmptyString(d.reasoning_content)
      ? d.reasoning_content
      : Events.isNonEmptyString(d.reasoning)
      ? d.reasoning
      : undefined
    if (thought !== undefined) reasoningText(out, thought)
    if (Events.isArray(d.reasoning_details)) reasoningDetails(out, d.reasoning_details, thought === undefined)
    const content = d.content
    if (typeof content === "string") {
      if (content !== "") text(out, content)
    } else if (Events.isArray(content)) {
      for (const part of content) mistralPart(out, part)
    }
    if (Events.isNonEmptyString(d.refusal)) {
      closeReasoning(out)
      refusal.push(d.refusal)
    }
    if (Events.isArray(d.tool_calls)) {
      for (const piece of d.tool_calls) {
        if (Events.isObject<Events.ToolCallFragment>(piece)) toolPiece(out, piece.index, piece.id, piece.function)
      }
    }
    if (Events.isObject(d.function_call)) toolPiece(out, functionCallSlot, undefined, d.function_call)
  }

  // --- usage -----------------------------------------------------------------------------------

  const usage = (out: Out, u: Events.Unchecked<Events.ChatUsage>): void => {
    const prompt = Events.isObject<{ cached_tokens: number; cache_write_tokens: number }>(u.prompt_tokens_details)
      ? u.prompt_tokens_details
      : undefined
    const completion = Events.isObject<{ reasoning_tokens: number }>(u.completion_tokens_details)
      ? u.completion_tokens_details
      : undefined
    // Counts that are not safe non-negative integers (strings, -1, 0.5, 1e308) are absent: Usage.count.
    const input = Events.count(u.prompt_tokens)
    const output = Events.count(u.completion_tokens)
    const total = Events.count(u.total_tokens)
    const reasoning = Events.count(completion?.reasoning_tokens)
    // xAI leaves reasoning out of completion_tokens and says so only through the sum.
    const both = input !== undefined && output !== undefined ? Usage.addCounts(input, output) : undefined
    const outputExcludesReasoning = both !== undefined && reasoning !== undefined &&
      total === Usage.addCounts(both, reasoning) && total !== both
    const next = Usage.normalize({
      input,
      output,
      total,
      cacheRead: Events.count(u.prompt_cache_hit_tokens) ?? Events.count(prompt?.cached_tokens), // DeepSeek first
      cacheWrite: Events.count(prompt?.cache_write_tokens),
      reasoning,
      outputExcludesReasoning
    })
    // Perplexity repeats its running totals on every chunk, unchanged at the end.
    if (lastUsage !== undefined && sameCounts(lastUsage, next)) return
    // The provider's object is checked (depth, Infinity) only when a new snapshot keeps it.
    const raw = Usage.keepableRaw(u)
    lastUsage = raw === undefined ? next : { ...next, raw }
    emit(out, StreamChunk.usage(lastUsage))
  }

  // --- the end ---------------------------------------------------------------------------------

  /** Perplexity's sources, each URL once: titled search results first, then bare citations. */
  const sources = (out: Out): void => {
    const seen = new Set<string>()
    const source = (url: unknown, title: unknown): void => {
      if (!Events.isNonEmptyString(url) || seen.has(url)) return
      seen.add(url)
      const part: { type: "source"; sourceType: "url"; url: string; title?: string } = {
        type: "source",
        sourceType: "url",
        url
      }
      if (Events.isNonEmptyString(title)) part.title = title
      emit(out, StreamChunk.contentPart(part))
    }
    if (Events.isArray(searchResults)) {
      for (const r of searchResults) if (Events.isObject<Events.SearchResult>(r)) source(r.url, r.title)
    }
    if (Events.isArray(citations)) { for (const url of citations) source(url, undefined) }
  }

  const done = (out: Out): void => {
    closeReasoning(out)
    finishToolCalls(out)
    if (ended) return
    sources(out)
    if (refusal.length > 0) {
      const part: ContentPart.ContentPart = { type: "refusal", text: refusal.join("") }
      emit(out, StreamChunk.contentPart(part))
    }
    const cacheRead = lastUsage?.cacheReadTokens ?? 0
    const cacheWrite = lastUsage?.cacheWriteTokens ?? 0
    if (cacheRead > 0) emit(out, StreamChunk.cacheRead(cacheRead))
    if (cacheWrite > 0) emit(out, StreamChunk.cacheWrite(cacheWrite))
    // Some hosts end a failed generation with a finish reason instead of an error body.
    const failedCode = rawFinish === undefined ? undefined : failedFinish.get(rawFinish.toLowerCase())
    if (failedCode !== undefined) {
      return fail(
        out,
        LlmError.info({
          code: failedCode,
          message: `The provider ended the response with finish_reason "${rawFinish}"`,
          provider
        })
      )
    }
    const normalized = StreamChunk.normalizeFinishReason(rawFinish)
    // A refusal arrives with finish_reason "stop"; hosts like Ollama say "stop" after tool calls.
    const reason = refusal.length > 0
      ? "content_filter"
      : emittedToolCall && normalized === "stop"
      ? "tool_calls"
      : normalized
    emit(out, StreamChunk.finish(reason, rawFinish))
    ended = true
  }

  // --- one event -------------------------------------------------------------------------------

  const announceFrom = (out: Out, c: Events.Unchecked<Events.ChatCompletionChunk>): void => {
    // Azure's first chunk has id "" and model "": wait for one that names them.
    if (announced || !(Events.isNonEmptyString(c.model) || Events.isNonEmptyString(c.id))) return
    announced = true
    if (Events.isNonEmptyString(c.id)) assembler.idPrefix = c.id
    out.push(
      StreamChunk.metadata(
        provider,
        Events.isNonEmptyString(c.model) ? c.model : undefined,
        Events.isNonEmptyString(c.id) ? c.id : undefined
      )
    )
  }

  const chunk = (out: Out, c: Events.Unchecked<Events.ChatCompletionChunk>): void => {
    // Perplexity repeats its full source lists on every chunk: the latest one is the answer's.
    if (c.citations !== undefined) citations = c.citations
    if (c.search_results !== undefined) searchResults = c.search_results
    if (Events.isArray(c.choices)) {
      for (const choice of c.choices) {
        if (!Events.isObject<Events.Choice>(choice)) continue
        // With `n > 1` the other choices are other answers; this stream reports the first.
        if (typeof choice.index === "number" && choice.index !== 0) continue
        if (Events.isObject<Events.Delta>(choice.delta)) delta(out, choice.delta)
        if (Events.isNonEmptyString(choice.finish_reason)) {
          rawFinish = choice.finish_reason
          // Mistral sends whole calls on this same chunk, so they were read above.
          closeReasoning(out)
          finishToolCalls(out)
          if (ended) return
        }
      }
    }
    // Groq puts the same totals in `usage` and `x_groq.usage`: one snapshot, not two.
    const groq = Events.isObject<{ usage: unknown }>(c.x_groq) ? c.x_groq : undefined
    const u = Events.isObject<Events.ChatUsage>(c.usage)
      ? c.usage
      : Events.isObject<Events.ChatUsage>(groq?.usage)
      ? groq.usage
      : undefined
    if (u !== undefined) usage(out, u)
  }

  const push = (event: Sse.Event, out: Out): void => {
    if (ended) return
    // Old llama.cpp builds send errors in a non-standard `error:` SSE field.
    if (event.error !== undefined) return fail(out, Errors.fromBody(undefined, event.error, provider))
    const data = event.data
    if (data === "") return
    if (Events.isDone(data)) return done(out)
    if (event.event === "error") return fail(out, Errors.fromBody(undefined, data, provider))
    let parsed: unknown
    try {
      parsed = JSON.parse(data)
    } catch {
      return fail(out, protocolError(data, provider))
    }
    if (!Events.isObject<Events.ChatCompletionChunk>(parsed)) return fail(out, protocolError(data, provider))
    announceFrom(out, parsed)
    // OpenAI, vLLM, llama.cpp, Groq and OpenRouter (with finish_reason "error") report in-band here.
    if (parsed.error !== undefined && parsed.error !== null) {
      return fail(out, Errors.fromBody(undefined, parsed, provider))
    }
    chunk(out, parsed)
  }

  // Everything owed is emitted at `[DONE]`; without it the response is truncated, and
  // `StreamChunk.ensureTerminal` says so: a held finish must not pass for a complete answer.
  const end = (_out: Out): void => {}

  return { push, end }
}

/** Finish reasons that mean the generation failed (Mistral's bare "error", DeepSeek's overload). */
const failedFinish: ReadonlyMap<string, LlmError.ErrorCode> = new Map<string, LlmError.ErrorCode>([
  ["error", "server"],
  ["insufficient_system_resource", "overloaded"]
])

const sameCounts = (a: Usage.Usage, b: Usage.Usage): boolean =>
  a.inputTokens === b.inputTokens && a.outputTokens === b.outputTokens && a.totalTokens === b.totalTokens &&
  a.cacheReadTokens === b.cacheReadTokens && a.cacheWriteTokens === b.cacheWriteTokens &&
  a.reasoningTokens === b.reasoningTokens

const protocolError = (data: string, provider: string): LlmError.ErrorInfo =>
  LlmError.info({
    code: "protocol",
    message: `The stream sent an event that is not a JSON object: ${
      JSON.stringify(data.length > maxQuoted ? data.slice(0, maxQuoted) + "…" : data)
    }`,
    provider
  })
