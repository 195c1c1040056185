/**
 * Anthropic error bodies → error codes: every `error.type` of wire-formats §3, the words that mean
 * an over-long prompt, and bodies that are not Anthropic's.
 */
import { describe, expect, it } from "vitest"
import * as Errors from "../../../src/providers/anthropic/errors.js"

const body = (type: string, message: string) =>
  JSON.stringify({ type: "error", error: { type, message }, request_id: "req_011CSHoEeqs5C35K2UUqR7Fy" })

describe("Anthropic error bodies", () => {
  const cases: ReadonlyArray<readonly [number, string, string, boolean]> = [
    [400, "invalid_request_error", "invalid_request", false],
    [401, "authentication_error", "authentication", false],
    [402, "billing_error", "quota", false],
    [403, "permission_error", "permission", false],
    [404, "not_found_error", "not_found", false],
    [413, "request_too_large", "invalid_request", false],
    [429, "rate_limit_error", "rate_limit", true],
    [500, "api_error", "server", true],
    [504, "timeout_error", "timeout", true],
    [529, "overloaded_error", "overloaded", true]
  ]
  for (const [status, type, code, retryable] of cases) {
    it(`${status} ${type} → ${code}`, () => {
      const info = Errors.fromBody(status, body(type, "Something happened"), "anthropic")
      expect(info).toStrictEqual({
        code,
        message: "Something happened",
        retryable,
        status,
        provider: "anthropic",
        requestId: "req_011CSHoEeqs5C35K2UUqR7Fy",
        details: {
          type: "error",
          error: { type, message: "Something happened" },
          request_id: "req_011CSHoEeqs5C35K2UUqR7Fy"
        }
      })
    })
  }

  it("\"prompt is too long\" is context_length; the transport's request id and retry-after win", () => {
    const info = Errors.fromBody(
      400,
      body("invalid_request_error", "prompt is too long: 208310 tokens > 200000 maximum"),
      "anthropic",
      { requestId: "req_header", retryAfterMs: 1500 }
    )
    expect([info.code, info.message, info.requestId, info.retryAfterMs, info.retryable]).toStrictEqual([
      "context_length",
      "prompt is too long: 208310 tokens > 200000 maximum",
      "req_header",
      1500,
      false
    ])
  })

  it("input plus max_tokens over the context limit is context_length too", () => {
    const message = "input length and `max_tokens` exceed context limit: 198000 + 8192 > 200000"
    expect(Errors.fromBody(400, body("invalid_request_error", message), "anthropic").code).toBe("context_length")
  })

  it("an in-band error (no status) is read from its type alone", () => {
    const info = Errors.fromBody(undefined, {
      type: "error",
      error: { type: "overloaded_error", message: "Overloaded" }
    }, "anthropic")
    expect([info.code, info.status, info.retryable]).toStrictEqual(["overloaded", undefined, true])
  })

  it("a proxy's plain-text body falls back to the status, the text as message", () => {
    const info = Errors.fromBody(502, "Bad Gateway", "anthropic")
    expect([info.code, info.message, info.details]).toStrictEqual(["server", "Bad Gateway", "Bad Gateway"])
  })

  it("an unknown error type keeps the status's meaning; no status and no type is unknown", () => {
    expect(Errors.fromBody(503, body("brand_new_error", "x"), "anthropic").code).toBe("overloaded")
    expect(Errors.fromBody(undefined, { type: "error", error: { message: "?" } }, "anthropic").code).toBe("unknown")
  })

  it("an empty body says the status", () => {
    expect(Errors.fromBody(500, "", "anthropic").message).toBe("The provider answered with HTTP 500")
  })
})
