/** The README's Observability example, type-checked by `tsc` (not run: it would export to a collector). */
import { NodeSdk } from "@effect/opentelemetry"
import * as Otlp from "@effect/opentelemetry/Otlp"
import { FetchHttpClient } from "@effect/platform"
import { BatchSpanProcessor, ConsoleSpanExporter } from "@opentelemetry/sdk-trace-base"
import { Effect, Layer, Metric, Stream } from "effect"
import { Anthropic, LanguageModel, Telemetry } from "effect-llm-stream"

// Traces, metrics (and logs) to an OpenTelemetry collector over OTLP/HTTP JSON: no SDK needed.
const Collector = Otlp.layerJson({
  baseUrl: "http://localhost:4318",
  resource: { serviceName: "chat-api" }
}).pipe(Layer.provide(FetchHttpClient.layer))

// Or through the OpenTelemetry JS SDK and any of its exporters (here the console's).
export const ViaSdk = NodeSdk.layer(() => ({
  resource: { serviceName: "chat-api" },
  spanProcessor: new BatchSpanProcessor(new ConsoleSpanExporter())
}))

const Model = Anthropic.layerConfig({ model: "claude-sonnet-4-5" }).pipe(Layer.provide(FetchHttpClient.layer))

// Every request is a `chat claude-sonnet-4-5` span, with the transport's `http.client POST` inside it.
export const program = LanguageModel.chat("Why is the sky blue?").pipe(
  Effect.provide(Model),
  Effect.provide(Collector)
)

// The same metrics, read in-process:
export const outputTokens = Metric.value(
  Telemetry.tokens.pipe(
    Metric.tagged("provider", "anthropic"),
    Metric.tagged("model", "claude-sonnet-4-5"),
    Metric.tagged("kind", "output")
  )
)

// Debugging a provider: its raw wire events beside the chunks, in order.
export const wire = Telemetry.debug(LanguageModel.stream("Hello")).pipe(
  Stream.runForEach((item) => Effect.log(item.type === "raw" ? `wire  ${item.name ?? ""} ${item.data}` : item.type)),
  Effect.provide(Anthropic.layerConfig({ model: "claude-sonnet-4-5", debug: true })),
  Effect.provide(FetchHttpClient.layer)
)
