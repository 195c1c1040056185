/**
 * The scopes our streams open in: a `Scope.CloseableScope` whose finalizers may be plain functions,
 * added and run without an Effect step each.
 *
 * Effect's own scope adds every finalizer with an Effect, and closes by running each one through
 * `forEach` and collecting their exits (about five Effect steps and an array or two per finalizer,
 * and six per scope). A stream's scopes hold a handful of finalizers that are nearly all plain work
 * (clearing a timer, cancelling a body, interrupting a fiber that has usually ended), and each
 * request closes two of them: their close was the larger part of a request's last Effect steps and
 * of what the open streams' cut allocated. Here a finalizer gives back an Effect only when it has
 * something to wait for, and the close runs the others in one go.
 *
 * The semantics are Effect's: finalizers run once, last added first, each given the scope's exit;
 * every one runs even when one before it failed or threw, and the close fails with their failures
 * (in the order they ran) as one sequential cause; a finalizer added to a closed scope runs at once.
 * It stays usable wherever Effect takes a scope: `Scope.addFinalizer`, `Scope.close`,
 * `Effect.forkIn` (which reads the open scope's finalizer map directly) and `Scope.fork` (which gives
 * one of Effect's own scopes, closed with this one).
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import type * as Exit from "effect/Exit"
import { type Pipeable, pipeArguments } from "effect/Pipeable"
import * as Scope from "effect/Scope"

/**
 * Run when the scope closes, with its exit: nothing to wait for (`undefined`), or the Effect to
 * wait for. A throw is the close's defect.
 */
export type Finalizer = (exit: Exit.Exit<unknown, unknown>) => Effect.Effect<void> | undefined | void

/** The scope's state, shaped as Effect's own (`Effect.forkIn` reads and writes `finalizers` of an open scope). */
type State =
  | { readonly _tag: "Open"; readonly finalizers: Map<object, Finalizer> }
  | { readonly _tag: "Closed"; readonly exit: Exit.Exit<unknown, unknown> }

const both = (a: Cause.Cause<never> | undefined, b: Cause.Cause<never>): Cause.Cause<never> =>
  a === undefined ? b : Cause.sequential(a, b)

/**
 * Runs `fins[i]`, then the ones before it, with `exit`: plain ones at once, an Effect one waited for.
 * Gives `undefined` when all were plain and none failed, else the Effect that runs the rest.
 */
const runFrom = (
  fins: ReadonlyArray<Finalizer>,
  i: number,
  exit: Exit.Exit<unknown, unknown>,
  failed: Cause.Cause<never> | undefined
): Effect.Effect<void> | undefined => {
  for (; i >= 0; i--) {
    let next: Effect.Effect<void> | undefined | void
    try {
      next = fins[i]!(exit)
    } catch (defect) {
      failed = both(failed, Cause.die(defect))
      continue
    }
    if (next !== undefined) {
      const at = i - 1
      const so = failed
      return Effect.matchCauseEffect(next, {
        onFailure: (cause) => runFrom(fins, at, exit, both(so, cause)) ?? Effect.void,
        onSuccess: () => runFrom(fins, at, exit, so) ?? Effect.void
      })
    }
  }
  return failed === undefined ? undefined : Effect.failCause(failed)
}

/**
 * A scope of ours (see the module's comment). Make one with {@link make}, a child with
 * {@link Lite.child}.
 */
export class Lite implements Scope.CloseableScope {
  readonly [Scope.ScopeTypeId]: Scope.ScopeTypeId = Scope.ScopeTypeId
  readonly [Scope.CloseableScopeTypeId]: Scope.CloseableScopeTypeId = Scope.CloseableScopeTypeId
  readonly strategy: ExecutionStrategy.ExecutionStrategy = ExecutionStrategy.sequential
  state: State = { _tag: "Open", finalizers: new Map() }
  /** The scope this one is a child of, and its key there: let go of when this one closes first. */
  private parent: Lite | undefined = undefined
  private key: object | undefined = undefined

  declare readonly pipe: Pipeable["pipe"]

  /**
   * Adds `f`, run when the scope closes. On a scope already closed, `f` runs now and what it gives
   * back (an Effect to wait for, or `undefined`) is returned; otherwise `undefined`.
   */
  add(f: Finalizer): Effect.Effect<void> | undefined {
    if (this.state._tag === "Open") {
      this.state.finalizers.set({}, f)
      return undefined
    }
    const exit = this.state.exit
    return runFrom([f], 0, exit, undefined)
  }

  /** A child scope, closed when this one closes (if it has not closed first), made without an Effect step. */
  child(): Lite {
    const child = new Lite()
    if (this.state._tag === "Closed") {
      child.state = this.state
      return child
    }
    const key = {}
    child.parent = this
    child.key = key
    this.state.finalizers.set(key, (exit) => child.closeNow(exit))
    return child
  }

  /** Closes the scope: `undefined` when every finalizer was plain and none failed, else the Effect running the rest. */
  closeNow(exit: Exit.Exit<unknown, unknown>): Effect.Effect<void> | undefined {
    if (this.state._tag === "Closed") return undefined
    const fins = Array.from(this.state.finalizers.values())
    this.state = { _tag: "Closed", exit }
    const parent = this.parent
    if (parent !== undefined) {
      if (parent.state._tag === "Open") parent.state.finalizers.delete(this.key!)
      this.parent = undefined
      this.key = undefined
    }
    return runFrom(fins, fins.length - 1, exit, undefined)
  }

  /** Effect's `Scope.close`. */
  close(exit: Exit.Exit<unknown, unknown>): Effect.Effect<void> {
    return Effect.suspend(() => this.closeNow(exit) ?? Effect.void)
  }

  /** Effect's `Scope.addFinalizer`. */
  addFinalizer(f: Scope.Scope.Finalizer): Effect.Effect<void> {
    return Effect.suspend(() => this.add(f) ?? Effect.void)
  }

  /** Effect's `Scope.fork`: one of Effect's own scopes (any strategy), closed with this one. */
  fork(strategy: ExecutionStrategy.ExecutionStrategy): Effect.Effect<Scope.CloseableScope> {
    return Effect.flatMap(Scope.make(strategy), (child) => {
      if (this.state._tag === "Closed") return Effect.as(Scope.close(child, this.state.exit), child)
      const key = {}
      const finalizers = this.state.finalizers
      finalizers.set(key, (exit) => Scope.close(child, exit))
      return Effect.as(
        Scope.addFinalizer(child, Effect.sync(() => void (this.state._tag === "Open" && finalizers.delete(key)))),
        child
      )
    })
  }
}

Object.defineProperty(Lite.prototype, "pipe", {
  value(this: Lite) {
    return pipeArguments(this, arguments)
  }
})

/** A new open scope (no Effect step). */
export const make = (): Lite => new Lite()

/**
 * Adds `f` to `scope` now (call it while the Effect being built runs, not ahead of it), then gives
 * `effect`: after running `f` first when the scope had already closed.
 */
export const addThen = <A, E, R>(scope: Lite, f: Finalizer, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  const now = scope.add(f)
  return now === undefined ? effect : Effect.zipRight(now, effect)
}
