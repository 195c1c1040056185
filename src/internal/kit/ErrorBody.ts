/**
 * The error-body kit: an error body (an HTTP error response, or an error inside a 200 stream) is
 * parsed once, its error object found, and its code read from the provider's tables — body code
 * first, then the HTTP status, then a fallback — so a provider's `errors.ts` is only its tables.
 *
 * The shapes read: `{"error":{message,type,code}}`, a bare `{message,type,code}`, `{"error":"text"}`,
 * RFC 9457 problem details (`detail` / `title`), a numeric `code` / `status` / `status_code` standing
 * in for a missing HTTP status, or plain text from a proxy. An HTML page is never quoted.
 *
 * @since 0.1.0
 */
import * as LlmError from "../../LlmError.js"
import * as HttpStatus from "../transport/HttpStatus.js"
import * as Guards from "./guards.js"

/** What the transport knows beside the body. */
export interface Extras {
  readonly requestId?: string | undefined
  readonly retryAfterMs?: number | undefined
}

/**
 * Maps an error body — parsed JSON, or text (parsed here when it holds a JSON object) — to error
 * data. `status` is undefined for an error that came inside a 200 stream.
 */
export type Mapper = (
  status: number | undefined,
  body: unknown,
  provider: string,
  extras?: Extras
) => LlmError.ErrorInfo

/** A provider's error tables; every key is lower case. */
export interface Tables {
  /** Body code strings more precise than any HTTP status: they override it (a 429 `insufficient_quota` is quota). */
  readonly precise?: ReadonlyMap<string, LlmError.ErrorCode> | undefined
  /** Phrases whose presence in the message means a code, for hosts that say it only in words. */
  readonly phrases?: ReadonlyArray<readonly [phrase: string, code: LlmError.ErrorCode]> | undefined
  /** Generic classes that decide only when no status does: with one, a 503 `server_error` is `overloaded`. */
  readonly fallback?: ReadonlyMap<string, LlmError.ErrorCode> | undefined
  /** The error object's fields holding code strings, looked up in this order (default `code`, then `type`). */
  readonly codeFields?: ReadonlyArray<string> | undefined
}

/** The longest provider message kept: bodies from proxies can be whole pages. */
export const maxMessageChars = 1_000

/** The error object's fields the kit reads itself. */
interface ErrorFields {
  readonly message: string
  readonly code: string | number
  readonly status: number
  readonly status_code: number
  /** RFC 9457 problem details (`application/problem+json`), which proxies and gateways send. */
  readonly detail: string
  readonly title: string
}

/** An error object: its fields may be present, none is checked yet. */
export type ErrorObject = Guards.Unchecked<ErrorFields> & { readonly [field: string]: unknown }

const defaultCodeFields: ReadonlyArray<string> = ["code", "type"]

/** Builds a provider's {@link Mapper} from its tables. */
export const make = (tables: Tables): Mapper => {
  const codeFields = tables.codeFields ?? defaultCodeFields
  const lookup = (table: ReadonlyMap<string, LlmError.ErrorCode> | undefined, error: ErrorObject | undefined) => {
    if (table === undefined || error === undefined) return undefined
    for (const field of codeFields) {
      const value = error[field]
      const code = typeof value === "string" ? table.get(value.toLowerCase()) : undefined
      if (code !== undefined) return code
    }
    return undefined
  }
  const byPhrase = (message: string): LlmError.ErrorCode | undefined => {
    if (tables.phrases === undefined) return undefined
    const text = message.toLowerCase()
    for (const [phrase, code] of tables.phrases) if (text.includes(phrase)) return code
    return undefined
  }
  return (status, body, provider, extras) => {
    const parsed = typeof body === "string" ? parseObjectText(body) : body
    const error = errorObject(parsed)
    const effectiveStatus = status ?? statusOf(error)
    const message = messageOf(error, parsed, effectiveStatus)
    const code = lookup(tables.precise, error) ?? byPhrase(message) ??
      (effectiveStatus !== undefined ? HttpStatus.codeForStatus(effectiveStatus) : undefined) ??
      lookup(tables.fallback, error) ??
      "unknown"
    return LlmError.info({
      code,
      message,
      status: effectiveStatus,
      provider,
      requestId: extras?.requestId,
      retryAfterMs: extras?.retryAfterMs,
      details: parsed
    })
  }
}

/** An HTTP error body's text, parsed once: its JSON value, or the text itself when it is not JSON. */
export const parse = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}

/** A body given as text (an in-band error field) may still hold a JSON object. */
const parseObjectText = (text: string): unknown => {
  const trimmed = text.trim()
  if (!trimmed.startsWith("{")) return text
  try {
    return JSON.parse(trimmed) as unknown
  } catch {
    return text
  }
}

/** The object holding `message` / `type` / `code`: nested under `error`, or the body itself. */
export const errorObject = (body: unknown): ErrorObject | undefined => {
  if (!Guards.isObject<{ error: unknown }>(body)) return undefined
  if (Guards.isObject<ErrorFields>(body.error)) return body.error as ErrorObject
  if (typeof body.error === "string") return { message: body.error }
  return body as ErrorObject
}

/** A value that reads as an HTTP error status (a number, or three digits as text). */
export const httpLike = (u: unknown): number | undefined => {
  const n = typeof u === "string" && u.length === 3 ? Number(u) : u
  return typeof n === "number" && Number.isInteger(n) && n >= 400 && n <= 599 ? n : undefined
}

/** The HTTP status a body states for itself (vLLM, llama.cpp and OpenRouter put it in `code`). */
const statusOf = (error: ErrorObject | undefined): number | undefined =>
  error === undefined ? undefined : httpLike(error.code) ?? httpLike(error.status_code) ?? httpLike(error.status)

/** Whether a text is an HTML page (its first character, after whitespace and a BOM, is `<`). */
export const isHtml = (text: string): boolean => /^[\s\uFEFF]*</.test(text)

/**
 * The message to report: the error's `message`, `detail` or `title`, a plain-text body, or what the
 * status says; never an HTML page (kept as details only); at most {@link maxMessageChars}.
 */
export const messageOf = (error: ErrorObject | undefined, body: unknown, status: number | undefined): string => {
  const raw = Guards.isNonEmptyString(error?.message)
    ? error.message
    : Guards.isNonEmptyString(error?.detail)
    ? error.detail
    : Guards.isNonEmptyString(error?.title)
    ? error.title
    : Guards.isNonEmptyString(body) && error === undefined && !isHtml(body)
    ? body.trim()
    : status !== undefined
    ? `The provider answered with HTTP ${status}`
    : "The provider reported an error"
  return raw.length > maxMessageChars ? raw.slice(0, maxMessageChars) + "…" : raw
}
