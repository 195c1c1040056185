/** Bedrock's error tables: HTTP errors by x-amzn-ErrorType or __type, in-stream exceptions and error messages. */
import { describe, expect, it } from "vitest"
import * as Errors from "../../../src/providers/bedrock/errors.js"

const http = (status: number, type: string | undefined, body: unknown) =>
  Errors.fromBody(status, typeof body === "string" ? body : JSON.stringify(body), "bedrock", {
    headers: type === undefined ? {} : { "x-amzn-errortype": type }
  })

describe("Bedrock errors", () => {
  it("maps every documented HTTP exception by its header", () => {
    const cases: ReadonlyArray<readonly [number, string, string]> = [
      [400, "ValidationException", "invalid_request"],
      [403, "AccessDeniedException", "permission"],
      [404, "ResourceNotFoundException", "not_found"],
      [408, "ModelTimeoutException", "timeout"],
      [424, "ModelErrorException", "server"],
      [429, "ThrottlingException", "rate_limit"],
      [429, "ModelNotReadyException", "overloaded"],
      [400, "ServiceQuotaExceededException", "quota"],
      [500, "InternalServerException", "server"],
      [503, "ServiceUnavailableException", "overloaded"],
      [403, "UnrecognizedClientException", "authentication"],
      [403, "ExpiredTokenException", "authentication"],
      [403, "InvalidSignatureException", "authentication"]
    ]
    for (const [status, type, code] of cases) {
      expect([type, http(status, `${type}:http://internal.amazon.com/coral/`, { message: "m" }).code]).toStrictEqual([
        type,
        code
      ])
    }
  })

  it("reads the type from the body's __type when the header is missing, and falls back to the status", () => {
    expect(http(400, undefined, { __type: "com.amazon.coral.service#ThrottlingException", message: "slow" }))
      .toMatchObject({ code: "rate_limit", message: "slow", status: 400, details: { type: "ThrottlingException" } })
    expect(http(502, undefined, "Bad gateway")).toMatchObject({ code: "server", message: "Bad gateway", status: 502 })
  })

  it("an over-long prompt is context_length whatever the exception", () => {
    expect(http(400, "ValidationException", { message: "Input is too long for requested model." }).code).toBe(
      "context_length"
    )
    expect(http(400, "ValidationException", { message: "prompt is too long: 210000 tokens > 200000 maximum" }).code)
      .toBe("context_length")
  })

  it("in-stream exceptions and error messages", () => {
    expect(Errors.fromException("throttlingException", "{\"message\":\"Too many tokens\"}", "bedrock")).toStrictEqual({
      code: "rate_limit",
      message: "Too many tokens",
      provider: "bedrock",
      retryable: true,
      details: { type: "throttlingException", body: { message: "Too many tokens" } }
    })
    expect(Errors.fromException("serviceUnavailableException", "{\"message\":\"x\"}", "bedrock").code).toBe(
      "overloaded"
    )
    expect(Errors.fromException("internalServerException", "{\"message\":\"x\"}", "bedrock").code).toBe("server")
    expect(Errors.fromException("validationException", "{\"message\":\"x\"}", "bedrock")).toMatchObject({
      code: "invalid_request",
      retryable: false
    })
    expect(Errors.fromErrorMessage("ThrottlingException", "Rate exceeded", "bedrock")).toMatchObject({
      code: "rate_limit",
      message: "Rate exceeded"
    })
    expect(Errors.fromErrorMessage(undefined, undefined, "bedrock")).toMatchObject({
      code: "unknown",
      message: "The stream reported an error"
    })
  })
})
