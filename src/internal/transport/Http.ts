/**
 * The one seam onto `@effect/platform`'s `HttpClient` for the library: every import of the platform
 * package outside `testing/Replay.ts` lives here, so moving to another HTTP stack is a change of
 * these two files, not of the providers.
 *
 * Credentials go only to the configured origin. Redirects are followed here, not by the client: a
 * same-origin redirect (301, 302, 303, 307, 308) is followed with the method, body and headers kept;
 * one to another origin (another scheme, host or port) is refused with an error, so no key header of
 * any name reaches another host. The request's tracing span is ours too: it records response and
 * request headers only from an allow-list, with the configured key masked by value.
 *
 * @since 0.1.0
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as HttpTraceContext from "@effect/platform/HttpTraceContext"
import * as Channel from "effect/Channel"
import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import type * as FiberId from "effect/FiberId"
import * as FiberRef from "effect/FiberRef"
import * as FiberRefs from "effect/FiberRefs"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import * as Stream from "effect/Stream"
import type * as Tracer from "effect/Tracer"
import * as LlmError from "../../LlmError.js"
import * as QuickError from "../llmError.js"
import type * as Redact from "../redact.js"
import * as Lite from "../scope.js"
import * as Tracing from "../telemetry/tracing.js"

/** The HTTP client service providers need (any `HttpClient` layer works). */
export type Client = HttpClient.HttpClient

/** The tag of the HTTP client service. */
export const Client = HttpClient.HttpClient

/**
 * A request sent straight to an HTTP client's dispatcher (see {@link direct}): what undici's
 * `Dispatcher.request` takes, as sent here.
 */
export interface DirectRequest {
  readonly origin: string
  readonly path: string
  readonly method: "POST"
  /** Lower-case names; `content-type: application/json` among them (undici adds `content-length`). */
  readonly headers: Readonly<Record<string, string>>
  /** The JSON body, UTF-8 encoded. */
  readonly body: Uint8Array
  /** Aborts the request: before its headers, its promise rejects; after, its body is destroyed. */
  readonly signal: AbortSignal
}

/**
 * How a client registered with {@link direct} sends the library's requests: given the request and
 * the context of the fiber sending it, the promise of undici's response data (`statusCode`,
 * `headers`, `body`: a Node `Readable`).
 */
export type Direct = (request: DirectRequest, context: Context.Context<never>) => Promise<unknown>

/** The clients registered with {@link direct}. Held only as long as each client is. */
const directs = new WeakMap<HttpClient.HttpClient, Direct>()

/**
 * Registers `client` as one whose requests from the library may go straight to `send` (the Node
 * entry point's `NodeHttp` registers its clients so), past the platform's own steps for each
 * request: its context merge, its request and response objects, its body stream. Only this very
 * client object: a client made from it (`HttpClient.mapRequest`, any middleware) is a new object,
 * and its requests go through it as through any other client.
 */
export const direct = (client: HttpClient.HttpClient, send: Direct): HttpClient.HttpClient => {
  directs.set(client, send)
  return client
}

/** A started HTTP response whose body has not been read yet. */
export interface Response {
  readonly status: number
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>
  /**
   * Opens the body for reading in `scope`, a network read at a time; closing the scope before the end stops
   * reading and closes the request.
   */
  readonly open: (scope: Lite.Lite) => Effect.Effect<Body>
}

/** A body being read. */
export interface Body {
  /** The next network read; `undefined` once the body ended. */
  readonly read: Effect.Effect<Uint8Array | undefined, LlmError.LlmError>
  /**
   * The same read begun without an Effect, for a reader that watches it with limits of its own:
   * `done` is called once, with the read or its failure. One read at a time.
   */
  readonly request: (done: (exit: Exit.Exit<Uint8Array | undefined, LlmError.LlmError>) => void) => void
  /**
   * Says the answer is complete: if reading stops before the body ends, what is left is read and
   * dropped (a little, briefly) so the connection can be reused, instead of closing it.
   */
  readonly complete: () => void
}

/** A request about to be sent, as a {@link Signer} sees it: the exact URL, headers and body bytes. */
export interface Signable {
  readonly method: "POST"
  /** The URL this attempt posts to (after a followed redirect, the new one). */
  readonly url: string
  /** The request's headers (not yet signed; `content-type: application/json` is sent besides). */
  readonly headers: Readonly<Record<string, string>>
  /** The body exactly as sent (UTF-8 JSON). */
  readonly body: string
}

/**
 * Signs a request (AWS SigV4): run for every request sent — each attempt, each followed redirect —
 * so a signature always covers the URL, body and time of the request it goes with; the headers it
 * returns are added to that request. Read the time from the Effect `Clock`, so `TestClock` drives it.
 */
export type Signer = (request: Signable) => Effect.Effect<Readonly<Record<string, string>>, LlmError.LlmError>

/** Header names whose values are secrets, wherever they might be quoted. */
export const secretHeaders: ReadonlySet<string> = new Set(["authorization", "x-api-key", "api-key", "x-goog-api-key"])

/** The authorization schemes whose token {@link secretsOf} also masks on its own, in lower case. */
const schemes: ReadonlyArray<string> = ["bearer", "basic", "token"]

/** Whether the character at `i` is white space as a regular expression's `\s` means it. */
const isSpace = (s: string, i: number): boolean => {
  const c = s.charCodeAt(i)
  return c === 32 || (c >= 9 && c <= 13) || c === 160 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff
}

/** Whether `s` begins with `lower` (ASCII lower case), its ASCII capitals folded as `/i` folds them. */
const startsFolded = (s: string, lower: string): boolean => {
  for (let i = 0; i < lower.length; i++) {
    const c = s.charCodeAt(i)
    if ((c >= 65 && c <= 90 ? c | 32 : c) !== lower.charCodeAt(i)) return false
  }
  return true
}

/**
 * `value` without a leading authorization scheme (`Bearer`, `Basic`, `Token`, any case) and the
 * white space after it; `value` itself when it has none. Read a character at a time: a regular
 * expression here ran on every request, and a fresh process's first requests paid for its
 * compilation.
 */
const tokenOf = (value: string): string => {
  for (const scheme of schemes) {
    const n = scheme.length
    if (value.length <= n || !isSpace(value, n) || !startsFolded(value, scheme)) continue
    let i = n + 1
    while (i < value.length && isSpace(value, i)) i++
    return value.slice(i)
  }
  return value
}

/** The credentials among request headers: every secret header's value, and a bearer token without its scheme. */
export const secretsOf = (headers: Readonly<Record<string, string>>): Array<string> => {
  const out: Array<string> = []
  for (const name in headers) {
    if (!Object.hasOwn(headers, name) || !secretHeaders.has(name.toLowerCase())) continue
    const value = headers[name]!
    out.push(value)
    const token = tokenOf(value)
    if (token !== value) out.push(token)
  }
  return out
}

/** Request headers a span may record (never one that carries a key). */
const spanRequestHeaders: ReadonlySet<string> = new Set([
  "accept",
  "content-type",
  "anthropic-version",
  "anthropic-beta"
])

/** Response headers a span may record; their values are masked all the same. */
const spanResponseHeaders: ReadonlySet<string> = new Set([
  "content-type",
  "x-request-id",
  "request-id",
  "x-amzn-requestid",
  "retry-after",
  "retry-after-ms",
  "x-should-retry",
  "openai-processing-ms",
  "openai-version"
])

/** The most redirects followed for one request. */
export const maxRedirects = 5

const redirectStatuses: ReadonlySet<number> = new Set([301, 302, 303, 307, 308])

/**
 * A transport failure. Client errors can quote a header value (undici does for an invalid one), so
 * every secret is cut out of the message, whatever its shape.
 */
const networkError = (
  provider: string,
  mask: Redact.Masker | undefined,
  what: string,
  cause: unknown
): LlmError.LlmError => {
  const message = `${what}: ${cause instanceof Error ? cause.message : String(cause)}`
  return QuickError.make({ code: "network", message: mask === undefined ? message : mask.text(message), provider })
}

/** Control characters (CR, LF …) make a header value invalid; such a key is a configuration error. */
const hasControlCharacter = (value: string): boolean => {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    if (c < 0x20 || c === 0x7f) return true
  }
  return false
}

/**
 * Frozen headers objects found valid (a provider's fixed headers), each with its request to the URL
 * it was first sent to (see {@link addressed}): they cannot change, so they are checked and set on a
 * request once. Held only as long as the headers object is.
 */
const fixedRequests = new WeakMap<Readonly<Record<string, string>>, HttpClientRequest.HttpClientRequest>()

/** The error of a header value that cannot be sent (a control character); a key header's is `authentication`. */
const invalidHeader = (
  headers: Readonly<Record<string, string>>,
  provider: string
): LlmError.LlmError | undefined => {
  for (const [name, value] of Object.entries(headers)) {
    if (hasControlCharacter(value)) {
      return LlmError.make({
        code: secretHeaders.has(name.toLowerCase()) || name.toLowerCase() === "x-amz-security-token"
          ? "authentication"
          : "invalid_request",
        message: `The ${name} header holds a control character (a stray newline in a key?)`,
        provider,
        retryable: false
      })
    }
  }
  return undefined
}

/** The error of a redirect that is not followed. */
const redirectError = (provider: string, message: string, status: number): LlmError.LlmError =>
  LlmError.make({ code: "invalid_request", message, status, provider, retryable: false })

/** Where a redirect points, resolved against the URL that answered; undefined when it is not a URL. */
const resolve = (location: string, base: string): URL | undefined => {
  try {
    return new URL(location, base)
  } catch {
    return undefined
  }
}

/** Lower-cased header names. */
const lowerCased = (headers: Readonly<Record<string, string>>): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(headers)) out[k.toLowerCase()] = v
  return out
}

/** Records the `allowed` headers (lower-case names) among `headers` (any case) as span attributes. */
const recordHeaders = (
  span: Tracer.Span,
  prefix: string,
  headers: Readonly<Record<string, string>>,
  allowed: ReadonlySet<string>,
  mask: Redact.Masker | undefined
): void => {
  for (const key in headers) {
    if (!Object.hasOwn(headers, key)) continue
    const name = key.toLowerCase()
    if (allowed.has(name)) {
      const value = headers[key]!
      span.attribute(`${prefix}.${name}`, LlmError.scrub(mask === undefined ? value : mask.text(value)))
    }
  }
}

/**
 * The context a request runs in: its caller's, with a fetch client handing redirects to us rather
 * than following them with the key headers. Made once per caller's context (a program's requests
 * usually share one), where adding the service copied every service of the context on each request.
 */
export const requestContext = (context: Context.Context<never>): Context.Context<never> => {
  let made = requestContexts.get(context)
  if (made === undefined) {
    const init = Option.getOrElse(Context.getOption(context, FetchHttpClient.RequestInit), () => ({}))
    made = Context.add(context, FetchHttpClient.RequestInit, { ...init, redirect: "manual" })
    requestContexts.set(context, made)
  }
  return made
}

/** {@link requestContext}'s contexts, by the caller's (held only as long as the caller's is). */
const requestContexts = new WeakMap<Context.Context<never>, Context.Context<never>>()

const always = (): boolean => true

/**
 * The fiber refs of the fiber a request runs in for the rest of its life, made from its parent's
 * as the fiber is made (`Runtime.runFork`'s `updateRefs`, the fiber made in {@link requestContext}):
 * the platform's own client span off (we record ours). No Effect step at all, where setting it from
 * inside the fiber took five and `Effect.locally` around each request about twenty.
 */
export const requestFiberRefs = (refs: FiberRefs.FiberRefs, fiberId: FiberId.Runtime): FiberRefs.FiberRefs =>
  FiberRefs.updateAs(refs, { fiberId, fiberRef: HttpClient.currentTracerDisabledWhen, value: always })

/**
 * A POST to `url` with `headers` and no body yet. Requests are immutable, so the one kept for a
 * provider's fixed headers ({@link fixedRequests}) serves every request sent with them to the same
 * URL, where making it anew copied the headers into a new object four times.
 */
const addressed = (url: string, headers: Readonly<Record<string, string>>): HttpClientRequest.HttpClientRequest => {
  const kept = fixedRequests.get(headers)
  return kept !== undefined && kept.url === url
    ? kept
    : HttpClientRequest.setHeaders(HttpClientRequest.post(url), headers)
}

/**
 * A response as {@link postJson} sent it: its status and its headers (read once), the response
 * underneath the platform's ({@link sourceOf}), and the platform's own (undefined for a request sent
 * straight to a registered client, whose `source` is undici's response data).
 */
interface Sent {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly source: Source | undefined
  readonly response: HttpClientResponse.HttpClientResponse | undefined
  /** Called once the body is opened: from then on, closing the body closes the request. */
  readonly claim: () => void
}

const noClaim = (): void => undefined

/** Where a request goes: a URL's origin and its path (with its query), or the error parsing it. */
type Target = { readonly origin: string; readonly path: string } | { readonly error: unknown }

/**
 * The targets of the URLs requests were last sent straight to: a provider posts to one URL, parsed
 * once instead of on every request. Bounded: emptied once it holds {@link maxTargets}.
 */
const targets = new Map<string, Target>()
const maxTargets = 64

const targetOf = (url: string): Target => {
  let target = targets.get(url)
  if (target === undefined) {
    try {
      const u = new URL(url)
      target = { origin: u.origin, path: u.pathname + u.search + u.hash }
    } catch (error) {
      target = { error }
    }
    if (targets.size >= maxTargets) targets.clear()
    targets.set(url, target)
  }
  return target
}

/**
 * The headers a request is sent straight with: names in lower case, `content-type` the JSON one
 * (the platform's client sends them so; undici adds `content-length`). Kept for a frozen headers
 * object (a provider's fixed headers, sent with every request that adds none), made anew otherwise.
 */
const directHeaders = new WeakMap<Readonly<Record<string, string>>, Readonly<Record<string, string>>>()

const sentHeaders = (headers: Readonly<Record<string, string>>): Readonly<Record<string, string>> => {
  const kept = directHeaders.get(headers)
  if (kept !== undefined) return kept
  const sent = lowerCased(headers)
  sent["content-type"] = "application/json"
  if (Object.isFrozen(headers)) directHeaders.set(headers, sent)
  return sent
}

/** Shared by every request sent straight to a client: the body as the platform would send it. */
const encoder = new TextEncoder()

/**
 * What aborts a direct request when its attempt's scope closes, unless its body was claimed first.
 * Made apart from the request's callbacks: a closure there would share their scope, and through
 * `resume` keep the request's finished fiber (its context and fiber refs, ≈ 2.3 KB) alive for as
 * long as the stream is open.
 */
const guardOf = (controller: AbortController): { readonly claim: () => void; readonly release: () => void } => {
  let owned = false
  return {
    claim: () => void (owned = true),
    release: () => {
      if (!owned) controller.abort()
    }
  }
}

/**
 * Sends a request straight to a registered client's dispatcher ({@link direct}), with the headers
 * and body the platform's undici client would send it with ({@link sentHeaders}). It is aborted if the fiber is
 * interrupted while waiting, and when the attempt's scope closes before its body was opened: between
 * the two, no step leaves a response nobody will close.
 */
const sendDirect = (
  send: Direct,
  context: Context.Context<never>,
  url: string,
  headers: Readonly<Record<string, string>>,
  json: string,
  options: { readonly provider: string; readonly mask?: Redact.Masker | undefined; readonly scope: Lite.Lite }
): Effect.Effect<Sent, LlmError.LlmError> =>
  Effect.async<Sent, LlmError.LlmError>((resume) => {
    const { mask, provider } = options
    const target = targetOf(url)
    if ("error" in target) return resume(Effect.fail(networkError(provider, mask, "The request failed", target.error)))
    const body = encoder.encode(json)
    const controller = new AbortController()
    const guard = guardOf(controller)
    options.scope.add(guard.release)
    const request: DirectRequest = {
      origin: target.origin,
      path: target.path,
      method: "POST",
      headers: sentHeaders(headers),
      body,
      signal: controller.signal
    }
    send(request, context).then(
      (data) => {
        const source = isObject(data) && isUndici(data) && isNodeBody(data["body"]) ? data : undefined
        if (source === undefined) {
          controller.abort()
          return resume(
            Effect.fail(networkError(provider, mask, "The request failed", "the client gave no readable response"))
          )
        }
        resume(Effect.succeed({
          status: source["statusCode"] as number,
          headers: headersOf(undefined, source),
          source,
          response: undefined,
          claim: guard.claim
        }))
      },
      (cause: unknown) => resume(Effect.fail(networkError(provider, mask, "The request failed", cause)))
    )
    return Effect.sync(() => controller.abort())
  })

/**
 * Posts a JSON body with `client` and returns the response as soon as its headers arrive. Fails
 * with `network` when the request cannot be sent, with `invalid_request` when the body is not
 * serializable or a redirect leads to another origin.
 *
 * It must run in a fiber of its own (the transport's header phase) made in {@link requestContext}
 * with {@link requestFiberRefs}.
 */
export const postJson = (client: HttpClient.HttpClient, options: {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: unknown
  readonly provider: string
  /** Masks the configured credentials in what the server sends back (span attributes, errors). */
  readonly mask?: Redact.Masker | undefined
  /** Signs each request sent (see {@link Signer}). */
  readonly sign?: Signer | undefined
  /**
   * The attempt's scope: a request sent straight to a registered client ({@link direct}) is
   * aborted when it closes, unless its body was opened (which then closes it).
   */
  readonly scope: Lite.Lite
}): Effect.Effect<Response, LlmError.LlmError> => {
  const straight = directs.get(client)
  if (straight === undefined || options.sign !== undefined) return postJsonWith(client, options, undefined)
  // Sent straight, unsigned: untraced, the request goes out in one step and its response comes
  // back in three (the general way below took fourteen, a few µs each in a fresh process).
  return Effect.withFiberRuntime((fiber) => {
    if (Tracing.spansSeen(fiber)) return postJsonWith(client, options, undefined)
    const json = prepared(options)
    if (typeof json !== "string") return Effect.fail(json)
    return Effect.flatMap(
      sendDirect(straight, fiber.currentContext, options.url, options.headers, json, options),
      (sent) =>
        isRedirect(sent) ?
          postJsonWith(client, options, { sent, json }) :
          Effect.succeed(responseOf(sent, options))
    )
  })
}

/** The request's body as JSON, its headers checked once (see {@link fixedRequests}), or why it cannot be sent. */
const prepared = (options: {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: unknown
  readonly provider: string
}): string | LlmError.LlmError => {
  const { provider } = options
  let json: string
  try {
    json = JSON.stringify(options.body)
  } catch (e) {
    return LlmError.make({
      code: "invalid_request",
      message: `The request body is not JSON-serializable: ${e instanceof Error ? e.message : String(e)}`,
      provider,
      retryable: false
    })
  }
  if (!fixedRequests.has(options.headers)) {
    const badHeader = invalidHeader(options.headers, provider)
    if (badHeader !== undefined) return badHeader
    if (Object.isFrozen(options.headers)) fixedRequests.set(options.headers, addressed(options.url, options.headers))
  }
  return json
}

/** Whether a response is a redirect to follow (its status, and a `Location`). */
const isRedirect = (sent: Sent): boolean => redirectStatuses.has(sent.status) && sent.headers["location"] !== undefined

/** The response of a request not redirected: its status, its headers and the way to open its body. */
const responseOf = (
  sent: Sent,
  options: { readonly provider: string; readonly mask?: Redact.Masker | undefined }
): Response => {
  const failed = (cause: unknown) =>
    networkError(options.provider, options.mask, "The connection failed while streaming", cause)
  return { status: sent.status, headers: sent.headers, open: openBody(sent, failed) }
}

/**
 * {@link postJson} the general way: signed, traced, over the platform's client, and following
 * redirects; `first` is a response the fast way already had, a redirect, with the body it sent.
 */
const postJsonWith = (
  client: HttpClient.HttpClient,
  options: Parameters<typeof postJson>[1],
  first: { readonly sent: Sent; readonly json: string } | undefined
): Effect.Effect<Response, LlmError.LlmError> =>
  Effect.gen(function*() {
    const { mask, provider } = options
    let json: string
    if (first !== undefined) json = first.json
    else {
      const checked = prepared(options)
      if (typeof checked !== "string") return yield* Effect.fail(checked)
      json = checked
    }
    // The URL is parsed only where it is read: a redirect's origin check, a traced request's span.
    let firstParsed: URL | undefined | null = null
    const firstUrl = (): URL | undefined =>
      firstParsed === null ? (firstParsed = resolve(options.url, "http://invalid.invalid")) : firstParsed
    const signed = (url: string): Effect.Effect<Readonly<Record<string, string>>, LlmError.LlmError> => {
      const sign = options.sign
      if (sign === undefined) return Effect.succeed(options.headers)
      return Effect.flatMap(sign({ method: "POST", url, headers: options.headers, body: json }), (added) => {
        const headers = { ...options.headers, ...added }
        const bad = invalidHeader(added, provider)
        return bad === undefined ? Effect.succeed(headers) : Effect.fail(bad)
      })
    }
    // The request's span only where it could be seen (see `internal/telemetry/tracing.ts`), and its
    // trace headers only with it.
    const traced = yield* Tracing.seen
    const propagate = traced && (yield* FiberRef.get(HttpClient.currentTracerPropagation))
    const straight = directs.get(client)
    const context = straight === undefined ? undefined : yield* Effect.context<never>()
    /** What a response's span records of it. */
    const recordResponse = (span: Tracer.Span | undefined, sent: Sent): Sent => {
      if (span !== undefined) {
        span.attribute("http.response.status_code", sent.status)
        recordHeaders(span, "http.response.header", sent.headers, spanResponseHeaders, mask)
      }
      return sent
    }
    /** Posts to `url` with `headers`: the response, the response underneath it, and its headers read once (a platform response builds them anew on every read). */
    const execute = (url: string, headers: Readonly<Record<string, string>>, span: Tracer.Span | undefined) =>
      straight !== undefined ?
        Effect.map(sendDirect(straight, context!, url, headers, json, options), (sent) => recordResponse(span, sent)) :
        client.execute(HttpClientRequest.bodyText(addressed(url, headers), json, "application/json")).pipe(
          Effect.mapError((e) => networkError(provider, mask, "The request failed", e.cause ?? e)),
          Effect.map((response) => {
            const source = sourceOf(response)
            return recordResponse(span, {
              status: response.status,
              headers: headersOf(response, source),
              source,
              response,
              claim: noClaim
            })
          })
        )
    const send = (url: string) =>
      Effect.flatMap(signed(url), (requestHeaders) =>
        !traced ?
          execute(url, requestHeaders, undefined) :
          Effect.useSpan(`http.client POST`, { kind: "client", captureStackTrace: false }, (span) => {
            const target = url === options.url ? firstUrl() : resolve(url, "http://invalid.invalid")
            span.attribute("http.request.method", "POST")
            if (target !== undefined) {
              span.attribute("server.address", target.hostname)
              if (target.port !== "") {
                span.attribute("server.port", Number(target.port))
              }
              span.attribute("url.scheme", target.protocol.slice(0, -1))
              span.attribute(
                "url.path",
                LlmError.scrub(mask === undefined ? target.pathname : mask.cut(target.pathname))
              )
            }
            recordHeaders(span, "http.request.header", requestHeaders, spanRequestHeaders, mask)
            return execute(
              url,
              propagate ? { ...requestHeaders, ...HttpTraceContext.toHeaders(span) } : requestHeaders,
              span
            )
          }))
    let url = options.url
    for (let redirects = 0;; redirects++) {
      const sent = redirects === 0 && first !== undefined ? first.sent : yield* send(url)
      const { headers, status } = sent
      const location = headers["location"]
      if (!redirectStatuses.has(status) || location === undefined) return responseOf(sent, options)
      // The redirect's own body is not wanted: stop reading it, which closes its connection.
      if (sent.response !== undefined) yield* Stream.runDrain(Stream.take(sent.response.stream, 1)).pipe(Effect.ignore)
      else readsOf(sent.source)?.cancel()
      const next = resolve(location, url)
      if (next === undefined || next.protocol !== "http:" && next.protocol !== "https:") {
        return yield* Effect.fail(LlmError.make({
          code: "protocol",
          message: `The server answered HTTP ${status} with a Location that is not an http(s) URL`,
          status,
          provider,
          retryable: false
        }))
      }
      const origin = firstUrl()?.origin
      if (next.origin !== origin) {
        return yield* Effect.fail(redirectError(
          provider,
          `The server redirected to another origin (${next.origin}); the API key is only sent to ${origin}. ` +
            `If the endpoint moved, set baseUrl to the new location.`,
          status
        ))
      }
      if (redirects >= maxRedirects) {
        return yield* Effect.fail(redirectError(provider, `More than ${maxRedirects} redirects`, status))
      }
      url = next.toString()
    }
  })

/**
 * The most of a body read after the answer is complete, so that the connection can serve the next
 * request (a server normally ends the body right after its last event); past it, or after
 * {@link drainMillis}, the connection is closed instead.
 */
const maxDrainBytes = 64 * 1024

/** How long a body may take to end after its answer is complete before its connection is closed. */
const drainMillis = 1000

/** A body's reads as promises: the next read (`undefined` at the end), and closing it early. */
export interface Reads {
  readonly next: () => Promise<Uint8Array | undefined>
  readonly cancel: () => void
}

interface WebBody {
  readonly getReader: () => ReadableStreamDefaultReader<Uint8Array>
}

/** What is read here of a Node `Readable` (undici's response body), in paused mode. */
interface NodeBody {
  readonly read: () => Uint8Array | null
  readonly on: (event: "readable" | "end" | "error" | "close", listener: (error?: unknown) => void) => unknown
  readonly destroy: () => unknown
  readonly destroyed: boolean
  readonly readableEnded: boolean
  readonly closed?: boolean
  readonly errored?: unknown
}

/**
 * A Node body's reads, taken with `read()` as its `readable` events say there is more: what Node's
 * own async iterator over a stream does, without its async generator, whose every step is a few
 * promises more (a read already buffered took 17–58 µs through it in a fresh process's first
 * requests, 5–8 µs this way). An error, or a close before the end (the connection lost without an
 * error), fails the read under way and every read after it; `cancel` destroys the body, which aborts
 * its request.
 */
class NodeReads implements Reads {
  private resolve: ((bytes: Uint8Array | undefined) => void) | undefined = undefined
  private reject: ((cause: unknown) => void) | undefined = undefined
  private ended = false
  private failed = false
  private failure: unknown = undefined

  constructor(private readonly body: NodeBody) {
    body.on("readable", () => this.settle())
    body.on("end", () => {
      this.ended = true
      this.settle()
    })
    body.on("error", (error) => this.fail(error))
    body.on("close", () => {
      if (!this.ended) this.fail(new Error("Premature close"))
    })
    // A body already past its end, its error or its close (no event will say so again).
    if (body.readableEnded) this.ended = true
    else if (body.errored != null || body.closed === true) this.fail(body.errored ?? new Error("Premature close"))
  }

  next(): Promise<Uint8Array | undefined> {
    return new Promise((resolve, reject) => {
      this.resolve = resolve
      this.reject = reject
      this.settle()
    })
  }

  cancel(): void {
    this.body.destroy()
  }

  /** The first failure is the one reported. */
  private fail(error: unknown): void {
    if (!this.failed) {
      this.failed = true
      this.failure = error
    }
    this.settle()
  }

  /** Settles the read under way, if any, once there is something to settle it with. */
  private settle(): void {
    const resolve = this.resolve
    if (resolve === undefined) return
    const bytes = this.body.destroyed ? null : this.body.read()
    if (bytes === null && !this.failed && !this.ended) return
    const reject = this.reject!
    this.resolve = undefined
    this.reject = undefined
    if (bytes !== null) resolve(bytes)
    else if (this.failed) reject(this.failure)
    else resolve(undefined)
  }
}

const isObject = (u: unknown): u is Record<PropertyKey, unknown> => typeof u === "object" && u !== null

/**
 * The response underneath a platform response (under its `InterruptibleResponse` wrapper,
 * `original`): the fetch `Response`, or undici's response data under `NodeHttpClient`'s undici
 * client. Undefined for any other shape.
 */
const sourceOf = (response: unknown): Source | undefined => {
  let r = response
  for (let depth = 0; depth < 4 && isObject(r) && r["source"] === undefined; depth++) r = r["original"]
  return isObject(r) && isObject(r["source"]) ? r["source"] : undefined
}

/** The response underneath a platform response (see {@link sourceOf}), its shape unknown. */
export type Source = Record<PropertyKey, unknown>

/** Whether the response underneath is undici's response data (`statusCode`, `headers`, `body`). */
const isUndici = (source: Source): boolean => typeof source["statusCode"] === "number"

/**
 * A response's headers, with lower-case names. Under undici they are read off its own response
 * data, whose names undici has lower-cased already (a repeated header's values joined with ", ", as
 * the platform joins them), where the platform's `headers` copies them into a new object on every
 * read and we lower-cased that copy once more (in a fresh process's early requests, the first chunk
 * came ≈ 0.04 ms sooner after the headers without the two copies). Otherwise the platform's
 * headers, with their names lower-cased.
 */
const headersOf = (
  response: HttpClientResponse.HttpClientResponse | undefined,
  source: Source | undefined
): Readonly<Record<string, string>> => {
  const raw = source?.["headers"]
  if (source !== undefined && isUndici(source) && isObject(raw) && !Array.isArray(raw)) {
    const out: Record<string, string> = {}
    for (const name in raw) {
      if (!Object.hasOwn(raw, name)) continue
      const value = raw[name]
      if (typeof value === "string") out[name] = value
      else if (Array.isArray(value)) out[name] = value.join(", ")
    }
    return out
  }
  return response === undefined ? {} : lowerCased(response.headers)
}

/**
 * The body of the response underneath a platform response ({@link sourceOf}), read without the
 * platform's body stream (which costs about 0.6 ms per response and an Effect pipeline per read;
 * this is one promise per read, as a hand-written client pays): a web `ReadableStream` (the fetch
 * client, and every `HttpClientResponse.fromWeb`) or a Node `Readable` (`NodeHttpClient`'s undici
 * client). Undefined for any other shape, which is read through the platform's `stream`.
 */
export const readsOf = (source: Source | undefined): Reads | undefined => {
  if (source === undefined) return undefined
  const body = source["body"]
  if (!isObject(body)) return undefined
  if (typeof body["getReader"] === "function" && source["bodyUsed"] === false) {
    const reader = (body as unknown as WebBody).getReader()
    return {
      next: () => reader.read().then((x) => (x.done ? undefined : x.value)),
      cancel: () => void reader.cancel().catch(() => undefined)
    }
  }
  if (isUndici(source) && isNodeBody(body)) return new NodeReads(body)
  return undefined
}

/** Whether `body` is read as a Node `Readable` ({@link NodeBody}). */
const isNodeBody = (body: unknown): body is NodeBody =>
  isObject(body) && typeof body["read"] === "function" && typeof body["on"] === "function" &&
  typeof body["destroy"] === "function"

/** Calls `f` once, after what is already due on the event loop (its I/O included). */
const afterIo = (f: () => void): void => {
  const immediate = (globalThis as { readonly setImmediate?: (f: () => void) => unknown }).setImmediate
  if (immediate !== undefined) immediate(f)
  else setTimeout(f, 0)
}

/**
 * Reads what is left of a body whose answer is complete, so the connection goes back to the pool
 * (as a hand-written client that reads to the end does); closes it past {@link maxDrainBytes} or
 * {@link drainMillis}. Calls `done` once the body ended or was closed.
 */
const drain = (reads: Reads, done: () => void): void => {
  let left = maxDrainBytes
  let over = false
  const stop = (cancel: boolean): void => {
    if (over) return
    over = true
    clearTimeout(timer)
    if (cancel) reads.cancel()
    done()
  }
  const timer = setTimeout(() => stop(true), drainMillis)
  // A Node timer must not keep the process alive for this.
  if (isObject(timer) && typeof timer["unref"] === "function") (timer as { unref: () => void }).unref()
  const step = (): void => {
    reads.next().then((bytes) => {
      if (over) return
      if (bytes === undefined) return stop(false)
      if ((left -= bytes.length) < 0) return stop(true)
      step()
    }, () => stop(false))
  }
  step()
}

/**
 * Opens a response's body: directly when its shape allows (see {@link readsOf}), else through its
 * `stream`. When the scope closes before the body ended, the body is closed — or, once the reader
 * said the answer is complete ({@link Body.complete}), read to its end first.
 */
const openBody = (
  sent: Sent,
  failed: (cause: unknown) => LlmError.LlmError
) =>
(scope: Lite.Lite): Effect.Effect<Body> =>
  Effect.suspend(() => {
    const { response } = sent
    const reads = readsOf(sent.source)
    // A response sent straight (no platform response) is always one that `readsOf` reads.
    if (reads === undefined) return openStream(response!.stream, failed, scope)
    let ended = false
    let complete = false
    const request: Body["request"] = (done) => {
      reads.next().then(
        (bytes) => {
          if (bytes === undefined) ended = true
          done(Exit.succeed(bytes))
        },
        (cause: unknown) => {
          ended = true
          done(Exit.fail(failed(cause)))
        }
      )
    }
    const read = Effect.async<Uint8Array | undefined, LlmError.LlmError>((resume) => request(resume))
    // The end of a body usually arrives with its last event, so the stream's end waits for it a
    // moment (until the event loop's next turn), and the next request finds the connection free.
    const close = (): Effect.Effect<void> | undefined => {
      // Holds the response while its body is read: the platform aborts a request whose response
      // object was garbage-collected.
      void response
      if (ended) return undefined
      ended = true
      if (!complete) {
        reads.cancel()
        return undefined
      }
      return Effect.async<void>((resume) => {
        let resumed = false
        const once = () => {
          if (resumed) return
          resumed = true
          resume(Effect.void)
        }
        drain(reads, once)
        afterIo(once)
      })
    }
    const opened = Lite.addThen(scope, close, Effect.succeed({ read, request, complete: () => void (complete = true) }))
    sent.claim()
    return opened
  })

/**
 * A body read through the platform's `stream` (a response of a shape {@link readsOf} does not know).
 * A read begun with `request` that must pull runs in a fiber of its own, interrupted if the body
 * closes under it.
 */
const openStream = (
  stream: Stream.Stream<Uint8Array, unknown>,
  failed: (cause: unknown) => LlmError.LlmError,
  scope: Lite.Lite
): Effect.Effect<Body> =>
  Effect.gen(function*() {
    const pull = yield* Channel.toPullIn(Stream.toChannel(stream), scope)
    const runtime = yield* Effect.runtime<never>()
    let held: Array<Uint8Array> = []
    const read: Effect.Effect<Uint8Array | undefined, LlmError.LlmError> = Effect.suspend(() => {
      const b = held.shift()
      if (b !== undefined) return Effect.succeed(b)
      return Effect.flatMap(
        Effect.mapError(pull, (e) => failed((e as { cause?: unknown }).cause ?? e)),
        (next) => {
          if (Either.isLeft(next)) return Effect.succeed(undefined)
          held = Chunk.toArray(next.right)
          return read
        }
      )
    })
    let reading: Fiber.RuntimeFiber<Uint8Array | undefined, LlmError.LlmError> | undefined = undefined
    const request: Body["request"] = (done) => {
      // What the last pull brought beyond its first read needs no fiber.
      const b = held.shift()
      if (b !== undefined) return done(Exit.succeed(b))
      const fiber = Runtime.runFork(runtime)(read)
      reading = fiber
      fiber.addObserver((exit) => {
        if (reading === fiber) reading = undefined
        done(exit)
      })
    }
    // Runs before the pull's own finalizer (the body's end): a read under way stops first.
    const now = scope.add(() => (reading === undefined ? undefined : Effect.asVoid(Fiber.interrupt(reading))))
    if (now !== undefined) yield* now
    return { read, request, complete: () => undefined }
  })
