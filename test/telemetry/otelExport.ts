/**
 * Run by OpenTelemetry.test.ts in its own Node process (tsx): the chat span through
 * `@effect/opentelemetry`'s NodeSdk to an in-memory OpenTelemetry exporter, printed as JSON. A
 * separate process because Vitest's "module" resolve condition picks @opentelemetry/api's ESM build,
 * which Node cannot load.
 */
import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import { readFileSync } from "node:fs"
import * as LanguageModel from "../../src/LanguageModel.js"
import * as Anthropic from "../../src/providers/anthropic/index.js"
import * as Replay from "../../src/testing/Replay.js"

const own = (name: string): string => readFileSync(new URL(`../fixtures/anthropic/${name}`, import.meta.url), "utf8")
const model = Anthropic.layer({
  model: "claude-otel",
  apiKey: Redacted.make("sk-ant-test-abcdef0123456789"),
  baseUrl: "http://replay.invalid",
  retry: { times: 0 }
})

const exported = (body: string) =>
  Effect.gen(function*() {
    const exporter = new InMemorySpanExporter()
    // Read before the layer closes: shutting the SDK down empties an in-memory exporter.
    return yield* LanguageModel.stream("hi").pipe(
      Stream.runDrain,
      Effect.provide(model),
      Effect.provide(Replay.layer({ body })),
      Effect.zipRight(Effect.sync(() => exporter.getFinishedSpans())),
      Effect.provide(NodeSdk.layer(() => ({
        resource: { serviceName: "telemetry-test" },
        spanProcessor: new SimpleSpanProcessor(exporter)
      }))),
      Effect.map((spans) =>
        spans.map((s) => ({
          name: s.name,
          kind: s.kind,
          spanId: s.spanContext().spanId,
          parentSpanId: s.parentSpanContext?.spanId,
          attributes: s.attributes,
          events: s.events.map((e) => e.name),
          status: s.status.code
        }))
      )
    )
  })

const [ok, failed] = await Effect.runPromise(
  Effect.all([exported(own("demo-weather-tool-call.sse")), exported(own("error-midstream.sse"))])
)
process.stdout.write(JSON.stringify({ ok, failed }))
