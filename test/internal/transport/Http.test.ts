import * as HttpClient from "@effect/platform/HttpClient"
import { Effect, Exit } from "effect"
import * as fc from "fast-check"
import { Readable } from "node:stream"
import { describe, expect, it } from "vitest"
import * as Lite from "../../../src/internal/scope.js"
import * as Http from "../../../src/internal/transport/Http.js"

/** What `secretsOf` must find: written with the regular expression it no longer runs. */
const reference = (headers: Record<string, string>): Array<string> => {
  const out: Array<string> = []
  for (const [name, value] of Object.entries(headers)) {
    if (!Http.secretHeaders.has(name.toLowerCase())) continue
    out.push(value)
    const token = value.replace(/^(Bearer|Basic|Token)\s+/i, "")
    if (token !== value) out.push(token)
  }
  return out
}

describe("Http.secretsOf", () => {
  it("finds every key header's value, and a scheme's token on its own", () => {
    expect(Http.secretsOf({
      "content-type": "application/json",
      Authorization: "Bearer  sk-one",
      "x-api-key": "sk-two",
      "api-key": "token\tsk-three",
      "x-goog-api-key": "Basic",
      "anthropic-version": "2023-06-01"
    })).toEqual(["Bearer  sk-one", "sk-one", "sk-two", "token\tsk-three", "sk-three", "Basic"])
  })

  it("strips a scheme only when white space follows it, as `\\s` means white space", () => {
    expect(Http.secretsOf({ authorization: "Bearersk-x" })).toEqual(["Bearersk-x"])
    expect(Http.secretsOf({ authorization: "BEARER\u00a0\u3000sk-x" })).toEqual(["BEARER\u00a0\u3000sk-x", "sk-x"])
    expect(Http.secretsOf({ authorization: "Bearer " })).toEqual(["Bearer ", ""])
    // U+212A (Kelvin) lower-cases to "k", but a case-insensitive expression does not fold it to "k".
    expect(Http.secretsOf({ authorization: "To\u212aen sk-x" })).toEqual(["To\u212aen sk-x"])
  })

  it("agrees with the regular expression on any headers", () => {
    const piece = fc.constantFrom(
      "Bearer",
      "bEaReR",
      "Basic",
      "TOKEN",
      "Tok",
      " ",
      "\t",
      "\u00a0",
      "\u2009",
      "\ufeff",
      "\u212a",
      "sk-",
      "x",
      "0"
    )
    const value = fc.array(piece, { maxLength: 6 }).map((ps) => ps.join(""))
    const name = fc.constantFrom("authorization", "Authorization", "x-api-key", "API-KEY", "x-goog-api-key", "accept")
    fc.assert(
      fc.property(fc.dictionary(name, value), (headers) => {
        expect(Http.secretsOf(headers)).toEqual(reference(headers))
      }),
      { numRuns: 2000 }
    )
  })
})

describe("Http.direct", () => {
  /** A client registered as direct whose `send` answers 200 with `body`, recording each request's signal. */
  const directClient = (body: Readable) => {
    const signals: Array<AbortSignal> = []
    const client = Http.direct(
      HttpClient.make(() => Effect.die("the platform path must not be taken")),
      (request) => {
        signals.push(request.signal)
        return Promise.resolve({ statusCode: 200, headers: { "content-type": "text/event-stream" }, body })
      }
    )
    return { client, signals }
  }
  const post = (client: HttpClient.HttpClient, scope: Lite.Lite) =>
    Http.postJson(client, { url: "http://127.0.0.1:1/v1", headers: {}, body: {}, provider: "test", scope })

  it("a request whose body is never opened is aborted when its attempt's scope closes", async () => {
    const { client, signals } = directClient(Readable.from([]))
    const scope = Lite.make()
    const response = await Effect.runPromise(post(client, scope))
    expect(response.status).toBe(200)
    expect(signals[0]!.aborted).toBe(false)
    await Effect.runPromise(scope.close(Exit.void))
    expect(signals[0]!.aborted).toBe(true)
  })

  it("once its body is opened, the body's own scope closes it, and the attempt's scope does not abort it", async () => {
    const body = new Readable({ read() {} })
    body.push("data: 1\n\n")
    const { client, signals } = directClient(body)
    const attempt = Lite.make()
    const response = await Effect.runPromise(post(client, attempt))
    const reading = Lite.make()
    const opened = await Effect.runPromise(response.open(reading))
    expect(new TextDecoder().decode(await Effect.runPromise(opened.read))).toBe("data: 1\n\n")
    await Effect.runPromise(attempt.close(Exit.void))
    expect(signals[0]!.aborted).toBe(false)
    expect(body.destroyed).toBe(false)
    await Effect.runPromise(reading.close(Exit.void))
    expect(body.destroyed).toBe(true)
    expect(signals[0]!.aborted).toBe(false)
  })
})
