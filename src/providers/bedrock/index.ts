/**
 * `Bedrock`: Amazon Bedrock's ConverseStream API (`POST /model/{modelId}/converse-stream`, AWS
 * event-stream binary frames), one wire for every model Bedrock serves (Claude, Llama, Mistral,
 * Nova, …). `Bedrock.layer({ model, region, credentials })` provides a `LanguageModel` (with an
 * `HttpClient` layer such as `FetchHttpClient.layer`); `Bedrock.layerConfig({ model })` reads the
 * standard AWS variables through `Config`.
 *
 * Credentials: a Bedrock API key (`apiKey`, or `AWS_BEARER_TOKEN_BEDROCK`), sent as
 * `Authorization: Bearer`; or AWS credentials (`credentials`, or `AWS_ACCESS_KEY_ID`,
 * `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`), with which every request is signed (SigV4,
 * signing name `bedrock`) — each retry and redirect anew. The key wins when both are given. The
 * endpoint is `https://bedrock-runtime.{region}.amazonaws.com` for the `region` (or `AWS_REGION`,
 * `AWS_DEFAULT_REGION`), unless `baseUrl` (or `BEDROCK_BASE_URL`) replaces it. The model id —
 * an inference profile id or an ARN too — goes in the path URL-encoded.
 *
 * Usage: Bedrock's `inputTokens` leave out cache reads and writes; the `usage` chunk's
 * `inputTokens` include them, as for every provider, with `cacheReadTokens` / `cacheWriteTokens`
 * beside; the `metadata` event's `metrics` (latency) are kept in `usage.raw`.
 *
 * @example
 * ```ts
 * import { FetchHttpClient } from "@effect/platform"
 * import { Effect, Layer } from "effect"
 * import { Bedrock, LanguageModel } from "effect-llm-stream"
 *
 * // Reads AWS_BEARER_TOKEN_BEDROCK, or AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (/ AWS_SESSION_TOKEN),
 * // and AWS_REGION through Config.
 * const Claude = Bedrock.layerConfig({ model: "us.anthropic.claude-sonnet-4-20250514-v1:0" })
 * const answer = LanguageModel.chat({
 *   messages: [{ role: "user", content: "Think, then answer: 17 × 23?" }],
 *   reasoning: { budgetTokens: 2048 }
 * }).pipe(Effect.provide(Layer.provide(Claude, FetchHttpClient.layer)))
 * ```
 *
 * @since 0.1.0
 */
import type { HttpClient } from "@effect/platform/HttpClient"
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Redacted from "effect/Redacted"
import * as Hosts from "../../internal/kit/Hosts.js"
import * as Provider from "../../internal/kit/Provider.js"
import * as LanguageModel from "../../LanguageModel.js"
import * as ProviderOptions from "../../ProviderOptions.js"
import * as Decode from "./decode.js"
import * as Errors from "./errors.js"
import * as Request from "./request.js"
import * as Sign from "./sign.js"

/**
 * AWS credentials for SigV4: an access key id, its secret, and a session token for temporary
 * credentials (secrets are `Redacted`).
 *
 * @since 0.1.0
 * @category models
 */
export interface Credentials {
  readonly accessKeyId: string
  readonly secretAccessKey: Redacted.Redacted<string>
  readonly sessionToken?: Redacted.Redacted<string> | undefined
}

/**
 * `maxTokens` sent when a request sets a reasoning budget but no `maxTokens` (the budget is added
 * to it: Claude wants `maxTokens` above the budget).
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxTokens = 4096

/**
 * The endpoint root of a region: `https://bedrock-runtime.{region}.amazonaws.com`.
 *
 * @since 0.1.0
 * @category utils
 */
export const endpoint = (region: string): string => `https://bedrock-runtime.${region}.amazonaws.com`

/**
 * Options of a `Bedrock` model.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options extends ProviderOptions.Common {
  /** The model id, inference profile id or ARN (sent URL-encoded in the path). */
  readonly model: string
  /** A Bedrock API key, sent as `Authorization: Bearer`; wins over `credentials`. */
  readonly apiKey?: Redacted.Redacted<string> | undefined
  /** AWS credentials to sign requests with (SigV4), when there is no `apiKey`. */
  readonly credentials?: Credentials | undefined
  /** The AWS region: the endpoint's, and the one requests are signed for. */
  readonly region?: string | undefined
  /** Replaces the regional endpoint root (a VPC endpoint, a proxy, tests); requests go to `<baseUrl>/model/…`. */
  readonly baseUrl?: string | undefined
  /** `maxTokens` for requests with a reasoning budget and no `maxTokens` (default {@link defaultMaxTokens}, plus the budget). */
  readonly maxTokens?: number | undefined
  /** Overrides the provider name reported in chunks and meter keys (default `"bedrock"`). */
  readonly provider?: string | undefined
}

const host = Hosts.hosts.bedrock

/** Why a configuration cannot make requests, if it cannot. */
const problemOf = (options: Options, provider: string): Provider.Spec<unknown>["misconfigured"] => {
  if (options.apiKey === undefined && options.credentials === undefined) {
    return {
      code: "authentication",
      message: `No credentials for ${provider}: pass apiKey (a Bedrock API key) or credentials, or set ` +
        `AWS_BEARER_TOKEN_BEDROCK, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY`
    }
  }
  // A bearer key needs no region when the base URL is given; signing always needs one.
  if (options.region === undefined && (options.baseUrl === undefined || options.apiKey === undefined)) {
    return {
      code: "invalid_request",
      message: options.baseUrl === undefined
        ? `No region for ${provider}: pass region or set AWS_REGION (or pass baseUrl, or set BEDROCK_BASE_URL)`
        : `No region for ${provider} to sign requests for: pass region or set AWS_REGION`
    }
  }
  return undefined
}

/**
 * Builds the service from options (uses the `HttpClient` in the context). Without credentials of
 * either kind, or without a region (and no `baseUrl`), every request ends at once in one `error`
 * chunk (`authentication`, `invalid_request`) naming the options and variables to set.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<LanguageModel.Service, never, HttpClient> => {
  const provider = options.provider ?? host.provider
  const baseUrl = options.baseUrl ?? (options.region !== undefined ? endpoint(options.region) : "")
  const credentials = options.apiKey === undefined ? options.credentials : undefined
  const encodeOptions: Request.EncodeOptions = {
    maxTokens: options.maxTokens ?? defaultMaxTokens,
    provider,
    model: options.model
  }
  return Provider.make({
    options: { ...options, baseUrl },
    host,
    provider,
    path: `model/${encodeURIComponent(options.model)}/converse-stream`,
    wire: Provider.eventStream,
    encode: (request) => Request.encode(request, encodeOptions),
    decoder: (name) => Decode.make({ provider: name, model: options.model }),
    errors: Errors.fromBody,
    sign: credentials !== undefined && options.region !== undefined
      ? Sign.signer(credentials, options.region, provider)
      : undefined,
    secrets: credentials !== undefined ? Sign.secretsOf(credentials) : undefined,
    misconfigured: problemOf(options, provider)
  })
}

/**
 * A layer providing `LanguageModel` for a Bedrock model.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<LanguageModel.LanguageModel, never, HttpClient> =>
  Layer.effect(LanguageModel.LanguageModel, make(options))

/** A variable that must be set and is not. */
const missing = (name: string, message: string) => Effect.fail(ConfigError.MissingData([name], message))

/** What the environment says, each read only where the options leave it open. */
const fromEnv = (options: Options) =>
  Config.all({
    apiKey: options.apiKey !== undefined || options.credentials !== undefined
      ? Config.succeed(options.apiKey)
      : ProviderOptions.optionalSecret("AWS_BEARER_TOKEN_BEDROCK"),
    accessKeyId: options.credentials !== undefined
      ? Config.succeed(options.credentials.accessKeyId)
      : ProviderOptions.optionalString("AWS_ACCESS_KEY_ID"),
    secretAccessKey: options.credentials !== undefined
      ? Config.succeed(options.credentials.secretAccessKey)
      : ProviderOptions.optionalSecret("AWS_SECRET_ACCESS_KEY"),
    sessionToken: options.credentials !== undefined
      ? Config.succeed(options.credentials.sessionToken)
      : ProviderOptions.optionalSecret("AWS_SESSION_TOKEN"),
    region: options.region !== undefined
      ? Config.succeed(options.region)
      : Config.map(
        Config.all([
          ProviderOptions.optionalString("AWS_REGION"),
          ProviderOptions.optionalString("AWS_DEFAULT_REGION")
        ]),
        ([region, fallback]) => region ?? fallback
      ),
    baseUrl: options.baseUrl !== undefined
      ? Config.succeed(options.baseUrl)
      : ProviderOptions.optionalString("BEDROCK_BASE_URL")
  })

/**
 * Completes options from the environment, reading only what they leave open: a Bedrock API key
 * from `AWS_BEARER_TOKEN_BEDROCK`, else AWS credentials from `AWS_ACCESS_KEY_ID`,
 * `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`; the region from `AWS_REGION` or
 * `AWS_DEFAULT_REGION`; the endpoint root from `BEDROCK_BASE_URL`. Fails with a `ConfigError` naming
 * the variables when there are no credentials, a key id without its secret, or no region and no base
 * URL.
 *
 * @since 0.1.0
 * @category constructors
 */
export const resolve = (options: Options): Effect.Effect<Options, ConfigError.ConfigError> =>
  Effect.flatMap(fromEnv(options), (env) => {
    if (env.apiKey === undefined && env.accessKeyId === undefined) {
      return missing(
        "AWS_BEARER_TOKEN_BEDROCK",
        "No Bedrock credentials: set AWS_BEARER_TOKEN_BEDROCK (a Bedrock API key), or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"
      )
    }
    if (env.apiKey === undefined && env.secretAccessKey === undefined) {
      return missing("AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID is set without AWS_SECRET_ACCESS_KEY")
    }
    if (env.region === undefined && (env.baseUrl === undefined || env.apiKey === undefined)) {
      return missing("AWS_REGION", "No AWS region: set AWS_REGION (or AWS_DEFAULT_REGION), or pass region")
    }
    const credentials: Credentials | undefined = env.apiKey === undefined && env.accessKeyId !== undefined &&
        env.secretAccessKey !== undefined
      ? { accessKeyId: env.accessKeyId, secretAccessKey: env.secretAccessKey, sessionToken: env.sessionToken }
      : undefined
    return Effect.succeed({ ...options, apiKey: env.apiKey, credentials, region: env.region, baseUrl: env.baseUrl })
  })

/**
 * Like {@link layer}, completing the options from the environment ({@link resolve}): the
 * credentials (`AWS_BEARER_TOKEN_BEDROCK`, or `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY` /
 * `AWS_SESSION_TOKEN`), the region (`AWS_REGION`, `AWS_DEFAULT_REGION`) and `BEDROCK_BASE_URL`, each
 * unless given. Fails with a `ConfigError` naming what to set.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (
  options: Omit<Options, "apiKey" | "credentials">
): Layer.Layer<LanguageModel.LanguageModel, ConfigError.ConfigError, HttpClient> =>
  Layer.effect(LanguageModel.LanguageModel, Effect.flatMap(resolve(options), make))
