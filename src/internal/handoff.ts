/**
 * A one-place handoff from a producer fiber to one consumer, with time limits on the Effect clock.
 *
 * Why it exists: a timeout on a read needs the read to run in a fiber that a timer can interrupt.
 * `Stream.timeoutFail` gets that by racing two new fibers against every pull, which on a fast
 * stream cost more than all the decoding. Here one producer fiber reads, the consumer takes what it
 * handed over, and one watchdog fiber checks a deadline that is a plain number, moved without any
 * Effect. The transport uses it once per attempt: the producer sends the request and reads the body.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Channel from "effect/Channel"
import type * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

/** The time limits of a handoff, each with the failure it ends the consumer with. */
export interface Limits<E> {
  /** From the start until {@link Handoff.startIdle} (HTTP: the headers). */
  readonly first: Duration.Duration
  readonly onFirst: () => E
  /** After {@link Handoff.startIdle}: the longest the consumer may wait for its next value. */
  readonly idle: Duration.Duration
  readonly onIdle: () => E
  /** When the whole exchange must have ended (epoch ms on the handoff's clock), whatever the consumer does. */
  readonly totalAt?: number | undefined
  readonly onTotal?: (() => E) | undefined
}

/**
 * The handoff. The producer `offer`s values and then `end`s or `fail`s; the consumer `take`s them in
 * order, then `undefined` (ended) or the failure. The producer runs at most one value ahead of the
 * consumer, so memory stays bounded.
 */
export class Handoff<A, E> {
  private ready: A | undefined = undefined
  /** How the producer finished, once it has: every take after the last value gets it. */
  private final: Exit.Exit<undefined, E> | undefined = undefined
  private taker: ((next: Effect.Effect<A | undefined, E>) => void) | undefined = undefined
  private giver: (() => void) | undefined = undefined
  private idleStarted = false
  /** When the consumer times out; `Infinity` while no limit runs (idle, and the consumer is not waiting). */
  private deadline: number
  private onDeadline: () => E
  private readonly idleMs: number

  /** Starts the first limit. */
  constructor(private readonly clock: Clock.Clock, private readonly limits: Limits<E>) {
    this.idleMs = Duration.toMillis(limits.idle)
    this.deadline = clock.unsafeCurrentTimeMillis() + Duration.toMillis(limits.first)
    this.onDeadline = limits.onFirst
  }

  /** Ends the first limit; from now on the idle limit applies. */
  startIdle(): void {
    this.idleStarted = true
    this.onDeadline = this.limits.onIdle
    this.deadline = Infinity
    if (this.taker !== undefined) this.arm()
  }

  /** Hands `value` over, waiting while the one before it has not been taken yet. */
  offer(value: A): Effect.Effect<void> {
    return Effect.suspend(() => {
      if (this.final !== undefined) return Effect.void
      const taker = this.taker
      if (taker === undefined) {
        this.ready = value
        return this.untilTaken
      }
      this.taker = undefined
      if (this.idleStarted) this.deadline = Infinity
      taker(Exit.succeed(value))
      return Effect.void
    })
  }

  private readonly untilTaken: Effect.Effect<void> = Effect.async<void>((resume) => {
    this.giver = () => resume(Effect.void)
    return Effect.sync(() => {
      this.giver = undefined
    })
  })

  /** Something arrived that gives the consumer nothing to take (a keep-alive): the idle timer restarts. */
  touch(): void {
    if (this.taker !== undefined) this.arm()
  }

  /** The producer has offered everything. */
  end(): void {
    this.finish(Exit.succeed(undefined))
  }

  /** The producer failed; the consumer gets the failure after the value already offered, if any. */
  fail(cause: Cause.Cause<E>): void {
    this.finish(Exit.failCause(cause))
  }

  private finish(exit: Exit.Exit<undefined, E>): void {
    if (this.final !== undefined) return
    this.final = exit
    this.stopTimer()
    if (this.ready !== undefined) return
    const taker = this.taker
    if (taker !== undefined) {
      this.taker = undefined
      taker(exit)
    }
  }

  /**
   * The next value; `undefined` once the producer has ended. It registers no canceler, which would
   * cost more than the rest of a take: a consumer interrupted while waiting never takes again (the
   * handoff goes with its stream), and Effect ignores a resume that comes after an interruption.
   */
  readonly take: Effect.Effect<A | undefined, E> = Effect.async<A | undefined, E>((resume) => {
    const ready = this.ready
    if (ready !== undefined) {
      this.ready = undefined
      const giver = this.giver
      this.giver = undefined
      if (giver !== undefined) giver()
      return resume(Exit.succeed(ready))
    }
    if (this.final !== undefined) return resume(this.final)
    this.taker = resume
    this.arm()
  })

  private arm(): void {
    if (this.idleStarted) this.deadline = this.clock.unsafeCurrentTimeMillis() + this.idleMs
  }

  /**
   * Enforces the limits until the producer finishes: when the deadline (or the total limit) passes,
   * the consumer gets the limit's failure and `producer` is interrupted. It wakes at each deadline
   * exactly, so under `TestClock` a timeout comes neither early nor late; and it never sleeps longer
   * than the idle limit, so an idle deadline set while it sleeps (always at least that far ahead) is
   * never missed. (At least a millisecond, so an idle limit of zero cannot spin.)
   *
   * A limit measures the other side's silence, not our own lag: when the watchdog wakes more than
   * {@link lagTolerance} late, the event loop was busy with our own work and what the server sent
   * meanwhile may not have been read yet. It then looks again after the loop has had a turn, and
   * fails only on a wake that came on time (or once the delay it granted reaches the limit itself).
   *
   * On the live clock the watchdog is a plain timer (what the live clock's `sleep` is underneath),
   * cleared when `scope` closes: a fiber of its own, started and interrupted on every request, cost
   * more than a small answer's decoding. On any other clock (`TestClock`, a user's) it is a fiber
   * sleeping on that clock.
   */
  watchIn(producer: Fiber.RuntimeFiber<unknown, unknown>, scope: Scope.Scope): Effect.Effect<void> {
    const longest = Math.max(1, this.idleMs)
    const totalAt = this.limits.totalAt ?? Infinity
    let wakeAt = -1
    let granted = 0
    /** How long to sleep before looking again, or undefined once the consumer has been failed. */
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
    if (this.clock.constructor !== liveClock) {
      const loop: Effect.Effect<void> = Effect.suspend(() => {
        if (this.final !== undefined) return Effect.void
        const ms = check()
        return ms === undefined ? Fiber.interrupt(producer) : Effect.zipRight(Clock.sleep(Duration.millis(ms)), loop)
      })
      return Effect.asVoid(Effect.forkIn(loop, scope))
    }
    return Effect.suspend(() => {
      let timer: ReturnType<typeof setTimeout> | undefined = undefined
      const tick = (): void => {
        timer = undefined
        if (this.final !== undefined) return
        const ms = check()
        if (ms === undefined) producer.unsafeInterruptAsFork(FiberId.none)
        else timer = setTimeout(tick, Math.min(ms, maxTimerMs))
      }
      tick()
      this.stopTimer = () => {
        if (timer !== undefined) clearTimeout(timer)
        timer = undefined
      }
      return Scope.addFinalizer(scope, Effect.sync(this.stopTimer))
    })
  }

  /** Clears the live watchdog's timer once the producer finished (see {@link Handoff.watchIn}). */
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

/**
 * The chunks `take` yields, as a stream: `first`, then one chunk per take until it yields
 * `undefined`. Written as a channel loop, which costs about a third less per chunk than
 * `Stream.repeatEffectChunkOption`.
 */
export const toStream = <A, E>(
  first: Chunk.Chunk<A>,
  take: Effect.Effect<Chunk.Chunk<A> | undefined, E>
): Stream.Stream<A, E> => {
  const loop: Channel.Channel<Chunk.Chunk<A>, unknown, E, unknown, void, unknown> = Channel.flatMap(
    Channel.fromEffect(take),
    (chunk) => (chunk === undefined ? Channel.void : Channel.zipRight(Channel.write(chunk), loop))
  )
  return Stream.fromChannel(Channel.zipRight(Channel.write(first), loop))
}
