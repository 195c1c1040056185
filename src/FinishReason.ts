/**
 * The normalized finish reason and the table that maps every provider's raw string onto it.
 *
 * @example
 * ```ts
 * import { FinishReason } from "effect-llm-stream"
 *
 * const reason: FinishReason.FinishReason = FinishReason.normalizeFinishReason("end_turn") // "stop"
 * ```
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * Schema of the normalized finish reason.
 *
 * @since 0.1.0
 * @category schemas
 */
export const FinishReason = Schema.Literal("stop", "length", "tool_calls", "content_filter", "error")

/**
 * Why a response ended, normalized across providers.
 *
 * @since 0.1.0
 * @category models
 */
export type FinishReason = typeof FinishReason.Type

const finishReasonTable: ReadonlyMap<string, FinishReason> = new Map<string, FinishReason>([
  ...["stop", "end_turn", "complete", "stop_sequence"].map((s) => [s, "stop"] as const),
  ...[
    "length",
    "max_tokens",
    "max_output_tokens",
    "model_length",
    "model_context_window_exceeded"
  ].map((s) => [s, "length"] as const),
  ...["tool_calls", "tool_use", "function_call", "tool_call"].map((s) => [s, "tool_calls"] as const),
  ...[
    "content_filter",
    "safety",
    "recitation",
    "refusal",
    "blocklist",
    "prohibited_content",
    "spii",
    "guardrail_intervened",
    "content_filtered"
  ].map((s) => [s, "content_filter"] as const),
  ["error", "error"]
])

/**
 * Normalizes a provider's finish-reason string (case-insensitive); anything unknown is `stop`.
 *
 * @since 0.1.0
 * @category utils
 */
export const normalizeFinishReason = (raw: string | null | undefined): FinishReason =>
  raw == null ? "stop" : finishReasonTable.get(raw.toLowerCase()) ?? "stop"
