import { describe, expect, it } from "vitest"
import { fromBody } from "../../../src/providers/openai-chat/errors.js"

describe("OpenAiChat errors.fromBody", () => {
  it("reads a 429 quota body as quota, never retryable, with request id and retry delay", () => {
    const body = {
      error: {
        message: "You exceeded your current quota.",
        type: "insufficient_quota",
        param: null,
        code: "insufficient_quota"
      }
    }
    expect(fromBody(429, body, "openai", { requestId: "req_1", retryAfterMs: 2000 })).toStrictEqual({
      code: "quota",
      message: "You exceeded your current quota.",
      status: 429,
      retryable: false,
      retryAfterMs: 2000,
      provider: "openai",
      requestId: "req_1",
      details: body
    })
  })

  it("reads rate limits, context length (by code or in words) and not-found models", () => {
    const code = (status: number | undefined, error: object) => fromBody(status, { error }, "openai").code
    expect([
      code(429, { message: "Rate limit reached", type: "tokens", code: "rate_limit_exceeded" }),
      code(400, { message: "Too long", type: "invalid_request_error", code: "context_length_exceeded" }),
      code(400, {
        message: "This model's maximum context length is 8192 tokens.",
        type: "invalid_request_error",
        code: null
      }),
      code(undefined, { code: 400, message: "ctx", type: "exceed_context_size_error" }),
      code(404, { message: "The model `x` does not exist", type: "invalid_request_error", code: "model_not_found" }),
      code(503, { message: "Overloaded", type: "server_error" }),
      code(undefined, { message: "boom", type: "server_error" }),
      code(undefined, { message: "boom", type: "InternalServerError", code: 500 }),
      code(undefined, { message: "bad", type: "BadRequestError", code: 400 }),
      code(undefined, { message: "?", type: "mystery" })
    ]).toStrictEqual([
      "rate_limit",
      "context_length",
      "context_length",
      "context_length",
      "not_found",
      "overloaded",
      "server",
      "server",
      "invalid_request",
      "unknown"
    ])
  })

  it("masks a key a provider echoes back", () => {
    const body = {
      error: {
        message: "Incorrect API key provided: sk-proj-abcdefghijklmnop1234.",
        type: "invalid_request_error",
        code: "invalid_api_key"
      }
    }
    expect(fromBody(401, body, "openai")).toMatchObject({
      code: "authentication",
      message: "Incorrect API key provided: sk-[redacted]",
      retryable: false
    })
  })

  it("reads bare messages, string errors, JSON text and plain text bodies", () => {
    expect(fromBody(404, { error: "model 'llama9' not found" }, "ollama")).toStrictEqual({
      code: "not_found",
      message: "model 'llama9' not found",
      status: 404,
      retryable: false,
      provider: "ollama",
      details: { error: "model 'llama9' not found" }
    })
    expect(fromBody(400, "{\"message\":\"bad field\"}", "together").message).toBe("bad field")
    expect(fromBody(502, "Bad Gateway", "openrouter")).toStrictEqual({
      code: "server",
      message: "Bad Gateway",
      status: 502,
      retryable: true,
      provider: "openrouter",
      details: "Bad Gateway"
    })
    expect(fromBody(500, "", "vllm").message).toBe("The provider answered with HTTP 500")
  })
})
