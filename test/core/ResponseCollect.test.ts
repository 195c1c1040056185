import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import * as fc from "fast-check"
import * as LlmError from "../../src/LlmError.js"
import * as Response from "../../src/Response.js"
import * as StreamChunk from "../../src/StreamChunk.js"
import * as Arb from "./arbitraries.js"

// Response.collect pulls the stream in the caller's fiber instead of running it into Response.sink;
// these pin down that it is the same thing.
describe("Response.collect", () => {
  it("property: over any chunk boundaries it agrees with fromChunks and with the sink", () => {
    fc.assert(
      fc.property(fc.array(Arb.chunk, { maxLength: 30 }), fc.integer({ min: 1, max: 8 }), (raw, size) => {
        const chunks = Arb.withConsistentAccumulation(raw)
        const stream = Stream.fromIterable(chunks).pipe(Stream.rechunk(size))
        const collected = Effect.runSync(Response.collect(stream))
        expect(collected).toStrictEqual(Response.fromChunks(chunks))
        expect(collected).toStrictEqual(Effect.runSync(Stream.run(stream, Response.sink)))
      }),
      { numRuns: 200 }
    )
  })

  it.effect("fails with the stream's error", () =>
    Effect.gen(function*() {
      const error = LlmError.make({ code: "network", message: "reset", provider: "p" })
      const exit = yield* Effect.exit(
        Response.collect(Stream.concat(Stream.make(StreamChunk.textDelta("a")), Stream.fail(error)))
      )
      expect(exit).toStrictEqual(Exit.fail(error))
    }))

  it.effect("has released the stream's resources when it returns", () =>
    Effect.gen(function*() {
      const released = yield* Ref.make(false)
      const stream = Stream.make(StreamChunk.textDelta("a"), StreamChunk.finish("stop")).pipe(
        Stream.ensuring(Ref.set(released, true))
      )
      const response = yield* Response.collect(stream)
      expect(response.text).toBe("a")
      expect(yield* Ref.get(released)).toBe(true)
    }))
})
