/**
 * A loopback `ReplayServer` that answers a family's path with a script, one reply per request (the
 * n-th request gets the n-th reply), and the requests it received with their bodies parsed. A request
 * past the script gets a 418 whose error would show in the chunks, and is counted.
 */
import { ReplayServer } from "effect-llm-stream/testing"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { Case } from "./families.js"
import { reads, type Reply } from "./wire.js"

/** One scripted answer: a 200 with this wire body (in several reads), or a whole HTTP reply. */
export type Answer = string | Uint8Array | Reply

const isReply = (a: Answer): a is Reply => typeof a === "object" && !(a instanceof Uint8Array)

/** A running script: its server, and the bodies it received so far (parsed JSON). */
export interface Scripted {
  readonly server: ReplayServer.Server
  readonly bodies: () => ReadonlyArray<unknown>
}

/** Starts a server answering `c`'s path with `answers`, for the life of the scope. */
export const serve = (c: Case, answers: ReadonlyArray<Answer>): Effect.Effect<Scripted, never, Scope.Scope> =>
  Effect.map(
    ReplayServer.make({
      [c.path]: (_body, n) => {
        const answer = answers[n]
        if (answer === undefined) {
          return {
            status: 418,
            headers: { "content-type": "application/json" },
            reads: [JSON.stringify({ error: { message: `unexpected request ${n + 1}` } })]
          }
        }
        return isReply(answer)
          ? { status: answer.status, headers: answer.headers, reads: [answer.body] }
          : { headers: { "content-type": c.wire.contentType }, reads: reads(answer) }
      }
    }),
    (server) => ({ server, bodies: () => server.requests.map((r) => JSON.parse(r.body) as unknown) })
  )
