/**
 * Gemini error bodies → error codes: every `status` of wire-formats §4, the words that mean a bad
 * key or an over-long prompt, RetryInfo delays, per-day quotas, arrays and bodies that are not Google's.
 */
import { describe, expect, it } from "vitest"
import * as Errors from "../../../src/providers/gemini/errors.js"

const body = (code: number, status: string, message: string, details?: ReadonlyArray<unknown>) =>
  JSON.stringify({ error: { code, message, status, ...(details !== undefined ? { details } : {}) } })

describe("Gemini error bodies", () => {
  const cases: ReadonlyArray<readonly [number, string, string, boolean]> = [
    [400, "INVALID_ARGUMENT", "invalid_request", false],
    [400, "FAILED_PRECONDITION", "invalid_request", false],
    [401, "UNAUTHENTICATED", "authentication", false],
    [403, "PERMISSION_DENIED", "permission", false],
    [404, "NOT_FOUND", "not_found", false],
    [429, "RESOURCE_EXHAUSTED", "rate_limit", true],
    [500, "INTERNAL", "server", true],
    [503, "UNAVAILABLE", "overloaded", true],
    [504, "DEADLINE_EXCEEDED", "timeout", true]
  ]
  for (const [status, name, code, retryable] of cases) {
    it(`${status} ${name} → ${code}`, () => {
      expect(Errors.fromBody(status, body(status, name, "Something happened"), "google")).toStrictEqual({
        code,
        message: "Something happened",
        retryable,
        status,
        provider: "google",
        details: { error: { code: status, message: "Something happened", status: name } }
      })
    })
  }

  it("an invalid API key (an INVALID_ARGUMENT 400) is authentication", () => {
    const text = body(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", [
      { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID", domain: "googleapis.com" }
    ])
    expect(Errors.fromBody(400, text, "google")).toMatchObject({
      code: "authentication",
      status: 400,
      retryable: false
    })
  })

  it("an over-long prompt is context_length", () => {
    const text = body(
      400,
      "INVALID_ARGUMENT",
      "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."
    )
    expect(Errors.fromBody(400, text, "google")).toMatchObject({ code: "context_length", retryable: false })
  })

  it("RetryInfo's retryDelay is retryAfterMs (37s, 1.5s, {seconds, nanos}); a Retry-After header wins", () => {
    const retry = (retryDelay: unknown) =>
      body(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted", [
        {
          "@type": "type.googleapis.com/google.rpc.QuotaFailure",
          violations: [{
            quotaMetric: "generativelanguage.googleapis.com/generate_content_free_tier_requests",
            quotaId: "GenerateRequestsPerMinutePerProjectPerModel-FreeTier"
          }]
        },
        { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay }
      ])
    expect(Errors.fromBody(429, retry("37s"), "google")).toMatchObject({
      code: "rate_limit",
      retryable: true,
      retryAfterMs: 37_000
    })
    expect(Errors.fromBody(429, retry("1.5s"), "google")).toMatchObject({ retryAfterMs: 1_500 })
    expect(Errors.fromBody(429, retry({ seconds: "2", nanos: 500_000_000 }), "google")).toMatchObject({
      retryAfterMs: 2_500
    })
    expect(Errors.fromBody(429, retry("37s"), "google", { retryAfterMs: 5_000 })).toMatchObject({ retryAfterMs: 5_000 })
  })

  it("a per-day quota is quota, not worth retrying", () => {
    const text = body(429, "RESOURCE_EXHAUSTED", "You exceeded your current quota", [
      {
        "@type": "type.googleapis.com/google.rpc.QuotaFailure",
        violations: [{ quotaId: "GenerateRequestsPerDayPerProjectPerModel-FreeTier" }]
      },
      { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "20s" }
    ])
    expect(Errors.fromBody(429, text, "google")).toMatchObject({ code: "quota", retryable: false, status: 429 })
  })

  it("in-band (no HTTP status): the body's code stands for it", () => {
    const info = Errors.fromBody(undefined, {
      error: { code: 429, message: "Slow down", status: "RESOURCE_EXHAUSTED" }
    }, "google")
    expect(info).toMatchObject({ code: "rate_limit", status: 429, retryable: true })
  })

  it("a JSON array of errors (the non-SSE endpoint's shape) is read", () => {
    const text = JSON.stringify([{ error: { code: 404, message: "models/x is not found", status: "NOT_FOUND" } }])
    expect(Errors.fromBody(404, text, "google")).toMatchObject({ code: "not_found", message: "models/x is not found" })
  })

  it("bodies that are not Google's fall back to the status; an HTML page is never quoted", () => {
    expect(Errors.fromBody(502, "<html><body>Bad gateway</body></html>", "google")).toMatchObject({
      code: "server",
      message: "The provider answered with HTTP 502",
      retryable: true
    })
    expect(Errors.fromBody(503, "upstream connect error", "google")).toMatchObject({
      code: "overloaded",
      message: "upstream connect error"
    })
  })
})
