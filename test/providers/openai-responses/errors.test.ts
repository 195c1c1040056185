import { describe, expect, it } from "vitest"
import * as Errors from "../../../src/providers/openai-responses/errors.js"

const info = (status: number | undefined, body: unknown) => {
  const { code, message, status: s, retryable } = Errors.fromBody(status, body, "openai")
  return { code, message, status: s, retryable }
}

describe("OpenAiResponses error bodies", () => {
  it("a precise body code beats the status; the status beats a generic class", () => {
    expect(info(429, { error: { message: "Quota", type: "insufficient_quota", code: "insufficient_quota" } }))
      .toStrictEqual({ code: "quota", message: "Quota", status: 429, retryable: false })
    expect(info(503, { error: { message: "Busy", type: "server_error", code: "server_error" } }))
      .toStrictEqual({ code: "overloaded", message: "Busy", status: 503, retryable: true })
    expect(
      info(400, { error: { message: "Too long", type: "invalid_request_error", code: "context_length_exceeded" } })
    )
      .toStrictEqual({ code: "context_length", message: "Too long", status: 400, retryable: false })
  })

  it("in-band codes of the Responses API, flat and nested, decide without a status", () => {
    expect(info(undefined, { type: "error", code: "server_is_overloaded", message: "Busy", param: null }))
      .toStrictEqual({ code: "overloaded", message: "Busy", status: undefined, retryable: true })
    expect(info(undefined, { type: "error", error: { type: "tokens", code: "rate_limit_exceeded", message: "Wait" } }))
      .toStrictEqual({ code: "rate_limit", message: "Wait", status: undefined, retryable: true })
    expect(info(undefined, { error: { code: "invalid_prompt", message: "Flagged" } }))
      .toStrictEqual({ code: "invalid_request", message: "Flagged", status: undefined, retryable: false })
    expect(info(undefined, { error: { code: "image_too_large", message: "Big" } }).code).toBe("invalid_request")
    expect(info(undefined, { error: { code: "server_error", message: "Oops" } }).code).toBe("server")
    expect(info(undefined, { error: { code: "something_new", message: "?" } }).code).toBe("unknown")
    // OpenAI's generic in-band failure names no code: the server's, worth retrying.
    expect(info(undefined, { type: "error", code: null, message: "An error occurred", param: null }))
      .toStrictEqual({ code: "server", message: "An error occurred", status: undefined, retryable: true })
    expect(info(undefined, { error: { type: "error", code: null, message: "Oops" } }).code).toBe("server")
    expect(info(undefined, "upstream failure").code).toBe("server")
    // With a status, the status decides as before.
    expect(info(418, { error: { code: null, message: "Teapot" } }).code).toBe(info(418, "x").code)
  })

  it("open-responses servers that say it in words, and bodies that are not JSON", () => {
    expect(info(400, { error: "The prompt exceeds the model's context window" }).code).toBe("context_length")
    expect(info(502, "<html><body>Bad gateway</body></html>"))
      .toStrictEqual({ code: "server", message: "The provider answered with HTTP 502", status: 502, retryable: true })
    expect(info(500, "upstream connect error")).toStrictEqual({
      code: "server",
      message: "upstream connect error",
      status: 500,
      retryable: true
    })
  })
})
