/**
 * Ollama error bodies → error codes: `{"error":"…"}` with the statuses Ollama answers with, the
 * words that name a case better than the status, in-band errors (no status), and bodies that are
 * not Ollama's.
 */
import { describe, expect, it } from "vitest"
import * as Errors from "../../../src/providers/ollama/errors.js"

const body = (message: string) => JSON.stringify({ error: message })

describe("Ollama error bodies", () => {
  const cases: ReadonlyArray<readonly [number, string, string, boolean]> = [
    [400, "invalid character 'x' looking for beginning of value", "invalid_request", false],
    [401, "unauthorized", "authentication", false],
    [403, "forbidden", "permission", false],
    [404, "model \"llama9\" not found, try pulling it first", "not_found", false],
    [429, "too many requests", "rate_limit", true],
    [500, "llama runner process has terminated: exit status 2", "server", true],
    [502, "bad gateway", "server", true],
    [503, "server busy, please try again.  maximum pending requests exceeded", "overloaded", true]
  ]
  for (const [status, message, code, retryable] of cases) {
    it(`${status} ${message} → ${code}`, () => {
      expect(Errors.fromBody(status, body(message), "ollama")).toStrictEqual({
        code,
        message,
        retryable,
        status,
        provider: "ollama",
        details: { error: message }
      })
    })
  }

  it("a 400 about the context length is context_length; the transport's request id and retry-after are kept", () => {
    const info = Errors.fromBody(
      400,
      body("the input length exceeds the context length"),
      "ollama",
      { requestId: "req_1", retryAfterMs: 2000 }
    )
    expect([info.code, info.retryable, info.requestId, info.retryAfterMs]).toStrictEqual([
      "context_length",
      false,
      "req_1",
      2000
    ])
  })

  it("an in-band error (no status) named by its words: model not found", () => {
    const info = Errors.fromBody(undefined, { error: "model 'x' not found" }, "ollama")
    expect([info.code, info.status, info.retryable]).toStrictEqual(["not_found", undefined, false])
  })

  it("an in-band error the words do not name is a retryable server error: running the model failed", () => {
    expect(Errors.fromBody(undefined, { error: "an error was encountered while running the model" }, "ollama"))
      .toStrictEqual({
        code: "server",
        message: "an error was encountered while running the model",
        retryable: true,
        provider: "ollama",
        details: { error: "an error was encountered while running the model" }
      })
  })

  it("a proxy's plain-text or HTML body falls back to the status", () => {
    expect(Errors.fromBody(502, "Bad Gateway", "ollama")).toMatchObject({
      code: "server",
      message: "Bad Gateway",
      status: 502
    })
    expect(Errors.fromBody(504, "<html><body>Gateway Timeout</body></html>", "ollama")).toMatchObject({
      code: "server",
      message: "The provider answered with HTTP 504",
      status: 504
    })
  })

  it("an OpenAI-style object body (Ollama's /v1 behind a proxy) is read too", () => {
    const info = Errors.fromBody(
      404,
      JSON.stringify({ error: { message: "model 'm' not found", type: "api_error" } }),
      "ollama"
    )
    expect([info.code, info.message]).toStrictEqual(["not_found", "model 'm' not found"])
  })
})
