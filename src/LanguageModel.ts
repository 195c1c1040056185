/**
 * The `LanguageModel` service: what every provider layer provides, and what programs depend on.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as ChatRequest from "./ChatRequest.js"
import * as Unwrap from "./internal/unwrap.js"
import * as LlmError from "./LlmError.js"
import * as Response from "./Response.js"
import * as StreamChunk from "./StreamChunk.js"
import * as UsageMeter from "./UsageMeter.js"

/** The service interface. `stream` never fails: every failure is its terminal `error` chunk. */
export interface Service {
  /** The provider's name, e.g. `"openai"`. */
  readonly provider: string
  /** The model id the service talks to. */
  readonly model: string
  /** Streams one response. */
  readonly stream: (request: ChatRequest.Input) => Stream.Stream<StreamChunk.StreamChunk>
}

/** The service tag. */
export class LanguageModel extends Context.Tag("effect-llm-stream/LanguageModel")<LanguageModel, Service>() {}

/**
 * Builds a service from a raw chunk stream, adding what every provider owes its callers: the
 * terminal-chunk invariant and the finish-reason rule ({@link StreamChunk.ensureTerminal}: a `finish`
 * `stop` after a tool call reports `tool_calls`), and metering through a
 * {@link UsageMeter.UsageMeter} when one is in the context.
 */
export const make = <E>(options: {
  readonly provider: string
  readonly model: string
  readonly stream: (request: ChatRequest.ChatRequest) => Stream.Stream<StreamChunk.StreamChunk, E>
}): Service => ({
  provider: options.provider,
  model: options.model,
  stream: (input) =>
    StreamChunk.ensureTerminal(
      Stream.suspend(() => options.stream(ChatRequest.make(input))),
      { provider: options.provider }
    ).pipe(UsageMeter.track(options.provider, options.model))
})

/** Streams one response from the `LanguageModel` in the context. */
export const stream = (request: ChatRequest.Input): Stream.Stream<StreamChunk.StreamChunk, never, LanguageModel> =>
  Unwrap.unwrap(Effect.map(LanguageModel, (model) => model.stream(request)))

/** Fails with the response's error (carrying the partial response) when it ended in one. */
export const toEffect = (response: Response.Response): Effect.Effect<Response.Response, LlmError.LlmError> =>
  response.error === undefined ? Effect.succeed(response) : Effect.fail(LlmError.fromInfo(response.error, response))

/** Collects one response from a service, failing with `LlmError` when it ended in an error. */
export const chatWith = (
  service: Service,
  request: ChatRequest.Input
): Effect.Effect<Response.Response, LlmError.LlmError> =>
  Effect.flatMap(Response.collect(service.stream(request)), toEffect)

/**
 * Collects one response from the `LanguageModel` in the context; fails with `LlmError` (carrying the
 * partial response) when the stream ended in an error, so `Effect.retry` and `catchTag` work.
 */
export const chat = (request: ChatRequest.Input): Effect.Effect<Response.Response, LlmError.LlmError, LanguageModel> =>
  Effect.flatMap(LanguageModel, (model) => chatWith(model, request))

/**
 * A service that tries `primary`, then each of `others`, moving on only when a model's stream ends in
 * an error before any content chunk. Once output has started, its error is final. Non-content chunks
 * (metadata, usage, cache) of a failed attempt are held back and dropped, so the consumer never sees
 * two beginnings. When every model fails, the last error is the terminal chunk.
 */
export const withFallback = (primary: Service, ...others: ReadonlyArray<Service>): Service => {
  const models = [primary, ...others]
  const attempt = (request: ChatRequest.Input, i: number): Stream.Stream<StreamChunk.StreamChunk> =>
    Stream.suspend(() => {
      const isLast = i === models.length - 1
      let started = false
      let failedEarly = false
      let held: Array<StreamChunk.StreamChunk> = []
      const current = models[i]!.stream(request).pipe(
        Stream.mapConcat((chunk): ReadonlyArray<StreamChunk.StreamChunk> => {
          if (started) return [chunk]
          if (StreamChunk.isContent(chunk)) {
            started = true
            const out = [...held, chunk]
            held = []
            return out
          }
          if (chunk.type === "error" && !isLast) {
            failedEarly = true
            held = []
            return []
          }
          if (StreamChunk.isTerminal(chunk)) return [...held, chunk]
          held.push(chunk)
          return []
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
