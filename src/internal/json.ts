/**
 * Guards for JSON values we keep whole from the wire (tool arguments, a provider's usage object,
 * provider metadata), so that whatever we return survives `JSON.stringify` and round-trips exactly.
 *
 * V8's `JSON.parse` accepts any nesting depth, but `JSON.stringify` recurses and throws a
 * `RangeError` somewhere past a few thousand levels; and `JSON.parse("1e999")` is `Infinity`, which
 * `JSON.stringify` writes as `null`. Both checks here are iterative, so a hostile value cannot
 * overflow the stack while we look at it. They cost one walk of the value: run them once, where a
 * value is kept, never per streamed delta.
 */
import * as Schema from "effect/Schema"

/**
 * The deepest nesting of arrays and objects kept from a provider: 64 levels. Real tool arguments
 * and usage objects stay under 10; 64 leaves room for any honest schema and stays far below the
 * depth at which `JSON.stringify` (and many consumers' own recursive code) overflow the stack.
 */
export const maxDepth = 64

/** Why a parsed JSON value cannot be kept as it is. */
export type Problem = "too-deep" | "non-finite-number"

/**
 * Checks a parsed JSON value: `undefined` when it nests at most `max` levels (a scalar is 0, `[]`
 * is 1, `[[]]` is 2) and every number is finite; otherwise the first problem found. Iterative and
 * linear in the value's size; it stops as soon as it passes `max`.
 */
export const check = (value: unknown, max: number = maxDepth): Problem | undefined => {
  if (typeof value === "number") return Number.isFinite(value) ? undefined : "non-finite-number"
  if (typeof value !== "object" || value === null) return undefined
  // Two parallel stacks (containers and their depths) rather than a tuple per node: no garbage.
  const containers: Array<object> = [value]
  const depths: Array<number> = [1]
  while (containers.length > 0) {
    const container = containers.pop()!
    const depth = depths.pop()!
    if (depth > max) return "too-deep"
    const items: ReadonlyArray<unknown> = Array.isArray(container)
      ? container
      : Object.values(container)
    for (const item of items) {
      if (typeof item === "number") {
        if (!Number.isFinite(item)) return "non-finite-number"
      } else if (typeof item === "object" && item !== null) {
        containers.push(item)
        depths.push(depth + 1)
      }
    }
  }
  return undefined
}

/** The predicate of a sentence saying what is wrong, e.g. "The arguments' JSON " + `describe(p)`. */
export const describe = (problem: Problem, max: number = maxDepth): string =>
  problem === "too-deep"
    ? `is nested too deeply (more than ${max} levels of arrays and objects)`
    : "holds a number too large for JSON (it reads as Infinity)"

/** A literal piece of output on the {@link stringify} work stack, told apart from values to write. */
class Literal {
  constructor(readonly text: string) {}
}

/**
 * Writes a parsed JSON value back as JSON text, whatever its depth (`JSON.stringify` overflows the
 * stack on deep values). Same output as `JSON.stringify` for what `JSON.parse` produces, except that
 * a non-finite number is written `1e999` / `-1e999`, so reading the text back gives the same value
 * (and the same complaint) instead of a silent `null`.
 */
export const stringify = (value: unknown): string => {
  const out: Array<string> = []
  // Work is popped from the end, so each container pushes its pieces in reverse order.
  const work: Array<unknown> = [value]
  while (work.length > 0) {
    const item = work.pop()
    if (item instanceof Literal) {
      out.push(item.text)
    } else if (typeof item === "number") {
      out.push(Number.isFinite(item) ? JSON.stringify(item) : item > 0 ? "1e999" : "-1e999")
    } else if (typeof item === "string" || typeof item === "boolean") {
      out.push(JSON.stringify(item))
    } else if (Array.isArray(item)) {
      work.push(new Literal("]"))
      for (let i = item.length - 1; i >= 0; i--) {
        work.push(item[i])
        if (i > 0) work.push(new Literal(","))
      }
      out.push("[")
    } else if (typeof item === "object" && item !== null) {
      const entries = Object.entries(item)
      work.push(new Literal("}"))
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, item] = entries[i]!
        work.push(item)
        work.push(new Literal((i > 0 ? "," : "") + JSON.stringify(key) + ":"))
      }
      out.push("{")
    } else {
      out.push("null")
    }
  }
  return out.join("")
}

/**
 * Schema of a JSON object kept as it is (provider metadata, request extras). Not `Schema.Record`:
 * decoding or encoding a record copies it key by key with assignment, and a `"__proto__"` key then
 * sets the copy's prototype to a value chosen by the input, and drops the key.
 */
export const JsonObject: Schema.Schema<{ readonly [key: string]: unknown }> = Schema.declare(
  (u: unknown): u is { readonly [key: string]: unknown } => typeof u === "object" && u !== null && !Array.isArray(u),
  { identifier: "JsonObject", description: "a JSON object", jsonSchema: { type: "object" } }
)
