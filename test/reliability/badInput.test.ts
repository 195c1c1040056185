/**
 * The bad-input corpus (issue 12): for every provider family, each bad input a server or proxy can
 * send, over a real loopback HTTP server (test/support/hostile.ts) through the real layer and
 * `FetchHttpClient`. Each test asserts the exact outcome: the chunks before, then exactly one
 * terminal chunk with its code (and its message where it is stable).
 *
 * The families and their wire are in ./families.ts; what differs between them in the outcomes is in
 * {@link expected} below, one row per family.
 *
 * Wrong field types, decided once for all families: a field read in a type the wire does not define
 * is absent — a text delta that is a number adds no text, a token count that is a string counts as
 * absent (never `NaN`), tool arguments in a field that carries JSON text fragments (OpenAI, Anthropic,
 * Bedrock, Cohere) are not a fragment when they are an array — while where the wire carries the
 * arguments as a JSON value (Gemini `args`, Ollama `arguments`) an array is that value, kept.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import type * as http from "node:http"
import * as LanguageModel from "../../src/LanguageModel.js"
import * as StreamChunk from "../../src/StreamChunk.js"
import { type Hostile, make } from "../support/hostile.js"
import { type Extra, families, type Family } from "./families.js"

type Chunks = ReadonlyArray<StreamChunk.StreamChunk>

/** What differs between the families' outcomes (everything else is the same for all). */
interface Expected {
  /** The chunks after the head for `wrong.usageStrings`. */
  readonly usageStrings: Chunks
  /** The chunks after the head for `wrong.toolArgsArray`. */
  readonly toolArgsArray: Chunks
  /** The size-cap message for an event of 2,000 characters of text under a 1,024 cap. */
  readonly overCap: string
  /** The message for an endless event under a 1,024 cap. */
  readonly endless: string
  /** The message for {@link garbage} as the body. */
  readonly garbage: string
  /** The error a JSON error document on a 200 labelled `text/plain` becomes. */
  readonly jsonError: StreamChunk.StreamChunk
}

const stop = (rawReason: string): StreamChunk.StreamChunk => StreamChunk.finish("stop", rawReason)
const toolCalls = (rawReason: string): StreamChunk.StreamChunk => StreamChunk.finish("tool_calls", rawReason)
/** A call `f` whose array arguments were not a fragment: no arguments, so `{}`. */
const noArguments = (id: string): StreamChunk.StreamChunk => ({
  type: "tool-call",
  toolCall: { index: 0, id, name: "f", arguments: {}, rawArguments: "" }
})
/** A call `f` whose arguments are the array `[1, 2]`, kept as the JSON value it is. */
const arrayArguments = (id: string): Chunks => [
  { type: "tool-call-delta", index: 0, argumentsDelta: "[1,2]", id, name: "f" },
  { type: "tool-call", toolCall: { index: 0, id, name: "f", arguments: [1, 2], rawArguments: "[1,2]" } }
]
const usage = (raw: unknown, inputTokens = 3, outputTokens = 2): StreamChunk.StreamChunk => ({
  type: "usage",
  usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens, raw }
})
/** A usage snapshot whose counts were all strings: zero counts, the provider's object kept as `raw`. */
const zeroUsage = (raw: unknown): StreamChunk.StreamChunk => usage(raw, 0, 0)

const sseOverCap = "An SSE event exceeded the 1 KiB limit"
const sseGarbage = "Expected a stream (text/event-stream), got a body that does not begin as one"
/** The document of {@link Expected.jsonError}. */
const errorDocument = { error: { message: "Too long", code: "context_length_exceeded" } }
const documentError = (provider: string, code: "context_length" | "unknown"): StreamChunk.StreamChunk =>
  StreamChunk.error({
    code,
    message: "Too long",
    retryable: false,
    status: 200,
    provider,
    details: errorDocument
  })
const responsesUsage = {
  input_tokens: 3,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 2,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 5
}

const expected: Readonly<Record<string, Expected>> = {
  OpenAiChat: {
    usageStrings: [zeroUsage({ prompt_tokens: "3", completion_tokens: "2", total_tokens: "5" }), stop("stop")],
    toolArgsArray: [noArguments("call_1"), toolCalls("tool_calls")],
    overCap: sseOverCap,
    endless: sseOverCap,
    garbage: sseGarbage,
    jsonError: documentError("openai", "context_length")
  },
  OpenAiResponses: {
    usageStrings: [zeroUsage({ input_tokens: "3", output_tokens: "2", total_tokens: "5" }), stop("completed")],
    toolArgsArray: [
      noArguments("call_1"),
      {
        type: "usage",
        usage: {
          inputTokens: 3,
          outputTokens: 2,
          totalTokens: 5,
          cacheReadTokens: 0,
          reasoningTokens: 0,
          raw: responsesUsage
        }
      },
      toolCalls("completed")
    ],
    overCap: sseOverCap,
    endless: sseOverCap,
    garbage: sseGarbage,
    jsonError: documentError("openai", "context_length")
  },
  Anthropic: {
    // The output count stays the last one read (1, from message_start): no new snapshot.
    usageStrings: [stop("end_turn")],
    toolArgsArray: [noArguments("toolu_1"), usage({ input_tokens: 3, output_tokens: 2 }), toolCalls("tool_use")],
    overCap: sseOverCap,
    endless: sseOverCap,
    garbage: sseGarbage,
    jsonError: documentError("anthropic", "unknown")
  },
  Gemini: {
    // A usageMetadata with no count is no snapshot (as Vertex's trafficType-only events).
    usageStrings: [stop("STOP")],
    toolArgsArray: [
      ...arrayArguments("resp_r_call_0"),
      usage({ promptTokenCount: 3, candidatesTokenCount: 2, totalTokenCount: 5 }),
      toolCalls("STOP")
    ],
    overCap: sseOverCap,
    endless: sseOverCap,
    garbage: sseGarbage,
    jsonError: documentError("google", "unknown")
  },
  Ollama: {
    // No count read: no usage chunk.
    usageStrings: [stop("stop")],
    toolArgsArray: [
      ...arrayArguments("call_20250707200000_0"),
      usage({ prompt_eval_count: 3, eval_count: 2 }),
      toolCalls("stop")
    ],
    overCap: "An NDJSON line exceeded the 1 KiB limit",
    endless: "An NDJSON line exceeded the 1 KiB limit",
    garbage: "Expected a stream (application/x-ndjson), got a body that does not begin as one",
    // A body that begins with `{` is an NDJSON stream whatever its label: its line is an in-band error.
    jsonError: StreamChunk.error({
      code: "server",
      message: "Too long",
      retryable: true,
      provider: "ollama",
      details: errorDocument
    })
  },
  Bedrock: {
    usageStrings: [
      zeroUsage({ inputTokens: "3", outputTokens: "2", totalTokens: "5", metrics: { latencyMs: 10 } }),
      stop("end_turn")
    ],
    toolArgsArray: [
      noArguments("tooluse_1"),
      usage({ inputTokens: 3, outputTokens: 2, totalTokens: 5, metrics: { latencyMs: 10 } }),
      toolCalls("tool_use")
    ],
    overCap: "An event-stream message exceeded the 1024 bytes limit (2146 bytes)",
    endless: "An event-stream message exceeded the 1024 bytes limit (2147483647 bytes)",
    garbage: "An event-stream message exceeded the 16777216 bytes limit (2670078552 bytes)",
    jsonError: documentError("bedrock", "unknown")
  },
  Cohere: {
    usageStrings: [stop("COMPLETE")],
    toolArgsArray: [
      noArguments("call_1"),
      usage({ billed_units: { input_tokens: 3, output_tokens: 2 }, tokens: { input_tokens: 3, output_tokens: 2 } }),
      toolCalls("TOOL_CALL")
    ],
    overCap: sseOverCap,
    endless: sseOverCap,
    garbage: sseGarbage,
    jsonError: documentError("cohere", "unknown")
  }
}

// --- running a layer against the hostile server ------------------------------------------------------

const noRetry: Extra = { retry: { times: 0 } }
const capped: Extra = { retry: { times: 0 }, maxEventBytes: 1024 }

interface Outcome {
  readonly chunks: Chunks
  readonly server: Hostile
}

/** Every chunk of one response from a server answering with `handler`, and the server afterwards. */
const run = (family: Family, handler: (res: http.ServerResponse, n: number) => void, extra: Extra = noRetry) =>
  Effect.gen(function*() {
    const server = yield* make((_req, res, n) => handler(res, n))
    const chunks = yield* LanguageModel.stream("hi").pipe(
      Stream.runCollect,
      Effect.map((c): Chunks => [...c]),
      Effect.provide(family.layer(server.url, extra)),
      Effect.provide(FetchHttpClient.layer)
    )
    expect(server.requests.map((r) => r.path)).toContain(family.path)
    return { chunks, server } satisfies Outcome
  })

/** A handler that answers `status` with `body` (and `type`, when not empty). */
const reply = (body: Uint8Array | string, type: string, status = 200) => (res: http.ServerResponse) => {
  res.writeHead(status, type === "" ? {} : { "content-type": type })
  res.end(body)
}

/** The chunks end in exactly one terminal chunk, the last. */
const expectOneTerminal = (chunks: Chunks): StreamChunk.StreamChunk => {
  expect(chunks.filter(StreamChunk.isTerminal).length).toBe(1)
  const last = chunks[chunks.length - 1]!
  expect(StreamChunk.isTerminal(last)).toBe(true)
  return last
}

/** The error of the one terminal chunk. */
const errorOf = (chunks: Chunks) => {
  const last = expectOneTerminal(chunks)
  if (last.type !== "error") throw new Error(`expected an error chunk, got ${JSON.stringify(last)}`)
  return last.error
}

const concat = (...parts: ReadonlyArray<Uint8Array>): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

/** 4 KiB of seeded noise whose first byte (0x9f) begins no stream, document or page. */
const garbage = (): Uint8Array => {
  const bytes = new Uint8Array(4096)
  let x = 7
  for (let i = 0; i < bytes.length; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0
    bytes[i] = x >>> 24
  }
  bytes[0] = 0x9f
  return bytes
}

/** Writes `unit` until the client goes away: a body that never ends. */
const endlessly = (res: http.ServerResponse, unit: Uint8Array): void => {
  const pump = (): void => {
    while (!res.destroyed) {
      if (!res.write(unit)) {
        res.once("drain", pump)
        return
      }
    }
  }
  pump()
}

const html401 = "<html><head><title>401 Authorization Required</title></head><body>nginx</body></html>"
const html200 = "<!DOCTYPE html><html><head><title>Sign in</title></head><body><form>Sign in</form></body></html>"

for (const family of families) {
  const want = expected[family.name]!
  const { head, headChunks, tail, tailChunks } = family
  const whole = family.frame([...head, family.text("là"), ...tail])
  const wholeChunks: Chunks = [...headChunks, StreamChunk.textDelta("là"), ...tailChunks]
  const ok = reply(whole, family.contentType)

  describe(`${family.name}: bad input`, () => {
    it.live("the valid minimal answer (the baseline every case departs from)", () =>
      Effect.gen(function*() {
        const { chunks } = yield* run(family, ok)
        expect(chunks).toStrictEqual(wholeChunks)
      }).pipe(Effect.scoped))

    it.live("an invalid JSON event after some text: the text, then protocol quoting the event", () =>
      Effect.gen(function*() {
        const broken = { name: head[head.length - 1]!.name, data: "{\"x\":" }
        const body = family.frame([...head, broken, family.text("là"), ...tail])
        const { chunks } = yield* run(family, reply(body, family.contentType))
        expect(chunks).toStrictEqual([
          ...headChunks,
          StreamChunk.error({
            code: "protocol",
            message: "The stream sent an event that is not a JSON object: \"{\\\"x\\\":\"",
            retryable: false,
            provider: family.provider
          })
        ])
      }).pipe(Effect.scoped))

    it.live("a text delta that is a number adds no text; the answer goes on to its finish", () =>
      Effect.gen(function*() {
        const body = family.frame([...head, ...family.wrong.textNumber, ...tail])
        const { chunks } = yield* run(family, reply(body, family.contentType))
        expect(chunks).toStrictEqual([...headChunks, ...tailChunks])
      }).pipe(Effect.scoped))

    it.live("a usage whose token counts are strings: no NaN, no crash, the finish kept", () =>
      Effect.gen(function*() {
        const body = family.frame([...head, ...family.wrong.usageStrings])
        const { chunks } = yield* run(family, reply(body, family.contentType))
        expect(chunks).toStrictEqual([...headChunks, ...want.usageStrings])
      }).pipe(Effect.scoped))

    it.live("a tool call whose arguments is an array: one call, no crash", () =>
      Effect.gen(function*() {
        const body = family.frame([...head, ...family.wrong.toolArgsArray])
        const { chunks } = yield* run(family, reply(body, family.contentType))
        expect(chunks).toStrictEqual([...headChunks, ...want.toolArgsArray])
      }).pipe(Effect.scoped))

    it.live("an event over maxEventBytes (1,024): the text before it, then protocol", () =>
      Effect.gen(function*() {
        const body = family.frame([...head, family.text("x".repeat(2000)), ...tail])
        const { chunks } = yield* run(family, reply(body, family.contentType), capped)
        expect(chunks).toStrictEqual([
          ...headChunks,
          StreamChunk.error({
            code: "protocol",
            message: want.overCap,
            retryable: false,
            details: { limit: 1024 },
            provider: family.provider
          })
        ])
      }).pipe(Effect.scoped))

    it.live("an endless event (no line end, no frame end, ever): protocol at the cap, the connection closed", () =>
      Effect.gen(function*() {
        const prefix = family.frame(head)
        // A text event that never ends; for Bedrock a frame whose prelude announces 2 GiB.
        const endless = family.name === "Bedrock"
          ? new Uint8Array([0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0, ...new Uint8Array(65_528).fill(0x61)])
          : new TextEncoder().encode("x".repeat(65_536))
        const { chunks, server } = yield* run(family, (res) => {
          res.writeHead(200, { "content-type": family.contentType })
          res.write(family.name === "Bedrock" ? prefix : concat(prefix, new TextEncoder().encode("data: ")))
          endlessly(res, endless)
        }, capped)
        expect(chunks).toStrictEqual([
          ...headChunks,
          StreamChunk.error({
            code: "protocol",
            message: want.endless,
            retryable: false,
            details: { limit: 1024 },
            provider: family.provider
          })
        ])
        yield* Effect.sleep("50 millis")
        expect([server.open(), server.aborted()]).toStrictEqual([0, 1])
      }).pipe(Effect.scoped))

    it.live("binary garbage as the body, with the stream's content type: protocol, nothing else", () =>
      Effect.gen(function*() {
        const { chunks } = yield* run(family, reply(garbage(), family.contentType))
        expect(chunks.length).toBe(1)
        const error = errorOf(chunks)
        expect([error.code, error.message, error.retryable, error.provider]).toStrictEqual([
          "protocol",
          want.garbage,
          false,
          family.provider
        ])
      }).pipe(Effect.scoped))

    it.live("an HTML page with status 200: protocol, never an answer", () =>
      Effect.gen(function*() {
        const { chunks } = yield* run(family, reply(html200, "text/html; charset=utf-8"))
        expect(chunks).toStrictEqual([
          StreamChunk.error({
            code: "protocol",
            message: `Expected a stream (${family.contentType}), got an HTML page`,
            retryable: false,
            status: 200,
            provider: family.provider,
            details: html200
          })
        ])
      }).pipe(Effect.scoped))

    it.live("a valid stream labelled text/plain, or with no content type, is decoded as the stream it is", () =>
      Effect.gen(function*() {
        expect((yield* run(family, reply(whole, "text/plain"))).chunks).toStrictEqual(wholeChunks)
        expect((yield* run(family, reply(whole, ""))).chunks).toStrictEqual(wholeChunks)
      }).pipe(Effect.scoped))

    it.live("a JSON error document on a 200 labelled text/plain is that error", () =>
      Effect.gen(function*() {
        const { chunks } = yield* run(family, reply(JSON.stringify(errorDocument), "text/plain"))
        expect(chunks).toStrictEqual([want.jsonError])
      }).pipe(Effect.scoped))

    it.live("an empty 200 body: truncated", () =>
      Effect.gen(function*() {
        const { chunks } = yield* run(family, reply("", family.contentType))
        expect(chunks).toStrictEqual([StreamChunk.error(StreamChunk.truncatedError(family.provider))])
        expect(errorOf(chunks).message).toBe("The stream ended without the provider's end marker")
      }).pipe(Effect.scoped))

    for (const [status, code] of [[500, "server"], [502, "server"], [503, "overloaded"]] as const) {
      it.live(`a ${status} with an empty body: ${code}, retryable, not retried with times 0`, () =>
        Effect.gen(function*() {
          const { chunks, server } = yield* run(family, reply("", "", status))
          expect(chunks).toStrictEqual([
            StreamChunk.error({
              code,
              message: `The provider answered with HTTP ${status}`,
              retryable: true,
              status,
              provider: family.provider,
              details: ""
            })
          ])
          expect(server.requests.length).toBe(1)
        }).pipe(Effect.scoped))
    }

    it.live("a 503 with an empty body, then the answer: retried once (times 1), the answer once", () =>
      Effect.gen(function*() {
        const { chunks, server } = yield* run(
          family,
          (res, n) => (n === 0 ? reply("", "", 503)(res) : ok(res)),
          { retry: { times: 1, schedule: Schedule.spaced("10 millis") } }
        )
        expect(chunks).toStrictEqual(wholeChunks)
        expect(server.requests.length).toBe(2)
      }).pipe(Effect.scoped))

    it.live("a 401 with an HTML body: authentication, named by the status, the page only in details", () =>
      Effect.gen(function*() {
        const { chunks, server } = yield* run(family, reply(html401, "text/html", 401), {
          retry: { times: 2, schedule: Schedule.spaced("10 millis") }
        })
        expect(chunks).toStrictEqual([
          StreamChunk.error({
            code: "authentication",
            message: "The provider answered with HTTP 401 (an HTML page)",
            retryable: false,
            status: 401,
            provider: family.provider,
            details: html401
          })
        ])
        expect(server.requests.length).toBe(1)
      }).pipe(Effect.scoped))

    /** The answer's bytes up to the middle of the "é" of a text delta "café ok". */
    const cutInsideCharacter = (): Uint8Array => {
      const body = concat(family.frame(head), family.frame([family.text("café ok")]))
      const e = new TextEncoder().encode("é")
      for (let i = body.length - e.length; i >= 0; i--) {
        if (body[i] === e[0] && body[i + 1] === e[1]) return body.subarray(0, i + 1)
      }
      throw new Error("no é in the body")
    }

    it.live("a body that stops inside a multi-byte character: the text before kept exactly, no U+FFFD, one error", () =>
      Effect.gen(function*() {
        const { chunks } = yield* run(family, reply(cutInsideCharacter(), family.contentType))
        expect(chunks.slice(0, -1)).toStrictEqual(headChunks)
        const text = chunks.flatMap((c) => (c.type === "text-delta" ? [c.delta] : [])).join("")
        expect(text).toBe("Hé ")
        expect(text.includes("\uFFFD")).toBe(false)
        expect(["truncated", "protocol"]).toContain(errorOf(chunks).code)
      }).pipe(Effect.scoped))

    // The body ended before the provider's end marker, inside a character: `truncated` (DESIGN.md's
    // rule 3), for the text framings as for Bedrock's frames, and no U+FFFD in any text.
    it.live("a body that stops inside a multi-byte character ends truncated", () =>
      Effect.gen(function*() {
        const { chunks } = yield* run(family, reply(cutInsideCharacter(), family.contentType))
        expect(errorOf(chunks).code).toBe("truncated")
      }).pipe(Effect.scoped))
  })
}
