/**
 * The Anthropic Messages stream as it arrives on the wire: one JSON object per SSE event, whose
 * `type` repeats the `event:` name; `message_stop` ends it (there is no `[DONE]`). See
 * `reference/wire-formats.md` §3.
 *
 * The decoder does not trust these types: it reads a parsed event as the kit's `Guards.Unchecked`
 * object, whose field names are typed but whose values must pass a guard before use, so the hot
 * path stays at one `JSON.parse` per event, with no Schema decoding.
 *
 * @since 0.1.0
 */

/**
 * The name of the tool the request encoder adds for `responseFormat` `json` / `json_schema` (the
 * answer is that tool's input, as for Bedrock): the decoder streams its input as the answer's text.
 * A request's own tool may not take this name.
 */
export const jsonToolName = "json_response"

/** Any event of a Messages stream, read by its `type` before anything else. */
export interface StreamEvent {
  readonly type: string
  readonly message: MessageStart
  readonly index: number
  readonly content_block: ContentBlockFields
  readonly delta: DeltaFields
  readonly usage: MessageUsage
  readonly error: ErrorObject
}

/** `message_start.message`: the response's id, model and first usage; `content` is empty. */
export interface MessageStart {
  readonly id: string
  readonly type: "message"
  readonly role: "assistant"
  readonly model: string
  readonly content: ReadonlyArray<unknown>
  readonly stop_reason: string | null
  readonly stop_sequence: string | null
  readonly usage: MessageUsage
}

/**
 * Every field any `content_block_start` block may carry, for reading one whose `type` is not yet
 * known: `text`, `thinking`, `redacted_thinking`, `tool_use`, `server_tool_use` / `mcp_tool_use`,
 * and the results of server tools (`web_search_tool_result`, `code_execution_tool_result` …).
 */
export interface ContentBlockFields {
  readonly type: string
  /** `text`: empty at the start; the text streams in `text_delta`s. */
  readonly text: string
  /** `text`: citations already known at the start (usually none: they stream as `citations_delta`). */
  readonly citations: ReadonlyArray<unknown>
  /** `thinking`: empty at the start. */
  readonly thinking: string
  /** `thinking`: empty at the start; comes whole in one `signature_delta`. */
  readonly signature: string
  /** `redacted_thinking`: the opaque block, whole, to send back unchanged. */
  readonly data: string
  /** `tool_use`, `server_tool_use`, `mcp_tool_use`. */
  readonly id: string
  readonly name: string
  /** `{}` at the start; the arguments stream as `input_json_delta`s. */
  readonly input: unknown
  /** `mcp_tool_use`: the MCP server's name. */
  readonly server_name: string
  /** `*_tool_result`: the id of the server tool call it answers. */
  readonly tool_use_id: string
  /** `*_tool_result`: the result, whole (an object, or an array of results). */
  readonly content: unknown
  /** `mcp_tool_result`. */
  readonly is_error: boolean
}

/** Every field any `content_block_delta` delta, or the `message_delta` delta, may carry. */
export interface DeltaFields {
  /** `text_delta | thinking_delta | signature_delta | input_json_delta | citations_delta`; absent on `message_delta`. */
  readonly type: string
  readonly text: string
  readonly thinking: string
  readonly signature: string
  readonly partial_json: string
  readonly citation: unknown
  /** `message_delta`: `end_turn | max_tokens | stop_sequence | tool_use | pause_turn | refusal | model_context_window_exceeded`. */
  readonly stop_reason: string | null
  readonly stop_sequence: string | null
  /** `message_delta`: why a refusal happened (`{type: "refusal", category, explanation}`). */
  readonly stop_details: unknown
  /** `message_delta`: the code-execution container. */
  readonly container: unknown
}

/** Token usage: on `message_start`, then cumulative on `message_delta` (last wins per field). */
export interface MessageUsage {
  /** Leaves out cache reads and writes. */
  readonly input_tokens: number
  readonly output_tokens: number
  readonly cache_creation_input_tokens: number | null
  readonly cache_read_input_tokens: number | null
  readonly cache_creation: { readonly ephemeral_5m_input_tokens?: number; readonly ephemeral_1h_input_tokens?: number }
  /** Thinking tokens, included in `output_tokens`. */
  readonly output_tokens_details: { readonly thinking_tokens?: number }
  readonly server_tool_use: { readonly web_search_requests?: number; readonly web_fetch_requests?: number }
  readonly service_tier: string
}

/** The error object of an `event: error` and of HTTP error bodies (`{"type":"error","error":{…}}`). */
export interface ErrorObject {
  /** `invalid_request_error`, `authentication_error`, `overloaded_error` … */
  readonly type: string
  readonly message: string
}

/** A citation (`citations_delta.citation`), by location kind. */
export interface CitationFields {
  /** `web_search_result_location | char_location | page_location | content_block_location | search_result_location`. */
  readonly type: string
  readonly url: string
  readonly title: string | null
  readonly cited_text: string
  readonly document_title: string | null
  /** `search_result_location`: where the search result came from. */
  readonly source: string
}
