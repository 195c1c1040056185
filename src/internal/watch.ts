/**
 * A consumer's waits, watched against time limits on the Effect clock.
 *
 * Why it exists: a timeout on a read needs a way to end the wait when the limit passes.
 * `Stream.timeoutFail` races two new fibers against every pull, which on a fast stream cost more
 * than all the decoding; reading in a producer fiber and handing the reads over cost a fiber per
 * request and two Effect hops per read. Here the consumer starts each read itself (a callback: a
 * promise of the HTTP client, a fiber's exit) and waits for it; one watchdog holds a deadline that is
 * a plain number, moved without any Effect, and when it passes it ends the wait with the limit's
 * failure. The transport uses one watch per attempt: for the response headers, then every read.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Lite from "./scope.js"

/** The time limits of a watch, each with the failure it ends the consumer with. */
export interface Limits<E> {
  /** From the start until {@link Watch.startIdle} (HTTP: the headers). */
  readonly first: Duration.Duration
  readonly onFirst: () => E
  /** After {@link Watch.startIdle}: the longest one wait may take. */
  readonly idle: Duration.Duration
  readonly onIdle: () => E
  /** When the whole exchange must have ended (epoch ms on the watch's clock), whatever the consumer does. */
  readonly totalAt?: number | undefined
  readonly onTotal?: (() => E) | undefined
}

/**
 * The watch. The consumer {@link Watch.wait}s for one thing at a time; a limit that passes fails the
 * wait under way (or the next one), and every wait after it. {@link Watch.end} stops the watchdog.
 */
export class Watch<E> {
  /** The failure of the limit that passed: every wait from then on gets it. */
  private failure: Cause.Cause<E> | undefined = undefined
  private ended = false
  /** Ends the wait under way, if any. */
  private waiter: ((exit: Exit.Exit<never, E>) => void) | undefined = undefined
  private idleStarted = false
  /** When the wait under way times out; `Infinity` while no limit runs (idle, and nobody waits). */
  private deadline: number
  private onDeadline: () => E
  private readonly idleMs: number

  /** Starts the first limit. */
  constructor(private readonly clock: Clock.Clock, private readonly limits: Limits<E>) {
    this.idleMs = Duration.toMillis(limits.idle)
    this.deadline = clock.unsafeCurrentTimeMillis() + Duration.toMillis(limits.first)
    this.onDeadline = limits.onFirst
  }

  /** Ends the first limit; from now on the idle limit applies to each wait. */
  startIdle(): void {
    this.idleStarted = true
    this.onDeadline = this.limits.onIdle
    this.deadline = Infinity
    if (this.waiter !== undefined) this.arm()
  }

  /**
   * Waits for what `start` begins: `start` is called at once, and calls `done` once with the outcome
   * (later calls, and one after a limit passed, are ignored). It registers no canceler, which would
   * cost more than the rest of a wait: a consumer interrupted while waiting never waits again (the
   * watch goes with its attempt, whose scope stops what `start` began), and Effect ignores a resume
   * that comes after an interruption.
   */
  wait<A>(start: (done: (exit: Exit.Exit<A, E>) => void) => void): Effect.Effect<A, E> {
    return Effect.async<A, E>((resume) => {
      if (this.failure !== undefined) return resume(Exit.failCause(this.failure))
      const waiter = (exit: Exit.Exit<A, E>): void => {
        if (this.waiter !== waiter) return
        this.waiter = undefined
        if (this.idleStarted) this.deadline = Infinity
        resume(exit)
      }
      this.waiter = waiter
      this.arm()
      start(waiter)
    })
  }

  /** Something arrived that ends no wait (a keep-alive read while a document is read): the idle limit restarts. */
  touch(): void {
    if (this.waiter !== undefined) this.arm()
  }

  /** Nothing more will be waited for: the watchdog stops. */
  end(): void {
    this.ended = true
    this.stopTimer()
  }

  private fail(cause: Cause.Cause<E>): void {
    if (this.failure !== undefined || this.ended) return
    this.failure = cause
    this.stopTimer()
    // The waiter lets go of itself as it ends the wait.
    if (this.waiter !== undefined) this.waiter(Exit.failCause(cause))
  }

  private arm(): void {
    if (this.idleStarted) this.deadline = this.clock.unsafeCurrentTimeMillis() + this.idleMs
  }

  /**
   * Enforces the limits until {@link Watch.end} or `scope` closes: when the deadline (or the total
   * limit) passes, the wait gets the limit's failure. It wakes at each deadline exactly, so under
   * `TestClock` a timeout comes neither early nor late; and it never sleeps longer than the idle
   * limit, so an idle deadline set while it sleeps (always at least that far ahead) is never missed.
   * (At least a millisecond, so an idle limit of zero cannot spin.)
   *
   * A limit measures the other side's silence, not our own lag: when the watchdog wakes more than
   * {@link lagTolerance} late, the event loop was busy with our own work and what the server sent
   * meanwhile may not have been read yet. It then looks again after the loop has had a turn, and
   * fails only on a wake that came on time (or once the delay it granted reaches the limit itself).
   *
   * On the live clock the watchdog is a plain timer (what the live clock's `sleep` is underneath),
   * cleared when `scope` closes: a fiber of its own, started and interrupted on every request, cost
   * more than a small answer's decoding, and it starts at once (call this while the attempt runs),
   * giving `undefined`. On any other clock (`TestClock`, a user's) it is a fiber sleeping on that
   * clock, and what this gives is the Effect that starts it.
   */
  watchIn(scope: Lite.Lite): Effect.Effect<void> | undefined {
    const longest = Math.max(1, this.idleMs)
    const totalAt = this.limits.totalAt ?? Infinity
    let wakeAt = -1
    let granted = 0
    /** How long to sleep before looking again, or undefined once the watch has failed. */
    const check = (): number | undefined => {
      const now = this.clock.unsafeCurrentTimeMillis()
      const late = wakeAt < 0 ? 0 : now - wakeAt
      let ms: number
      if (now >= totalAt && this.limits.onTotal !== undefined) {
        this.fail(Cause.fail(this.limits.onTotal()))
        return undefined
      } else if (now < this.deadline) {
        granted = 0
        ms = Math.min(this.deadline - now, totalAt - now, longest)
      } else if (late > lagTolerance && granted < longest) {
        granted += late
        ms = lagRecheck
      } else {
        this.fail(Cause.fail(this.onDeadline()))
        return undefined
      }
      wakeAt = now + ms
      return ms
    }
    const over = () => this.ended || this.failure !== undefined
    if (this.clock.constructor !== liveClock) {
      const loop: Effect.Effect<void> = Effect.suspend(() => {
        if (over()) return Effect.void
        const ms = check()
        return ms === undefined ? Effect.void : Effect.zipRight(Clock.sleep(Duration.millis(ms)), loop)
      })
      return Effect.asVoid(Effect.forkIn(loop, scope))
    }
    let timer: ReturnType<typeof setTimeout> | undefined = undefined
    const tick = (): void => {
      timer = undefined
      if (over()) return
      const ms = check()
      if (ms !== undefined) timer = setTimeout(tick, Math.min(ms, maxTimerMs))
    }
    tick()
    this.stopTimer = () => {
      if (timer !== undefined) clearTimeout(timer)
      timer = undefined
    }
    return scope.add(this.stopTimer)
  }

  /** Clears the live watchdog's timer (see {@link Watch.watchIn}). */
  private stopTimer: () => void = () => undefined
}

/** The class of the live clock: its `sleep` is a `setTimeout`, which the watchdog then uses directly. */
const liveClock: unknown = Clock.make().constructor

/** The longest delay `setTimeout` takes (a longer one fires at once); the watchdog looks again after it. */
const maxTimerMs = 2 ** 31 - 1

/** How late (ms) a watchdog may wake before its lateness counts as our own lag. */
export const lagTolerance = 50

/** How long (ms) a late watchdog waits before it looks again: long enough for the loop to read its sockets. */
const lagRecheck = 20
