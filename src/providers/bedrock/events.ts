/**
 * The Bedrock ConverseStream response as it arrives on the wire: AWS event-stream messages (see
 * `internal/framing/EventStream.ts`) whose `:event-type` header names the event and whose payload
 * is that event's JSON, with no wrapper key. `messageStop` ends the answer; `metadata`, with the
 * usage, normally follows it. See `reference/wire-formats.md` §6.
 *
 * The decoder does not trust these types: it reads a parsed payload as the kit's `Guards.Unchecked`
 * object, whose field names are typed but whose values must pass a guard before use, so the hot
 * path stays at one `JSON.parse` per event, with no Schema decoding.
 *
 * @since 0.1.0
 */

/**
 * The name of the tool the request encoder adds for `responseFormat` (Converse has no JSON mode):
 * the decoder streams its input as the answer's text. A request's own tool may not take this name.
 */
export const jsonToolName = "json_response"

/** The `:event-type` values of a ConverseStream response. */
export type EventType =
  | "messageStart"
  | "contentBlockStart"
  | "contentBlockDelta"
  | "contentBlockStop"
  | "messageStop"
  | "metadata"

/** `messageStart`: the assistant's message begins (no id, no model). */
export interface MessageStart {
  readonly role: string
}

/**
 * `contentBlockStart`: only tool use (and tool results or images) start explicitly; text and
 * reasoning blocks begin with their first delta.
 */
export interface ContentBlockStart {
  readonly contentBlockIndex: number
  readonly start: {
    readonly toolUse?: ToolUseStart
    /** The start of a result of a tool the service ran itself. */
    readonly toolResult?: ToolResultStart
    /** The start of a generated image: its format (`png`, `jpeg` …). */
    readonly image?: { readonly format?: string }
  }
}

/** The start of a tool result block: the call it answers, the tool's type, `success | error`. */
export interface ToolResultStart {
  readonly toolUseId: string
  readonly type: string
  readonly status: string
}

/** The start of a tool call: its id and name; `type: "server_tool_use"` for a tool the service runs itself. */
export interface ToolUseStart {
  readonly toolUseId: string
  readonly name: string
  readonly type?: string
}

/** `contentBlockDelta`: one piece of a block. */
export interface ContentBlockDelta {
  readonly contentBlockIndex: number
  readonly delta: Delta
}

/** What a delta may carry; one of these fields is set. */
export interface Delta {
  readonly text: string
  /** A fragment of the tool call's JSON input; the fragments concatenate (`""` for a call with none). */
  readonly toolUse: { readonly input: string }
  readonly reasoningContent: ReasoningDelta
  /** A citation, whole in one delta; the cited text follows as text deltas of the same block. */
  readonly citation: Citation
  /** A piece of a server tool's result: an array of `{text}` / `{json}` items. */
  readonly toolResult: unknown
  /** A piece of a generated image. */
  readonly image: ImageDelta
}

/**
 * A citation: `title`, `source`, `sourceContent: [{text}]` and a `location` that is one of `web
 * {url, domain}`, `documentChar` / `documentPage` / `documentChunk {documentIndex, start, end}` or
 * `searchResultLocation {searchResultIndex, start, end}`.
 */
export interface Citation {
  readonly title: string
  readonly source: string
  readonly sourceContent: unknown
  readonly location: unknown
}

/** A piece of a generated image: base64 bytes, or an error. */
export interface ImageDelta {
  readonly source: { readonly bytes?: unknown }
  readonly error: unknown
}

/** A reasoning delta: text, the block's signature, or opaque redacted reasoning (base64). */
export interface ReasoningDelta {
  readonly text: string
  readonly signature: string
  readonly redactedContent: string
}

/** `contentBlockStop`. */
export interface ContentBlockStop {
  readonly contentBlockIndex: number
}

/**
 * `messageStop`: `end_turn | tool_use | max_tokens | stop_sequence | guardrail_intervened |
 * content_filtered | malformed_model_output | malformed_tool_use | model_context_window_exceeded`.
 */
export interface MessageStop {
  readonly stopReason: string
  readonly additionalModelResponseFields: unknown
}

/** `metadata`: the only usage of the response, given once. */
export interface Metadata {
  readonly usage: TokenUsage
  readonly metrics: { readonly latencyMs?: number }
  readonly trace: unknown
  readonly performanceConfig: unknown
  readonly serviceTier: unknown
}

/** Bedrock's token usage: `inputTokens` leaves out cache reads and writes. */
export interface TokenUsage {
  readonly inputTokens: number
  readonly outputTokens: number
  readonly totalTokens: number
  readonly cacheReadInputTokens: number
  readonly cacheWriteInputTokens: number
}

/**
 * The payload of an `exception` message (`:exception-type` `throttlingException`,
 * `serviceUnavailableException`, `internalServerException`, `validationException`,
 * `modelStreamErrorException`), and of an HTTP error body.
 */
export interface ExceptionPayload {
  readonly message: string
  /** `modelStreamErrorException`: the model's own status and message. */
  readonly originalStatusCode: number
  readonly originalMessage: string
}
