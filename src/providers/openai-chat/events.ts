/**
 * The Chat Completions stream as it arrives on the wire: one `chat.completion.chunk` JSON object per
 * SSE `data:` line, ending with `data: [DONE]`. The types cover OpenAI and the variants the
 * OpenAI-compatible hosts add (DeepSeek, Groq, Mistral, xAI, OpenRouter, Perplexity, Azure, vLLM,
 * Ollama, llama.cpp …); see `reference/wire-formats.md` §1.
 *
 * The decoder does not trust these types: a parsed event is an `Unchecked` object (the kit's
 * `guards.ts`) whose field names are typed but whose values must pass a guard before use. That keeps
 * the hot path at one `JSON.parse` per event, with no Schema decoding.
 *
 * @since 0.1.0
 */

/** One event of a Chat Completions stream. */
export interface ChatCompletionChunk {
  /** Empty on Azure's first chunk. */
  readonly id?: string
  readonly object?: string
  readonly created?: number
  /** Empty on Azure's first chunk. */
  readonly model?: string
  readonly system_fingerprint?: string | null
  readonly service_tier?: string | null
  /** Empty on the usage-only chunk (`stream_options.include_usage`) and on Azure's first chunk. */
  readonly choices?: ReadonlyArray<Choice>
  /** `null` on every chunk but the one that carries the totals. */
  readonly usage?: ChatUsage | null
  /** Groq: the request id on the first chunk, `usage` (with timings) on the finish chunk. */
  readonly x_groq?: { readonly id?: string; readonly seed?: number; readonly usage?: ChatUsage }
  /** In-band failure inside a 200 stream (OpenAI, vLLM, llama.cpp, OpenRouter, Groq). */
  readonly error?: ErrorObject | string | null
  /** OpenRouter: the upstream provider that served the request. */
  readonly provider?: string
  /** Perplexity: every source URL so far, repeated in full on each chunk. */
  readonly citations?: ReadonlyArray<string>
  /** Perplexity: sources with titles, repeated in full on each chunk. */
  readonly search_results?: ReadonlyArray<SearchResult>
  /** Azure: moderation verdicts on the prompt (first chunk). */
  readonly prompt_filter_results?: ReadonlyArray<unknown>
  /** OpenAI: random padding against length side channels. */
  readonly obfuscation?: string
}

/** One choice of a chunk; only `index` 0 exists unless the request asked for `n > 1`. */
export interface Choice {
  readonly index?: number
  readonly delta?: Delta
  readonly finish_reason?: string | null
  /** OpenRouter: the upstream provider's own finish reason. */
  readonly native_finish_reason?: string | null
  readonly logprobs?: unknown
  /** Azure: moderation verdicts on the completion. */
  readonly content_filter_results?: unknown
}

/** What one chunk adds to the message. */
export interface Delta {
  /** First chunk only (early LM Studio builds repeat it). */
  readonly role?: string
  /** A string on most hosts; Mistral's Magistral sends an array of typed parts. */
  readonly content?: string | ReadonlyArray<MistralContentPart> | null
  /** A refusal streams here instead of `content`, and `finish_reason` stays `stop`. */
  readonly refusal?: string | null
  /** DeepSeek, xAI, Moonshot, llama.cpp, LM Studio, vLLM ≤ 0.8. */
  readonly reasoning_content?: string | null
  /** Groq (`reasoning_format: "parsed"`), OpenRouter, Ollama `/v1`, newer vLLM. */
  readonly reasoning?: string | null
  /** OpenRouter: structured reasoning with signatures and encrypted blocks. */
  readonly reasoning_details?: ReadonlyArray<ReasoningDetail>
  readonly tool_calls?: ReadonlyArray<ToolCallFragment>
  /** Deprecated single-function form, still sent by old deployments. */
  readonly function_call?: FunctionFragment
}

/** A part of Mistral's array-valued `content`. */
export type MistralContentPart =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "thinking"; readonly thinking: ReadonlyArray<{ readonly type: "text"; readonly text: string }> }

/** One entry of OpenRouter's `reasoning_details`. */
export type ReasoningDetail =
  & {
    readonly id?: string | null
    readonly format?: string
    readonly index?: number
  }
  & (
    | { readonly type: "reasoning.text"; readonly text?: string; readonly signature?: string | null }
    | { readonly type: "reasoning.summary"; readonly summary: string }
    | { readonly type: "reasoning.encrypted"; readonly data: string }
  )

/**
 * A piece of a tool call. OpenAI sends `id`, `type` and `name` on the first piece and only
 * `arguments` afterwards; Groq, xAI, Mistral and Ollama send whole calls; Mistral omits `index`.
 */
export interface ToolCallFragment {
  readonly index?: number
  /** `""` on Alibaba's continuation pieces. */
  readonly id?: string | null
  readonly type?: "function"
  readonly function?: FunctionFragment
}

/** The function part of a tool-call piece. */
export interface FunctionFragment {
  /** `""` on some Mistral continuation pieces: never a rename. */
  readonly name?: string | null
  /** A JSON text fragment; concatenate the pieces in arrival order. */
  readonly arguments?: string | null
}

/** Token usage, with every host's additions. */
export interface ChatUsage {
  /** Includes cached tokens. */
  readonly prompt_tokens?: number
  /** Includes reasoning tokens, except on xAI. */
  readonly completion_tokens?: number
  readonly total_tokens?: number
  readonly prompt_tokens_details?: {
    readonly cached_tokens?: number
    readonly cache_write_tokens?: number
    readonly audio_tokens?: number
  } | null
  readonly completion_tokens_details?: {
    readonly reasoning_tokens?: number
    readonly audio_tokens?: number
    readonly accepted_prediction_tokens?: number
    readonly rejected_prediction_tokens?: number
  } | null
  /** DeepSeek. */
  readonly prompt_cache_hit_tokens?: number
  /** DeepSeek. */
  readonly prompt_cache_miss_tokens?: number
  /** Groq timings, in seconds. */
  readonly queue_time?: number
  readonly prompt_time?: number
  readonly completion_time?: number
  readonly total_time?: number
  /** OpenRouter. */
  readonly cost?: number
  /** xAI. */
  readonly num_sources_used?: number
  readonly cost_in_usd_ticks?: number
}

/** An OpenAI-style error object (HTTP bodies nest it under `error`). */
export interface ErrorObject {
  readonly message?: string
  readonly type?: string
  readonly param?: string | null
  /** A string on OpenAI; a number (an HTTP status) on vLLM, llama.cpp and OpenRouter. */
  readonly code?: string | number | null
  /** OpenRouter: the upstream's raw error and provider name. */
  readonly metadata?: unknown
}

/** A Perplexity search result. */
export interface SearchResult {
  readonly url: string
  readonly title?: string
  readonly date?: string | null
}

/** Every field any {@link ReasoningDetail} may carry, for reading one whose `type` is not yet known. */
export interface ReasoningDetailFields {
  readonly type: string
  readonly text: string
  readonly summary: string
  readonly signature: string | null
  readonly data: string
}

/** Every field any {@link MistralContentPart} may carry, for reading one whose `type` is not yet known. */
export interface MistralContentPartFields {
  readonly type: string
  readonly text: string
  /** An array of text parts (a plain string is accepted too). */
  readonly thinking: ReadonlyArray<{ readonly type: "text"; readonly text: string }> | string
}

/** Whether an event's data is the end marker (checked by prefix, as the openai SDK does). */
export const isDone = (data: string): boolean => data.startsWith("[DONE]")
