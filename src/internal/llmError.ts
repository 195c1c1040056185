/**
 * The `LlmError`s the library builds on a stream's own path, cheaply.
 *
 * Such an error only carries its data to the terminal `error` chunk (or a span's status): its stack
 * trace is never shown, and its data has already been normalized by `LlmError.info`. Building one
 * the public way captures a stack trace and validates every field against the schema, which made
 * a failing request cost about twice a successful one when a thousand streams broke at once.
 *
 * @since 0.1.0
 */
import * as LlmError from "../LlmError.js"

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
  const limit = Error.stackTraceLimit
  Error.stackTraceLimit = 0
  try {
    const error = new LlmError.LlmError(info, true)
    infos.set(error, info)
    errors.set(info, error)
    return error
  } finally {
    Error.stackTraceLimit = limit
  }
}

/** `LlmError.toInfo`: the data an error was built from here, else normalized from its fields. */
export const infoOf = (error: LlmError.LlmError): LlmError.ErrorInfo => infos.get(error) ?? LlmError.toInfo(error)

/** `LlmError.make` without a stack trace or re-validation. */
export const make = (fields: Parameters<typeof LlmError.info>[0]): LlmError.LlmError => fromInfo(LlmError.info(fields))
