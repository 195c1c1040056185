/**
 * Presets for the hosts that serve the Responses API: where they live, which environment variable
 * holds their key and which header carries it. An xAI model is one line:
 * `OpenAiResponses.layer({ preset: "xai", model: "grok-4", apiKey })`.
 *
 * @since 0.1.0
 */

/**
 * What differs between Responses API hosts.
 *
 * @since 0.1.0
 * @category models
 */
export interface Preset {
  /** The provider name reported in chunks, errors and meter keys. */
  readonly provider: string
  /** The endpoint root, without `/responses`; empty when the user must give one (Azure). */
  readonly baseUrl: string
  /** Environment variable holding the API key (read by `layerConfig`). */
  readonly apiKeyEnv?: string
  /** Environment variable that overrides the base URL (read by `layerConfig`). */
  readonly baseUrlEnv?: string
  /** Whether a request without a key is a configuration error. */
  readonly requiresKey: boolean
  /** The header carrying the key: `authorization` (Bearer) or Azure's `api-key`. */
  readonly authHeader: "authorization" | "api-key"
}

/**
 * Every known Responses API host.
 *
 * @since 0.1.0
 * @category constants
 */
export const presets = {
  openai: {
    provider: "openai",
    baseUrl: "https://api.openai.com/v1",
    apiKeyEnv: "OPENAI_API_KEY",
    baseUrlEnv: "OPENAI_BASE_URL",
    requiresKey: true,
    authHeader: "authorization"
  },
  // Azure's v1 API: `https://<resource>.openai.azure.com/openai/v1`.
  azure: {
    provider: "azure",
    baseUrl: "",
    apiKeyEnv: "AZURE_OPENAI_API_KEY",
    baseUrlEnv: "AZURE_OPENAI_BASE_URL",
    requiresKey: true,
    authHeader: "api-key"
  },
  xai: {
    provider: "xai",
    baseUrl: "https://api.x.ai/v1",
    apiKeyEnv: "XAI_API_KEY",
    baseUrlEnv: "XAI_BASE_URL",
    requiresKey: true,
    authHeader: "authorization"
  },
  lmstudio: {
    provider: "lmstudio",
    baseUrl: "http://localhost:1234/v1",
    baseUrlEnv: "LMSTUDIO_BASE_URL",
    requiresKey: false,
    authHeader: "authorization"
  }
} satisfies Record<string, Preset>

/**
 * The name of a known preset.
 *
 * @since 0.1.0
 * @category models
 */
export type PresetName = keyof typeof presets
