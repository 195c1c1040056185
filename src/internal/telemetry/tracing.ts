/**
 * Whether a span made for a request could be seen by anyone. Effect's built-in tracer (the one every
 * program has until a tracer layer replaces it, as `@effect/opentelemetry`'s do) records nothing and
 * exports nothing, so a span made under it only costs: the telemetry span and the request's HTTP
 * span are made when another tracer is installed, or when the request runs inside a span already
 * (an incoming trace to carry on in the request's `traceparent`), and not when tracing is off
 * (`Effect.withTracerEnabled(false)`).
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as DefaultServices from "effect/DefaultServices"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import * as Tracer from "effect/Tracer"

/** Effect's built-in tracer, as every runtime has it by default. */
const builtIn: Tracer.Tracer = Context.get(DefaultServices.liveServices, Tracer.Tracer)

/** Whether spans made in `fiber` could be seen (see the module's description). */
export const spansSeen = (fiber: Fiber.RuntimeFiber<unknown, unknown>): boolean =>
  fiber.getFiberRef(FiberRef.currentTracerEnabled) &&
  (fiber.currentTracer !== builtIn || Option.isSome(Context.getOption(fiber.currentContext, Tracer.ParentSpan)))

/** {@link spansSeen} for the fiber that runs it. */
export const seen: Effect.Effect<boolean> = Effect.withFiberRuntime((fiber) => Effect.succeed(spansSeen(fiber)))
