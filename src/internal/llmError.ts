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

/** An `LlmError` of normalized data (see `LlmError.info`), without a stack trace or re-validation. */
export const fromInfo = (info: LlmError.ErrorInfo): LlmError.LlmError => {
  const limit = Error.stackTraceLimit
  Error.stackTraceLimit = 0
  try {
    return new LlmError.LlmError(info, true)
  } finally {
    Error.stackTraceLimit = limit
  }
}

/** `LlmError.make` without a stack trace or re-validation. */
export const make = (fields: Parameters<typeof LlmError.info>[0]): LlmError.LlmError => fromInfo(LlmError.info(fields))
