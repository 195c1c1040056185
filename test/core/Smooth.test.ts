/**
 * `Smooth.text`: text re-chunked by word or line, paced on the TestClock, nothing lost, held text
 * flushed before other chunks and before the terminal chunk.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as Smooth from "../../src/Smooth.js"
import * as StreamChunk from "../../src/StreamChunk.js"
import { settle } from "../support/clock.js"

const t = StreamChunk.textDelta
const run = (chunks: ReadonlyArray<StreamChunk.StreamChunk>, options?: Smooth.Options) =>
  Effect.map(Stream.runCollect(Stream.fromIterable(chunks).pipe(Smooth.text(options))), Chunk.toReadonlyArray)

const call = StreamChunk.toolCall({ index: 0, id: "c1", name: "f", arguments: {}, rawArguments: "{}" })

describe("Smooth.text", () => {
  it.effect("cuts text into words, keeping the spaces, and flushes the rest before the finish", () =>
    Effect.gen(function*() {
      const out = yield* run([t("Hello wor"), t("ld, how  are"), t(" you?"), StreamChunk.finish("stop")], {
        schedule: Schedule.forever
      })
      expect(out).toEqual([t("Hello "), t("world, "), t("how  "), t("are "), t("you?"), StreamChunk.finish("stop")])
    }))

  it.effect("by line", () =>
    Effect.gen(function*() {
      const out = yield* run([t("one\ntw"), t("o\n\nthree"), StreamChunk.finish("stop")], {
        chunking: "line",
        schedule: Schedule.forever
      })
      expect(out).toEqual([t("one\n"), t("two\n"), t("\n"), t("three"), StreamChunk.finish("stop")])
    }))

  it.effect("by a RegExp (sentences)", () =>
    Effect.gen(function*() {
      const out = yield* run([t("One. Two! Thr"), t("ee"), StreamChunk.finish("stop")], {
        chunking: /[.!?]\s+/,
        schedule: Schedule.forever
      })
      expect(out).toEqual([t("One. "), t("Two! "), t("Three"), StreamChunk.finish("stop")])
    }))

  it.effect("held text goes out before a tool call, in order; other chunks pass unchanged", () =>
    Effect.gen(function*() {
      const meta = StreamChunk.metadata("p", "m")
      const out = yield* run([meta, t("Let me check"), call, t("Done"), StreamChunk.finish("tool_calls")], {
        schedule: Schedule.forever
      })
      expect(out).toEqual([meta, t("Let "), t("me "), t("check"), call, t("Done"), StreamChunk.finish("tool_calls")])
    }))

  it.effect("nothing is lost: the pieces join to the text that came in, whatever the splits", () =>
    Effect.gen(function*() {
      const text = "  leading spaces, then words\nand lines\n\n  and a tail"
      for (let size = 1; size <= 7; size++) {
        const deltas: Array<StreamChunk.StreamChunk> = []
        for (let i = 0; i < text.length; i += size) deltas.push(t(text.slice(i, i + size)))
        for (const chunking of ["word", "line"] as const) {
          const out = yield* run([...deltas, StreamChunk.finish("stop")], { chunking, schedule: Schedule.forever })
          expect(out.map((c) => (c.type === "text-delta" ? c.delta : "")).join("")).toBe(text)
          expect(out.at(-1)).toEqual(StreamChunk.finish("stop"))
        }
      }
    }))

  it.effect("paces each piece on the schedule (TestClock)", () =>
    Effect.gen(function*() {
      const seen: Array<string> = []
      const fiber = yield* Effect.fork(
        Stream.fromIterable([t("a b c "), StreamChunk.finish("stop")]).pipe(
          Smooth.text({ schedule: Schedule.spaced("100 millis") }),
          Stream.runForEach((c) => Effect.sync(() => seen.push(c.type === "text-delta" ? c.delta : c.type)))
        )
      )
      yield* settle()
      expect(seen).toEqual([])
      yield* TestClock.adjust("100 millis")
      yield* settle()
      expect(seen).toEqual(["a "])
      yield* TestClock.adjust("100 millis")
      yield* settle()
      expect(seen).toEqual(["a ", "b "])
      yield* TestClock.adjust("100 millis")
      yield* Fiber.join(fiber)
      expect(seen).toEqual(["a ", "b ", "c ", "finish"])
    }))

  it.effect("when the schedule ends, the rest goes out unpaced", () =>
    Effect.gen(function*() {
      const out = yield* run([t("a b c d "), StreamChunk.finish("stop")], {
        schedule: Schedule.recurs(2)
      })
      expect(out).toEqual([t("a "), t("b "), t("c "), t("d "), StreamChunk.finish("stop")])
    }))

  it.effect("held text is emitted before a failure of the stream", () =>
    Effect.gen(function*() {
      const failing = Stream.concat(Stream.make(t("no boundary")), Stream.fail("boom"))
      const seen: Array<StreamChunk.StreamChunk> = []
      const error = yield* failing.pipe(
        Smooth.text({ schedule: Schedule.forever }),
        Stream.runForEach((c) => Effect.sync(() => seen.push(c))),
        Effect.flip
      )
      expect(error).toBe("boom")
      expect(seen).toEqual([t("no "), t("boundary")])
    }))
})
