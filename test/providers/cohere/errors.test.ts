/**
 * Cohere error bodies → error codes: the statuses Cohere documents, the words that mean an
 * over-long prompt, and bodies that are not Cohere's.
 */
import { describe, expect, it } from "vitest"
import * as Errors from "../../../src/providers/cohere/errors.js"

const body = (message: string) => JSON.stringify({ id: "4b7c-req-id", message })

describe("Cohere error bodies", () => {
  const cases: ReadonlyArray<readonly [number, string, boolean]> = [
    [400, "invalid_request", false],
    [401, "authentication", false],
    [402, "quota", false],
    [404, "not_found", false],
    [422, "invalid_request", false],
    [429, "rate_limit", true],
    [498, "authentication", false],
    [499, "unknown", false],
    [500, "server", true],
    [501, "invalid_request", false],
    [503, "overloaded", true],
    [504, "timeout", true]
  ]
  for (const [status, code, retryable] of cases) {
    it(`${status} → ${code}`, () => {
      expect(Errors.fromBody(status, body("Something happened"), "cohere")).toStrictEqual({
        code,
        message: "Something happened",
        retryable,
        status,
        provider: "cohere",
        requestId: "4b7c-req-id",
        details: { id: "4b7c-req-id", message: "Something happened" }
      })
    })
  }

  it("\"too many tokens\" is context_length whatever the status; the transport's request id and retry-after win", () => {
    const message = "too many tokens: total number of tokens in the prompt cannot exceed 128000 - received 131072"
    const info = Errors.fromBody(400, body(message), "cohere", { requestId: "req_header", retryAfterMs: 1500 })
    expect([info.code, info.message, info.requestId, info.retryAfterMs, info.retryable]).toStrictEqual([
      "context_length",
      message,
      "req_header",
      1500,
      false
    ])
    expect(Errors.fromBody(504, body("too many tokens"), "cohere").code).toBe("context_length")
  })

  it("an in-band error (no status) is read from its words, else unknown", () => {
    expect(Errors.fromBody(undefined, { message: "the context length was exceeded" }, "cohere").code).toBe(
      "context_length"
    )
    const info = Errors.fromBody(undefined, { message: "internal error" }, "cohere")
    expect([info.code, info.status, info.retryable]).toStrictEqual(["unknown", undefined, false])
  })

  it("a proxy's plain-text body falls back to the status, the text as message; an empty body says the status", () => {
    const info = Errors.fromBody(502, "Bad Gateway", "cohere")
    expect([info.code, info.message, info.details]).toStrictEqual(["server", "Bad Gateway", "Bad Gateway"])
    expect(Errors.fromBody(498, "", "cohere").message).toBe("The provider answered with HTTP 498")
  })
})
