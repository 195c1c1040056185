import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Scope from "effect/Scope"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as Lite from "../../src/internal/scope.js"

const run = <A, E>(effect: Effect.Effect<A, E>): Promise<A> => Effect.runPromise(effect)

/** A finalizer of a generated case: plain or an Effect, ending well or not. */
type Kind = "plain" | "plain-throws" | "effect" | "effect-dies" | "async"

/** What a scope's close did: the finalizers in the order they ran, each with the exit it was given, and the close's exit. */
interface Outcome {
  readonly ran: ReadonlyArray<string>
  readonly defects: ReadonlyArray<unknown>
  readonly failed: boolean
}

const closeExit = Exit.fail("the stream failed")

/** Adds the finalizers of `kinds` to a scope with `add`, closes it with `close`, and says what happened. */
const outcome = async (
  kinds: ReadonlyArray<Kind>,
  add: (f: Lite.Finalizer, kind: Kind) => Effect.Effect<void>,
  close: Effect.Effect<void>
): Promise<Outcome> => {
  const ran: Array<string> = []
  const seen = (i: number, exit: Exit.Exit<unknown, unknown>) =>
    ran.push(`${i}:${Exit.isFailure(exit) ? Cause.squash(exit.cause) : "ok"}`)
  for (let i = 0; i < kinds.length; i++) {
    const kind = kinds[i]!
    const f: Lite.Finalizer = (exit) => {
      switch (kind) {
        case "plain":
          seen(i, exit)
          return undefined
        case "plain-throws":
          seen(i, exit)
          throw new Error(`thrown ${i}`)
        case "effect":
          return Effect.sync(() => void seen(i, exit))
        case "effect-dies":
          return Effect.zipRight(Effect.sync(() => void seen(i, exit)), Effect.die(`died ${i}`))
        case "async":
          return Effect.async<void>((resume) => {
            setTimeout(() => {
              seen(i, exit)
              resume(Effect.void)
            }, 1)
          })
      }
    }
    await run(add(f, kind))
  }
  const exit = await Effect.runPromiseExit(close)
  const defects = Exit.isFailure(exit)
    ? Chunk.toReadonlyArray(Cause.defects(exit.cause)).map((d) => (d instanceof Error ? d.message : d))
    : []
  return { ran, defects, failed: Exit.isFailure(exit) }
}

/** The same finalizer on Effect's own scope: a plain one as `Effect.sync` (a throw is its defect). */
const asEffect = (f: Lite.Finalizer): Scope.Scope.Finalizer => (exit) =>
  Effect.suspend(() => {
    const next = f(exit)
    return next === undefined ? Effect.void : next
  })

describe("Lite scope", () => {
  it("closes as Effect's own scope does, for any mix of plain, failing and asynchronous finalizers", async () => {
    const kinds = fc.array(fc.constantFrom<Kind>("plain", "plain-throws", "effect", "effect-dies", "async"), {
      maxLength: 8
    })
    await fc.assert(
      fc.asyncProperty(kinds, async (ks) => {
        const ours = Lite.make()
        const got = await outcome(ks, (f) => Effect.sync(() => void ours.add(f)), ours.close(closeExit))
        const theirs = Effect.runSync(Scope.make())
        const want = await outcome(
          ks,
          (f) => Scope.addFinalizerExit(theirs, asEffect(f)),
          Scope.close(theirs, closeExit)
        )
        expect(got).toStrictEqual(want)
      }),
      { numRuns: 150 }
    )
  })

  it("runs last added first, each with the close's exit, and fails with the throws in the order they ran", async () => {
    const scope = Lite.make()
    const got = await outcome(
      ["plain", "plain-throws", "effect", "effect-dies", "async", "plain-throws"],
      (f) => Effect.sync(() => void scope.add(f)),
      scope.close(closeExit)
    )
    expect(got).toStrictEqual({
      ran: [
        "5:the stream failed",
        "4:the stream failed",
        "3:the stream failed",
        "2:the stream failed",
        "1:the stream failed",
        "0:the stream failed"
      ],
      defects: ["thrown 5", "died 3", "thrown 1"],
      failed: true
    })
  })

  it("runs plain finalizers within the close itself, with nothing to wait for", () => {
    const scope = Lite.make()
    const ran: Array<number> = []
    scope.add(() => void ran.push(1))
    scope.add(() => void ran.push(2))
    expect(scope.closeNow(Exit.void)).toBeUndefined()
    expect(ran).toStrictEqual([2, 1])
  })

  it("closes once: a second close runs nothing", async () => {
    const scope = Lite.make()
    let runs = 0
    scope.add(() => void runs++)
    await run(scope.close(Exit.void))
    await run(Scope.close(scope, Exit.void))
    expect(runs).toBe(1)
    expect(scope.closeNow(Exit.void)).toBeUndefined()
    expect(runs).toBe(1)
  })

  it("runs a finalizer added after the close at once, with the close's exit", async () => {
    const scope = Lite.make()
    await run(scope.close(closeExit))
    const got: Array<string> = []
    // Plain: run by `add` itself.
    expect(scope.add((exit) => void got.push(`plain ${Exit.isFailure(exit)}`))).toBeUndefined()
    // An Effect: given back to run.
    const later = scope.add((exit) => Effect.sync(() => void got.push(`effect ${Exit.isFailure(exit)}`)))
    expect(got).toStrictEqual(["plain true"])
    await run(later!)
    // Through `addThen` and Effect's `Scope.addFinalizer`.
    await run(Lite.addThen(scope, () => Effect.sync(() => void got.push("addThen")), Effect.void))
    await run(Scope.addFinalizer(scope, Effect.sync(() => void got.push("Scope.addFinalizer"))))
    expect(got).toStrictEqual(["plain true", "effect true", "addThen", "Scope.addFinalizer"])
  })

  it("closes a child with its parent, in its place among the parent's finalizers", async () => {
    const parent = Lite.make()
    const ran: Array<string> = []
    parent.add(() => void ran.push("parent first"))
    const child = parent.child()
    child.add(() => void ran.push("child"))
    child.add(() => Effect.sync(() => void ran.push("child effect")))
    parent.add(() => void ran.push("parent last"))
    await run(parent.close(Exit.void))
    expect(ran).toStrictEqual(["parent last", "child effect", "child", "parent first"])
    expect(child.state._tag).toBe("Closed")
  })

  it("lets go of a child closed first: the parent's close does not close it again", async () => {
    const parent = Lite.make()
    const child = parent.child()
    let runs = 0
    child.add(() => void runs++)
    await run(child.close(Exit.void))
    expect(parent.state._tag === "Open" && parent.state.finalizers.size).toBe(0)
    await run(parent.close(Exit.void))
    expect(runs).toBe(1)
  })

  it("makes the child of a closed scope closed, running what is added to it at once", () => {
    const parent = Lite.make()
    parent.closeNow(Exit.void)
    const child = parent.child()
    let runs = 0
    child.add(() => void runs++)
    expect(runs).toBe(1)
  })

  it("works with Effect.forkIn: the fiber is interrupted on close, and lets go of the scope when it ends first", async () => {
    const scope = Lite.make()
    const done = await run(Effect.forkIn(Effect.void, scope).pipe(Effect.flatMap(Fiber.await)))
    expect(Exit.isSuccess(done)).toBe(true)
    expect(scope.state._tag === "Open" && scope.state.finalizers.size).toBe(0)
    const fiber = await run(Effect.forkIn(Effect.never, scope))
    await run(scope.close(Exit.void))
    const exit = await run(Fiber.await(fiber))
    expect(Exit.isInterrupted(exit)).toBe(true)
  })

  it("forks one of Effect's own scopes, closed with it or let go of when closed first", async () => {
    const scope = Lite.make()
    const ran: Array<string> = []
    const first = await run(Scope.fork(scope, ExecutionStrategy.parallel))
    await run(Scope.addFinalizer(first, Effect.sync(() => void ran.push("first"))))
    const second = await run(Scope.fork(scope, ExecutionStrategy.sequential))
    await run(Scope.addFinalizer(second, Effect.sync(() => void ran.push("second"))))
    await run(Scope.close(second, Exit.void))
    await run(scope.close(Exit.void))
    expect(ran).toStrictEqual(["second", "first"])
  })

  it("waits for an asynchronous finalizer before the ones added before it", async () => {
    const scope = Lite.make()
    const ran: Array<string> = []
    const gate = Effect.runSync(Deferred.make<void>())
    scope.add(() => void ran.push("before"))
    scope.add(() => Effect.zipRight(Deferred.await(gate), Effect.sync(() => void ran.push("waited"))))
    const closing = Effect.runFork(scope.close(Exit.void))
    await new Promise((resolve) => setTimeout(resolve, 5))
    expect(ran).toStrictEqual([])
    await run(Deferred.succeed(gate, undefined))
    await run(Fiber.join(closing))
    expect(ran).toStrictEqual(["waited", "before"])
  })
})
