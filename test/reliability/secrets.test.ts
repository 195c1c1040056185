/**
 * Secrets (issue 12): every error path of every family runs with a known fake key, the server
 * echoing it wherever a server or proxy might (error bodies, in-band errors, headers, a malformed
 * event, an HTML page); the key must appear in no chunk, no `LlmError` (as `chat` fails with it),
 * no log line (every level, captured from Effect's logger) and no span attribute.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Stream from "effect/Stream"
import type * as http from "node:http"
import * as LanguageModel from "../../src/LanguageModel.js"
import * as StreamChunk from "../../src/StreamChunk.js"
import * as Fixture from "../../src/testing/Fixture.js"
import { make } from "../support/hostile.js"
import { withSpans } from "../support/spans.js"
import { ev, type Extra, fakeKey, families, type Family, inBandError } from "./families.js"
import { writeResults } from "./results.js"

const encoder = new TextEncoder()
const secretPart = fakeKey.slice(-16)
const echo = JSON.stringify({
  error: { message: `Incorrect API key provided: ${fakeKey}`, type: "auth", code: fakeKey }
})

/** The error paths, each a handler: what the server does, echoing the key. */
const paths = (family: Family): ReadonlyArray<readonly [string, (res: http.ServerResponse) => void, Extra?]> => {
  const head = family.frame(family.head)
  const stream = (body: Uint8Array) => (res: http.ServerResponse) => {
    res.writeHead(200, { "content-type": family.contentType, "x-request-id": fakeKey })
    res.end(body)
  }
  const status = (code: number, body: string, type = "application/json") => (res: http.ServerResponse) => {
    res.writeHead(code, { "content-type": type, "x-request-id": `req-${fakeKey}`, "retry-after": fakeKey })
    res.end(body)
  }
  return [
    ["401 echoing the key", status(401, echo)],
    ["403 echoing the key", status(403, echo)],
    ["429 echoing the key", status(429, echo)],
    ["500 echoing the key", status(500, echo)],
    ["503 echoing the key", status(503, echo)],
    ["401 HTML page quoting the key", status(401, `<html><body>Bad key ${fakeKey}</body></html>`, "text/html")],
    ["200 HTML page quoting the key", status(200, `<html><body>Key ${fakeKey}</body></html>`, "text/html")],
    ["a JSON error document on a 200", status(200, echo, "text/plain")],
    ["an in-band error after output", stream(Fixture.concat([head, inBandError(family).body]))],
    ["an in-band error quoting the key", stream(family.frame([ev("error", echo)]))],
    [
      "a malformed event holding the key",
      stream(Fixture.concat([head, family.frame([ev("message", `{"k":"${fakeKey}`)])]))
    ],
    [
      "the key spliced into the body",
      stream(Fixture.concat([head.subarray(0, 20), encoder.encode(fakeKey), head.subarray(20)]))
    ],
    [
      "an event over the size cap holding the key",
      stream(family.frame([...family.head, family.text(fakeKey.repeat(40))])),
      {
        retry: { times: 0 },
        maxEventBytes: 1024
      }
    ],
    ["a body cut before the end", stream(head)],
    ["a connection dropped mid-body", (res) => {
      res.writeHead(200, { "content-type": family.contentType })
      res.write(head, () => res.socket?.destroy())
    }],
    ["an idle timeout", (res) => {
      res.writeHead(200, { "content-type": family.contentType })
      res.write(head)
    }, { retry: { times: 0 }, timeouts: { idle: "50 millis" } }]
  ]
}

let checked = 0

for (const family of families) {
  describe(`${family.name}: the key in no chunk, error, log line or span`, () => {
    for (const [name, handler, extra] of paths(family)) {
      it.live(name, () =>
        Effect.gen(function*() {
          const server = yield* make((_req, res) => handler(res))
          const logs: Array<string> = []
          const capture = Logger.make(({ annotations, cause, logLevel, message, spans }) => {
            logs.push(JSON.stringify({ level: logLevel.label, message, cause: String(cause), annotations, spans }))
          })
          const layer = family.layer(server.url, extra ?? { retry: { times: 0 } })
          const { result, spans } = yield* withSpans(
            Effect.all([
              LanguageModel.stream("hi").pipe(Stream.runCollect, Effect.map((c) => [...c])),
              Effect.flip(LanguageModel.chat("hi"))
            ])
          ).pipe(
            Effect.provide(layer),
            Effect.provide(FetchHttpClient.layer),
            Effect.provide(Logger.replace(Logger.defaultLogger, capture)),
            Logger.withMinimumLogLevel(LogLevel.All)
          )
          const [chunks, error] = result
          expect(chunks.filter(StreamChunk.isTerminal).length).toBe(1)
          expect(chunks[chunks.length - 1]!.type).toBe("error")
          const text = [
            JSON.stringify(chunks),
            JSON.stringify(error),
            String(error),
            error.message,
            JSON.stringify(error.details ?? null),
            ...logs,
            ...spans.map((s) => `${s.name} ${JSON.stringify([...s.attributes])}`)
          ].join("\n")
          expect(text).not.toContain(fakeKey)
          expect(text).not.toContain(secretPart)
          checked++
        }).pipe(Effect.scoped))
    }
  })
}

describe("secrets: the record", () => {
  it("every family ran every error path", () => {
    expect(checked).toBe(families.length * paths(families[0]!).length)
    writeResults("secrets", { families: families.length, paths: paths(families[0]!).map(([n]) => n), checked })
  })
})
