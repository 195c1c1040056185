/**
 * Presets for the hosts that speak the Chat Completions protocol: where they live, which environment
 * variable holds their key, and the request quirks they need. A Groq model is one line:
 * `OpenAiChat.layer({ preset: "groq", model: "llama-3.3-70b-versatile", apiKey })`.
 *
 * @since 0.1.0
 */

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

const cloud = (
  provider: string,
  baseUrl: string,
  apiKeyEnv: string,
  extra?: Partial<Preset>
): Preset => ({
  provider,
  baseUrl,
  apiKeyEnv,
  baseUrlEnv: `${apiKeyEnv.replace(/_API_KEY$/, "")}_BASE_URL`,
  requiresKey: true,
  authHeader: "authorization",
  maxTokensField: "max_tokens",
  includeUsage: true,
  ...extra
})

const local = (provider: string, baseUrl: string, baseUrlEnv: string): Preset => ({
  provider,
  baseUrl,
  baseUrlEnv,
  requiresKey: false,
  authHeader: "authorization",
  maxTokensField: "max_tokens",
  includeUsage: true
})

/**
 * Every known Chat Completions host.
 *
 * @since 0.1.0
 * @category constants
 */
export const presets = {
  openai: cloud("openai", "https://api.openai.com/v1", "OPENAI_API_KEY", { maxTokensField: "max_completion_tokens" }),
  azure: cloud("azure", "", "AZURE_OPENAI_API_KEY", {
    authHeader: "api-key",
    maxTokensField: "max_completion_tokens"
  }),
  groq: cloud("groq", "https://api.groq.com/openai/v1", "GROQ_API_KEY"),
  deepseek: cloud("deepseek", "https://api.deepseek.com/v1", "DEEPSEEK_API_KEY"),
  mistral: cloud("mistral", "https://api.mistral.ai/v1", "MISTRAL_API_KEY", { includeUsage: false }),
  xai: cloud("xai", "https://api.x.ai/v1", "XAI_API_KEY"),
  openrouter: cloud("openrouter", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY"),
  together: cloud("together", "https://api.together.xyz/v1", "TOGETHER_API_KEY"),
  fireworks: cloud("fireworks", "https://api.fireworks.ai/inference/v1", "FIREWORKS_API_KEY"),
  cerebras: cloud("cerebras", "https://api.cerebras.ai/v1", "CEREBRAS_API_KEY"),
  perplexity: cloud("perplexity", "https://api.perplexity.ai", "PERPLEXITY_API_KEY"),
  moonshot: cloud("moonshot", "https://api.moonshot.ai/v1", "MOONSHOT_API_KEY"),
  alibaba: cloud("alibaba", "https://dashscope-intl.aliyuncs.com/compatible-mode/v1", "DASHSCOPE_API_KEY", {
    baseUrlEnv: "DASHSCOPE_BASE_URL"
  }),
  ollama: local("ollama", "http://localhost:11434/v1", "OLLAMA_BASE_URL"),
  vllm: local("vllm", "http://localhost:8000/v1", "VLLM_BASE_URL"),
  lmstudio: local("lmstudio", "http://localhost:1234/v1", "LMSTUDIO_BASE_URL"),
  llamacpp: local("llamacpp", "http://localhost:8080/v1", "LLAMACPP_BASE_URL")
} satisfies Record<string, Preset>

/**
 * The name of a known preset.
 *
 * @since 0.1.0
 * @category models
 */
export type PresetName = keyof typeof presets
