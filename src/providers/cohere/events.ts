/**
 * The Cohere v2 chat stream as it arrives on the wire: one JSON object per SSE event, whose `type`
 * repeats the `event:` name; `message-end` ends it (a `data: [DONE]` after it, which some gateways
 * add, is ignored). See `reference/wire-formats.md` §7.
 *
 * The decoder does not trust these types: it reads a parsed event as the kit's `Guards.Unchecked`
 * object, whose field names are typed but whose values must pass a guard before use, so the hot
 * path stays at one `JSON.parse` per event, with no Schema decoding.
 *
 * @since 0.1.0
 */

/**
 * Any event of a v2 chat stream, read by its `type` before anything else: `message-start`,
 * `content-start` / `content-delta` / `content-end`, `tool-plan-delta`, `tool-call-start` /
 * `tool-call-delta` / `tool-call-end`, `citation-start` / `citation-end`, `debug`, `message-end`.
 */
export interface StreamEvent {
  readonly type: string
  /** `message-start`: the response id. */
  readonly id: string
  /** The content block's index (content events), the tool call's (tool events, counted apart), the citation's. */
  readonly index: number
  readonly delta: Delta
  /** An error object carried in-band (by a gateway or a newer API): `{"message": …}`. */
  readonly message: string
  /** `message-end` of some hosts: the usage beside `delta` rather than in it. */
  readonly usage: Usage
}

/** The `delta` of any event. */
export interface Delta {
  readonly message: DeltaMessage
  /** `message-end`: `COMPLETE | STOP_SEQUENCE | MAX_TOKENS | TOOL_CALL | ERROR | TIMEOUT`. */
  readonly finish_reason: string
  /** `message-end`. */
  readonly usage: Usage
  /** `message-end` with `finish_reason: "ERROR"`: what went wrong, when the API says. */
  readonly error: string
}

/** `delta.message`, by event. */
export interface DeltaMessage {
  /** `message-start`: `"assistant"`. */
  readonly role: string
  /** `content-start`: the block, with its `type`; `content-delta`: the piece (`text` or `thinking`). */
  readonly content: ContentFields
  /** `tool-plan-delta`: a piece of the plan the model states before calling tools. */
  readonly tool_plan: string
  /** `tool-call-start` / `tool-call-delta`: one call, an **object** (not an array). */
  readonly tool_calls: ToolCallFields
  /** `citation-start`: one citation (an object, not an array). */
  readonly citations: CitationFields
}

/** A content block or a piece of one. */
export interface ContentFields {
  /** `content-start` only: `text | thinking`. */
  readonly type: string
  readonly text: string
  readonly thinking: string
}

/** A tool call at its start (`id`, `function.name`) or a fragment of its arguments. */
export interface ToolCallFields {
  readonly id: string
  readonly type: "function"
  readonly function: { readonly name?: unknown; readonly arguments?: unknown }
}

/** A citation: the span of the answer it covers and the sources behind it. */
export interface CitationFields {
  readonly start: number
  readonly end: number
  /** The cited span of the answer. */
  readonly text: string
  /** `TEXT_CONTENT | THINKING_CONTENT | PLAN`: which output the span lies in. */
  readonly type: string
  /** For a citation of a content block other than the first. */
  readonly content_index: number
  readonly sources: ReadonlyArray<unknown>
}

/** One source of a citation: a document given in the request, or a tool result. */
export interface SourceFields {
  /** `document | tool`. */
  readonly type: string
  readonly id: string
  /** `document`: the document's fields as the request gave them (`id`, `text`, `title`, `url` …). */
  readonly document: { readonly title?: unknown; readonly url?: unknown; readonly id?: unknown }
  /** `tool`: the tool result cited. */
  readonly tool_output: unknown
}

/** `message-end.delta.usage`. */
export interface Usage {
  /** What is charged: the prompt's and answer's own tokens. */
  readonly billed_units: TokenCounts
  /** What the model read and wrote, the prompt template included. */
  readonly tokens: TokenCounts
  /** Prompt tokens served from the cache (part of `tokens.input_tokens`). */
  readonly cached_tokens: number
}

/** Input and output counts. */
export interface TokenCounts {
  readonly input_tokens: number
  readonly output_tokens: number
}
