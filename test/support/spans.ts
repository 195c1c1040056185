/** Runs an effect with a tracer that keeps every span it starts, for tests of what spans record. */
import * as Effect from "effect/Effect"
import * as Tracer from "effect/Tracer"

/** `effect`'s result, and every span started while it ran. */
export const withSpans = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const native = yield* Effect.tracer
    const spans: Array<Tracer.Span> = []
    const recording = Tracer.make({
      span: (...args) => {
        const span = native.span(...args)
        spans.push(span)
        return span
      },
      context: (f) => f()
    })
    const result = yield* Effect.withTracer(effect, recording)
    return { result, spans }
  })

/** The trace headers (`traceparent`, `b3`) among a request's headers, sorted. */
export const traceHeaders = (headers: Readonly<Record<string, unknown>>): Array<string> =>
  Object.keys(headers).filter((h) => h === "traceparent" || h === "b3").sort()
