import { describe, expect, it } from "vitest"
import * as ErrorBody from "../../../src/internal/kit/ErrorBody.js"

const fromBody = ErrorBody.make({
  precise: new Map([["overloaded_error", "overloaded"]]),
  phrases: [["prompt is too long", "context_length"]],
  fallback: new Map([["api_error", "server"]]),
  codeFields: ["type", "status"]
})

describe("ErrorBody tables", () => {
  it("read the body's code, then the status, then the fallback, from the fields a provider names", () => {
    const code = (status: number | undefined, body: unknown) => fromBody(status, body, "p").code
    expect([
      code(undefined, { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }),
      code(400, { error: { type: "invalid_request_error", message: "prompt is too long: 210000 tokens" } }),
      code(500, { error: { type: "api_error" } }),
      code(undefined, { error: { type: "api_error" } }),
      code(undefined, { error: { status: "OVERLOADED_ERROR" } }),
      code(undefined, { error: { type: "mystery" } })
    ]).toStrictEqual(["overloaded", "context_length", "server", "server", "overloaded", "unknown"])
  })

  it("never quotes an HTML page: the status speaks, the page is kept as details", () => {
    const html = "<!doctype html><html><body>502 Bad Gateway</body></html>"
    expect(fromBody(undefined, html, "p")).toStrictEqual({
      code: "unknown",
      message: "The provider reported an error",
      retryable: false,
      provider: "p",
      details: html
    })
    expect(fromBody(502, html, "p").message).toBe("The provider answered with HTTP 502")
  })

  it("reads problem details and caps long messages", () => {
    expect(fromBody(403, { title: "Forbidden", detail: "No access" }, "p").message).toBe("No access")
    expect(fromBody(400, { message: "x".repeat(2000) }, "p").message).toBe("x".repeat(1000) + "…")
    expect(ErrorBody.parse("{\"a\":1}")).toStrictEqual({ a: 1 })
    expect(ErrorBody.parse("Bad Gateway")).toBe("Bad Gateway")
  })
})
