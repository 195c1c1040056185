/**
 * The `LlmError`s the library builds on a stream's own path, cheaply.
 *
 * Such an error only carries its data to the terminal `error` chunk (or a span's status): its stack
 * trace is never shown, and its data has already been normalized by `LlmError.info`. Building one
 * the public way captures a stack trace and validates every field against the schema, which made
 * a failing request cost about twice a successful one when a thousand streams broke at once. Here
 * an error is built with stack traces off, from data built once, and past the schema class's own
 * step when that builds the same error (see {@link direct}).
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Equal from "effect/Equal"
import * as LlmError from "../LlmError.js"

type Build = (info: LlmError.ErrorInfo) => LlmError.LlmError

/** The public constructor, without validation. */
const viaConstructor: Build = (info) => new LlmError.LlmError(info, true)

/**
 * What `new LlmError(info, true)` ends in: `Data.Error`'s constructor run with `LlmError` as the
 * class, given the fields and the tag the schema class adds. It skips the schema class's own step, a
 * copy of the fields and a merge of their defaults that visits every field's schema: little in a
 * warm loop (about 2 µs), far more where caches are cold. With a thousand streams cut at once the
 * median error surfaced about 40 ms sooner (five alternating runs each).
 */
const viaDataError: Build = (info) =>
  Reflect.construct(Data.Error, [{ ...info, _tag: "LlmError" }], LlmError.LlmError) as LlmError.LlmError

/**
 * Whether two errors look the same to every reader: the same class; the same own properties in the
 * same order, with the same attributes and values (an object value compared by its JSON); the same
 * JSON form; and structurally equal (`Equal.equals`).
 */
export const sameError = (a: LlmError.LlmError, b: LlmError.LlmError): boolean => {
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false
  const keys = Reflect.ownKeys(a)
  const others = Reflect.ownKeys(b)
  if (keys.length !== others.length) return false
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!
    if (key !== others[i]) return false
    const da = Object.getOwnPropertyDescriptor(a, key)
    const db = Object.getOwnPropertyDescriptor(b, key)
    if (da === undefined || db === undefined) return false
    if (da.enumerable !== db.enumerable || da.configurable !== db.configurable) return false
    if (("value" in da) !== ("value" in db) || da.writable !== db.writable) return false
    const va: unknown = Reflect.get(a, key)
    const vb: unknown = Reflect.get(b, key)
    if (va !== vb && (typeof va !== "object" || JSON.stringify(va) !== JSON.stringify(vb))) return false
  }
  return JSON.stringify(a) === JSON.stringify(b) && Equal.equals(a, b)
}

/** Runs `build` with stack traces off: an error built here never shows one. */
const withoutStack = <A>(build: () => A): A => {
  const limit = Error.stackTraceLimit
  Error.stackTraceLimit = 0
  try {
    return build()
  } finally {
    Error.stackTraceLimit = limit
  }
}

/** Data with every field set, to compare the two ways of building an error. */
const sample: LlmError.ErrorInfo = {
  code: "rate_limit",
  message: "sample",
  status: 429,
  retryable: true,
  retryAfterMs: 1000,
  provider: "sample",
  requestId: "req_sample",
  details: { error: { type: "rate_limit_error", nested: [1, "two", null] } }
}

/**
 * Whether errors here are built through `Data.Error` directly: only when, for this version of
 * Effect, that builds exactly what the constructor builds (checked once, on load); else through the
 * constructor.
 */
export const direct: boolean = withoutStack(() => {
  try {
    return sameError(viaDataError(sample), viaConstructor(sample))
  } catch {
    return false
  }
})

const build: Build = direct ? viaDataError : viaConstructor

/**
 * The data each error built here was built from, and the error built from each data: an error's
 * way from the transport to the terminal chunk and the span (data, error, data, error) builds one
 * error, not three. Both are immutable.
 */
const infos = new WeakMap<LlmError.LlmError, LlmError.ErrorInfo>()
const errors = new WeakMap<LlmError.ErrorInfo, LlmError.LlmError>()

/** An `LlmError` of normalized data (see `LlmError.info`), without a stack trace or re-validation. */
export const fromInfo = (info: LlmError.ErrorInfo): LlmError.LlmError => {
  const known = errors.get(info)
  if (known !== undefined) return known
  const error = withoutStack(() => build(info))
  infos.set(error, info)
  errors.set(info, error)
  return error
}

/** `LlmError.toInfo`: the data an error was built from here, else normalized from its fields. */
export const infoOf = (error: LlmError.LlmError): LlmError.ErrorInfo => infos.get(error) ?? LlmError.toInfo(error)

/** `LlmError.make` without a stack trace or re-validation. */
export const make = (fields: Parameters<typeof LlmError.info>[0]): LlmError.LlmError => fromInfo(LlmError.info(fields))
