/**
 * Cancellation at random points (issue 12), in its own Node process so that cancel.test.ts can see
 * it exit on its own (a leaked fiber, timer or socket would keep it alive). For every family and
 * three points — waiting for the response headers, in the middle of the body, during a retry's
 * backoff — a consumer is interrupted after a seeded delay; the server must see the connection
 * close, the consumer's fiber must be done, and no request may follow. Prints one JSON line.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as LanguageModel from "../../src/LanguageModel.js"
import * as Fixture from "../../src/testing/Fixture.js"
import { families } from "./families.js"

type Point = "headers" | "body" | "backoff"
const points: ReadonlyArray<Point> = ["headers", "body", "backoff"]
const rounds = 4
const next = Fixture.prng(Number(process.env["CANCEL_SEED"] ?? 12))

interface Case {
  readonly family: string
  readonly point: Point
  readonly delayMs: number
  readonly closed: boolean
  readonly fiberDone: boolean
  readonly requests: number
}

const one = (familyIndex: number, point: Point, delayMs: number) =>
  Effect.gen(function*() {
    const family = families[familyIndex]!
    let open = 0
    let requests = 0
    const server = http.createServer((req, res) => {
      req.resume()
      req.on("end", () => {
        requests++
        open++
        res.on("close", () => open--)
        if (point === "headers") return // never answers
        if (point === "backoff") {
          res.writeHead(503)
          return void res.end()
        }
        res.writeHead(200, { "content-type": family.contentType })
        res.write(family.frame(family.head)) // and never ends
      })
    })
    yield* Effect.promise(() => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve)))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const model = Context.get(
      yield* Layer.build(family.layer(url, { retry: { times: 3, schedule: Schedule.spaced("1 hour") } })),
      LanguageModel.LanguageModel
    )
    const fiber = yield* Effect.fork(Stream.runDrain(model.stream("hi")))
    // The point reached: the request is in (and, for the backoff, its 503 is over), then the seeded delay.
    for (let i = 0; i < 400 && (requests === 0 || (point === "backoff" && open > 0)); i++) {
      yield* Effect.sleep("5 millis")
    }
    yield* Effect.sleep(delayMs)
    yield* Fiber.interrupt(fiber)
    for (let i = 0; i < 200 && open > 0; i++) yield* Effect.sleep("5 millis")
    const status = yield* Fiber.status(fiber)
    const result: Case = {
      family: family.name,
      point,
      delayMs,
      closed: open === 0,
      fiberDone: status._tag === "Done",
      requests
    }
    server.closeAllConnections()
    yield* Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
    return result
  })

const main = Effect.forEach(families, (_, f) =>
  Effect.forEach(
    points.flatMap((point) => Array.from({ length: rounds }, () => [point, Math.floor(next() * 30)] as const)),
    ([point, delay]) => Effect.scoped(one(f, point, delay))
  ), { concurrency: "unbounded" }).pipe(Effect.map((all) => all.flat()))

Effect.runPromise(main.pipe(Effect.provide(FetchHttpClient.layer))).then((cases) => {
  process.stdout.write(JSON.stringify(cases) + "\n")
})
