/**
 * A group of typed tools, offered to the model together: run them with
 * `LanguageModel.streamWithTools(request, toolkit)`, or put a toolkit in `ChatRequest.tools` (it is an
 * array of tools) to offer its tools for one step without running them.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Tool, Toolkit } from "effect-llm-stream"
 *
 * const getWeather = Tool.make("get_weather", {
 *   parameters: Schema.Struct({ city: Schema.String }),
 *   handler: ({ city }) => Effect.succeed(`Sunny in ${city}`)
 * })
 * const getTime = Tool.make("get_time", {
 *   parameters: Schema.Struct({ zone: Schema.String }),
 *   handler: () => Effect.succeed("12:00")
 * })
 * const toolkit = Toolkit.merge(Toolkit.make(getWeather), Toolkit.make(getTime))
 * ```
 *
 * @since 0.1.0
 */
import type * as Tool from "./Tool.js"

/**
 * The mark of a toolkit.
 *
 * @since 0.1.0
 * @category symbols
 */
export const TypeId: unique symbol = Symbol.for("effect-llm-stream/Toolkit")

/**
 * The mark of a toolkit.
 *
 * @since 0.1.0
 * @category symbols
 */
export type TypeId = typeof TypeId

/**
 * A group of typed tools (`Tools` is the union of their types): an array of them, so a toolkit also
 * goes in `ChatRequest.tools` as it is, offering its tools for one step without running them.
 *
 * @since 0.1.0
 * @category models
 */
export interface Toolkit<out Tools extends Tool.Any> extends ReadonlyArray<Tools> {
  readonly [TypeId]: TypeId
}

/**
 * What the handlers of a toolkit's tools need from the context.
 *
 * @since 0.1.0
 * @category type-level
 */
export type Requirements<T> = T extends Toolkit<infer Tools> ? Tool.Requirements<Tools> : never

/**
 * Whether a value is a toolkit.
 *
 * @since 0.1.0
 * @category guards
 */
export const isToolkit = (u: unknown): u is Toolkit<Tool.Any> => typeof u === "object" && u !== null && TypeId in u

/**
 * Groups tools. Two tools of the same name make a toolkit that `streamWithTools` refuses with an
 * `invalid_request` error chunk naming the name.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <const Tools extends ReadonlyArray<Tool.Any>>(...tools: Tools): Toolkit<Tools[number]> => of(tools)

/** A toolkit holding exactly these tools. */
const of = <T extends Tool.Any>(tools: ReadonlyArray<T>): Toolkit<T> =>
  Object.assign(Array.from(tools), { [TypeId]: TypeId } as const)

/**
 * One toolkit holding the tools of both, `self`'s first.
 *
 * @since 0.1.0
 * @category combinators
 */
export const merge = <A extends Tool.Any, B extends Tool.Any>(self: Toolkit<A>, that: Toolkit<B>): Toolkit<A | B> =>
  of<A | B>([...self, ...that])

/**
 * The first name two of the tools share, if any (a toolkit, or a toolkit with a request's own tools).
 *
 * @since 0.1.0
 * @category utils
 */
export const duplicateName = (tools: Iterable<{ readonly name: string }>): string | undefined => {
  const seen = new Set<string>()
  for (const tool of tools) {
    if (seen.has(tool.name)) return tool.name
    seen.add(tool.name)
  }
  return undefined
}
