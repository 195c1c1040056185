/**
 * Export to a collector with `@effect/opentelemetry`'s `Otlp.layerJson` (OTLP/HTTP JSON, no
 * OpenTelemetry SDK): the chat span (array attributes kept as arrays) and the metrics reach the
 * collector's `/v1/traces` and `/v1/metrics`, with no key in anything sent. The collector is an
 * `HttpClient` that records what it is sent.
 */
import * as Otlp from "@effect/opentelemetry/Otlp"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import { readFileSync } from "node:fs"
import * as LanguageModel from "../../src/LanguageModel.js"
import * as Anthropic from "../../src/providers/anthropic/index.js"
import * as Replay from "../../src/testing/Replay.js"

const own = (name: string): string => readFileSync(new URL(`../fixtures/anthropic/${name}`, import.meta.url), "utf8")

interface Sent {
  readonly path: string
  readonly body: string
}

interface KeyValue {
  readonly key: string
  readonly value: unknown
}

describe("export to a collector (Otlp.layerJson)", () => {
  it.live("the chat span and the metrics arrive as OTLP JSON", () =>
    Effect.gen(function*() {
      const sent: Array<Sent> = []
      const collector = HttpClient.make((request, url) =>
        Effect.sync(() => {
          const body = request.body._tag === "Uint8Array" ? new TextDecoder().decode(request.body.body) : ""
          sent.push({ path: url.pathname, body })
          return HttpClientResponse.fromWeb(request, new Response("{}", { status: 200 }))
        })
      )
      const telemetry = Otlp.layerJson({
        baseUrl: "http://collector.invalid:4318",
        resource: { serviceName: "chat-app" }
      })
        .pipe(Layer.provide(Layer.succeed(HttpClient.HttpClient, collector)))
      // Closing the layer flushes what it has batched.
      yield* LanguageModel.stream("hi").pipe(
        Stream.runDrain,
        Effect.provide(Anthropic.layer({
          model: "claude-collected",
          apiKey: Redacted.make("sk-ant-test-abcdef0123456789"),
          baseUrl: "http://replay.invalid"
        })),
        Effect.provide(Replay.layer({ body: own("demo-weather-tool-call.sse") })),
        Effect.provide(telemetry)
      )
      const traces = sent.filter((s) => s.path === "/v1/traces")
      expect(traces.length).toBe(1)
      const spans = (JSON.parse(traces[0]!.body) as {
        resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ name: string; attributes: Array<KeyValue> }> }> }>
      }).resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans))
      const chat = spans.find((s) => s.name === "chat claude-collected")!
      const attribute = (key: string) => chat.attributes.find((a) => a.key === key)?.value
      expect(attribute("gen_ai.response.finish_reasons")).toStrictEqual({
        arrayValue: { values: [{ stringValue: "tool_calls" }] }
      })
      expect(attribute("gen_ai.usage.input_tokens")).toStrictEqual({ intValue: 198 })
      expect(attribute("gen_ai.usage.cache_read.input_tokens")).toStrictEqual({ intValue: 128 })
      const metrics = sent.filter((s) => s.path === "/v1/metrics").map((s) => s.body).join("\n")
      for (const name of ["effect_llm_stream.tokens", "effect_llm_stream.duration_ms"]) {
        expect(metrics).toContain(`"${name}"`)
      }
      expect(sent.map((s) => s.body).join("\n")).not.toContain("abcdef0123456789")
    }))
})
