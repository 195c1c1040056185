/**
 * Presets for the hosts that speak the Chat Completions protocol: where they live, which environment
 * variable holds their key, and the request quirks they need. A Groq model is one line:
 * `OpenAiChat.layer({ preset: "groq", model: "llama-3.3-70b-versatile", apiKey })`.
 *
 * @since 0.1.0
 */
import * as Hosts from "../../internal/kit/Hosts.js"

/**
 * What differs between Chat Completions hosts.
 *
 * @since 0.1.0
 * @category models
 */
export interface Preset {
  /** The provider name reported in chunks, errors and meter keys. */
  readonly provider: string
  /** The endpoint root, without `/chat/completions`; empty when the user must give one (Azure). */
  readonly baseUrl: string
  /** Environment variable holding the API key (read by `layerConfig`). */
  readonly apiKeyEnv?: string
  /** Environment variable that overrides the base URL (read by `layerConfig`). */
  readonly baseUrlEnv?: string
  /** Whether a request without a key is a configuration error. */
  readonly requiresKey: boolean
  /** The header carrying the key: `authorization` (Bearer) or Azure's `api-key`. */
  readonly authHeader: "authorization" | "api-key"
  /** Which field caps the answer length; most compatible hosts only know `max_tokens`. */
  readonly maxTokensField: "max_tokens" | "max_completion_tokens"
  /** Whether to send `stream_options.include_usage` (hosts that reject unknown fields get usage anyway). */
  readonly includeUsage: boolean
}

/** A host's Chat Completions preset: the shared host facts, and this protocol's quirks. */
const chat = (
  host: Hosts.Host,
  quirks?: { readonly maxTokensField?: Preset["maxTokensField"]; readonly includeUsage?: boolean }
): Preset => ({
  provider: host.provider,
  baseUrl: host.baseUrl,
  ...(host.apiKeyEnv === undefined ? {} : { apiKeyEnv: host.apiKeyEnv }),
  ...(host.baseUrlEnv === undefined ? {} : { baseUrlEnv: host.baseUrlEnv }),
  requiresKey: host.requiresKey,
  authHeader: host.auth === "api-key" ? "api-key" : "authorization",
  maxTokensField: quirks?.maxTokensField ?? "max_tokens",
  includeUsage: quirks?.includeUsage ?? true
})

const { hosts } = Hosts

/**
 * Every known Chat Completions host.
 *
 * @since 0.1.0
 * @category constants
 */
export const presets = {
  openai: chat(hosts.openai, { maxTokensField: "max_completion_tokens" }),
  azure: chat(hosts.azure, { maxTokensField: "max_completion_tokens" }),
  groq: chat(hosts.groq),
  deepseek: chat(hosts.deepseek),
  mistral: chat(hosts.mistral, { includeUsage: false }),
  xai: chat(hosts.xai),
  openrouter: chat(hosts.openrouter),
  together: chat(hosts.together),
  fireworks: chat(hosts.fireworks),
  cerebras: chat(hosts.cerebras),
  perplexity: chat(hosts.perplexity),
  moonshot: chat(hosts.moonshot),
  alibaba: chat(hosts.alibaba),
  ollama: chat(hosts.ollama),
  vllm: chat(hosts.vllm),
  lmstudio: chat(hosts.lmstudio),
  llamacpp: chat(hosts.llamacpp)
} satisfies Record<string, Preset>

/**
 * The name of a known preset.
 *
 * @since 0.1.0
 * @category models
 */
export type PresetName = keyof typeof presets
