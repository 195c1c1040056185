/**
 * A toy line protocol over the real transport, so transport tests exercise only the transport:
 * "m" metadata, "t:<text>" text, "u:<n>" usage, "e:<code>" an in-band error, "f:<reason>" finish;
 * blank lines decode to nothing (a keep-alive).
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type * as ChunkDecoder from "../../src/internal/ChunkDecoder.js"
import * as Http from "../../src/internal/transport/Http.js"
import type * as Retry from "../../src/internal/transport/Retry.js"
import * as Transport from "../../src/internal/transport/Transport.js"
import * as LanguageModel from "../../src/LanguageModel.js"
import * as LlmError from "../../src/LlmError.js"
import * as Response from "../../src/Response.js"
import * as StreamChunk from "../../src/StreamChunk.js"

/** Splits the body into lines (no size cap: the real framers have their own tests). */
export const lineFramer = (): Transport.Framer<string> => {
  const decoder = new TextDecoder()
  let buffer = ""
  return {
    push: (bytes) => {
      buffer += decoder.decode(bytes, { stream: true })
      const lines = buffer.split("\n")
      buffer = lines.pop() ?? ""
      return lines.filter((l) => l !== "")
    },
    end: () => (buffer === "" ? [] : [buffer]),
    error: undefined
  }
}

/** Decodes the toy lines. */
export const lineDecoder = (): ChunkDecoder.ChunkDecoder<string> => ({
  push: (line, out) => {
    const [kind, value = ""] = line.split(":")
    if (kind === "m") out.push(StreamChunk.metadata("toy", "toy-1"))
    if (kind === "t") out.push(StreamChunk.textDelta(value))
    if (kind === "u") {
      out.push(StreamChunk.usage({ inputTokens: Number(value), outputTokens: 1, totalTokens: Number(value) + 1 }))
    }
    if (kind === "e") {
      out.push(
        StreamChunk.error(
          LlmError.info({ code: value as LlmError.ErrorCode, message: `in-band ${value}`, provider: "toy" })
        )
      )
    }
    if (kind === "f") out.push(StreamChunk.finishFromRaw(value))
  },
  end: () => {}
})

/** A toy model over the `HttpClient` in the context (pair it with `Replay.layer`). */
export const toy = (options?: {
  readonly retry?: Retry.Options
  readonly timeouts?: Transport.TimeoutOptions
  readonly framer?: () => Transport.Framer<string>
}) =>
  Effect.map(Http.Client, (client) =>
    LanguageModel.make({
      provider: "toy",
      model: "toy-1",
      stream: () =>
        Transport.streamWith<string>(client, {
          provider: "toy",
          url: "http://toy.invalid/v1/stream",
          headers: { authorization: "Bearer not-a-real-key" },
          body: { hello: "world" },
          framer: options?.framer ?? lineFramer,
          decoder: lineDecoder,
          errorFromResponse: (status, body, extras) =>
            LlmError.info({
              code: status === 429 ? "rate_limit" : "server",
              message: body,
              provider: "toy",
              ...extras
            }),
          retry: options?.retry,
          timeouts: options?.timeouts
        })
    }))

/** Every chunk of one toy response. */
export const collect = (model: Effect.Effect<LanguageModel.Service, never, Http.Client>) =>
  Effect.flatMap(model, (m) => Stream.runCollect(m.stream("hi"))).pipe(Effect.map((c) => [...c]))

/** One toy response, reassembled. */
export const collectResponse = (model: Effect.Effect<LanguageModel.Service, never, Http.Client>) =>
  Effect.flatMap(model, (m) => Response.collect(m.stream("hi")))
