/**
 * The `LanguageModel` service: what every provider layer provides, and what programs depend on.
 *
 * @example
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { LanguageModel } from "effect-llm-stream"
 *
 * // Any provider layer (or TestModel) provides the service.
 * const program = LanguageModel.stream("Tell me a joke").pipe(
 *   Stream.runForEach((chunk) => Effect.sync(() => chunk.type === "text-delta" && process.stdout.write(chunk.delta)))
 * )
 * // Or the collected Response, failing with a typed LlmError:
 * const answer = LanguageModel.chat("Tell me a joke").pipe(Effect.map((response) => response.text))
 * ```
 *
 * @since 0.1.0
 */
import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as ChatRequest from "./ChatRequest.js"
import * as Loop from "./internal/agent/loop.js"
import * as StructuredOutput from "./internal/agent/object.js"
import * as Source from "./internal/source.js"
import * as LlmError from "./LlmError.js"
import * as Response from "./Response.js"
import * as StreamChunk from "./StreamChunk.js"
import * as Telemetry from "./Telemetry.js"
import type * as Tool from "./Tool.js"
import type * as ToolCall from "./ToolCall.js"
import type * as Toolkit from "./Toolkit.js"
import * as UsageMeter from "./UsageMeter.js"

/**
 * The service interface. `stream` never fails: every failure is its terminal `error` chunk.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** The provider's name, e.g. `"openai"`. */
  readonly provider: string
  /** The model id the service talks to. */
  readonly model: string
  /** Streams one response. */
  readonly stream: (request: ChatRequest.Input) => Stream.Stream<StreamChunk.StreamChunk>
}

/**
 * The service tag.
 *
 * @since 0.1.0
 * @category tags
 */
export class LanguageModel extends Context.Tag("effect-llm-stream/LanguageModel")<LanguageModel, Service>() {}

/**
 * Builds a service from a raw chunk stream, adding what every provider owes its callers: the
 * terminal-chunk invariant, the finish-reason rule and the call-id rule
 * ({@link StreamChunk.ensureTerminal}: a `finish` `stop` after a tool call reports `tool_calls`; every
 * `tool-call-delta` carries its call's id, the same as the finished call's), and metering through a
 * {@link UsageMeter.UsageMeter} when one is in the context, and telemetry ({@link Telemetry.instrument}: one
 * `chat <model>` span per run with the GenAI attributes, and the `Telemetry` metrics).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <E>(options: {
  readonly provider: string
  readonly model: string
  readonly stream: (request: ChatRequest.ChatRequest) => Stream.Stream<StreamChunk.StreamChunk, E>
}): Service => ({
  provider: options.provider,
  model: options.model,
  stream: (input) =>
    Source.suspend(() => {
      const request = ChatRequest.make(input)
      return StreamChunk.ensureTerminal(
        Source.suspend(() => options.stream(request)),
        { provider: options.provider }
      ).pipe(
        UsageMeter.track(options.provider, options.model),
        Telemetry.instrument(options.provider, options.model, request)
      )
    })
})

/**
 * Streams one response from the `LanguageModel` in the context.
 *
 * @since 0.1.0
 * @category accessors
 */
export const stream = (request: ChatRequest.Input): Stream.Stream<StreamChunk.StreamChunk, never, LanguageModel> =>
  Source.toStream((scope) => Effect.flatMap(LanguageModel, (model) => Source.of(model.stream(request))(scope)))

/**
 * Fails with the response's error (carrying the partial response) when it ended in one.
 *
 * @since 0.1.0
 * @category utils
 */
export const toEffect = (response: Response.Response): Effect.Effect<Response.Response, LlmError.LlmError> =>
  response.error === undefined ? Effect.succeed(response) : Effect.fail(LlmError.fromInfo(response.error, response))

/**
 * Collects one response from a service, failing with `LlmError` when it ended in an error.
 *
 * @since 0.1.0
 * @category utils
 */
export const chatWith = (
  service: Service,
  request: ChatRequest.Input
): Effect.Effect<Response.Response, LlmError.LlmError> =>
  Effect.flatMap(Response.collect(service.stream(request)), toEffect)

/**
 * Collects one response from the `LanguageModel` in the context; fails with `LlmError` (carrying the
 * partial response) when the stream ended in an error, so `Effect.retry` and `catchTag` work.
 *
 * @since 0.1.0
 * @category accessors
 */
export const chat = (request: ChatRequest.Input): Effect.Effect<Response.Response, LlmError.LlmError, LanguageModel> =>
  Effect.flatMap(LanguageModel, (model) => chatWith(model, request))

/**
 * A service that tries `primary`, then each of `others`, moving on only when a model's stream ends in
 * an error before any content chunk (text, reasoning, tool call, content part). Once output has
 * started, its error is final; a `finish` without output is final too. Non-content chunks (metadata,
 * usage, cache) of a failed attempt are held back and dropped, so the consumer never sees two
 * beginnings. When every model fails, the last model's error is the terminal chunk.
 *
 * The stream always begins with one `metadata` chunk naming the model whose answer follows: that
 * model's own `metadata` chunk (moved first, its `model` filled in from the service when it has
 * none), or `metadata(service.provider, service.model)` when it sent none. The returned service's
 * own `provider` and `model` are the primary's. Each model meters its own attempts under its own key
 * (see {@link UsageMeter.track}). For provider layers, use {@link fallback}.
 *
 * @since 0.1.0
 * @category combinators
 */
export const withFallback = (primary: Service, ...others: ReadonlyArray<Service>): Service => {
  const models: ReadonlyArray<Service> = [primary, ...others]
  const attempt = (request: ChatRequest.Input, i: number): Stream.Stream<StreamChunk.StreamChunk> =>
    Stream.suspend(() => {
      const model = models[i]!
      const isLast = i === models.length - 1
      let started = false
      let failedEarly = false
      let held: Array<StreamChunk.StreamChunk> = []
      // The first chunks of the answer: who answered, then what was held back, then `chunk`.
      const release = (out: Array<StreamChunk.StreamChunk>, chunk: StreamChunk.StreamChunk): void => {
        started = true
        const own = held.find(StreamChunk.is("metadata"))
        out.push(
          own === undefined
            ? StreamChunk.metadata(model.provider, model.model)
            : own.model === undefined
            ? StreamChunk.metadata(own.provider, model.model, own.responseId)
            : own
        )
        for (const c of held) if (c.type !== "metadata") out.push(c)
        out.push(chunk)
        held = []
      }
      const current = model.stream(request).pipe(
        Stream.mapChunks((chunk) => {
          const out: Array<StreamChunk.StreamChunk> = []
          for (const c of chunk) {
            if (started) {
              // At most one metadata chunk, first.
              if (c.type !== "metadata") out.push(c)
            } else if (c.type === "error" && !isLast) {
              failedEarly = true
              held = []
            } else if (StreamChunk.isContent(c) || StreamChunk.isTerminal(c)) {
              release(out, c)
            } else {
              held.push(c)
            }
          }
          return Chunk.unsafeFromArray(out)
        })
      )
      return Stream.concat(current, Stream.suspend(() => (failedEarly ? attempt(request, i + 1) : Stream.empty)))
    })
  return {
    provider: primary.provider,
    model: primary.model,
    stream: (request) => attempt(request, 0)
  }
}

/** The services a fallback layer collected, in order (never part of a public type). */
class Candidates extends Context.Tag("effect-llm-stream/LanguageModel/Candidates")<
  Candidates,
  readonly [Service, ...Array<Service>]
>() {}

const candidate = <E, R>(layer: Layer.Layer<LanguageModel, E, R>): Layer.Layer<Candidates, E, R> =>
  Layer.map(layer, (context) => Context.make(Candidates, [Context.get(context, LanguageModel)]))

/**
 * A `LanguageModel` layer that answers with `primary` and falls back to each of `others` in turn,
 * with the rules of {@link withFallback}: the next model is asked only when a model's stream ends in
 * an error before any content chunk, so output is never repeated. The stream begins with the
 * `metadata` chunk of the model that answered, and the `UsageMeter` counts each attempt under that
 * attempt's model (`provider:model`), so the answer's tokens are filed under the model that gave it.
 *
 * Every layer is built (concurrently, sharing the layers they have in common) when this one is; it
 * fails with the first of their errors and needs what all of them need.
 *
 * ```ts
 * const Model = LanguageModel.fallback(
 *   OpenAiChat.layerConfig({ model: "gpt-4.1-mini" }),
 *   OpenAiChat.layerConfig({ preset: "groq", model: "llama-3.3-70b-versatile" })
 * ) // Layer<LanguageModel, ConfigError, HttpClient>
 * ```
 *
 * @since 0.1.0
 * @category combinators
 */
export const fallback = <E, R, const Others extends ReadonlyArray<Layer.Layer<LanguageModel, unknown, unknown>>>(
  primary: Layer.Layer<LanguageModel, E, R>,
  ...others: Others
): Layer.Layer<
  LanguageModel,
  E | { [K in keyof Others]: Layer.Layer.Error<Others[K]> }[number],
  R | { [K in keyof Others]: Layer.Layer.Context<Others[K]> }[number]
> => {
  let all: Layer.Layer<Candidates, unknown, unknown> = candidate(primary)
  for (const layer of others) {
    all = Layer.zipWith(
      all,
      candidate(layer),
      (a, b) => Context.make(Candidates, [...Context.get(a, Candidates), ...Context.get(b, Candidates)])
    )
  }
  const combined = Layer.map(all, (context) => {
    const [first, ...rest] = Context.get(context, Candidates)
    return Context.make(LanguageModel, withFallback(first, ...rest))
  })
  // The fold lost the precise error and requirement types; they are exactly those of the inputs.
  return combined as Layer.Layer<
    LanguageModel,
    E | { [K in keyof Others]: Layer.Layer.Error<Others[K]> }[number],
    R | { [K in keyof Others]: Layer.Layer.Context<Others[K]> }[number]
  >
}

// ---------------------------------------------------------------------------------------------
// The agent loop
// ---------------------------------------------------------------------------------------------

/**
 * What `prepareStep` may change in the request of the step about to run: every request field but
 * `tools` (model options, `toolChoice`, `messages` …), and `activeTools`, the names of the tools
 * offered in that step (a call to another tool gets an error result).
 *
 * @since 0.1.0
 * @category models
 */
export type StepOverrides = Partial<Omit<ChatRequest.ChatRequest, "tools">> & {
  readonly activeTools?: ReadonlyArray<string>
}

/**
 * What `prepareStep` sees: the step about to run (from 1), the request it would send, and every
 * finished step before it.
 *
 * @since 0.1.0
 * @category models
 */
export interface StepContext {
  readonly step: number
  readonly request: ChatRequest.ChatRequest
  readonly steps: ReadonlyArray<Response.Response>
}

/**
 * The options of {@link streamWithTools} and {@link chatWithTools}; `R` is what `approve` and
 * `prepareStep` need.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolLoopOptions<R = never> {
  /** The most steps (model requests) the loop makes; default 10. Reached, it ends with a normal `finish`. */
  readonly maxSteps?: number | undefined
  /**
   * Ends the loop after a finished step whose calls were answered, when the condition (or any of
   * them) holds: `Tool.stepCountIs(n)`, `Tool.hasToolCall(name)`, or your own.
   */
  readonly stopWhen?: Tool.StopCondition | ReadonlyArray<Tool.StopCondition> | undefined
  /** How many of a step's calls run at once; default 8. */
  readonly concurrency?: number | undefined
  /** How long one call may run (on the Effect clock); past it the model gets an error result. */
  readonly toolTimeout?: Duration.DurationInput | undefined
  /**
   * Decides a call of a tool with `needsApproval`: `false` (or no `approve` at all) sends the model an
   * error result saying the call was denied.
   */
  readonly approve?: ((call: ToolCall.ToolCall) => Effect.Effect<boolean, never, R>) | undefined
  /** Changes the request of each step before it is sent (a plain value or an Effect). */
  readonly prepareStep?:
    | ((context: StepContext) => StepOverrides | Effect.Effect<StepOverrides, never, R>)
    | undefined
}

/**
 * Runs an agent loop as one stream: the model answers, the toolkit's handlers run the calls it made,
 * the model answers again with the results, until a step ends without tool calls (or `maxSteps`,
 * `stopWhen`, or a call of a client tool — one without a handler — ends it).
 *
 * Each step's chunks stream through as they arrive. After a step that ends in `tool_calls`, its calls
 * run (up to `concurrency` at once, each interruptible, each within `toolTimeout`) and their
 * `tool-result` chunks follow in call order; a `step-finish` chunk closes the step (its own `finish`
 * becomes this), and the next step's request carries the step's whole assistant message (reasoning
 * with its signatures, text, tool calls with their ids) and the results, in the provider's native
 * shape. Exactly one terminal chunk ends the stream: the last step's `finish`, or the error a step
 * ended in. The `metadata` chunk is the first step's; each `usage` chunk sums the steps so far (so the
 * last one sums them all); the `UsageMeter` counts each step as a request.
 *
 * Arguments the tool's Schema refuses, an unknown tool, a handler's typed failure, a defect (its
 * message only), a timeout and a denied approval all go back to the model as error results, so it can
 * repair its call: none of them ends the stream. Tools given as plain definitions in the request's
 * own `tools` are client tools too.
 *
 * @since 0.1.0
 * @category agents
 */
export const streamWithTools = <Tools extends Tool.Any, R = never>(
  request: ChatRequest.Input,
  toolkit: Toolkit.Toolkit<Tools>,
  options?: ToolLoopOptions<R>
): Stream.Stream<StreamChunk.StreamChunk, never, LanguageModel | Tool.Requirements<Tools> | R> =>
  Stream.unwrap(Effect.map(LanguageModel, (model) => Loop.run(model, request, toolkit, options)))

/**
 * {@link streamWithTools}, collected: the `Response` of the last step, whose `usage` sums every step,
 * whose `steps` holds each step's `Response` and whose `messages` is the whole conversation (the
 * request's messages, then every step's), ready to continue. Fails with `LlmError` (carrying that
 * response) when a step ended in an error.
 *
 * @since 0.1.0
 * @category agents
 */
export const chatWithTools = <Tools extends Tool.Any, R = never>(
  request: ChatRequest.Input,
  toolkit: Toolkit.Toolkit<Tools>,
  options?: ToolLoopOptions<R>
): Effect.Effect<Response.Response, LlmError.LlmError, LanguageModel | Tool.Requirements<Tools> | R> =>
  Effect.suspend(() => {
    const base = ChatRequest.make(request)
    return Response.collect(streamWithTools(base, toolkit, options)).pipe(
      Effect.map((response): Response.Response => ({
        ...response,
        messages: [...base.messages, ...response.messages]
      })),
      Effect.flatMap(toEffect)
    )
  })

// ---------------------------------------------------------------------------------------------
// Structured output
// ---------------------------------------------------------------------------------------------

/**
 * The options of {@link streamObject} and {@link generateObject}: the name (default `"response"`),
 * description and strictness of the JSON schema the provider receives.
 *
 * @since 0.1.0
 * @category models
 */
export interface ObjectOptions {
  readonly name?: string | undefined
  readonly description?: string | undefined
  readonly strict?: boolean | undefined
}

/**
 * Streams an answer shaped by an Effect Schema. The request asks for JSON matching the Schema through
 * each provider's native mechanism (JSON-schema response formats on OpenAI Chat and Responses,
 * Gemini's `responseJsonSchema`, Ollama's `format`, Cohere's `json_object`, a forced tool on Anthropic
 * and Bedrock). Every chunk streams through; after each text delta that grew the parsed value comes
 * a `partial-object` chunk with the value so far (one incremental parser: linear in the text), and
 * right before the terminal `finish` one `object` chunk with the value decoded by the Schema. Output
 * that is not JSON, or that the Schema refuses, ends the stream with one `error` chunk of code
 * `invalid_output` whose `details` hold the raw `text` and the Schema's `issue` (each path named).
 *
 * @since 0.1.0
 * @category structured output
 */
export const streamObject = <A, I>(
  request: ChatRequest.Input,
  schema: Schema.Schema<A, I>,
  options?: ObjectOptions
): Stream.Stream<StreamChunk.WithObject<A>, never, LanguageModel> =>
  Stream.unwrap(Effect.map(LanguageModel, (model) => StructuredOutput.run(model, request, schema, options)))

/**
 * {@link streamObject}, collected: the decoded value, or an `LlmError` (`invalid_output` when the
 * model's output did not match the Schema, else the stream's own error).
 *
 * @since 0.1.0
 * @category structured output
 */
export const generateObject = <A, I>(
  request: ChatRequest.Input,
  schema: Schema.Schema<A, I>,
  options?: ObjectOptions
): Effect.Effect<A, LlmError.LlmError, LanguageModel> =>
  Effect.suspend(() => {
    let value: { readonly value: A } | undefined
    return streamObject(request, schema, options).pipe(
      Stream.tap((chunk) =>
        Effect.sync(() => {
          if (chunk.type === "object") value = { value: chunk.value }
        })
      ),
      Response.collect,
      Effect.flatMap(toEffect),
      Effect.flatMap((response) =>
        value === undefined
          ? Effect.fail(LlmError.fromInfo(
            LlmError.info({ code: "invalid_output", message: "The stream ended without an object", retryable: false }),
            response
          ))
          : Effect.succeed(value.value)
      )
    )
  })
