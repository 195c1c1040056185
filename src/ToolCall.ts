/**
 * Tool calls: the finished shape, and incremental assembly from streamed fragments.
 *
 * Fragments are grouped by `index`, concatenated in arrival order and decoded once, so assembly is
 * linear in the size of the arguments. A call with no arguments decodes to `{}`; arguments that do
 * not parse are kept as `{ raw }` with `parseError` set, never dropped. So are arguments that parse
 * but could not be sent on as JSON: nested more than 64 levels deep, or holding a number beyond
 * JSON's range (`1e999` reads as `Infinity`).
 *
 * @example
 * ```ts
 * import { ToolCall } from "effect-llm-stream"
 *
 * // A UI can show arguments while they stream:
 * const partial = ToolCall.partialArguments("{\"city\":\"Par") // { city: "Par" }
 * ```
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as Json from "./internal/json.js"
import * as PartialJson from "./internal/partialJson.js"

/**
 * Schema of a finished tool call.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolCall = Schema.Struct({
  index: Schema.Number,
  id: Schema.String,
  name: Schema.String,
  arguments: Schema.Unknown,
  rawArguments: Schema.String,
  parseError: Schema.optional(Schema.String),
  /**
   * An opaque signature the provider attached to the call itself (Gemini's `thoughtSignature` on a
   * `functionCall` part), which that provider requires back on the same call in the next turn.
   */
  signature: Schema.optional(Schema.String),
  /** A freeform call whose arguments are raw text, not JSON: OpenAI Responses custom tools. */
  kind: Schema.optional(Schema.Literal("custom"))
})

/**
 * A finished tool call.
 *
 * @since 0.1.0
 * @category models
 */
export type ToolCall = typeof ToolCall.Type

/**
 * Whether a provider's tool-call index is a real one: a non-negative safe integer. Decoders treat
 * anything else (-1, 0.5, 2^53, a string) as no index, so hostile numbering cannot collide with a
 * key of their own or merge two calls.
 *
 * @since 0.1.0
 * @category guards
 */
export const isIndex = (u: unknown): u is number => typeof u === "number" && Number.isSafeInteger(u) && u >= 0

/**
 * The id given to a call whose provider sent none: `call_<index>`, or `<responseId>_call_<index>` when
 * the response id is known, so ids stay stable for a response and unique across a conversation.
 *
 * @since 0.1.0
 * @category utils
 */
export const synthesizeId = (index: number, responseId?: string): string =>
  responseId === undefined || responseId === "" ? `call_${index}` : `${responseId}_call_${index}`

/**
 * Decodes finished raw arguments once: empty → `{}`; invalid, nested more than 64 levels deep, or
 * holding a number that reads as `Infinity` → `{ raw }` plus `parseError`. What it returns always
 * survives `JSON.stringify` (the raw text is a string, whatever its depth) and round-trips exactly.
 *
 * @since 0.1.0
 * @category codecs
 */
export const decodeArguments = (
  rawArguments: string
): { readonly arguments: unknown; readonly parseError?: string } => {
  if (rawArguments.trim() === "") return { arguments: {} }
  let parsed: unknown
  try {
    // `JSON.parse` defines a `"__proto__"` key as an own data property: the prototype stays Object's.
    parsed = JSON.parse(rawArguments)
  } catch (e) {
    return { arguments: { raw: rawArguments }, parseError: e instanceof Error ? e.message : String(e) }
  }
  // Checked where the value is kept, once per call: JSON.stringify would overflow on deep values.
  const problem = Json.check(parsed)
  return problem === undefined
    ? { arguments: parsed }
    : { arguments: { raw: rawArguments }, parseError: `The arguments' JSON ${Json.describe(problem)}` }
}

/**
 * Builds a finished call from its parts, decoding the raw arguments once.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (fields: {
  readonly index: number
  readonly id?: string | undefined
  readonly name: string
  readonly rawArguments: string
  readonly idPrefix?: string | undefined
}): ToolCall => {
  const decoded = decodeArguments(fields.rawArguments)
  const id = fields.id !== undefined && fields.id !== "" ? fields.id : synthesizeId(fields.index, fields.idPrefix)
  return decoded.parseError === undefined
    ? { index: fields.index, id, name: fields.name, arguments: decoded.arguments, rawArguments: fields.rawArguments }
    : {
      index: fields.index,
      id,
      name: fields.name,
      arguments: decoded.arguments,
      rawArguments: fields.rawArguments,
      parseError: decoded.parseError
    }
}

/**
 * A lazy best-effort view of arguments still streaming: `{"city":"Par` reads as `{ city: "Par" }`;
 * `undefined` when the text so far cannot begin JSON, nests more than 64 levels deep or holds a
 * number that reads as `Infinity`. It reads the text as `JSON.parse` would once complete (a
 * `"__proto__"` key stays an own property, never the prototype). Costs one scan and one parse per
 * call, so call it when a UI repaints, not per fragment.
 *
 * @since 0.1.0
 * @category utils
 */
export const partialArguments = (rawArguments: string): unknown => {
  if (rawArguments.trim() === "") return {}
  const completed = PartialJson.complete(rawArguments)
  if (completed === undefined) return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(completed)
  } catch {
    return undefined
  }
  return Json.check(parsed) === undefined ? parsed : undefined
}

interface Pending {
  readonly index: number
  id: string | undefined
  name: string | undefined
  readonly parts: Array<string>
  finished: boolean
}

/**
 * A mutable assembler of one response's tool calls. Not shared: create one per response (decoders
 * and sinks do so inside their own state).
 *
 * @since 0.1.0
 * @category models
 */
export class Assembler {
  private readonly pending = new Map<number, Pending>()
  private readonly order: Array<number> = []

  /**
   * @param idPrefix the response id, used in synthesized ids; decoders set it once the provider has
   * named the response (see {@link synthesizeId}).
   */
  constructor(public idPrefix?: string) {}

  /** Adds one fragment; `id` and `name` may arrive on any fragment, the first value wins. */
  add(index: number, argumentsDelta: string, id?: string, name?: string): void {
    let p = this.pending.get(index)
    if (p === undefined) {
      p = { index, id: undefined, name: undefined, parts: [], finished: false }
      this.pending.set(index, p)
      this.order.push(index)
    }
    if (id !== undefined && id !== "" && p.id === undefined) p.id = id
    if (name !== undefined && name !== "" && p.name === undefined) p.name = name
    if (argumentsDelta !== "") p.parts.push(argumentsDelta)
  }

  /** Whether a call with this index has been seen. */
  has(index: number): boolean {
    return this.pending.has(index)
  }

  /** The name known so far for a call. */
  nameOf(index: number): string | undefined {
    return this.pending.get(index)?.name
  }

  /** The raw arguments received so far for a call (joined on demand). */
  rawArguments(index: number): string {
    return this.pending.get(index)?.parts.join("") ?? ""
  }

  /** Finishes one call, decoding its arguments once; `undefined` if unknown or already finished. */
  finish(index: number): ToolCall | undefined {
    const p = this.pending.get(index)
    if (p === undefined || p.finished) return undefined
    p.finished = true
    return make({ index, id: p.id, name: p.name ?? "", rawArguments: p.parts.join(""), idPrefix: this.idPrefix })
  }

  /** Finishes every call not yet finished, in order of first appearance. */
  finishAll(): Array<ToolCall> {
    const out: Array<ToolCall> = []
    for (const index of this.order) {
      const call = this.finish(index)
      if (call !== undefined) out.push(call)
    }
    return out
  }

  /** How many distinct calls have been seen. */
  get size(): number {
    return this.order.length
  }
}
