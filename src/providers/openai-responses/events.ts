/**
 * The Responses API stream as it arrives on the wire: one JSON object per SSE event, named by its
 * `type` (the `event:` field repeats it), numbered by `sequence_number`, with no `[DONE]`: the stream
 * ends after `response.completed`, `response.incomplete` or `response.failed`. The types cover OpenAI,
 * Azure, xAI, LM Studio and other open-responses servers; see `reference/wire-formats.md` §2.
 *
 * The decoder does not trust these types: a parsed event is the kit's `Unchecked` object, whose values
 * must pass one of the kit's guards (`internal/kit/guards.ts`) before use; {@link usage} reads the
 * usage object that way.
 *
 * @since 0.1.0
 */
import * as Guards from "../../internal/kit/guards.js"
import * as Usage from "../../Usage.js"

/** Every field any Responses event may carry, for reading one whose `type` is not yet known. */
export interface EventFields {
  readonly type: string
  readonly sequence_number: number
  /** `response.created` / `in_progress` / `completed` / `incomplete` / `failed`. */
  readonly response: ResponseObject
  /** The position of the output item an event belongs to. */
  readonly output_index: number
  /** The id of the output item an event belongs to (GitHub Copilot rotates it on every event). */
  readonly item_id: string
  /** `response.output_item.added` / `.done`. */
  readonly item: OutputItem
  readonly content_index: number
  readonly summary_index: number
  /** Text, reasoning, refusal and argument deltas. */
  readonly delta: string
  /** The whole text on `response.output_text.done` and the reasoning `.done` events. */
  readonly text: string
  /** The whole refusal on `response.refusal.done`. */
  readonly refusal: string
  /** `response.function_call_arguments.done`: the whole arguments text. */
  readonly arguments: string
  /** `response.custom_tool_call_input.done`: the whole raw input of a custom (freeform) tool call. */
  readonly input: string
  /** `response.output_text.annotation.added`. */
  readonly annotation: Annotation
  /** `response.image_generation_call.partial_image`. */
  readonly partial_image_b64: string
  readonly partial_image_index: number
  readonly output_format: string
  /** A flat `error` event (the SDK's types): `{type:"error", code, message, param}`. */
  readonly code: string | number | null
  readonly message: string
  /** A nested `error` event (what OpenAI actually streams): `{type:"error", error:{type, code, message}}`. */
  readonly error: unknown
}

/** The `response` object of the lifecycle events (only the fields the decoder reads). */
export interface ResponseObject {
  readonly id: string
  readonly model: string
  readonly status: "completed" | "failed" | "in_progress" | "cancelled" | "queued" | "incomplete"
  /** On `response.incomplete`: `max_output_tokens` or `content_filter`. */
  readonly incomplete_details: { readonly reason?: string } | null
  /** On `response.failed`: `{code, message}`. */
  readonly error: { readonly code?: string; readonly message?: string } | null
  /** Only on the terminal event. */
  readonly usage: ResponsesUsage | null
}

/** Token usage: cached tokens are part of `input_tokens`, reasoning tokens part of `output_tokens`. */
export interface ResponsesUsage {
  readonly input_tokens: number
  readonly input_tokens_details: { readonly cached_tokens?: number; readonly cache_write_tokens?: number }
  readonly output_tokens: number
  readonly output_tokens_details: { readonly reasoning_tokens?: number }
  readonly total_tokens: number
}

/** Every field any output item may carry; `type` says which apply. */
export interface OutputItem {
  /** `message`, `reasoning`, `function_call`, `custom_tool_call`, `web_search_call`, `file_search_call`, `code_interpreter_call`, `image_generation_call`, `mcp_call`, `mcp_approval_request`, `mcp_list_tools` … */
  readonly type: string
  readonly id: string
  readonly status: string
  /** `reasoning`: the opaque blob to send back with `store: false` (null when not included). */
  readonly encrypted_content: string | null
  readonly summary: ReadonlyArray<{ readonly type?: string; readonly text?: string }>
  /** `reasoning` from open-weight servers: the raw reasoning as `reasoning_text` parts. */
  readonly content: ReadonlyArray<{ readonly type?: string; readonly text?: string }>
  /** `function_call`, `custom_tool_call`: the id to echo back with the tool's output. */
  readonly call_id: string
  /** `function_call`, `custom_tool_call`, `mcp_call`, `mcp_approval_request`. */
  readonly name: string
  readonly arguments: string
  /** `custom_tool_call`: the raw input text (freeform, not JSON), streamed as `custom_tool_call_input` deltas. */
  readonly input: string
  /** `web_search_call`: what was done (`search`, `open_page`, `find_in_page`). */
  readonly action: unknown
  /** `file_search_call`. */
  readonly queries: unknown
  readonly results: unknown
  /** `code_interpreter_call`. */
  readonly code: unknown
  readonly container_id: unknown
  readonly outputs: unknown
  /** `image_generation_call`: the final image, base64. */
  readonly result: string
  readonly revised_prompt: string
  readonly output_format: string
  readonly size: string
  readonly quality: string
  readonly background: string
  /** `mcp_call` / `mcp_approval_request`. */
  readonly server_label: string
  readonly output: unknown
  readonly error: unknown
}

/** A citation attached to output text. */
export interface Annotation {
  /** `url_citation`, `file_citation`, `container_file_citation`, `file_path`. */
  readonly type: string
  readonly url: string
  readonly title: string
  readonly file_id: string
  readonly filename: string
}

/** The event types that end a response. */
export type Terminal = "response.completed" | "response.incomplete" | "response.failed"

/**
 * A terminal event's `response.usage` as a normalized snapshot (`undefined` when it is not an
 * object). Cached tokens are inside `input_tokens` and reasoning inside `output_tokens` (xAI too,
 * here); a host that left reasoning out would say so only through the total, so that is checked.
 */
export const usage = (u: unknown): Usage.Usage | undefined => {
  if (!Guards.isObject<ResponsesUsage>(u)) return undefined
  const inDetails = Guards.isObject<{ cached_tokens: number; cache_write_tokens: number }>(u.input_tokens_details)
    ? u.input_tokens_details
    : undefined
  const outDetails = Guards.isObject<{ reasoning_tokens: number }>(u.output_tokens_details)
    ? u.output_tokens_details
    : undefined
  const input = Guards.count(u.input_tokens)
  const output = Guards.count(u.output_tokens)
  const total = Guards.count(u.total_tokens)
  const reasoning = Guards.count(outDetails?.reasoning_tokens)
  return Usage.normalize({
    input,
    output,
    total,
    cacheRead: Guards.count(inDetails?.cached_tokens),
    cacheWrite: Guards.count(inDetails?.cache_write_tokens),
    reasoning,
    outputExcludesReasoning: Usage.reasoningOutsideOutput(input, output, reasoning, total)
  })
}
