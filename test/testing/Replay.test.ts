import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as LanguageModel from "../../src/LanguageModel.js"
import * as OpenAiChat from "../../src/providers/openai-chat/index.js"
import type * as StreamChunk from "../../src/StreamChunk.js"
import * as Replay from "../../src/testing/Replay.js"

/** What the platform's `Headers` says about invalid headers, computed independently of the code under test. */
const headersError = (headers: Record<string, string>): string => {
  try {
    new Headers(headers)
  } catch (e) {
    return e instanceof Error ? e.message : String(e)
  }
  throw new Error("expected the headers to be invalid")
}

/** Replies as a JavaScript caller (or a JSON file) could give them, past the types. */
const untyped = (replies: unknown): Replay.Replies => replies as Replay.Replies

const model = OpenAiChat.layer({
  model: "gpt-4.1-mini",
  apiKey: Redacted.make("sk-test-1"),
  baseUrl: "http://replay.invalid/v1"
})
const answer = [
  "data: {\"id\":\"c1\",\"model\":\"gpt-4.1-mini\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":null}]}\n\n",
  "data: {\"id\":\"c1\",\"model\":\"gpt-4.1-mini\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
  "data: [DONE]\n\n"
]
const answered: ReadonlyArray<StreamChunk.StreamChunk> = [
  { type: "metadata", provider: "openai", model: "gpt-4.1-mini", responseId: "c1" },
  { type: "text-delta", delta: "Hi" },
  { type: "finish", reason: "stop", rawReason: "stop" }
]
const collect = Effect.map(Stream.runCollect(LanguageModel.stream("hi")), Chunk.toArray)

describe("Replay rejects a malformed reply with a ReplayError when the layer is built", () => {
  const cases: ReadonlyArray<readonly [string, unknown, string]> = [
    [
      "a status that is not a number",
      { status: "200", body: "" },
      "Replay: the reply is malformed: status must be an integer from 200 to 599 (got \"200\")"
    ],
    [
      "a status out of range",
      { status: 42, body: "" },
      "Replay: the reply is malformed: status must be an integer from 200 to 599 (got 42)"
    ],
    [
      "a fractional status, second in a list",
      [{ body: "ok" }, { status: 200.5, body: "" }],
      "Replay: reply 2 is malformed: status must be an integer from 200 to 599 (got 200.5)"
    ],
    [
      "no body",
      { status: 200 },
      "Replay: the reply is malformed: body must be a string, bytes (Uint8Array) or an array of reads, each a string or bytes (got undefined)"
    ],
    [
      "a number body",
      [{ body: "" }, { body: "" }, { body: 42 }],
      "Replay: reply 3 is malformed: body must be a string, bytes (Uint8Array) or an array of reads, each a string or bytes (got 42)"
    ],
    [
      "an array of numbers as the body",
      { body: [1, 2, 3] },
      "Replay: the reply is malformed: body must be a string, bytes (Uint8Array) or an array of reads, each a string or bytes (got an array)"
    ],
    [
      "a body on a 204",
      { status: 204, body: "x" },
      "Replay: the reply is malformed: a 204 response cannot have a body"
    ],
    ["an empty list", [], "Replay: the list of replies is empty; give at least one reply"],
    [
      "a string instead of a reply",
      "data: x",
      "Replay: the reply is malformed: a reply must be an object with a body (got \"data: x\")"
    ],
    ["null in a list", [null], "Replay: reply 1 is malformed: a reply must be an object with a body (got null)"],
    [
      "an unknown field",
      { body: "", statusCode: 500 },
      "Replay: the reply is malformed: unknown field \"statusCode\" (a reply has status, headers, body, split, pace, stall, drop, headersAfter)"
    ],
    [
      "headers with a number value",
      { body: "", headers: { "retry-after": 7 } },
      "Replay: the reply is malformed: headers must be an object of string values (got an object)"
    ],
    [
      "an invalid header name",
      { body: "", headers: { "bad name": "x" } },
      `Replay: the reply is malformed: headers are not valid HTTP headers: ${headersError({ "bad name": "x" })}`
    ],
    [
      "split.at not an array",
      { body: "abc", split: { at: "1" } },
      "Replay: the reply is malformed: split.at must be an array of integer byte offsets >= 0 (got \"1\")"
    ],
    [
      "a negative split offset",
      { body: "abc", split: { at: [1, -2] } },
      "Replay: the reply is malformed: split.at[1] must be an integer byte offset >= 0 (got -2)"
    ],
    [
      "a fractional seed",
      { body: "abc", split: { seed: 1.5 } },
      "Replay: the reply is malformed: split must be { at: [byte offsets] } or { seed: integer, maxRead?: integer >= 1 } (got seed 1.5)"
    ],
    [
      "split of the wrong shape",
      { body: "abc", split: [1, 2] },
      "Replay: the reply is malformed: split must be { at: [byte offsets] } or { seed: integer, maxRead?: integer >= 1 } (got an array)"
    ],
    [
      "maxRead 0",
      { body: "abc", split: { seed: 1, maxRead: 0 } },
      "Replay: the reply is malformed: split.maxRead must be an integer >= 1 (got 0)"
    ],
    [
      "split with a body already in reads",
      { body: ["a", "b"], split: { at: [1] } },
      "Replay: the reply is malformed: split applies to a string or bytes body; an array body already is the reads"
    ],
    [
      "a pace that is not a duration",
      { body: "", pace: "soon" },
      "Replay: the reply is malformed: pace must be a duration such as \"100 millis\" or a number of milliseconds >= 0 (got \"soon\")"
    ],
    [
      "a negative pace in a list",
      { body: "", pace: ["1 millis", -5] },
      "Replay: the reply is malformed: pace[1] must be a duration such as \"100 millis\" or a number of milliseconds >= 0 (got -5)"
    ],
    [
      "headersAfter NaN",
      { body: "", headersAfter: Number.NaN },
      "Replay: the reply is malformed: headersAfter must be a duration such as \"100 millis\" or a number of milliseconds >= 0 (got NaN)"
    ],
    [
      "stall not a boolean",
      { body: "", stall: "yes" },
      "Replay: the reply is malformed: stall must be true or false (got \"yes\")"
    ],
    [
      "stall and drop together",
      { body: "", stall: true, drop: true },
      "Replay: the reply is malformed: stall and drop cannot both be set"
    ]
  ]
  for (const [name, replies, message] of cases) {
    it.effect(name, () =>
      Effect.gen(function*() {
        const fromMake = yield* Effect.flip(Replay.make(untyped(replies)))
        expect(fromMake).toBeInstanceOf(Replay.ReplayError)
        expect([fromMake._tag, fromMake.message]).toStrictEqual(["ReplayError", message])
        const fromLayer = yield* Effect.flip(
          Effect.provide(collect, Layer.provide(model, Replay.layer(untyped(replies))))
        )
        expect(fromLayer).toStrictEqual(new Replay.ReplayError({ message }))
      }))
  }

  it.effect("catchTag(\"ReplayError\") catches it", () =>
    Effect.gen(function*() {
      const caught = yield* Replay.make(untyped({ status: 700, body: "" })).pipe(
        Effect.as("built"),
        Effect.catchTag("ReplayError", (e) => Effect.succeed(e.message))
      )
      expect(caught).toBe("Replay: the reply is malformed: status must be an integer from 200 to 599 (got 700)")
    }))
})

describe("Replay plays well-formed replies", () => {
  it.effect("a body given as reads may mix text and bytes", () =>
    Effect.gen(function*() {
      expect(yield* collect).toStrictEqual(answered)
    }).pipe(
      Effect.provide(model),
      Effect.provide(Replay.layer({ body: [answer[0]!, new TextEncoder().encode(answer[1]!), answer[2]!] }))
    ))

  it.effect("a 204 without a body, an empty list of reads and every field at once are accepted", () =>
    Effect.gen(function*() {
      yield* Replay.make({ status: 204, body: "" })
      yield* Replay.make({ body: [] })
      yield* Replay.make([{
        status: 429,
        headers: { "retry-after": "1", "content-type": "application/json" },
        body: new Uint8Array([123, 125]),
        split: { seed: 3, maxRead: 2 },
        pace: "10 millis",
        headersAfter: 5,
        drop: true,
        stall: false
      }, { body: "x", split: { at: [0, 1, 99] } }])
    }))
})

describe("Replay checks a function's replies per request", () => {
  it.effect("a malformed reply ends the stream at once in an invalid_request error naming it, without a retry", () =>
    Effect.gen(function*() {
      expect(yield* collect).toStrictEqual(answered)
      const message = "Replay: reply 2 is malformed: status must be an integer from 200 to 599 (got \"503\")"
      expect(yield* collect).toStrictEqual([{
        type: "error",
        error: {
          code: "invalid_request",
          message,
          retryable: false,
          status: 400,
          provider: "openai",
          details: { error: { type: "invalid_request_error", message }, message }
        }
      }])
      expect((yield* Replay.requests).length).toBe(2)
    }).pipe(
      Effect.provide(model),
      Effect.provide(
        Replay.layer((_, n) =>
          n === 0 ? { body: answer.join("") } : untyped({ status: "503", body: "" }) as Replay.Reply
        )
      )
    ))

  it.effect("a function that throws ends the stream in an error saying so", () =>
    Effect.gen(function*() {
      const message = "Replay: the reply function threw for request 1: no reply for /v1/chat/completions"
      const chunks = yield* collect
      expect(chunks).toStrictEqual([{
        type: "error",
        error: {
          code: "invalid_request",
          message,
          retryable: false,
          status: 400,
          provider: "openai",
          details: { error: { type: "invalid_request_error", message }, message }
        }
      }])
      expect((yield* Replay.requests).map((r) => r.url)).toStrictEqual(["http://replay.invalid/v1/chat/completions"])
    }).pipe(
      Effect.provide(model),
      Effect.provide(Replay.layer((request) => {
        throw new Error(`no reply for ${new URL(request.url).pathname}`)
      }))
    ))
})
