/**
 * Cassettes: a provider layer's HTTP exchanges recorded to a JSON file once, from the real provider,
 * and replayed from it afterwards, so tests of agents (several requests per run) need no network and
 * no key. Re-exported through `Replay` (`Replay.cassette`).
 *
 * @example
 * ```ts
 * import { FetchHttpClient } from "@effect/platform"
 * import { Effect } from "effect"
 * import { LanguageModel, OpenAiChat } from "effect-llm-stream"
 * import { Replay } from "effect-llm-stream/testing"
 *
 * const Model = Replay.cassette("test/cassettes/weather.json", OpenAiChat.layerConfig({ model: "gpt-4.1-mini" }))
 * const answer = LanguageModel.chat("Weather in Paris?").pipe(
 *   Effect.provide(Model),
 *   Effect.provide(FetchHttpClient.layer) // used only while recording
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as UrlParams from "@effect/platform/UrlParams"
import * as ConfigError from "effect/ConfigError"
import * as ConfigProvider from "effect/ConfigProvider"
import * as PathPatch from "effect/ConfigProviderPathPatch"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as HashSet from "effect/HashSet"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as fs from "node:fs/promises"
import * as nodePath from "node:path"
import * as Redact from "../internal/redact.js"
import * as Http from "../internal/transport/Http.js"
import type * as LanguageModel from "../LanguageModel.js"
import * as Replay from "./Replay.js"

/**
 * `auto` replays the file when it exists and records it when it does not; `replay` never records (a
 * missing file fails the layer: use it in CI); `record` records anew, replacing the file.
 *
 * @since 0.1.0
 * @category models
 */
export type CassetteMode = "auto" | "replay" | "record"

/**
 * Options of {@link cassette}.
 *
 * @since 0.1.0
 * @category models
 */
export interface CassetteOptions {
  readonly mode?: CassetteMode | undefined
}

/**
 * A recorded request: method, URL path with its non-secret query parameters (no origin), and the
 * body parsed as JSON (its text when it is not JSON). Request headers are never recorded.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CassetteRequest = Schema.Struct({ method: Schema.String, url: Schema.String, body: Schema.Unknown })

/**
 * A recorded response: status, the headers replays need (content type, request id, retry advice,
 * error type, location), and the body as text, or as `bodyBase64` when it is binary; `dropped` when
 * the connection failed before the body ended.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CassetteResponse = Schema.Struct({
  status: Schema.Int.pipe(Schema.between(200, 599)),
  headers: Schema.Record({ key: Schema.String, value: Schema.String }),
  body: Schema.optional(Schema.String),
  bodyBase64: Schema.optional(Schema.String),
  dropped: Schema.optional(Schema.Boolean)
}).pipe(
  Schema.filter((r) => r.body === undefined || r.bodyBase64 === undefined || "body and bodyBase64 exclude each other")
)

/**
 * One request and its response.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CassetteExchange = Schema.Struct({ request: CassetteRequest, response: CassetteResponse })

/**
 * A cassette file: `{ "version": 1, "exchanges": [...] }`, exchanges in the order the requests were sent.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CassetteFile = Schema.Struct({ version: Schema.Literal(1), exchanges: Schema.Array(CassetteExchange) })

/**
 * A cassette file's contents.
 *
 * @since 0.1.0
 * @category models
 */
export type CassetteFile = typeof CassetteFile.Type

/**
 * Why a cassette layer could not be built: its file is `missing` (mode `replay`), `unreadable` or
 * `malformed`; it could not be recorded because the provider layer failed (`unrecordable`, the
 * provider's error in `cause`); or it could not be written (`unwritable`).
 *
 * @since 0.1.0
 * @category errors
 */
export class CassetteError extends Schema.TaggedError<CassetteError>("effect-llm-stream/CassetteError")(
  "CassetteError",
  {
    reason: Schema.Literal("missing", "unreadable", "malformed", "unrecordable", "unwritable"),
    path: Schema.String,
    message: Schema.String,
    cause: Schema.optional(Schema.Unknown)
  }
) {}

/**
 * What a replayed `layerConfig` reads for an unset key variable. Providers mask their key in error
 * messages, any run of 8 of its characters too: so nothing in it reads like words of a message.
 */
const replayKey = "replay-only-7f3a9c2e"

/** Response headers a replay needs; nothing else of a response is kept. */
const keptHeaders: ReadonlyArray<string> = [
  "content-type",
  "x-request-id",
  "request-id",
  "x-amzn-requestid",
  "x-goog-request-id",
  "x-generation-id",
  "retry-after",
  "retry-after-ms",
  "x-should-retry",
  "x-amzn-errortype",
  "location"
]

/** Query parameters that may carry a credential: never recorded. */
const secretParam = /key|token|secret|sig|credential|auth|password|session/i

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e))
const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`
const rerecord = "Delete the file and run again with the provider's key set to record it anew."

/** Masks the credentials a request carried in its headers, by value, in every form a server can echo. */
const maskOf = (headers: Readonly<Record<string, string>>): (text: string) => string => {
  const secrets = Http.secretsOf(headers)
  const token = headers["x-amz-security-token"]
  if (token !== undefined) secrets.push(token)
  const masker = Redact.make(secrets)
  return masker === undefined ? (text) => text : masker.text
}

const maskJson = (value: unknown, mask: (text: string) => string): unknown => {
  if (typeof value === "string") return mask(value)
  if (Array.isArray(value)) return value.map((v) => maskJson(v, mask))
  if (typeof value !== "object" || value === null) return value
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) out[mask(k)] = maskJson(v, mask)
  return out
}

/** A URL as recorded: its path and non-secret query parameters. */
const urlKey = (url: URL, mask: (text: string) => string): string => {
  const query = new URLSearchParams([...url.searchParams].filter(([name]) => !secretParam.test(name))).toString()
  return mask(url.pathname + (query === "" ? "" : `?${query}`))
}

/** A body as `Replay.Received` has it: parsed JSON, else its text. */
const bodyOf = (request: HttpClientRequest.HttpClientRequest): unknown => {
  const text = request.body._tag === "Uint8Array" ? new TextDecoder().decode(request.body.body) : ""
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

const show = (u: unknown): string => {
  const json = JSON.stringify(u) ?? String(u)
  return json.length > 80 ? `${json.slice(0, 80)}…` : json
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** Where two JSON values first differ, or undefined when they are equal. */
const differenceOf = (recorded: unknown, sent: unknown, at: string): string | undefined => {
  if (Object.is(recorded, sent)) return undefined
  if (Array.isArray(recorded) && Array.isArray(sent)) {
    for (let i = 0; i < Math.max(recorded.length, sent.length); i++) {
      const here = `${at}[${i}]`
      if (i >= sent.length) return `${here}: recorded ${show(recorded[i])}, not sent`
      if (i >= recorded.length) return `${here}: not recorded, sent ${show(sent[i])}`
      const d = differenceOf(recorded[i], sent[i], here)
      if (d !== undefined) return d
    }
    return undefined
  }
  if (isRecord(recorded) && isRecord(sent)) {
    for (const k of new Set([...Object.keys(recorded), ...Object.keys(sent)])) {
      const here = /^[A-Za-z_$][\w$]*$/.test(k) ? `${at}.${k}` : `${at}[${JSON.stringify(k)}]`
      if (!Object.hasOwn(sent, k)) return `${here}: recorded ${show(recorded[k])}, not sent`
      if (!Object.hasOwn(recorded, k)) return `${here}: not recorded, sent ${show(sent[k])}`
      const d = differenceOf(recorded[k], sent[k], here)
      if (d !== undefined) return d
    }
    return undefined
  }
  return `${at}: recorded ${show(recorded)}, sent ${show(sent)}`
}

/** Answers request n with exchange n once the request matches it; refuses it, saying why, otherwise. */
const replier = (path: string, file: CassetteFile) => (request: Replay.Received, n: number): Replay.Reply => {
  const exchange = file.exchanges[n]
  if (exchange === undefined) {
    return Replay.refusal(
      `Replay.cassette: request ${n + 1} has no recorded exchange: ${path} holds ` +
        `${plural(file.exchanges.length, "exchange")}. ${rerecord}`
    )
  }
  const mask = maskOf(request.headers)
  const recorded = exchange.request
  const difference = recorded.method !== request.method
    ? `method: recorded ${recorded.method}, sent ${request.method}`
    : differenceOf(recorded.url, urlKey(new URL(request.url), mask), "url") ??
      differenceOf(recorded.body, maskJson(request.body, mask), "body")
  if (difference !== undefined) {
    return Replay.refusal(
      `Replay.cassette: request ${n + 1} does not match exchange ${n + 1} of ${path}: ${difference}. ${rerecord}`
    )
  }
  const response = exchange.response
  return {
    status: response.status,
    headers: response.headers,
    body: response.bodyBase64 !== undefined
      ? Uint8Array.from(Buffer.from(response.bodyBase64, "base64"))
      : response.body ?? "",
    ...(response.dropped === true ? { drop: true } : {})
  }
}

/** A response being recorded: its body grows as the provider reads it. */
interface Tape {
  readonly request: typeof CassetteRequest.Type
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly reads: Array<Uint8Array>
  readonly mask: (text: string) => string
  dropped: boolean
}

const nullBodyStatuses: ReadonlySet<number> = new Set([204, 205, 304])
const binaryTypes = /eventstream|octet-stream|protobuf/i

/** A client passing every request to `upstream` and keeping each exchange in `tapes`, in the order sent. */
const recorder = (upstream: HttpClient.HttpClient, tapes: Array<Tape | undefined>): HttpClient.HttpClient =>
  HttpClient.transform(upstream, (effect, request) =>
    Effect.suspend(() => {
      const slot = tapes.push(undefined) - 1
      const mask = maskOf(request.headers)
      const url = UrlParams.makeUrl(request.url, request.urlParams, request.hash)
      const recorded = {
        method: request.method,
        url: Either.isRight(url) ? urlKey(url.right, mask) : mask(request.url),
        body: maskJson(bodyOf(request), mask)
      }
      return Effect.flatMap(effect, (response) => {
        const headers: Record<string, string> = {}
        for (const name of keptHeaders) {
          const value = response.headers[name]
          if (value !== undefined) headers[name] = mask(value)
        }
        const tape: Tape = { request: recorded, status: response.status, headers, reads: [], mask, dropped: false }
        tapes[slot] = tape
        // The body was decoded already: its encoding and length headers no longer describe it.
        const passed = Object.entries(response.headers).filter(([name]) =>
          name !== "content-encoding" && name !== "content-length" && name !== "transfer-encoding"
        )
        if (nullBodyStatuses.has(response.status)) {
          return Effect.succeed(
            HttpClientResponse.fromWeb(request, new Response(null, { status: response.status, headers: passed }))
          )
        }
        const body = response.stream.pipe(
          Stream.map((bytes) => {
            tape.reads.push(bytes)
            return bytes
          }),
          Stream.tapError(() => Effect.sync(() => (tape.dropped = true))),
          // What failed underneath, as the provider would see it without a recorder in between.
          Stream.mapError((e) => e.cause ?? e)
        )
        return Effect.map(
          Stream.toReadableStreamEffect(body),
          (readable) =>
            HttpClientResponse.fromWeb(request, new Response(readable, { status: response.status, headers: passed }))
        )
      })
    }))

/** A recorded exchange as written: the body as text when it is UTF-8 text, else Base64, credentials masked. */
const exchangeOf = (tape: Tape): typeof CassetteExchange.Encoded => {
  const bytes = Buffer.concat(tape.reads)
  let text: string | undefined
  if (!binaryTypes.test(tape.headers["content-type"] ?? "")) {
    try {
      text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes)
    } catch {
      text = undefined
    }
  }
  const body = text !== undefined
    ? { body: tape.mask(text) }
    : { bodyBase64: Buffer.from(tape.mask(bytes.toString("latin1")), "latin1").toString("base64") }
  return {
    request: tape.request,
    response: { status: tape.status, headers: tape.headers, ...body, ...(tape.dropped ? { dropped: true } : {}) }
  }
}

/** Writes the exchanges that got a response (nothing when none did), pretty-printed, replacing the file at once. */
const save = (path: string, tapes: ReadonlyArray<Tape | undefined>): Effect.Effect<void, CassetteError> => {
  const exchanges = tapes.flatMap((tape) => (tape === undefined ? [] : [exchangeOf(tape)]))
  if (exchanges.length === 0) return Effect.void
  const text = `${JSON.stringify({ version: 1, exchanges }, null, 2)}\n`
  return Effect.tryPromise({
    try: async () => {
      await fs.mkdir(nodePath.dirname(path), { recursive: true })
      const temporary = `${path}.${process.pid}.tmp`
      await fs.writeFile(temporary, text)
      await fs.rename(temporary, path)
    },
    catch: (e) =>
      new CassetteError({
        reason: "unwritable",
        path,
        message: `Replay.cassette: cannot write ${path}: ${messageOf(e)}`
      })
  })
}

/** A decoding failure as `exchanges[0].response.status: Expected …` lines, joined. */
const issuesOf = (e: ParseResult.ParseError): string =>
  ParseResult.ArrayFormatter.formatErrorSync(e).map((issue) => {
    const at = issue.path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
    return at.length === 0 ? issue.message : `${at.join("")}: ${issue.message}`
  }).join("; ")

/** The cassette at `path`, or none when there is no such file. */
const load = (path: string): Effect.Effect<Option.Option<CassetteFile>, CassetteError> =>
  Effect.tryPromise({ try: () => fs.readFile(path, "utf8"), catch: (e) => e }).pipe(
    Effect.map(Option.some),
    Effect.catchAll((e) =>
      isRecord(e) && e["code"] === "ENOENT"
        ? Effect.succeed(Option.none<string>())
        : Effect.fail(
          new CassetteError({
            reason: "unreadable",
            path,
            message: `Replay.cassette: cannot read ${path}: ${messageOf(e)}`
          })
        )
    ),
    Effect.flatMap(Option.match({
      onNone: () => Effect.succeed(Option.none()),
      onSome: (text) => {
        const malformed = (why: string) =>
          new CassetteError({
            reason: "malformed",
            path,
            message: `Replay.cassette: ${path} is not a cassette: ${why}`
          })
        let json: unknown
        try {
          json = JSON.parse(text)
        } catch (e) {
          return Effect.fail(malformed(messageOf(e)))
        }
        return Either.match(Schema.decodeUnknownEither(CassetteFile)(json), {
          onLeft: (e) => Effect.fail(malformed(issuesOf(e))),
          onRight: (file) => Effect.succeed(Option.some(file))
        })
      }
    }))
  )

/** Variables holding a provider's key: `*_API_KEY`, and Bedrock's bearer token. */
const keyVariable = /_API_KEY$|^AWS_BEARER_TOKEN_BEDROCK$/

/** Reads an unset key variable as {@link replayKey}; every other unset variable stays unset. */
const replayKeys = ConfigProvider.fromFlat(ConfigProvider.makeFlat({
  load: (path, primitive) =>
    keyVariable.test(path[path.length - 1] ?? "")
      ? Either.match(primitive.parse(replayKey), {
        onLeft: Effect.fail,
        onRight: (value) => Effect.succeed([value])
      })
      : Effect.fail(ConfigError.MissingData([...path], `Expected ${path.join(".")} to exist`)),
  enumerateChildren: () => Effect.succeed(HashSet.empty()),
  patch: PathPatch.empty
}))

/** The variables a configuration error says are missing. */
const missingOf = (e: ConfigError.ConfigError): ReadonlyArray<string> =>
  ConfigError.reduceWithContext<undefined, ReadonlyArray<string>>(e, undefined, {
    andCase: (_, left, right) => [...left, ...right],
    orCase: (_, left, right) => [...left, ...right],
    invalidDataCase: () => [],
    missingDataCase: (_, path) => [path.join(".")],
    sourceUnavailableCase: () => [],
    unsupportedCase: () => []
  })

const unrecordable = (path: string, mode: CassetteMode, e: unknown): CassetteError => {
  const missing = ConfigError.isConfigError(e) ? [...new Set(missingOf(e))] : []
  const why = missing.length > 0 ? `${missing.join(" and ")} ${missing.length === 1 ? "is" : "are"} not set` : String(e)
  const what = mode === "record"
    ? `recording ${path} needs the real provider`
    : `${path} does not exist, so it would be recorded from the real provider`
  const next = missing.length > 0
    ? `Set ${missing.join(" and ")} to record it, or add the recorded file.`
    : "Fix that to record it, or add the recorded file."
  return new CassetteError({
    reason: "unrecordable",
    path,
    message: `Replay.cassette: ${what}, but the provider layer could not be built: ${why}. ${next}`,
    cause: e
  })
}

/**
 * Records a provider layer's HTTP exchanges to a cassette file, or replays them from it, so tests
 * (of agents too: every request of a run) need no network and no key.
 *
 * - Replaying (the file exists, or mode `replay`): `layer` runs over a `Replay` client answering
 *   request n with exchange n, once its method, URL path (and non-secret query) and JSON body match
 *   the recording. A request that does not match, or comes after the last exchange, ends its stream
 *   at once in an `invalid_request` error chunk naming the cassette, the exchange and the first
 *   difference. An unset key variable (`*_API_KEY`, `AWS_BEARER_TOKEN_BEDROCK`) reads as
 *   `"replay-only-7f3a9c2e"` while the layer is built, so `layerConfig` layers replay in CI without a key.
 * - Recording (the file is missing, or mode `record`): `layer` runs over the `HttpClient` in the
 *   context, and the exchanges that got a response are written when the layer's scope closes (none:
 *   no file). A provider layer that cannot be built (its key unset) fails with a `CassetteError`
 *   naming the variable to set.
 *
 * What is recorded: the request's method, URL path and non-secret query parameters, and body; the
 * response's status, a few headers (content type, request id, retry advice, error type, location)
 * and body. Never the request headers (where keys travel), never the origin (a cassette replays
 * whatever the base URL). The credentials sent in the request headers (of 8 characters or more) are
 * masked as `[redacted]` wherever a server echoed them, as the providers mask them in chunks.
 *
 * It takes a layer, not a service, so a recording reads the real key through `layerConfig` only
 * when it records, and returns a layer still needing `HttpClient` (used only to record). A failure
 * to write the file when the scope closes is a defect (a finalizer cannot fail) holding a
 * `CassetteError`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const cassette = <E, R>(
  path: string,
  layer: Layer.Layer<LanguageModel.LanguageModel, E, R>,
  options?: CassetteOptions
): Layer.Layer<
  LanguageModel.LanguageModel,
  E | CassetteError,
  HttpClient.HttpClient | Exclude<R, HttpClient.HttpClient>
> =>
  Layer.scopedContext(
    Effect.gen(function*() {
      const mode = options?.mode ?? "auto"
      const found = mode === "record" ? Option.none<CassetteFile>() : yield* load(path)
      if (Option.isSome(found)) return yield* replaying(path, found.value, layer)
      if (mode === "replay") {
        return yield* Effect.fail(
          new CassetteError({
            reason: "missing",
            path,
            message: `Replay.cassette: ${path} does not exist and mode is "replay". ` +
              `Record it by running once with mode "auto" (or "record") and the provider's key set.`
          })
        )
      }
      return yield* recording(path, layer, mode)
    })
  )

const replaying = <E, R>(
  path: string,
  file: CassetteFile,
  layer: Layer.Layer<LanguageModel.LanguageModel, E, R>
): Effect.Effect<
  Context.Context<LanguageModel.LanguageModel>,
  E | CassetteError,
  Exclude<R, HttpClient.HttpClient> | Scope.Scope
> =>
  Effect.gen(function*() {
    const { client } = yield* Effect.mapError(
      Replay.make(replier(path, file)),
      (e) => new CassetteError({ reason: "malformed", path, message: e.message })
    )
    return yield* Effect.configProviderWith((current) =>
      Layer.build(layer).pipe(
        Effect.provideService(HttpClient.HttpClient, client),
        Effect.withConfigProvider(ConfigProvider.orElse(current, () => replayKeys))
      )
    )
  })

const recording = <E, R>(
  path: string,
  layer: Layer.Layer<LanguageModel.LanguageModel, E, R>,
  mode: CassetteMode
): Effect.Effect<
  Context.Context<LanguageModel.LanguageModel>,
  CassetteError,
  HttpClient.HttpClient | Exclude<R, HttpClient.HttpClient> | Scope.Scope
> =>
  Effect.gen(function*() {
    const tapes: Array<Tape | undefined> = []
    const client = recorder(yield* HttpClient.HttpClient, tapes)
    const context = yield* Layer.build(layer).pipe(
      Effect.provideService(HttpClient.HttpClient, client),
      Effect.mapError((e) => unrecordable(path, mode, e))
    )
    yield* Effect.addFinalizer(() => Effect.orDie(save(path, tapes)))
    return context
  })
