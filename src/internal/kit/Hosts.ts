/**
 * The hosts the providers talk to: where each lives, which environment variables name its key and
 * base URL, and how it takes the key. One table for every protocol, because a host serves several
 * (OpenAI, Azure, xAI and LM Studio serve both Chat Completions and Responses); a protocol's own
 * request quirks stay with its provider (Chat's `maxTokensField`, `includeUsage`).
 *
 * @since 0.1.0
 */

/**
 * How a host takes the key: `Authorization: Bearer <key>`, or the key alone in the `x-api-key`
 * (Anthropic), `api-key` (Azure) or `x-goog-api-key` (Gemini) header; `none` sends no key.
 */
export type Auth = "bearer" | "x-api-key" | "api-key" | "x-goog-api-key" | "none"

/** One host. */
export interface Host {
  /** The provider name reported in chunks, errors and meter keys. */
  readonly provider: string
  /** The endpoint root the provider's path is joined to; empty when the user must give one (Azure). */
  readonly baseUrl: string
  /** Environment variable holding the API key (read by `layerConfig`). */
  readonly apiKeyEnv?: string
  /** Environment variable that overrides the base URL (read by `layerConfig`; required when `baseUrl` is empty). */
  readonly baseUrlEnv?: string
  /** Whether a request without a key is a configuration error. */
  readonly requiresKey: boolean
  /** How the key is sent. */
  readonly auth: Auth
}

/** A cloud host: a key is required, and `<NAME>_BASE_URL` (from the key's `<NAME>_API_KEY`) overrides the URL. */
const cloud = (provider: string, baseUrl: string, apiKeyEnv: string, extra?: Partial<Host>): Host => ({
  provider,
  baseUrl,
  apiKeyEnv,
  baseUrlEnv: `${apiKeyEnv.replace(/_API_KEY$/, "")}_BASE_URL`,
  requiresKey: true,
  auth: "bearer",
  ...extra
})

/** A local server: no key variable (a key given in options is still sent), a base URL variable. */
const local = (provider: string, baseUrl: string, baseUrlEnv: string): Host => ({
  provider,
  baseUrl,
  baseUrlEnv,
  requiresKey: false,
  auth: "bearer"
})

/** Every known host. */
export const hosts = {
  openai: cloud("openai", "https://api.openai.com/v1", "OPENAI_API_KEY"),
  // Azure's v1 API: `https://<resource>.openai.azure.com/openai/v1`, which only the user knows.
  azure: cloud("azure", "", "AZURE_OPENAI_API_KEY", { auth: "api-key" }),
  // The Anthropic SDK's ANTHROPIC_BASE_URL has no `/v1`: the provider's path carries it (`v1/messages`).
  anthropic: cloud("anthropic", "https://api.anthropic.com", "ANTHROPIC_API_KEY", { auth: "x-api-key" }),
  groq: cloud("groq", "https://api.groq.com/openai/v1", "GROQ_API_KEY"),
  deepseek: cloud("deepseek", "https://api.deepseek.com/v1", "DEEPSEEK_API_KEY"),
  mistral: cloud("mistral", "https://api.mistral.ai/v1", "MISTRAL_API_KEY"),
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
  // Gemini (Google AI Studio): the Developer API root; the model goes in the path.
  google: cloud("google", "https://generativelanguage.googleapis.com/v1beta", "GEMINI_API_KEY", {
    auth: "x-goog-api-key"
  }),
  // Cohere's v2 API: the provider's path carries `v2/chat`.
  cohere: cloud("cohere", "https://api.cohere.com", "COHERE_API_KEY"),
  // Amazon Bedrock: the endpoint comes from the region; the key, when there is one, is a Bedrock API
  // key (a bearer token); without it requests are signed with AWS credentials (SigV4).
  bedrock: {
    provider: "bedrock",
    baseUrl: "",
    apiKeyEnv: "AWS_BEARER_TOKEN_BEDROCK",
    baseUrlEnv: "BEDROCK_BASE_URL",
    requiresKey: false,
    auth: "bearer"
  },
  // Ollama's native API (`/api/chat`): the server root, as Ollama's own clients read it from OLLAMA_HOST.
  ollamaNative: local("ollama", "http://localhost:11434", "OLLAMA_HOST"),
  ollama: local("ollama", "http://localhost:11434/v1", "OLLAMA_BASE_URL"),
  vllm: local("vllm", "http://localhost:8000/v1", "VLLM_BASE_URL"),
  lmstudio: local("lmstudio", "http://localhost:1234/v1", "LMSTUDIO_BASE_URL"),
  llamacpp: local("llamacpp", "http://localhost:8080/v1", "LLAMACPP_BASE_URL")
} satisfies Record<string, Host>

/** The name of a known host. */
export type HostName = keyof typeof hosts
