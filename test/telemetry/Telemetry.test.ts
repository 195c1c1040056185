/**
 * Telemetry over a real provider layer (Anthropic) and Replay: the `chat <model>` span's exact
 * attributes, its event and status, the transport span as its child, no key anywhere; the metrics
 * after two requests; the debug option's raw events beside the chunks, in order.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Metric from "effect/Metric"
import * as MetricLabel from "effect/MetricLabel"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import type * as Tracer from "effect/Tracer"
import { readFileSync } from "node:fs"
import * as LanguageModel from "../../src/LanguageModel.js"
import * as Pricing from "../../src/Pricing.js"
import * as Anthropic from "../../src/providers/anthropic/index.js"
import type * as StreamChunk from "../../src/StreamChunk.js"
import * as Telemetry from "../../src/Telemetry.js"
import * as Replay from "../../src/testing/Replay.js"
import { awaitSleepUntil } from "../support/clock.js"
import { withSpans } from "../support/spans.js"

const own = (name: string): string => readFileSync(new URL(`../fixtures/anthropic/${name}`, import.meta.url), "utf8")
const secret = "sk-ant-test-abcdef0123456789"
const key = Redacted.make(secret)
const anthropic = (model: string, extra?: Partial<Anthropic.Options>) =>
  Anthropic.layer({ model, apiKey: key, baseUrl: "http://replay.invalid", retry: { times: 0 }, ...extra })
const prices = Pricing.layer({
  "anthropic:claude-telemetry": { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }
})

/** Byte offsets just after each SSE event of a body (one event per network read). */
const eventEnds = (body: string): Array<number> => {
  const bytes = new TextEncoder().encode(body)
  const out: Array<number> = []
  for (let i = 1; i < bytes.length; i++) if (bytes[i] === 10 && bytes[i - 1] === 10) out.push(i + 1)
  return out
}

const chatSpan = (spans: ReadonlyArray<Tracer.Span>): Tracer.Span => {
  const found = spans.filter((s) => s.name.startsWith("chat "))
  expect(found.length).toBe(1)
  return found[0]!
}

describe("the chat span", () => {
  it.effect("carries the GenAI attributes of a tool-call stream with cache reads, its first-chunk event and timings", () =>
    Effect.gen(function*() {
      const body = own("demo-weather-tool-call.sse")
      // Two reads, each 100 ms after the last, after headers at 50 ms: the first content (a thinking
      // delta) is in the second read, at 250 ms.
      const second = body.indexOf("event: content_block_delta")
      const fiber = yield* withSpans(
        LanguageModel.stream({
          messages: [{ role: "user", content: "Weather in Paris?" }],
          maxTokens: 512,
          temperature: 0.2,
          topP: 0.9
        }).pipe(Stream.runCollect)
      ).pipe(
        Effect.provide(anthropic("claude-telemetry")),
        Effect.provide(prices),
        Effect.provide(Replay.layer({ body, split: { at: [second] }, pace: "100 millis", headersAfter: "50 millis" })),
        Effect.fork
      )
      yield* awaitSleepUntil(50)
      yield* TestClock.adjust("50 millis")
      yield* awaitSleepUntil(150)
      yield* TestClock.adjust("100 millis")
      yield* awaitSleepUntil(250)
      yield* TestClock.adjust("100 millis")
      const { result, spans } = yield* Fiber.join(fiber)
      expect([...result].at(-1)).toStrictEqual({ type: "finish", reason: "tool_calls", rawReason: "tool_use" })
      const span = chatSpan(spans)
      expect(span.name).toBe("chat claude-telemetry")
      expect(span.kind).toBe("client")
      expect(Object.fromEntries(span.attributes)).toStrictEqual({
        "gen_ai.operation.name": "chat",
        "gen_ai.system": "anthropic",
        "gen_ai.provider.name": "anthropic",
        "gen_ai.request.model": "claude-telemetry",
        "gen_ai.request.max_tokens": 512,
        "gen_ai.request.temperature": 0.2,
        "gen_ai.request.top_p": 0.9,
        "gen_ai.response.id": "msg_demo_1",
        "gen_ai.response.model": "claude-demo-1",
        "gen_ai.response.finish_reasons": ["tool_calls"],
        "gen_ai.response.time_to_first_chunk": 0.25,
        // 70 fresh + 128 cached input tokens; 61 output.
        "gen_ai.usage.input_tokens": 198,
        "gen_ai.usage.output_tokens": 61,
        "gen_ai.usage.cache_read.input_tokens": 128,
        "gen_ai.usage.cache_creation.input_tokens": 0,
        // (70 × 3 + 128 × 0.3 + 61 × 15) / 1e6 dollars
        [Telemetry.costAttribute]: 0.0011634
      })
      expect(span.status._tag).toBe("Ended")
      if (span.status._tag === "Ended") {
        expect(span.status.startTime).toBe(0n)
        expect(span.status.endTime).toBe(250_000_000n)
        expect(Exit.isSuccess(span.status.exit)).toBe(true)
      }
      const events = (span as unknown as { readonly events: ReadonlyArray<[string, bigint, Record<string, unknown>]> })
        .events
      expect(events).toStrictEqual([["gen_ai.first_chunk", 250_000_000n, {
        "gen_ai.response.time_to_first_chunk": 0.25
      }]])
      // The transport's request span is a child of the chat span.
      const http = spans.filter((s) => s.name === "http.client POST")
      expect(http.length).toBe(1)
      expect(Option.map(http[0]!.parent, (p) => p.spanId)).toStrictEqual(Option.some(span.spanId))
      // The key is nowhere in any span.
      const everything = JSON.stringify(
        spans.map((s) => [s.name, Object.fromEntries(s.attributes)]),
        (_, v) => (typeof v === "bigint" ? String(v) : v)
      )
      expect(everything).not.toContain("abcdef0123456789")
    }))

  it.effect("a service's own stream sees the chat span as parent on every pull, collected or run", () =>
    Effect.gen(function*() {
      // Not the transport: each element is made by an Effect with a span of its own, pulled one by one.
      const service = LanguageModel.make({
        provider: "own",
        model: "own-model",
        stream: () =>
          Stream.fromIterable<StreamChunk.StreamChunk>([
            { type: "text-delta", delta: "a" },
            { type: "text-delta", delta: "b" },
            { type: "finish", reason: "stop" }
          ]).pipe(Stream.rechunk(1), Stream.mapEffect((c) => Effect.withSpan(Effect.succeed(c), "own pull")))
      })
      for (const consume of ["collect", "runForEach"] as const) {
        const run = consume === "collect"
          ? Effect.map(LanguageModel.chatWith(service, "hi"), (r) => r.text)
          : Stream.runFold(service.stream("hi"), "", (text, c) => (c.type === "text-delta" ? text + c.delta : text))
        const { result, spans } = yield* withSpans(run)
        expect(result).toBe("ab")
        const chat = chatSpan(spans)
        expect(chat.name).toBe("chat own-model")
        const pulls = spans.filter((s) => s.name === "own pull")
        expect(pulls.length).toBe(3)
        expect(pulls.map((s) => Option.map(s.parent, (p) => p.spanId))).toStrictEqual(
          pulls.map(() => Option.some(chat.spanId))
        )
      }
    }))

  it.effect("an error stream records its code as error.type and ends the span failed", () =>
    Effect.gen(function*() {
      const { spans } = yield* withSpans(LanguageModel.stream("hi").pipe(Stream.runDrain)).pipe(
        Effect.provide(anthropic("claude-unpriced")),
        Effect.provide(Replay.layer({ body: own("error-midstream.sse") }))
      )
      const span = chatSpan(spans)
      expect(Object.fromEntries(span.attributes)).toStrictEqual({
        "gen_ai.operation.name": "chat",
        "gen_ai.system": "anthropic",
        "gen_ai.provider.name": "anthropic",
        "gen_ai.request.model": "claude-unpriced",
        "gen_ai.response.id": "msg_err_1",
        "gen_ai.response.model": "claude-sonnet-4-5-20250929",
        "gen_ai.response.finish_reasons": ["error"],
        "gen_ai.response.time_to_first_chunk": 0,
        "gen_ai.usage.input_tokens": 10,
        "gen_ai.usage.output_tokens": 1,
        "error.type": "overloaded"
      })
      expect(span.status._tag === "Ended" && Exit.isFailure(span.status.exit)).toBe(true)
    }))

  it.effect("an HTTP error before any output: no response attributes, the error's code", () =>
    Effect.gen(function*() {
      const { spans } = yield* withSpans(LanguageModel.stream("hi").pipe(Stream.runDrain)).pipe(
        Effect.provide(anthropic("claude-unpriced")),
        Effect.provide(Replay.layer({
          status: 401,
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ type: "error", error: { type: "authentication_error", message: `bad key ${secret}` } })
        }))
      )
      const attributes = Object.fromEntries(chatSpan(spans).attributes)
      expect(attributes["error.type"]).toBe("authentication")
      expect(attributes["gen_ai.response.finish_reasons"]).toStrictEqual(["error"])
      expect(attributes["gen_ai.usage.input_tokens"]).toBe(undefined)
      expect(JSON.stringify(spans.map((s) => Object.fromEntries(s.attributes)))).not.toContain("abcdef0123456789")
    }))
})

describe("metrics", () => {
  const labels = (model: string, ...more: ReadonlyArray<readonly [string, string]>) => [
    MetricLabel.make("provider", "anthropic"),
    MetricLabel.make("model", model),
    ...more.map(([k, v]) => MetricLabel.make(k, v))
  ]

  it.effect("tokens by kind, time to first chunk, duration and errors by code after two requests", () =>
    Effect.gen(function*() {
      const model = "claude-metrics"
      const run = LanguageModel.stream("hi").pipe(Stream.runDrain, Effect.provide(anthropic(model)))
      yield* run.pipe(Effect.provide(Replay.layer({ body: own("text.sse") })))
      yield* run.pipe(Effect.provide(Replay.layer({ body: own("error-midstream.sse") })))
      const tokens = (kind: string) =>
        Metric.value(Metric.taggedWithLabels(Telemetry.tokens, labels(model, ["kind", kind]))).pipe(
          Effect.map((s) => s.count)
        )
      // text.sse: 25 + 1024 cached input, 12 output; error-midstream.sse: 10 input, 1 output.
      expect(yield* tokens("input")).toBe(1059)
      expect(yield* tokens("output")).toBe(13)
      expect(yield* tokens("cache_read")).toBe(1024)
      expect(yield* tokens("cache_write")).toBe(0)
      expect(yield* tokens("reasoning")).toBe(0)
      const errors = yield* Metric.value(
        Metric.taggedWithLabels(Telemetry.errors, labels(model, ["code", "overloaded"]))
      )
      expect(errors.count).toBe(1)
      const duration = yield* Metric.value(Metric.taggedWithLabels(Telemetry.streamDuration, labels(model)))
      expect([duration.count, duration.sum]).toStrictEqual([2, 0])
      const ttfc = yield* Metric.value(Metric.taggedWithLabels(Telemetry.timeToFirstChunk, labels(model)))
      expect([ttfc.count, ttfc.sum]).toStrictEqual([2, 0])
    }))

  it.effect("the fiber's own metric labels (Effect.tagMetrics) are added to ours, as Metric.update adds them", () =>
    Effect.gen(function*() {
      const model = "claude-tagged"
      const run = LanguageModel.stream("hi").pipe(Stream.runDrain, Effect.provide(anthropic(model)))
      yield* run.pipe(Effect.provide(Replay.layer({ body: own("text.sse") })), Effect.tagMetrics("team", "search"))
      yield* run.pipe(Effect.provide(Replay.layer({ body: own("text.sse") })), Effect.tagMetrics("team", "search"))
      yield* run.pipe(Effect.provide(Replay.layer({ body: own("error-midstream.sse") })))
      const tokens = (...more: ReadonlyArray<readonly [string, string]>) =>
        Metric.value(Metric.taggedWithLabels(Telemetry.tokens, labels(model, ["kind", "output"], ...more))).pipe(
          Effect.map((s) => s.count)
        )
      // text.sse: 12 output tokens, twice under the team's label; error-midstream.sse: 1, without it.
      expect(yield* tokens(["team", "search"])).toBe(24)
      expect(yield* tokens()).toBe(1)
      const duration = (...more: ReadonlyArray<readonly [string, string]>) =>
        Metric.value(Metric.taggedWithLabels(Telemetry.streamDuration, labels(model, ...more))).pipe(
          Effect.map((s) => s.count)
        )
      expect(yield* duration(["team", "search"])).toBe(2)
      expect(yield* duration()).toBe(1)
      const errors = yield* Metric.value(
        Metric.taggedWithLabels(Telemetry.errors, labels(model, ["code", "overloaded"], ["team", "search"]))
      )
      expect(errors.count).toBe(0)
    }))

  it.effect("time to first chunk and duration in milliseconds of the Effect clock", () =>
    Effect.gen(function*() {
      const model = "claude-timed"
      const body = own("text.sse")
      const fiber = yield* LanguageModel.stream("hi").pipe(
        Stream.runDrain,
        Effect.provide(anthropic(model)),
        Effect.provide(Replay.layer({ body, split: { at: eventEnds(body) }, pace: "10 millis" })),
        Effect.fork
      )
      for (let t = 10; t <= 90; t += 10) {
        yield* awaitSleepUntil(t)
        yield* TestClock.adjust("10 millis")
      }
      yield* Fiber.join(fiber)
      // The first text delta is the fourth event (read at 40 ms); message_stop the ninth (90 ms).
      const ttfc = yield* Metric.value(Metric.taggedWithLabels(Telemetry.timeToFirstChunk, labels(model)))
      expect([ttfc.count, ttfc.sum]).toStrictEqual([1, 40])
      const duration = yield* Metric.value(Metric.taggedWithLabels(Telemetry.streamDuration, labels(model)))
      expect([duration.count, duration.sum]).toStrictEqual([1, 90])
    }))
})

describe("the debug option", () => {
  const body = own("text.sse")
  const describeItem = (item: StreamChunk.StreamChunk | Telemetry.RawEvent): string =>
    item.type === "raw" ? `raw ${item.name} → ${item.chunks.map((c) => c.type).join(",")}` : item.type

  it.effect("Telemetry.debug puts each read's raw events just before its chunks; the chunks are unchanged", () =>
    Effect.gen(function*() {
      const reads = Replay.layer({ body, split: { at: eventEnds(body) } })
      const items = yield* Telemetry.debug(LanguageModel.stream("hi")).pipe(
        Stream.runCollect,
        Effect.provide(anthropic("claude-debug", { debug: true })),
        Effect.provide(reads)
      )
      expect([...items].map(describeItem)).toStrictEqual([
        "raw message_start → metadata,usage,cache-read",
        "raw content_block_start → ",
        "raw ping → ",
        "raw content_block_delta → text-delta",
        // metadata, usage and cache counts are held back until the first content chunk
        "metadata",
        "usage",
        "cache-read",
        "text-delta",
        "raw content_block_delta → text-delta",
        "text-delta",
        "raw content_block_delta → text-delta",
        "text-delta",
        "raw content_block_stop → ",
        "raw message_delta → usage",
        "usage",
        "raw message_stop → finish",
        "finish"
      ])
      const raws = [...items].filter((i): i is Telemetry.RawEvent => i.type === "raw")
      expect(raws[3]).toStrictEqual({
        type: "raw",
        provider: "anthropic",
        attempt: 1,
        name: "content_block_delta",
        data: `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Bonjour"}}`,
        chunks: [{ type: "text-delta", delta: "Bonjour" }]
      })
      const plain = yield* LanguageModel.stream("hi").pipe(
        Stream.runCollect,
        Effect.provide(anthropic("claude-debug")),
        Effect.provide(reads)
      )
      expect([...items].filter((i) => i.type !== "raw")).toStrictEqual([...plain])
    }))

  it.effect("every attempt's events show, numbered; the key is masked in them", () =>
    Effect.gen(function*() {
      const overloaded =
        "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"busy " +
        secret + "\"}}\n\n"
      const items = yield* Telemetry.debug(LanguageModel.stream("hi")).pipe(
        Stream.runCollect,
        Effect.provide(anthropic("claude-debug", { debug: true, retry: { times: 1, schedule: Schedule.recurs(1) } })),
        Effect.provide(Replay.layer([{ body: overloaded }, { body }]))
      )
      const raws = [...items].filter((i): i is Telemetry.RawEvent => i.type === "raw")
      expect(raws.map((r) => `${r.attempt} ${r.name}`)).toStrictEqual([
        "1 error",
        ...["message_start", "content_block_start", "ping", "content_block_delta", "content_block_delta"].map((n) =>
          `2 ${n}`
        ),
        ...["content_block_delta", "content_block_stop", "message_delta", "message_stop"].map((n) => `2 ${n}`)
      ])
      expect(raws[0]!.data).not.toContain("abcdef0123456789")
      expect([...items].filter((i) => i.type !== "raw").map((c) => c.type).at(-1)).toBe("finish")
    }))

  it.effect("without Telemetry.debug, a debug provider logs each raw event at Debug level", () =>
    Effect.gen(function*() {
      const logged: Array<string> = []
      const capture = Logger.make(({ logLevel, message }) => {
        logged.push(`${logLevel.label} ${Array.isArray(message) ? message.join(" ") : String(message)}`)
      })
      yield* LanguageModel.stream("hi").pipe(
        Stream.runDrain,
        Effect.provide(anthropic("claude-debug", { debug: true })),
        Effect.provide(Replay.layer({ body })),
        Effect.provide(Logger.replace(Logger.defaultLogger, capture)),
        Logger.withMinimumLogLevel(LogLevel.Debug)
      )
      expect(logged.length).toBe(9)
      expect(logged[8]).toBe(`DEBUG {"type":"message_stop"}`)
    }))

  it.effect("a provider without debug passes no raw events, whatever wraps it", () =>
    Effect.gen(function*() {
      const items = yield* Telemetry.debug(LanguageModel.stream("hi")).pipe(
        Stream.runCollect,
        Effect.provide(anthropic("claude-debug")),
        Effect.provide(Replay.layer({ body }))
      )
      expect([...items].map((i) => i.type)).toStrictEqual([
        "metadata",
        "usage",
        "cache-read",
        "text-delta",
        "text-delta",
        "text-delta",
        "usage",
        "finish"
      ])
    }))
})
