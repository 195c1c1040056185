/**
 * A scripted `LanguageModel` for tests: plays chunks with delays on the Effect clock (so
 * `TestClock.adjust` drives it), can end in a failure, a defect or a stall, and records every
 * request it received.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { LanguageModel, LlmError, StreamChunk } from "effect-llm-stream"
 * import { TestModel } from "effect-llm-stream/testing"
 *
 * const model = TestModel.layer({
 *   responses: [
 *     [StreamChunk.textDelta("Hel"), TestModel.sleep("1 second"), StreamChunk.textDelta("lo"), StreamChunk.finish("stop")],
 *     [TestModel.fail(LlmError.make({ code: "rate_limit", message: "Slow down" }))]
 *   ]
 * })
 * const first = LanguageModel.chat("Hi").pipe(Effect.provide(model)) // "Hello", after 1 s of TestClock time
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import type * as ChatRequest from "../ChatRequest.js"
import * as Timeouts from "../internal/timeouts.js"
import * as LanguageModel from "../LanguageModel.js"
import * as LlmError from "../LlmError.js"
import type * as StreamChunk from "../StreamChunk.js"

/**
 * A scripted pause.
 *
 * @since 0.1.0
 * @category models
 */
export interface Sleep {
  readonly _tag: "Sleep"
  readonly duration: Duration.DurationInput
}
/**
 * The stream fails with this error (it reaches the consumer as the terminal `error` chunk).
 *
 * @since 0.1.0
 * @category models
 */
export interface Fail {
  readonly _tag: "Fail"
  readonly error: LlmError.LlmError
}
/**
 * The stream dies with a defect (a bug), which also becomes an `error` chunk.
 *
 * @since 0.1.0
 * @category models
 */
export interface Die {
  readonly _tag: "Die"
  readonly defect: unknown
}
/**
 * The stream stops producing anything, forever (until a timeout or interruption).
 *
 * @since 0.1.0
 * @category models
 */
export interface Stall {
  readonly _tag: "Stall"
}

/**
 * One step of a script: a chunk to emit, or a control step.
 *
 * @since 0.1.0
 * @category models
 */
export type Step = StreamChunk.StreamChunk | Sleep | Fail | Die | Stall

/**
 * The chunks of one response, in order.
 *
 * @since 0.1.0
 * @category models
 */
export type Script = ReadonlyArray<Step>

/**
 * What {@link fail} takes: an `LlmError`, or the fields `LlmError.make` takes (`code` and `message`, at least).
 *
 * @since 0.1.0
 * @category models
 */
export type FailWith = LlmError.LlmError | Parameters<typeof LlmError.make>[0]

/**
 * Pauses the script.
 *
 * @since 0.1.0
 * @category constructors
 */
export const sleep = (duration: Duration.DurationInput): Sleep => ({ _tag: "Sleep", duration })
/**
 * Fails the stream with an error, which reaches the consumer as the terminal `error` chunk:
 * `TestModel.fail({ code: "rate_limit", message: "slow down", status: 429 })`, or an `LlmError`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fail = (error: FailWith): Fail => ({
  _tag: "Fail",
  error: LlmError.isLlmError(error) ? error : LlmError.make(error)
})
/**
 * Kills the stream with a defect.
 *
 * @since 0.1.0
 * @category constructors
 */
export const die = (defect: unknown): Die => ({ _tag: "Die", defect })
/**
 * Stalls the stream.
 *
 * @since 0.1.0
 * @category constructors
 */
export const stall: Stall = { _tag: "Stall" }

/**
 * A `tool-call` chunk for a script: `rawArguments` is `arguments` as JSON; `index` defaults to 0 and
 * `id` to `call_<index>`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const toolCall = (
  name: string,
  args: unknown,
  options?: { readonly id?: string; readonly index?: number }
): StreamChunk.Of<"tool-call"> => {
  const index = options?.index ?? 0
  return {
    type: "tool-call",
    toolCall: { index, id: options?.id ?? `call_${index}`, name, arguments: args, rawArguments: JSON.stringify(args) }
  }
}

/**
 * One step of a multi-step conversation for {@link steps}: a script, or a function of the request
 * that builds one (to answer from the tool results in `request.messages`).
 *
 * @since 0.1.0
 * @category models
 */
export type StepScript = Script | ((request: ChatRequest.ChatRequest) => Script)

/**
 * Scripts a multi-step conversation (an agent loop's requests): request n is answered by
 * `scripts[n]`; a request past the last script ends in an `invalid_request` error chunk saying so,
 * where a plain list of `responses` would repeat its last script.
 *
 * ```ts
 * TestModel.layer({
 *   responses: TestModel.steps([
 *     [TestModel.toolCall("weather", { city: "Paris" }), StreamChunk.finish("tool_calls")],
 *     (request) => [StreamChunk.textDelta(`Got ${request.messages.length} messages`), StreamChunk.finish("stop")]
 *   ])
 * })
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const steps = (
  scripts: ReadonlyArray<StepScript>
): (request: ChatRequest.ChatRequest, n: number) => Script =>
(request, n) => {
  const step = scripts[n]
  if (step === undefined) {
    return [
      fail({
        code: "invalid_request",
        message: `TestModel.steps: request ${n + 1} came, but the conversation was scripted for ${scripts.length} ` +
          `request${scripts.length === 1 ? "" : "s"}`,
        retryable: false
      })
    ]
  }
  return typeof step === "function" ? step(request) : step
}

/**
 * Options of a test model.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly provider?: string
  readonly model?: string
  /**
   * What the model answers: one script for every request, a list of scripts played for successive
   * requests (the last one repeats), or a function of the request and its 0-based number ({@link steps}
   * builds one for an agent's requests that fails past the last).
   */
  readonly responses: Script | ReadonlyArray<Script> | ((request: ChatRequest.ChatRequest, n: number) => Script)
  /** A pause before every chunk. */
  readonly interval?: Duration.DurationInput
  /** Idle (between chunks) and total timeouts, as providers have them; each ends the stream with `timeout`. */
  readonly timeouts?: {
    readonly idle?: Duration.DurationInput | undefined
    readonly total?: Duration.DurationInput | undefined
  }
}

/**
 * What a test can ask the model afterwards.
 *
 * @since 0.1.0
 * @category models
 */
export interface Recorder {
  /** Every request received so far, in order. */
  readonly requests: Effect.Effect<ReadonlyArray<ChatRequest.ChatRequest>>
}

/**
 * The recorder's tag, provided by {@link layer}.
 *
 * @since 0.1.0
 * @category tags
 */
export class TestModel extends Context.Tag("effect-llm-stream/TestModel")<TestModel, Recorder>() {}

const play = (
  script: Script,
  interval: Duration.DurationInput | undefined
): Stream.Stream<StreamChunk.StreamChunk, LlmError.LlmError> =>
  Stream.fromIterable(script).pipe(
    Stream.mapConcatEffect((step): Effect.Effect<ReadonlyArray<StreamChunk.StreamChunk>, LlmError.LlmError> => {
      if ("_tag" in step) {
        switch (step._tag) {
          case "Sleep":
            return Effect.as(Effect.sleep(step.duration), [])
          case "Fail":
            return Effect.fail(step.error)
          case "Die":
            return Effect.die(step.defect)
          case "Stall":
            return Effect.never
        }
      }
      return interval === undefined ? Effect.succeed([step]) : Effect.as(Effect.sleep(interval), [step])
    })
  )

/** A list of scripts (each an array) rather than one script (whose steps are objects). */
const isScriptList = (r: Script | ReadonlyArray<Script>): r is ReadonlyArray<Script> =>
  r.length === 0 || Array.isArray(r[0])

/**
 * Builds a test model and its recorder.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: Options
): Effect.Effect<{ readonly model: LanguageModel.Service; readonly recorder: Recorder }> =>
  Effect.map(Ref.make<ReadonlyArray<ChatRequest.ChatRequest>>([]), (requests) => {
    const provider = options.provider ?? "test"
    const scriptFor = (request: ChatRequest.ChatRequest, n: number): Script => {
      const r = options.responses
      if (typeof r === "function") return r(request, n)
      if (!isScriptList(r)) return r
      return r[Math.min(n, r.length - 1)] ?? []
    }
    const model = LanguageModel.make({
      provider,
      model: options.model ?? "test-model",
      stream: (request) =>
        Stream.unwrap(
          Ref.modify(requests, (all) => [all.length, [...all, request]]).pipe(
            Effect.map((n) =>
              play(scriptFor(request, n), options.interval).pipe(Timeouts.apply(options.timeouts, provider))
            )
          )
        )
    })
    return { model, recorder: { requests: Ref.get(requests) } }
  })

/**
 * A layer providing the scripted `LanguageModel` and its {@link TestModel} recorder.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<LanguageModel.LanguageModel | TestModel> =>
  Layer.effectContext(
    Effect.map(make(options), ({ model, recorder }) =>
      Context.make(LanguageModel.LanguageModel, model).pipe(Context.add(TestModel, recorder)))
  )

/**
 * The requests the {@link TestModel} in the context has received.
 *
 * @since 0.1.0
 * @category accessors
 */
export const requests: Effect.Effect<ReadonlyArray<ChatRequest.ChatRequest>, never, TestModel> = Effect.flatMap(
  TestModel,
  (r) => r.requests
)
