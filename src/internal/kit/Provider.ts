/**
 * The provider kit's construction: one {@link make} turns a provider's knowledge (endpoint path,
 * host, wire framing, request encoding, decoder, error tables) into the `LanguageModel` service, and
 * {@link layerConfig} reads a host's key and base URL from the environment. What every provider
 * shares lives here once: the missing-key and missing-base-URL error chunks, header merging, the
 * key in the host's auth header (and nowhere else), and the transport call.
 *
 * @since 0.1.0
 */
import type { HttpClient } from "@effect/platform/HttpClient"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import type * as ChatRequest from "../../ChatRequest.js"
import * as LanguageModel from "../../LanguageModel.js"
import * as LlmError from "../../LlmError.js"
import * as ProviderOptions from "../../ProviderOptions.js"
import * as StreamChunk from "../../StreamChunk.js"
import type { ChunkDecoder } from "../ChunkDecoder.js"
import * as EventStream from "../framing/EventStream.js"
import * as Ndjson from "../framing/Ndjson.js"
import * as Sse from "../framing/Sse.js"
import type * as Redact from "../redact.js"
import type * as Raw from "../telemetry/raw.js"
import * as Http from "../transport/Http.js"
import * as Transport from "../transport/Transport.js"
import * as ErrorBody from "./ErrorBody.js"
import type * as Hosts from "./Hosts.js"

/** How a body is framed: a framer per attempt, how the transport recognizes the stream, the `accept` header. */
export interface Wire<Ev> {
  /** A fresh framer masking with `mask` (the credentials), capping one event at `maxEventBytes` (default 16 MiB). */
  readonly framer: (maxEventBytes: number | undefined, mask: Redact.Masker | undefined) => Transport.Framer<Ev>
  readonly streamType: Transport.StreamType
  readonly accept: string
  /** What an event reads as for the `debug` option (see `Telemetry.RawEvent`). */
  readonly raw: (event: Ev) => Raw.Raw
}

/** Server-sent events (`Sse.Event`s). */
export const sse: Wire<Sse.Event> = {
  framer: (maxEventBytes, mask) => new Sse.Framer({ maxEventBytes, mask }),
  streamType: Transport.sse,
  accept: "text/event-stream",
  raw: (event) => ({ name: event.event, data: event.error === undefined ? event.data : event.error })
}

/** Newline-delimited JSON (one line of text per event). */
export const ndjson: Wire<string> = {
  framer: (maxEventBytes, mask) => new Ndjson.Framer({ maxEventBytes, mask }),
  streamType: Transport.ndjson,
  accept: "application/x-ndjson",
  raw: (line) => ({ name: undefined, data: line })
}

/** AWS event-stream binary messages (`EventStream.Frame`s, Amazon Bedrock). */
export const eventStream: Wire<EventStream.Frame> = {
  framer: (maxEventBytes, mask) => new EventStream.Framer({ maxEventBytes, mask }),
  streamType: Transport.eventStream,
  accept: "application/vnd.amazon.eventstream",
  raw: (frame) => ({
    name: frame.eventType ?? frame.exceptionType ?? frame.errorCode ?? frame.messageType,
    data: frame.messageType === "error" ? frame.errorMessage ?? frame.payload : frame.payload
  })
}

/** What a provider gives {@link make}. */
export interface Spec<Ev> {
  /** The options every provider takes (model, key, base URL, headers, retry, timeouts, event cap). */
  readonly options: ProviderOptions.Common
  /** Where the provider lives and how it takes the key. */
  readonly host: Hosts.Host
  /** The provider name in chunks, errors and meter keys (default the host's). */
  readonly provider?: string | undefined
  /** The endpoint path, joined to the base URL with one slash: `chat/completions`, `v1/messages`. */
  readonly path: string
  /** The body's framing. */
  readonly wire: Wire<Ev>
  /** Fixed headers (`anthropic-version`, beta flags): below `options.headers`, so a user can replace them. */
  readonly headers?: Readonly<Record<string, string>> | undefined
  /**
   * The request body for a request, or why the request cannot be sent (a `Left`, answered with one
   * `invalid_request` error chunk before any request).
   */
  readonly encode: (request: ChatRequest.ChatRequest) => Either.Either<unknown, string>
  /** A fresh decoder for one attempt. */
  readonly decoder: (provider: string) => ChunkDecoder<Ev>
  /** The provider's error mapping (`ErrorBody.make(tables)`), for HTTP error bodies. */
  readonly errors: ErrorBody.Mapper
  /**
   * Signs every request sent (AWS SigV4), in place of or beside the key header: see `Http.Signer`.
   * Its credentials belong in {@link Spec.secrets}.
   */
  readonly sign?: Http.Signer | undefined
  /** Credentials besides `options.apiKey` (a signing secret, a session token), masked by value everywhere. */
  readonly secrets?: ReadonlyArray<string> | undefined
  /**
   * A configuration problem the provider found (no credentials of any kind, no region): every
   * request ends at once in one `error` chunk saying so, before any request is sent.
   */
  readonly misconfigured?: { readonly code: LlmError.ErrorCode; readonly message: string } | undefined
}

/** A stream of one `error` chunk: a configuration problem known before any request. */
const configError = (code: LlmError.ErrorCode, message: string, provider: string) =>
  Stream.succeed(StreamChunk.error(LlmError.info({ code, message, provider, retryable: false })))

/** Adds the key to the headers the host's way. */
const authorize = (headers: Record<string, string>, auth: Hosts.Auth, key: string): void => {
  switch (auth) {
    case "bearer":
      headers.authorization = `Bearer ${key}`
      return
    case "x-api-key":
    case "api-key":
    case "x-goog-api-key":
      headers[auth] = key
      return
    case "none":
      return
  }
}

/**
 * Builds a provider's `LanguageModel` service (with the `HttpClient` in the context). A request
 * without a base URL, or without the key a host requires, ends at once in one `error` chunk;
 * headers merge as `accept`, the fixed headers, `options.headers`, the request's, then the key.
 */
export const make = <Ev>(spec: Spec<Ev>): Effect.Effect<LanguageModel.Service, never, HttpClient> => {
  // What depends only on the spec is made once, not on every build of the layer: the transport
  // keeps the masker it builds from `secrets` (≈ 60 µs) for as long as this same list is passed.
  const { host, options } = spec
  const provider = spec.provider ?? host.provider
  const baseUrl = options.baseUrl ?? host.baseUrl
  const url = ProviderOptions.joinUrl(baseUrl, spec.path)
  const key = options.apiKey === undefined ? undefined : Redacted.value(options.apiKey)
  const secrets = [...(key === undefined ? [] : [key]), ...(spec.secrets ?? [])]
  const errorFromResponse: Transport.Request<Ev>["errorFromResponse"] = (status, body, extras) =>
    spec.errors(status, ErrorBody.parse(body), provider, extras)
  const framer = (mask: Redact.Masker | undefined) => spec.wire.framer(options.maxEventBytes, mask)
  const decoder = () => spec.decoder(provider)
  const headersWith = (extra: Readonly<Record<string, string>> | undefined): Record<string, string> => {
    const headers: Record<string, string> = { accept: spec.wire.accept, ...spec.headers, ...options.headers, ...extra }
    if (key !== undefined) authorize(headers, host.auth, key)
    return headers
  }
  // The headers of every request that adds none, made once and frozen: the transport keeps what it
  // derives from a frozen headers object (their credentials' masker, their validity) with it.
  const fixedHeaders = Object.freeze(headersWith(undefined))
  return Effect.map(Http.Client, (client) =>
    LanguageModel.make({
      provider,
      model: options.model,
      stream: (request) => {
        if (spec.misconfigured !== undefined) {
          return configError(spec.misconfigured.code, spec.misconfigured.message, provider)
        }
        if (baseUrl === "") {
          return configError(
            "invalid_request",
            `No base URL for ${provider}: pass baseUrl${host.baseUrlEnv ? ` or set ${host.baseUrlEnv}` : ""}`,
            provider
          )
        }
        if (key === undefined && host.requiresKey) {
          return configError(
            "authentication",
            `No API key for ${provider}: pass apiKey${host.apiKeyEnv ? ` or set ${host.apiKeyEnv}` : ""}`,
            provider
          )
        }
        const body = spec.encode(request)
        if (Either.isLeft(body)) return configError("invalid_request", body.left, provider)
        const headers = request.headers === undefined ? fixedHeaders : headersWith(request.headers)
        return Transport.streamWith<Ev>(client, {
          provider,
          url,
          headers,
          body: body.right,
          secrets,
          framer,
          decoder,
          errorFromResponse,
          streamType: spec.wire.streamType,
          sign: spec.sign,
          retry: options.retry,
          timeouts: options.timeouts,
          raw: options.debug === true ? spec.wire.raw : undefined
        })
      }
    }))
}

/** What {@link layerConfig} read from the environment, for the provider's `make`. */
export interface FromEnv {
  readonly apiKey: Redacted.Redacted<string> | undefined
  /** The base URL the options give, else the host's variable, else undefined (the host's default). */
  readonly baseUrl: string | undefined
}

/**
 * A layer reading the host's key and base URL variables through `Config`, then building the service
 * with `make`. A required key that is not set is a `ConfigError` naming its variable; so is the base
 * URL variable of a host with no default endpoint (Azure), unless `options.baseUrl` is given.
 */
export const layerConfig = (
  host: Hosts.Host,
  options: { readonly baseUrl?: string | undefined },
  make: (env: FromEnv) => Effect.Effect<LanguageModel.Service, never, HttpClient>
): Layer.Layer<LanguageModel.LanguageModel, ConfigError.ConfigError, HttpClient> => {
  const key: Config.Config<Redacted.Redacted<string> | undefined> = host.apiKeyEnv === undefined
    ? Config.succeed(undefined)
    : host.requiresKey
    ? Config.redacted(host.apiKeyEnv)
    : ProviderOptions.optionalSecret(host.apiKeyEnv)
  const base: Config.Config<string | undefined> = host.baseUrlEnv === undefined || options.baseUrl !== undefined
    ? Config.succeed(undefined)
    : host.baseUrl === ""
    ? Config.string(host.baseUrlEnv)
    : ProviderOptions.optionalString(host.baseUrlEnv)
  // The environment is read on every build; the service is made again only when what it read
  // changed, so a layer built per run keeps its masker (see `make`). Kept by this layer alone.
  let last: {
    readonly key: string | undefined
    readonly baseUrl: string | undefined
    readonly made: ReturnType<typeof make>
  } | undefined
  return Layer.effect(
    LanguageModel.LanguageModel,
    Effect.flatMap(Config.all([key, base]), ([apiKey, read]) => {
      const value = apiKey === undefined ? undefined : Redacted.value(apiKey)
      const baseUrl = options.baseUrl ?? read
      if (last === undefined || last.key !== value || last.baseUrl !== baseUrl) {
        last = { key: value, baseUrl, made: make({ apiKey, baseUrl }) }
      }
      return last.made
    })
  )
}
