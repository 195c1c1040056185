/**
 * The Gemini stream decoder (`streamGenerateContent?alt=sse`): SSE events in, `StreamChunk`s out.
 * One pure, synchronous state machine; one `JSON.parse` per event, guards on the fields it reads.
 *
 * Each event is a partial response; only the first candidate is read. What it emits:
 * - `metadata` (model from `modelVersion`, `responseId`) at the first event;
 * - text parts as `text-delta`; `thought: true` parts as `reasoning-delta`, the run closed (one
 *   `reasoning` chunk) when other output begins or the candidate finishes;
 * - `thoughtSignature`: on a thought part it signs that run; on a text part it is a `reasoning`
 *   chunk of its own with empty text and the signature (so the next turn puts it back on a text
 *   part); on a `functionCall` part it is the finished call's `ToolCall.signature`;
 * - whole `functionCall` parts as one `tool-call-delta` (the whole arguments, as JSON) and the
 *   `tool-call`; ids are `functionCall.id`, else `<responseId>_call_<n>` (or, with no
 *   `responseId`, the digits of Vertex's `createTime` in its place; `n` counts this
 *   response's calls, so the id is the same however the bytes were split);
 * - Vertex argument streaming (`streamFunctionCallArguments`, assembled in `partialArgs.ts`):
 *   `{name, willContinue}` opens a call,
 *   each `partialArgs` value (at a `jsonPath`, a string continued while `willContinue`) becomes a
 *   JSON text fragment, and the call is finished by an empty `{}` part, by a `partialArgs` part
 *   without `willContinue`, by the next call, by other output, or by the finish: never dropped (the
 *   `…missing-terminal-function-call` recording has no `{}`);
 * - `inlineData` / `fileData` as an `image` / `file` part (the part's `thoughtSignature`, and
 *   `thought: true`, in its `providerMetadata`);
 * - tools Google runs itself as `provider-tool` parts: `executableCode` / `codeExecutionResult` as a
 *   `code_execution` call and result, `toolCall` / `toolResponse` named by their `toolType`, a
 *   grounded answer's `webSearchQueries` (with the `searchEntryPoint` Google requires apps to show)
 *   as a `google_search` call; ids are the part's own, else `<responseId>_tool_<n>`, a result
 *   taking the id of the call it follows; they do not make the finish `tool_calls`;
 * - grounding chunks, citations and `urlContextMetadata` pages as `source` parts, each URL once;
 * - a `thoughtSignature` on a part of a kind not listed here as a signed `reasoning` block of no
 *   text, so it still goes back;
 * - `usageMetadata`, a running snapshot on every event, as `usage` when a count changed (input =
 *   `promptTokenCount`, cache included; output = candidates + thoughts; reasoning = thoughts), and
 *   `cache-read` when `cachedContentTokenCount` changes.
 *
 * The end. Gemini has no end marker: a candidate's `finishReason` (or a `promptFeedback.blockReason`
 * with no candidate) says the answer is complete, and the `finish` goes out when the body ends, so a
 * later usage-only event still counts. A body that ends with neither appends nothing here, and
 * `StreamChunk.ensureTerminal` reports `truncated`. Finish reasons: `STOP` → `stop`, or
 * `tool_calls` when calls were emitted; `MAX_TOKENS` → `length`; `SAFETY`, `RECITATION`,
 * `BLOCKLIST`, `PROHIBITED_CONTENT`, `SPII`, `LANGUAGE` and the `IMAGE_*` filters → `content_filter`;
 * `MALFORMED_FUNCTION_CALL`, `UNEXPECTED_TOOL_CALL`, `TOO_MANY_TOOL_CALLS` → `error` (a finish, not
 * an error chunk: the exchange worked, the model's output is what failed); anything else → `stop`.
 * An `{"error": …}` event ends the stream with the error `errors.ts` maps it to. An event that is a
 * JSON array of responses (the endpoint's shape without `alt=sse`) is read element by element.
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
import * as StreamChunk from "../../StreamChunk.js"
import * as ToolCall from "../../ToolCall.js"
import * as Usage from "../../Usage.js"
import * as Errors from "./errors.js"
import type * as Events from "./events.js"
import { PartialArgs } from "./partialArgs.js"

/** Finish reasons the shared table does not know, by their Gemini name (lower case). */
const finishReasons: ReadonlyMap<string, StreamChunk.FinishReason> = new Map<string, StreamChunk.FinishReason>([
  ["language", "content_filter"],
  ["image_safety", "content_filter"],
  ["image_prohibited_content", "content_filter"],
  ["image_recitation", "content_filter"],
  ["malformed_function_call", "error"],
  ["unexpected_tool_call", "error"],
  ["too_many_tool_calls", "error"]
])

/** The normalized reason for a Gemini finish (or block) reason; `STOP` after calls is `tool_calls`. */
export const finishReason = (raw: string, sawCalls: boolean): StreamChunk.FinishReason => {
  const reason = finishReasons.get(raw.toLowerCase()) ?? StreamChunk.normalizeFinishReason(raw)
  return reason === "stop" && sawCalls ? "tool_calls" : reason
}

/** What a content part carries besides its content: the part's signature, whether it is a thought. */
type ProviderMetadata = { readonly thoughtSignature?: string; readonly thought?: true }

const partMetadata = (signature: string | undefined, thought: boolean): ProviderMetadata | undefined =>
  signature === undefined && !thought
    ? undefined
    : { ...(signature !== undefined ? { thoughtSignature: signature } : {}), ...(thought ? { thought: true } : {}) }

const metadataOf = (meta: ProviderMetadata | undefined): { readonly providerMetadata?: ProviderMetadata } =>
  meta === undefined ? {} : { providerMetadata: meta }

/** A JSON value kept as it is when it is safe to return, else as its text (`{raw}`): never dropped. */
const keep = (value: unknown): unknown => (Json.check(value) === undefined ? value : { raw: Json.stringify(value) })

/** A function call whose arguments are still streaming (Vertex `partialArgs`). */
interface OpenCall {
  readonly index: number
  readonly id: string
  readonly name: string
  readonly signature: string | undefined
  readonly args: PartialArgs
  announced: boolean
}

/** Creates a decoder for one response; `provider` names the host in chunks and errors. */
export const make = (options: { readonly provider: string }): ChunkDecoder<Sse.Event> => new Decoder(options.provider)

/** One response's state machine: a class, as every decoder is (see {@link ChunkDecoder}). */
class Decoder implements ChunkDecoder<Sse.Event> {
  private readonly emitter: Emitter
  private readonly reasoning: Reasoning
  private readonly usages: UsageSnapshots

  private responseId: string | undefined = undefined
  /** What names this response's synthesized ids: `responseId`, else the digits of Vertex's `createTime`. */
  private idPrefix: string | undefined = undefined
  private calls = 0
  private open: OpenCall | undefined = undefined
  private runSigned = false
  private rawFinish: string | undefined = undefined
  private blocked = false
  private sentCacheRead = 0
  private readonly sources = new Set<string>()
  /** Provider-run tool blocks so far, the last code run and the last server tool call waiting for results. */
  private serverTools = 0
  private lastCode: string | undefined = undefined
  private lastServer: { readonly id: string; readonly name: string } | undefined = undefined
  private readonly searches = new Set<string>()

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
    if (data.trim() === "") return
    let parsed: unknown
    try {
      parsed = JSON.parse(data)
    } catch {
      return emitter.fail(out, protocolError(this.provider, data))
    }
    // `[{…}, {…}]`: the shape of the endpoint without `alt=sse`, from a proxy that answers with it:
    // each element is an event.
    if (Guards.isArray(parsed)) {
      if (parsed.length === 0 || !parsed.every(Guards.isObject)) {
        return emitter.fail(out, protocolError(this.provider, data))
      }
      for (const element of parsed) {
        this.response(out, element, data)
        if (emitter.ended) return
      }
      return
    }
    this.response(out, parsed, data)
  }

  end(out: Out): void {
    const rawFinish = this.rawFinish
    if (this.emitter.ended || rawFinish === undefined) return
    this.otherOutput(out)
    this.emitter.finish(out, this.blocked ? "content_filter" : finishReason(rawFinish, this.calls > 0), rawFinish)
  }

  /** One `GenerateContentResponse` (or `{"error": …}`). */
  private response(out: Out, parsed: unknown, data: string): void {
    const emitter = this.emitter
    if (!Guards.isObject<Events.StreamEvent>(parsed)) return emitter.fail(out, protocolError(this.provider, data))
    if (parsed.error !== undefined && parsed.error !== null) {
      return emitter.fail(out, Errors.fromBody(undefined, parsed, this.provider))
    }
    if (this.responseId === undefined && Guards.isNonEmptyString(parsed.responseId)) {
      this.responseId = parsed.responseId
    }
    if (this.idPrefix === undefined) {
      // Without either, ids would be `call_<n>` in every turn of a conversation.
      const stamp = typeof parsed.createTime === "string" ? parsed.createTime.replace(/\D/g, "").slice(0, 32) : ""
      this.idPrefix = this.responseId ?? (stamp !== "" ? stamp : undefined)
    }
    emitter.announce(
      out,
      Guards.isNonEmptyString(parsed.modelVersion) ? parsed.modelVersion : undefined,
      this.responseId
    )
    const first = Guards.isArray(parsed.candidates) ? parsed.candidates[0] : undefined
    if (Guards.isObject<Events.Candidate>(first)) this.candidate(out, first)
    if (Guards.isObject<Events.PromptFeedback>(parsed.promptFeedback) && this.rawFinish === undefined) {
      // The prompt was refused (whatever the reason, even OTHER): no candidate will come.
      const block = parsed.promptFeedback.blockReason
      if (Guards.isNonEmptyString(block)) {
        this.rawFinish = block
        this.blocked = true
      }
    }
    if (Guards.isObject<Events.UsageMetadata>(parsed.usageMetadata)) this.usage(out, parsed.usageMetadata)
  }

  private candidate(out: Out, c: Guards.Unchecked<Events.Candidate>): void {
    const content = Guards.isObject<{ parts: unknown }>(c.content) ? c.content : undefined
    if (Guards.isArray(content?.parts)) {
      for (const p of content.parts) if (Guards.isObject<Events.Part>(p)) this.part(out, p)
    }
    const citations = Guards.isObject<{ citations: unknown }>(c.citationMetadata)
      ? c.citationMetadata.citations
      : undefined
    if (Guards.isArray(citations)) {
      for (const cite of citations) {
        if (Guards.isObject<Events.Citation>(cite)) this.source(out, cite.uri, cite.title, cite)
      }
    }
    const grounding = Guards.isObject<Events.GroundingMetadata>(c.groundingMetadata) ? c.groundingMetadata : undefined
    if (grounding !== undefined) this.search(out, grounding)
    if (Guards.isArray(grounding?.groundingChunks)) {
      for (const g of grounding.groundingChunks) {
        if (!Guards.isObject<Events.GroundingChunk>(g)) continue
        const page = Guards.isObject<{ uri: string; title: string }>(g.web)
          ? g.web
          : Guards.isObject<{ uri: string; title: string }>(g.retrievedContext)
          ? g.retrievedContext
          : undefined
        if (page !== undefined) this.source(out, page.uri, page.title, g)
      }
    }
    const urlContext = Guards.isObject<{ urlMetadata: unknown }>(c.urlContextMetadata)
      ? c.urlContextMetadata.urlMetadata
      : undefined
    if (Guards.isArray(urlContext)) {
      for (const u of urlContext) {
        if (Guards.isObject<Events.UrlMetadata>(u)) this.source(out, u.retrievedUrl, undefined, u)
      }
    }
    if (Guards.isNonEmptyString(c.finishReason)) {
      // The answer is complete: close what is open now; the finish waits for the body's end.
      this.rawFinish = c.finishReason
      this.otherOutput(out)
    }
  }

  // --- reasoning and text ----------------------------------------------------------------------

  private closeReasoning(out: Out): void {
    this.runSigned = false
    this.reasoning.close(out)
  }

  /** Other output begins: the thought run and any streaming call are over. */
  private otherOutput(out: Out): void {
    this.closeReasoning(out)
    this.finishOpen(out)
  }

  private part(out: Out, p: Guards.Unchecked<Events.Part>): void {
    const reasoning = this.reasoning
    const signature = Guards.isNonEmptyString(p.thoughtSignature) ? p.thoughtSignature : undefined
    if (Guards.isObject<Events.FunctionCall>(p.functionCall)) return this.functionCall(out, p.functionCall, signature)
    if (typeof p.text === "string") {
      if (p.thought === true) {
        this.finishOpen(out)
        // A run holds one signature: a second one starts a run of its own.
        if (signature !== undefined && this.runSigned) this.closeReasoning(out)
        if (p.text !== "") reasoning.delta(out, p.text)
        if (signature !== undefined) {
          reasoning.sign(signature)
          this.runSigned = true
        }
        return
      }
      if (p.text !== "" || signature !== undefined) this.otherOutput(out)
      if (p.text !== "") this.emitter.emit(out, StreamChunk.textDelta(p.text))
      if (signature !== undefined) {
        // The signature of a text part: a reasoning block of no text, sent back on a text part.
        reasoning.sign(signature)
        reasoning.close(out)
      }
      return
    }
    const meta = partMetadata(signature, p.thought === true)
    if (Guards.isObject<{ mimeType: string; data: string }>(p.inlineData)) {
      return this.media(out, p.inlineData.mimeType, { data: p.inlineData.data }, meta)
    }
    if (Guards.isObject<{ mimeType: string; fileUri: string }>(p.fileData)) {
      return this.media(out, p.fileData.mimeType, { url: p.fileData.fileUri }, meta)
    }
    if (p.executableCode !== undefined) return this.codeCall(out, p.executableCode, meta)
    if (p.codeExecutionResult !== undefined) return this.codeResult(out, p.codeExecutionResult, meta)
    if (Guards.isObject<Events.ServerTool>(p.toolCall)) return this.serverCall(out, p.toolCall, meta)
    if (Guards.isObject<Events.ServerTool>(p.toolResponse)) return this.serverResult(out, p.toolResponse, meta)
    if (signature !== undefined) {
      // A signature on a part of a kind unknown here: kept, as on a text part, so it goes back.
      this.otherOutput(out)
      reasoning.sign(signature)
      reasoning.close(out)
    }
  }

  /** Generated media: an image part for `image/*`, else a file part; by bytes or by URI. */
  private media(
    out: Out,
    mimeType: unknown,
    source: { readonly data?: unknown; readonly url?: unknown },
    meta: ProviderMetadata | undefined
  ): void {
    const data = typeof source.data === "string" ? { data: source.data } : undefined
    const url = Guards.isNonEmptyString(source.url) ? { url: source.url } : undefined
    if (data === undefined && url === undefined) return
    this.otherOutput(out)
    const mediaType = Guards.isNonEmptyString(mimeType) ? mimeType : undefined
    const item: ContentPart.ContentPart = {
      type: mediaType?.startsWith("image/") === true ? "image" : "file",
      ...(mediaType !== undefined ? { mediaType } : {}),
      ...url,
      ...data,
      ...metadataOf(meta)
    }
    this.emitter.emit(out, StreamChunk.contentPart(item))
  }

  // --- tools Google runs itself ----------------------------------------------------------------

  /** The id of a provider-run tool block: its own, else `<responseId>_tool_<n>` (stable per response). */
  private serverId(id: unknown): string {
    if (Guards.isNonEmptyString(id)) return id
    const n = this.serverTools++
    return this.idPrefix === undefined ? `tool_${n}` : `${this.idPrefix}_tool_${n}`
  }

  private providerTool(out: Out, part: ContentPart.ContentPart): void {
    this.otherOutput(out)
    this.emitter.emit(out, StreamChunk.contentPart(part))
  }

  /** `executableCode`: the code Google is about to run, as a `code_execution` call. */
  private codeCall(out: Out, code: unknown, meta: ProviderMetadata | undefined): void {
    const id = this.serverId(Guards.isObject<{ id: string }>(code) ? code.id : undefined)
    this.lastCode = id
    this.providerTool(out, {
      type: "provider-tool",
      kind: "call",
      id,
      name: "code_execution",
      input: keep(code),
      ...metadataOf(meta)
    })
  }

  /** `codeExecutionResult`: answers its own id, else the last code run. */
  private codeResult(out: Out, result: unknown, meta: ProviderMetadata | undefined): void {
    const r = Guards.isObject<{ id: string; outcome: string }>(result) ? result : undefined
    const id = Guards.isNonEmptyString(r?.id) ? r.id : this.lastCode ?? this.serverId(undefined)
    this.lastCode = undefined
    const failed = typeof r?.outcome === "string" && r.outcome !== "OUTCOME_OK"
    this.providerTool(out, {
      type: "provider-tool",
      kind: "result",
      id,
      name: "code_execution",
      output: keep(result),
      ...(failed ? { isError: true } : {}),
      ...metadataOf(meta)
    })
  }

  /** A `toolCall` part: a Google-run tool (search, URL context …) named by its `toolType`. */
  private serverCall(out: Out, call: Guards.Unchecked<Events.ServerTool>, meta: ProviderMetadata | undefined): void {
    const id = this.serverId(call.id)
    const name = Guards.isNonEmptyString(call.toolType) ? call.toolType : "server_tool"
    this.lastServer = { id, name }
    const input = call.args === undefined ? {} : keep(call.args)
    this.providerTool(out, { type: "provider-tool", kind: "call", id, name, input, ...metadataOf(meta) })
  }

  /** A `toolResponse` part: answers its own id, else the last `toolCall`. */
  private serverResult(out: Out, r: Guards.Unchecked<Events.ServerTool>, meta: ProviderMetadata | undefined): void {
    const id = Guards.isNonEmptyString(r.id) ? r.id : this.lastServer?.id ?? this.serverId(undefined)
    const name = Guards.isNonEmptyString(r.toolType) ? r.toolType : this.lastServer?.name ?? "server_tool"
    this.lastServer = undefined
    const output = r.response === undefined ? {} : keep(r.response)
    this.providerTool(out, { type: "provider-tool", kind: "result", id, name, output, ...metadataOf(meta) })
  }

  // --- function calls --------------------------------------------------------------------------

  private idFor(index: number, id: unknown): string {
    return Guards.isNonEmptyString(id) ? id : ToolCall.synthesizeId(index, this.idPrefix)
  }

  private functionCall(out: Out, fc: Guards.Unchecked<Events.FunctionCall>, signature: string | undefined): void {
    this.closeReasoning(out)
    const name = Guards.isNonEmptyString(fc.name) ? fc.name : undefined
    const partial = Guards.isArray(fc.partialArgs) ? fc.partialArgs : undefined
    const continues = fc.willContinue === true
    if ((fc.args !== undefined && fc.args !== null) || (name !== undefined && !continues && partial === undefined)) {
      // A whole call (the usual Gemini API shape): arguments as an object, in one part.
      this.finishOpen(out)
      return this.wholeCall(out, fc, name ?? "", signature)
    }
    if (name !== undefined) {
      // `{name, willContinue}` opens a streamed call; an open one is over.
      this.finishOpen(out)
      const index = this.calls++
      this.open = { index, id: this.idFor(index, fc.id), name, signature, args: new PartialArgs(), announced: false }
    }
    if (partial !== undefined) {
      let open = this.open
      if (open === undefined) {
        const index = this.calls++
        open = { index, id: this.idFor(index, fc.id), name: "", signature, args: new PartialArgs(), announced: false }
        this.open = open
      }
      let fragment = ""
      for (const arg of partial) if (Guards.isObject<Events.PartialArg>(arg)) fragment += open.args.push(arg)
      if (fragment !== "") this.argumentsFragment(out, open, fragment)
    }
    // The terminating `{}`, or a last `partialArgs` part without `willContinue`, ends the call.
    if (!continues) this.finishOpen(out)
  }

  private wholeCall(
    out: Out,
    fc: Guards.Unchecked<Events.FunctionCall>,
    name: string,
    signature: string | undefined
  ): void {
    const index = this.calls++
    const id = this.idFor(index, fc.id)
    const raw = fc.args === undefined || fc.args === null ? "{}" : Json.stringify(fc.args)
    this.emitter.emit(out, StreamChunk.toolCallDelta(index, raw, { id, name }))
    const call = ToolCall.make({ index, id, name, rawArguments: raw })
    this.emitter.emit(out, StreamChunk.toolCall(signature === undefined ? call : { ...call, signature }))
  }

  private argumentsFragment(out: Out, call: OpenCall, fragment: string): void {
    if (call.announced) return this.emitter.emit(out, StreamChunk.toolCallDelta(call.index, fragment))
    call.announced = true
    this.emitter.emit(out, StreamChunk.toolCallDelta(call.index, fragment, { id: call.id, name: call.name }))
  }

  private finishOpen(out: Out): void {
    const call = this.open
    if (call === undefined) return
    this.open = undefined
    const closing = call.args.close()
    if (closing !== "") this.argumentsFragment(out, call, closing)
    const finished = ToolCall.make({ index: call.index, id: call.id, name: call.name, rawArguments: call.args.raw() })
    this.emitter.emit(
      out,
      StreamChunk.toolCall(call.signature === undefined ? finished : { ...finished, signature: call.signature })
    )
  }

  // --- sources ---------------------------------------------------------------------------------

  private source(out: Out, uri: unknown, title: unknown, metadata: unknown): void {
    if (!Guards.isNonEmptyString(uri) || this.sources.has(uri)) return
    this.sources.add(uri)
    const item: ContentPart.ContentPart = {
      type: "source",
      sourceType: "url",
      url: uri,
      ...(Guards.isNonEmptyString(title) ? { title } : {}),
      ...(Guards.isObject<Record<string, unknown>>(metadata) && Json.check(metadata) === undefined
        ? { providerMetadata: metadata as { readonly [key: string]: unknown } }
        : {})
    }
    this.emitter.emit(out, StreamChunk.contentPart(item))
  }

  /**
   * The searches behind a grounded answer, as one `google_search` call each time the list changes,
   * with the search suggestions (`searchEntryPoint`, which Google's terms require an app to show).
   */
  private search(out: Out, g: Guards.Unchecked<Events.GroundingMetadata>): void {
    const queries = Guards.isArray(g.webSearchQueries) ? g.webSearchQueries.filter(Guards.isNonEmptyString) : []
    const entry = g.searchEntryPoint !== undefined ? keep(g.searchEntryPoint) : undefined
    if (queries.length === 0 && entry === undefined) return
    const key = JSON.stringify([queries, entry])
    if (this.searches.has(key)) return
    this.searches.add(key)
    this.providerTool(out, {
      type: "provider-tool",
      kind: "call",
      id: this.serverId(undefined),
      name: "google_search",
      input: { queries },
      ...(Guards.isObject<Record<string, unknown>>(entry) ? { providerMetadata: { searchEntryPoint: entry } } : {})
    })
  }

  // --- usage -----------------------------------------------------------------------------------

  private usage(out: Out, u: Guards.Unchecked<Events.UsageMetadata>): void {
    const input = Guards.count(u.promptTokenCount)
    const output = Guards.count(u.candidatesTokenCount)
    const thoughts = Guards.count(u.thoughtsTokenCount)
    const total = Guards.count(u.totalTokenCount)
    // Vertex's intermediate events carry only `trafficType`: no snapshot in them.
    if (input === undefined && output === undefined && thoughts === undefined && total === undefined) return
    const toolPrompt = Guards.count(u.toolUsePromptTokenCount)
    const next = Usage.normalize({
      // Tool-use prompt tokens (search results read back in) are billed as input.
      input: toolPrompt === undefined ? input : Usage.addCounts(input ?? 0, toolPrompt),
      output,
      total,
      reasoning: thoughts,
      cacheRead: u.cachedContentTokenCount,
      outputExcludesReasoning: true
    })
    this.usages.push(out, next, u)
    const read = next.cacheReadTokens ?? 0
    if (read > 0 && read !== this.sentCacheRead) {
      this.emitter.emit(out, StreamChunk.cacheRead(this.sentCacheRead = read))
    }
  }
}
