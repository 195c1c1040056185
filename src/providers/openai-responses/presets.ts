/**
 * The hosts that serve the Responses API — OpenAI, Azure OpenAI, xAI and LM Studio — as presets:
 * where each lives, which environment variable holds its key and which header carries it. The host
 * facts are the kit's shared table (the same hosts serve Chat Completions); nothing here is specific
 * to one protocol. An xAI model is one line: `OpenAiResponses.layer({ preset: "xai", model: "grok-4", apiKey })`.
 *
 * @since 0.1.0
 */
import * as Hosts from "../../internal/kit/Hosts.js"

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

const preset = (host: Hosts.Host): Preset => ({
  provider: host.provider,
  baseUrl: host.baseUrl,
  ...(host.apiKeyEnv === undefined ? {} : { apiKeyEnv: host.apiKeyEnv }),
  ...(host.baseUrlEnv === undefined ? {} : { baseUrlEnv: host.baseUrlEnv }),
  requiresKey: host.requiresKey,
  authHeader: host.auth === "api-key" ? "api-key" : "authorization"
})

const { hosts } = Hosts

/**
 * Every known Responses API host.
 *
 * @since 0.1.0
 * @category constants
 */
export const presets = {
  openai: preset(hosts.openai),
  azure: preset(hosts.azure),
  xai: preset(hosts.xai),
  lmstudio: preset(hosts.lmstudio)
} satisfies Record<string, Preset>

/**
 * The name of a known preset.
 *
 * @since 0.1.0
 * @category models
 */
export type PresetName = keyof typeof presets
