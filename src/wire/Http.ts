/**
 * The one seam onto `@effect/platform`'s `HttpClient` for the library: every import of the platform
 * package outside `testing/Replay.ts` lives here, so moving to another HTTP stack is a change of
 * these two files, not of the providers.
 *
 * @since 0.1.0
 */
import * as Headers from "@effect/platform/Headers"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as LlmError from "../LlmError.js"

/** The HTTP client service providers need (any `HttpClient` layer works). */
export type Client = HttpClient.HttpClient

/** The tag of the HTTP client service. */
export const Client = HttpClient.HttpClient


/** A started HTTP response whose body has not been read yet. */
export interface Response {
  readonly status: number
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>
  /** The body, one element per network read; reading to the end or stopping early closes the request. */
  readonly body: Stream.Stream<Uint8Array, LlmError.LlmError>
  /** The whole body as text (for error responses). */
  readonly text: Effect.Effect<string, LlmError.LlmError>
}

/** Headers that carry API keys in some provider (the platform already redacts `authorization`, `x-api-key`). */
const keyHeaders: ReadonlyArray<string> = ["api-key", "x-goog-api-key"]

/** Header names whose values are secrets, wherever they might be quoted. */
const secretHeaders: ReadonlySet<string> = new Set(["authorization", "x-api-key", ...keyHeaders])

/**
 * A transport failure. Client errors can quote a header value (undici does for an invalid one), so
 * every secret header value is cut out of the message, whatever its shape.
 */
const networkError = (
  provider: string,
  headers: Readonly<Record<string, string>>,
  what: string,
  cause: unknown
): LlmError.LlmError => {
  let message = `${what}: ${cause instanceof Error ? cause.message : String(cause)}`
  for (const [name, value] of Object.entries(headers)) {
    if (!secretHeaders.has(name.toLowerCase()) || value.length < 4) continue
    message = message.split(value).join("[redacted]")
    const token = value.replace(/^Bearer\s+/i, "")
    if (token.length >= 4) message = message.split(token).join("[redacted]")
  }
  return LlmError.make({ code: "network", message, provider })
}

/** Control characters (CR, LF …) make a header value invalid; such a key is a configuration error. */
const hasControlCharacter = (value: string): boolean => /[\u0000-\u001f\u007f]/.test(value)

/**
 * Posts a JSON body and returns the response as soon as its headers arrive. Fails with `network`
 * when the request cannot be sent, and with `invalid_request` when the body is not serializable.
 */
export const postJson = (options: {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: unknown
  readonly provider: string
}): Effect.Effect<Response, LlmError.LlmError, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    let json: string
    try {
      json = JSON.stringify(options.body)
    } catch (e) {
      return yield* Effect.fail(LlmError.make({
        code: "invalid_request",
        message: `The request body is not JSON-serializable: ${e instanceof Error ? e.message : String(e)}`,
        provider: options.provider,
        retryable: false
      }))
    }
    for (const [name, value] of Object.entries(options.headers)) {
      if (hasControlCharacter(value)) {
        return yield* Effect.fail(LlmError.make({
          code: secretHeaders.has(name.toLowerCase()) ? "authentication" : "invalid_request",
          message: `The ${name} header holds a control character (a stray newline in a key?)`,
          provider: options.provider,
          retryable: false
        }))
      }
    }
    const client = yield* HttpClient.HttpClient
    const request = HttpClientRequest.post(options.url).pipe(
      HttpClientRequest.setHeaders(options.headers),
      HttpClientRequest.bodyText(json, "application/json")
    )
    const response = yield* client.execute(request).pipe(
      Effect.mapError((e) => networkError(options.provider, options.headers, "The request failed", e.cause ?? e)),
      // Tracing spans record request headers: every header that can carry a key is redacted there.
      Effect.locallyWith(Headers.currentRedactedNames, (names) => [...names, ...keyHeaders])
    )
    const headers: Record<string, string> = {}
    for (const [k, v] of Object.entries(response.headers)) headers[k.toLowerCase()] = v
    return {
      status: response.status,
      headers,
      body: Stream.mapError(response.stream, (e) =>
        networkError(options.provider, options.headers, "The connection failed while streaming", (e as { cause?: unknown }).cause ?? e)),
      text: Effect.mapError(response.text, (e) =>
        networkError(options.provider, options.headers, "The error body could not be read", (e as { cause?: unknown }).cause ?? e))
    }
  })
