/**
 * Spans only where they can be seen: under Effect's built-in tracer and outside any span, a request
 * makes neither the `chat` span nor the HTTP span and sends no trace headers (its metrics are still
 * recorded); inside a span of the program's own, or with a tracer installed, both spans are made and
 * the request carries the trace on; `Effect.withTracerEnabled(false)` turns them off.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as MetricLabel from "effect/MetricLabel"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as Tracer from "effect/Tracer"
import { readFileSync } from "node:fs"
import * as Tracing from "../../src/internal/telemetry/tracing.js"
import * as LanguageModel from "../../src/LanguageModel.js"
import * as Anthropic from "../../src/providers/anthropic/index.js"
import * as Telemetry from "../../src/Telemetry.js"
import * as Replay from "../../src/testing/Replay.js"
import { traceHeaders, withSpans } from "../support/spans.js"

const body = readFileSync(new URL("../fixtures/anthropic/text.sse", import.meta.url), "utf8")
const anthropic = (model: string) =>
  Anthropic.layer({
    model,
    apiKey: Redacted.make("sk-ant-test-abcdef0123456789"),
    baseUrl: "http://replay.invalid",
    retry: { times: 0 }
  })

/** One request's text, and the headers it was sent with. */
const request = (model: string) =>
  Effect.gen(function*() {
    const chunks = yield* LanguageModel.stream("hi").pipe(Stream.runCollect, Effect.provide(anthropic(model)))
    const text = [...chunks].map((c) => (c.type === "text-delta" ? c.delta : "")).join("")
    const sent = yield* Replay.requests
    expect(sent.length).toBe(1)
    return { text, headers: sent[0]!.headers }
  }).pipe(Effect.provide(Replay.layer({ body })))

describe("spans only where they can be seen", () => {
  it.effect("spansSeen: not under the built-in tracer alone; inside a span, with a tracer; never with tracing off", () =>
    Effect.gen(function*() {
      const native = yield* Effect.tracer
      const other = Tracer.make({ span: (...args) => native.span(...args), context: (f) => f() })
      expect(yield* Tracing.seen).toBe(false)
      expect(yield* Effect.withSpan(Tracing.seen, "outer")).toBe(true)
      expect(yield* Effect.withTracer(Tracing.seen, other)).toBe(true)
      expect(yield* Tracing.seen.pipe(Effect.withTracer(other), Effect.withTracerEnabled(false))).toBe(false)
      expect(yield* Tracing.seen.pipe(Effect.withSpan("outer"), Effect.withTracerEnabled(false))).toBe(false)
    }))

  it.effect("under the built-in tracer, outside any span: no trace headers sent, the metrics recorded all the same", () =>
    Effect.gen(function*() {
      const model = "claude-untraced"
      const { headers, text } = yield* request(model)
      expect(text).toBe("Bonjour ! Comment ça va aujourd'hui ?")
      expect(traceHeaders(headers)).toStrictEqual([])
      const output = yield* Metric.value(
        Metric.taggedWithLabels(Telemetry.tokens, [
          MetricLabel.make("provider", "anthropic"),
          MetricLabel.make("model", model),
          MetricLabel.make("kind", "output")
        ])
      )
      expect(output.count).toBe(12)
    }))

  it.effect("inside a span of the program's own (built-in tracer), the request carries that span's trace on", () =>
    Effect.gen(function*() {
      const { headers, traceId } = yield* Effect.gen(function*() {
        const outer = yield* Effect.currentSpan
        const { headers } = yield* request("claude-inside")
        return { headers, traceId: outer.traceId }
      }).pipe(Effect.withSpan("outer"))
      expect(traceHeaders(headers)).toStrictEqual(["b3", "traceparent"])
      expect(headers["traceparent"]!.split("-")[1]).toBe(traceId)
    }))

  it.effect("with a tracer installed: the chat and HTTP spans, the HTTP span the chat span's child, the trace sent", () =>
    Effect.gen(function*() {
      const { result, spans } = yield* withSpans(request("claude-traced"))
      expect(spans.map((s) => s.name)).toStrictEqual(["chat claude-traced", "http.client POST"])
      const [chat, http] = spans
      expect(Option.map(http!.parent, (p) => p.spanId)).toStrictEqual(Option.some(chat!.spanId))
      expect(result.headers["traceparent"]).toBe(`00-${http!.traceId}-${http!.spanId}-01`)
    }))

  it.effect("a tracer installed but tracing off (Effect.withTracerEnabled(false)): no span, no trace headers", () =>
    Effect.gen(function*() {
      const { result, spans } = yield* withSpans(request("claude-off").pipe(Effect.withTracerEnabled(false)))
      expect(spans).toStrictEqual([])
      expect(result.text).toBe("Bonjour ! Comment ça va aujourd'hui ?")
      expect(traceHeaders(result.headers)).toStrictEqual([])
    }))
})
