/**
 * The conformance suite every provider's tests run on their family's recordings and their own
 * transcripts: the rules of DESIGN.md that hold whatever the wire format.
 *
 * - the same chunks whatever the network reads (random splits, over `Replay`), and the same as the
 *   pure framer + decoder give the whole body;
 * - exactly one terminal chunk, last, and every chunk valid;
 * - a body cut at any byte offset (every offset of a small stream, a few hundred of a large one)
 *   gives the uncut run's chunks up to the cut, then one `truncated` / `protocol` error (or, for a cut
 *   past the end marker, the uncut run itself); a dropped connection ends in `network` the same way;
 * - retries only before content: a retryable failure before the first content chunk is retried and
 *   the answer appears once, a failure after it is never retried;
 * - random garbage (1 to 64 random bytes) injected at a random offset never throws and the run still
 *   ends in exactly one terminal chunk, every chunk valid;
 * - the configured key in no chunk, error or span, even when the server echoes it.
 *
 * A provider's test file calls {@link conformance} once with its layer, wire and decoder.
 */
import type { HttpClient } from "@effect/platform/HttpClient"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import type * as Tracer from "effect/Tracer"
import { describe, expect, it } from "vitest"
import type { ChunkDecoder } from "../../src/internal/ChunkDecoder.js"
import type * as Provider from "../../src/internal/kit/Provider.js"
import * as LanguageModel from "../../src/LanguageModel.js"
import type * as ProviderOptions from "../../src/ProviderOptions.js"
import * as StreamChunk from "../../src/StreamChunk.js"
import * as Fixture from "../../src/testing/Fixture.js"
import * as Replay from "../../src/testing/Replay.js"
import { describeRecorded, listRecorded, readRecorded } from "./recorded.js"
import { withSpans } from "./spans.js"

/** What a provider hands the suite. */
export interface Suite<Ev> {
  /** The provider name the layer reports (the pure decoder is given the same, so both runs compare). */
  readonly provider: string
  /** The layer under test, pointed at `baseUrl` with `apiKey`, with the suite's retry policy. */
  readonly layer: (options: {
    readonly apiKey: Redacted.Redacted<string>
    readonly baseUrl: string
    readonly retry: ProviderOptions.RetryOptions
  }) => Layer.Layer<LanguageModel.LanguageModel, never, HttpClient>
  /** The provider's framing (as given to `Provider.make`). */
  readonly wire: Provider.Wire<Ev>
  /** The provider's decoder (as given to `Provider.make`). */
  readonly decoder: (provider: string) => ChunkDecoder<Ev>
  /** The family's recordings (`../shared/fixtures/recorded/<family>`) and how a line list becomes wire text. */
  readonly recorded?: {
    readonly family: string
    readonly frame: (lines: ReadonlyArray<string>) => string | Uint8Array
  }
  /** The provider's own transcripts, already wire text or bytes: `[name, body]`. */
  readonly transcripts: ReadonlyArray<readonly [name: string, body: string | Uint8Array]>
  /**
   * The usage may come after the end marker (Bedrock's `metadata` after `messageStop`), and a body
   * that ends between them still finishes: a cut there gives the uncut run without its trailing
   * `usage` / `cache-*` chunks, ending in the same `finish`.
   */
  readonly usageAfterEnd?: boolean
}

type Chunks = ReadonlyArray<StreamChunk.StreamChunk>

/** Streams of at most this many bytes are cut at every offset; longer ones at {@link sampledCuts} offsets. */
const allCutsUpTo = 16 * 1024
const sampledCuts = 300
/** Garbage injections (random bytes at a random offset) per stream. */
const garbageRuns = 8
/** Cuts also replayed over HTTP (clean end and dropped connection), per stream. */
const httpCuts = 6

const key = "sk-conformance-0123456789abcdef"
const apiKey = Redacted.make(key)
const baseUrl = "http://conformance.invalid/v1"
/** No backoff: the retry rules are checked, not the waits (those have their own TestClock tests). */
const retry: ProviderOptions.RetryOptions = { times: 2, schedule: Schedule.forever }
const noRetry: ProviderOptions.RetryOptions = { times: 0 }

const encoder = new TextEncoder()
const bytesOf = (body: string | Uint8Array): Uint8Array => typeof body === "string" ? encoder.encode(body) : body

/** Runs the layer against replies; its chunks and the number of requests it made. */
const run = <Ev>(suite: Suite<Ev>, replies: Replay.Replies, retryOptions = noRetry) =>
  Effect.gen(function*() {
    const chunks = yield* LanguageModel.stream("hi").pipe(Stream.runCollect)
    const requests = yield* Replay.requests
    return { chunks: [...chunks], requests: requests.length }
  }).pipe(
    Effect.provide(suite.layer({ apiKey, baseUrl, retry: retryOptions })),
    Effect.provide(Replay.layer(replies)),
    Effect.runPromise
  )

/**
 * The pure path, as the transport drives it: frame the first `cut` bytes in one read, decode, end.
 * No terminal chunk is added here (`ensureTerminal` would add `truncated`; the caller accounts for it).
 */
const decodePure = <Ev>(suite: Suite<Ev>, bytes: Uint8Array, cut = bytes.length): Array<StreamChunk.StreamChunk> => {
  const framer = suite.wire.framer(undefined, undefined)
  const decoder = suite.decoder(suite.provider)
  const out: Array<StreamChunk.StreamChunk> = []
  const feed = (events: ReadonlyArray<Ev>): boolean => {
    for (const event of events) decoder.push(event, out)
    if (framer.error === undefined) return true
    out.push(StreamChunk.error({ ...framer.error, provider: suite.provider }))
    return false
  }
  if (feed(framer.push(bytes.subarray(0, cut))) && feed(framer.end())) decoder.end(out)
  return out
}

/** The shortest prefix whose chunks hold content (prefixes only grow their output, so a binary search finds it). */
const firstContentAt = <Ev>(suite: Suite<Ev>, bytes: Uint8Array): number => {
  let lo = 0
  let hi = bytes.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (decodePure(suite, bytes, mid).some(StreamChunk.isContent)) hi = mid
    else lo = mid + 1
  }
  return lo
}

const terminalCount = (chunks: Chunks): number => chunks.filter(StreamChunk.isTerminal).length

/** Every chunk valid; exactly one terminal chunk, the last. */
const expectWellFormed = (chunks: Chunks): void => {
  for (const chunk of chunks) expect(StreamChunk.validate(chunk)._tag).toBe("Right")
  expect(terminalCount(chunks)).toBe(1)
  expect(StreamChunk.isTerminal(chunks[chunks.length - 1]!)).toBe(true)
}

const endings: ReadonlySet<string> = new Set(["truncated", "protocol", "network"])

/**
 * Why a cut run breaks the rule, or undefined: it must be the uncut run's chunks up to some point,
 * then one `truncated` / `protocol` / `network` error (none yet, on the pure path, stands for the
 * `truncated` that `ensureTerminal` adds) — or the uncut run itself, when the cut lost nothing.
 */
const cutProblem = (
  full: ReadonlyArray<string>,
  cut: Chunks,
  pure: boolean,
  usageAfterEnd = false
): string | undefined => {
  const last = cut[cut.length - 1]
  const ended = last !== undefined && StreamChunk.isTerminal(last)
  const body = ended ? cut.length - 1 : cut.length
  if (terminalCount(cut) > (ended ? 1 : 0)) return "more than one terminal chunk, or one before the end"
  if (!ended && !pure) return "no terminal chunk"
  if (body > full.length) return "more chunks than the uncut run"
  for (let i = 0; i < body; i++) {
    const got = JSON.stringify(cut[i])
    if (got !== full[i] && !(i === 0 && knewLess(cut[0]!, full[0]))) {
      return `chunk ${i} differs from the uncut run's: ${got.slice(0, 300)}`
    }
  }
  if (!ended) return undefined
  const end = JSON.stringify(last)
  if (body === full.length - 1 && end === full[body]) return undefined // the whole run: the cut lost nothing
  if (
    usageAfterEnd && last.type === "finish" && end === full[full.length - 1] &&
    full.slice(body, -1).every((c) => /^\{"type":"(usage|cache-read|cache-write)"/.test(c))
  ) return undefined // the end marker came, its trailing usage did not
  if (last.type === "error" && endings.has(last.error.code)) return undefined
  return `ends in ${end.slice(0, 300)}, not truncated / protocol / network`
}

/**
 * Whether a cut run's `metadata` is the uncut run's with less known: a failure before the event that
 * names the model still puts a `metadata` chunk first, naming only the provider.
 */
const knewLess = (cut: StreamChunk.StreamChunk, full: string | undefined): boolean => {
  if (cut.type !== "metadata" || full === undefined) return false
  const whole = JSON.parse(full) as StreamChunk.StreamChunk
  return whole.type === "metadata" && whole.provider === cut.provider &&
    (cut.model === undefined || cut.model === whole.model) &&
    (cut.responseId === undefined || cut.responseId === whole.responseId)
}

/** The byte offsets to cut a body at: all of a small one; for a large one both ends, and a seeded sample. */
const cutOffsets = (length: number): Array<number> => {
  if (length <= allCutsUpTo) return Array.from({ length }, (_, i) => i)
  const next = Fixture.prng(length)
  const offsets = new Set<number>([0, 1, 2, length - 2, length - 1])
  while (offsets.size < sampledCuts) offsets.add(Math.floor(next() * length))
  return [...offsets].sort((a, b) => a - b)
}

/** Everything a span recorded, as text: its name, attributes and events. */
const spanText = (spans: ReadonlyArray<Tracer.Span>): string =>
  spans.map((s) => `${s.name} ${JSON.stringify([...s.attributes])}`).join("\n")

/** The key must appear nowhere, nor any 8-character piece of its secret part. */
const expectNoKey = (text: string): void => {
  expect(text).not.toContain(key)
  expect(text).not.toContain(key.slice(-16))
}

/** One stream's checks. */
const streamTests = <Ev>(suite: Suite<Ev>, name: string, body: () => Uint8Array): void => {
  it(`${name}: one terminal chunk, valid chunks; any split gives the chunks of the whole body`, async () => {
    const bytes = body()
    const { chunks: whole } = await run(suite, { body: bytes })
    expectWellFormed(whole)
    // The pure decoder's chunks with the guarantees every LanguageModel adds (the ending, call ids).
    const pure = decodePure(suite, bytes)
    const guaranteed = Effect.runSync(
      Stream.runCollect(StreamChunk.ensureTerminal(Stream.fromIterable(pure), { provider: suite.provider }))
    )
    expect(whole).toStrictEqual([...guaranteed])
    expect(whole.length - pure.length).toBe(terminalCount(pure) === 1 ? 0 : 1) // only ensureTerminal's ending added
    for (const [seed, maxRead] of [[1, 1], [2, 7], [3, 64], [4, 512], [5, 4096]] as const) {
      // A read per byte costs an Effect per byte: keep that one for streams of a few KiB.
      if (maxRead === 1 && bytes.length > 8 * 1024) continue
      expect((await run(suite, { body: bytes, split: { seed, maxRead } })).chunks).toStrictEqual(whole)
    }
  })

  it(`${name}: a cut at any byte offset gives the uncut chunks up to it, then one truncated / protocol / network error`, async () => {
    const bytes = body()
    const full = decodePure(suite, bytes).map((c) => JSON.stringify(c))
    const offsets = cutOffsets(bytes.length)
    for (const at of offsets) {
      const problem = cutProblem(full, decodePure(suite, bytes, at), true, suite.usageAfterEnd)
      if (problem !== undefined) expect.fail(`cut at byte ${at} of ${bytes.length}: ${problem}`)
    }
    // The same over HTTP: the body ends early, or the connection drops.
    const { chunks: whole } = await run(suite, { body: bytes })
    const wholeText = whole.map((c) => JSON.stringify(c))
    const next = Fixture.prng(bytes.length + 1)
    for (let i = 0; i < httpCuts; i++) {
      const at = Math.floor(next() * bytes.length)
      const reply = { body: bytes.subarray(0, at), split: { seed: i, maxRead: 256 }, drop: i % 2 === 1 }
      const problem = cutProblem(wholeText, (await run(suite, reply)).chunks, false, suite.usageAfterEnd)
      if (problem !== undefined) expect.fail(`HTTP cut at byte ${at}${reply.drop ? " (dropped)" : ""}: ${problem}`)
    }
  })

  it(`${name}: a retryable failure before the first content chunk is retried; after it, never`, async () => {
    const bytes = body()
    const { chunks: whole } = await run(suite, { body: bytes })
    const overloaded = { status: 503, headers: { "content-type": "application/json" }, body: "{\"error\":\"busy\"}" }
    const afterError = await run(suite, [overloaded, { body: bytes }], retry)
    expect([afterError.chunks, afterError.requests]).toStrictEqual([whole, 2])
    if (!whole.some(StreamChunk.isContent)) return
    const firstContent = firstContentAt(suite, bytes)
    // A drop before any content: retried, and the answer appears once.
    if (firstContent > 1) {
      const early = await run(
        suite,
        [{ body: bytes.subarray(0, firstContent - 1), drop: true }, { body: bytes }],
        retry
      )
      expect([early.chunks, early.requests]).toStrictEqual([whole, 2])
    }
    // A drop after content: the output so far, then one network error (unless the stream had already
    // ended); never a second request.
    const at = firstContent + Math.floor((bytes.length - firstContent) / 2)
    const late = await run(suite, [{ body: bytes.subarray(0, at), drop: true }, { body: bytes }], retry)
    expect(late.requests).toBe(1)
    expect(cutProblem(whole.map((c) => JSON.stringify(c)), late.chunks, false, suite.usageAfterEnd)).toBeUndefined()
    if (late.chunks.length !== whole.length) {
      expect(late.chunks[late.chunks.length - 1]).toMatchObject({ type: "error", error: { code: "network" } })
    }
  })

  it(`${name}: random garbage injected anywhere never throws and ends in exactly one terminal chunk`, async () => {
    const bytes = body()
    const next = Fixture.prng(bytes.length + 3)
    for (let i = 0; i < garbageRuns; i++) {
      const at = Math.floor(next() * (bytes.length + 1))
      const garbage = Uint8Array.from({ length: 1 + Math.floor(next() * 64) }, () => Math.floor(next() * 256))
      const spliced = Fixture.concat([bytes.subarray(0, at), garbage, bytes.subarray(at)])
      // The pure framer and decoder do not throw (a throw fails the test here).
      decodePure(suite, spliced)
      const { chunks } = await run(suite, { body: spliced, split: { seed: i, maxRead: 97 } })
      expectWellFormed(chunks)
    }
  })

  it(`${name}: the key in no chunk, error or span, when the server echoes it anywhere`, async () => {
    const bytes = body()
    const echo = encoder.encode(key)
    const next = Fixture.prng(bytes.length + 2)
    // The key spliced into the body anywhere: in a text, a field name, a frame's syntax.
    const spliced = [0, 1, 2, 3].map(() => {
      const at = Math.floor(next() * bytes.length)
      return Fixture.concat([bytes.subarray(0, at), echo, bytes.subarray(at)])
    })
    for (const b of [bytes, ...spliced]) {
      const { result, spans } = await withSpans(
        LanguageModel.stream("hi").pipe(Stream.runCollect, Effect.map((c) => [...c]))
      ).pipe(
        Effect.provide(suite.layer({ apiKey, baseUrl, retry: noRetry })),
        Effect.provide(
          Replay.layer({ body: b, headers: { "content-type": "text/event-stream", "x-request-id": key } })
        ),
        Effect.runPromise
      )
      expectWellFormed(result)
      expectNoKey(JSON.stringify(result) + spanText(spans))
    }
  })
}

/**
 * Declares the conformance suite for a provider: its own transcripts always, its family's recordings
 * where `../shared/fixtures` is present (skipped with a notice elsewhere).
 */
export const conformance = <Ev>(suite: Suite<Ev>): void => {
  describe(`${suite.provider} conformance: own transcripts`, () => {
    for (const [name, body] of suite.transcripts) streamTests(suite, name, () => bytesOf(body))

    it("an HTTP error that echoes the key: masked in the error chunk and the span", async () => {
      const { result, spans } = await withSpans(
        LanguageModel.stream("hi").pipe(Stream.runCollect, Effect.map((c) => [...c]))
      ).pipe(
        Effect.provide(suite.layer({ apiKey, baseUrl, retry: noRetry })),
        Effect.provide(Replay.layer({
          status: 401,
          headers: { "content-type": "application/json", "x-request-id": `req-${key}` },
          body: JSON.stringify({ error: { message: `Incorrect API key provided: ${key}`, type: "auth", code: key } })
        })),
        Effect.runPromise
      )
      expectWellFormed(result)
      expect(result[result.length - 1]).toMatchObject({ type: "error", error: { code: "authentication", status: 401 } })
      expectNoKey(JSON.stringify(result) + spanText(spans))
    })
  })

  const recorded = suite.recorded
  if (recorded === undefined) return
  describeRecorded(recorded.family, () => {
    for (const file of listRecorded(recorded.family)) {
      streamTests(suite, file, () => bytesOf(recorded.frame(readRecorded(recorded.family, file))))
    }
  })
}
