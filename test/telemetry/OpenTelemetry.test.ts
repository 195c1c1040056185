/**
 * The chat span through `@effect/opentelemetry` (NodeSdk) to an OpenTelemetry exporter: attributes,
 * the first-chunk event, the ERROR status and the transport span as its child arrive as an OTLP
 * exporter would send them to a collector. Run in a child process (see otelExport.ts).
 */
import { describe, expect, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"

interface Exported {
  readonly name: string
  readonly kind: number
  readonly spanId: string
  readonly parentSpanId: string | undefined
  readonly attributes: Record<string, unknown>
  readonly events: ReadonlyArray<string>
  readonly status: number
}

describe("through @effect/opentelemetry", () => {
  it("the spans reach an OpenTelemetry exporter with their attributes, event, status and parent", () => {
    const script = fileURLToPath(new URL("otelExport.ts", import.meta.url))
    const out = execFileSync(process.execPath, ["--conditions=effect-llm-stream/source", "--import", "tsx", script], {
      encoding: "utf8"
    })
    const { failed, ok } = JSON.parse(out) as { ok: Array<Exported>; failed: Array<Exported> }
    expect(ok.map((s) => s.name).sort()).toStrictEqual(["chat claude-otel", "http.client POST"])
    const chat = ok.find((s) => s.name === "chat claude-otel")!
    const http = ok.find((s) => s.name === "http.client POST")!
    expect(chat.kind).toBe(2) // SpanKind.CLIENT
    expect(http.parentSpanId).toBe(chat.spanId)
    expect(chat.attributes).toMatchObject({
      "gen_ai.system": "anthropic",
      "gen_ai.request.model": "claude-otel",
      "gen_ai.response.id": "msg_demo_1",
      "gen_ai.usage.input_tokens": 198,
      "gen_ai.usage.output_tokens": 61,
      "gen_ai.usage.cache_read.input_tokens": 128
    })
    // This bridge (0.64) turns array attributes into JSON text; the Otlp exporter keeps them arrays (Otlp.test.ts).
    expect(JSON.parse(String(chat.attributes["gen_ai.response.finish_reasons"]))).toStrictEqual(["tool_calls"])
    expect(chat.events).toStrictEqual(["gen_ai.first_chunk"])
    expect(chat.status).toBe(1) // OK: a finished answer
    const errorSpan = failed.find((s) => s.name === "chat claude-otel")!
    expect(errorSpan.attributes["error.type"]).toBe("overloaded")
    expect(errorSpan.status).toBe(2) // ERROR
    expect(out).not.toContain("abcdef0123456789")
  })
})
