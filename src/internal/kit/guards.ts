/**
 * The JSON field guards every decoder reads the wire with. A parsed event is an {@link Unchecked}
 * object: its field names are typed, its values are not, and each must pass a guard before use.
 * That keeps the hot path at one `JSON.parse` per event, with no Schema decoding.
 *
 * @since 0.1.0
 */
import * as Usage from "../../Usage.js"

/** A parsed JSON object that may carry `T`'s fields, none of them checked yet. */
export type Unchecked<T> = { readonly [K in keyof T]?: unknown }

/** Whether a value is a JSON object (not an array), to read as a possible `T`. */
export const isObject = <T>(u: unknown): u is Unchecked<T> => typeof u === "object" && u !== null && !Array.isArray(u)

/** Whether a value is a JSON array. */
export const isArray = (u: unknown): u is ReadonlyArray<unknown> => Array.isArray(u)

/** Whether a value is a string with at least one character. */
export const isNonEmptyString = (u: unknown): u is string => typeof u === "string" && u !== ""

/**
 * A token count, or `undefined` when the field is missing or not a safe non-negative integer: the
 * one rule every provider shares, {@link Usage.count}.
 */
export const count: (u: unknown) => number | undefined = Usage.count

/**
 * One event's data parsed as a JSON object, or `undefined` when it is not JSON or not an object (the
 * decoder then ends the stream with {@link import("./Emitter.js").protocolError}).
 */
export const parseObject = <T>(data: string): Unchecked<T> | undefined => {
  let parsed: unknown
  try {
    parsed = JSON.parse(data)
  } catch {
    return undefined
  }
  return isObject<T>(parsed) ? parsed : undefined
}

/**
 * A finished call's arguments as the object a provider's request wants back (`input`, `args`,
 * `arguments`): the decoded arguments when they are an object, else `{ raw }` holding the text as it
 * came, so nothing the model wrote is lost on the way back.
 */
export const argumentsObject = (call: { readonly arguments: unknown; readonly rawArguments: string }): unknown =>
  isObject(call.arguments) ? call.arguments : { raw: call.rawArguments }
