import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"

/** Waits (in real time, without moving the test clock) until some fiber sleeps until `atMs`. */
export const awaitSleepUntil = (atMs: number): Effect.Effect<void> =>
  Effect.gen(function*() {
    for (let i = 0; i < 2_000; i++) {
      const sleeps = yield* TestClock.sleeps()
      if (Chunk.some(sleeps, (t) => t === atMs)) return
      yield* Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))
    }
    return yield* Effect.dieMessage(`no fiber ever slept until ${atMs} ms`)
  })

/** Lets forked fibers and pending I/O callbacks run, without moving the test clock. */
export const settle = (rounds = 20): Effect.Effect<void> =>
  Effect.gen(function*() {
    for (let i = 0; i < rounds; i++) {
      yield* Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))
    }
  })
