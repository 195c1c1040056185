/**
 * Typed tools: a name, a description, parameters as an Effect `Schema` (whose JSON Schema is what the
 * provider receives, and whose type the handler receives), and an optional Effect handler. Group them
 * with `Toolkit.make` and run them with `LanguageModel.streamWithTools` / `chatWithTools`.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Tool } from "effect-llm-stream"
 *
 * const getWeather = Tool.make("get_weather", {
 *   description: "The current weather in a city",
 *   parameters: Schema.Struct({ city: Schema.String }),
 *   success: Schema.Struct({ temperatureC: Schema.Number }),
 *   // `city` is a string here: the arguments were decoded by the Schema.
 *   handler: ({ city }) => Effect.succeed({ temperatureC: city === "Paris" ? 18 : 21 })
 * })
 * ```
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import * as JSONSchema from "effect/JSONSchema"
import type * as Schema from "effect/Schema"
import type * as ChatRequest from "./ChatRequest.js"
import type * as Response from "./Response.js"
import type * as ToolCall from "./ToolCall.js"

/**
 * The mark of a typed tool.
 *
 * @since 0.1.0
 * @category symbols
 */
export const TypeId: unique symbol = Symbol.for("effect-llm-stream/Tool") // ChatRequest.make reads this mark too

/**
 * The mark of a typed tool.
 *
 * @since 0.1.0
 * @category symbols
 */
export type TypeId = typeof TypeId

/**
 * A typed tool: `A` is the decoded parameters, `S` the handler's success, `E` its typed failure and
 * `R` what it needs from the context.
 *
 * @since 0.1.0
 * @category models
 */
export interface Tool<Name extends string, A, S = unknown, E = never, R = never> extends Any {
  readonly name: Name
  /** The parameters' Effect Schema: the model's arguments are decoded by it before the handler runs. */
  readonly parametersSchema: Schema.Schema<A, unknown>
  /** Encodes the handler's result for the model; without it the result is sent as it is (JSON). */
  readonly success: Schema.Schema<S, unknown> | undefined
  /** Encodes the handler's typed failure for the model; without it, its message is sent. */
  readonly failure: Schema.Schema<E, unknown> | undefined
  /** Runs the call; without it the tool is a client tool, answered by the caller. */
  readonly handler: ((params: A) => Effect.Effect<S, E, R>) | undefined
  /** Whether a call waits for the loop's `approve` option before it runs. */
  readonly needsApproval: boolean | ((params: A) => boolean)
}

/**
 * Any typed tool, whatever its types: what toolkits hold. It is also a plain `ChatRequest.Tool` (its
 * `parameters` is the JSON Schema the provider receives), so it can go in `ChatRequest.tools` as it is.
 *
 * @since 0.1.0
 * @category models
 */
export interface Any extends ChatRequest.Tool {
  readonly [TypeId]: TypeId
}

/**
 * What a tool's handler needs from the context.
 *
 * @since 0.1.0
 * @category type-level
 */
export type Requirements<T> = T extends Tool<infer _N, infer _A, infer _S, infer _E, infer R> ? R : never

/**
 * The decoded parameters of a tool.
 *
 * @since 0.1.0
 * @category type-level
 */
export type Parameters<T> = T extends Tool<infer _N, infer A, infer _S, infer _E, infer _R> ? A : never

/**
 * Whether a value is a typed tool.
 *
 * @since 0.1.0
 * @category guards
 */
export const isTool = (u: unknown): u is Any => typeof u === "object" && u !== null && TypeId in u

/**
 * The JSON Schema of an Effect Schema, as the providers receive it (without `$schema`).
 *
 * @since 0.1.0
 * @category utils
 */
export const jsonSchemaOf = <A, I, R>(schema: Schema.Schema<A, I, R>): { readonly [key: string]: unknown } => {
  const json = JSONSchema.make(schema) as unknown as Record<string, unknown>
  const { $schema: _drop, ...rest } = json
  return rest
}

/**
 * Makes a typed tool. `parameters` is an Effect Schema (a `Struct` in practice): its JSON Schema is
 * what each provider receives (rewritten where a provider refuses parts of it), and the model's
 * arguments are decoded by it, so `handler` receives the Schema's type. `success` / `failure` encode
 * the handler's result / typed failure for the model. A tool without `handler` is a client tool: the
 * loop stops after the step that called it and the caller answers. `needsApproval` makes each call
 * (or each call the predicate picks) wait for the loop's `approve` option. `strict` asks providers
 * that support it (OpenAI) to hold the model to the schema exactly. The tool is also a plain
 * `ChatRequest.Tool`: `tool.parameters` is the JSON Schema, `tool.parametersSchema` the Effect Schema.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <const Name extends string, A, I, S = unknown, SI = unknown, E = never, EI = unknown, R = never>(
  name: Name,
  options: {
    readonly description?: string
    readonly parameters: Schema.Schema<A, I>
    readonly success?: Schema.Schema<S, SI>
    readonly failure?: Schema.Schema<E, EI>
    readonly handler?: (params: A) => Effect.Effect<S, E, R>
    readonly needsApproval?: boolean | ((params: A) => boolean)
    readonly strict?: boolean
  }
): Tool<Name, A, S, E, R> => {
  const tool: {
    -readonly [K in keyof Tool<Name, A, S, E, R>]: Tool<Name, A, S, E, R>[K]
  } = {
    [TypeId]: TypeId,
    name,
    parameters: jsonSchemaOf(options.parameters),
    parametersSchema: options.parameters as Schema.Schema<A, unknown>,
    success: options.success as Schema.Schema<S, unknown> | undefined,
    failure: options.failure as Schema.Schema<E, unknown> | undefined,
    handler: options.handler,
    needsApproval: options.needsApproval ?? false
  }
  if (options.description !== undefined) tool.description = options.description
  if (options.strict !== undefined) tool.strict = options.strict
  return tool
}

/**
 * One finished step of an agent loop, as `stopWhen` and `prepareStep` see it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Step {
  /** The step's number, from 1. */
  readonly step: number
  /** The step's response: its text, tool calls, `toolResults`, usage and finish reason. */
  readonly response: Response.Response
  /** Every finished step so far, this one last. */
  readonly steps: ReadonlyArray<Response.Response>
}

/**
 * A condition that ends an agent loop after a finished step (its tool calls already answered).
 *
 * @since 0.1.0
 * @category models
 */
export type StopCondition = (step: Step) => boolean

/**
 * Stops the loop once `n` steps have run.
 *
 * @since 0.1.0
 * @category stop conditions
 */
export const stepCountIs = (n: number): StopCondition => (step) => step.step >= n

/**
 * Stops the loop after a step that called the tool named `name`.
 *
 * @since 0.1.0
 * @category stop conditions
 */
export const hasToolCall = (name: string): StopCondition => (step) =>
  step.response.toolCalls.some((call: ToolCall.ToolCall) => call.name === name)
