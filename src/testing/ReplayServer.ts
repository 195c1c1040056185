/**
 * A loopback `node:http` server (127.0.0.1, ephemeral port) that serves recorded wire bytes by path,
 * for end-to-end tests over real sockets, the demo and the benchmarks. It records what it received and
 * when each connection closed, so a test can prove that stopping a consumer aborts the request.
 *
 * @example
 * ```ts
 * import { FetchHttpClient } from "@effect/platform"
 * import { Effect } from "effect"
 * import { LanguageModel, OpenAiChat } from "effect-llm-stream"
 * import { ReplayServer } from "effect-llm-stream/testing"
 *
 * const program = Effect.gen(function*() {
 *   const server = yield* ReplayServer.make({
 *     "/v1/chat/completions": { reads: ["data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n", "data: [DONE]\n\n"] }
 *   })
 *   return yield* LanguageModel.chat("Hello").pipe(
 *     Effect.provide(OpenAiChat.layer({ preset: "ollama", model: "m", baseUrl: `${server.url}/v1` }))
 *   )
 * }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer))
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as http from "node:http"
import type { AddressInfo } from "node:net"

/**
 * What a route answers.
 *
 * @since 0.1.0
 * @category models
 */
export interface Route {
  readonly status?: number
  readonly headers?: Readonly<Record<string, string>>
  /** The body, as the reads to write (each written separately, so the client sees the boundaries). */
  readonly reads: ReadonlyArray<Uint8Array | string>
  /** Milliseconds to wait before each read (real time: this is a real server). */
  readonly paceMs?: number
  /** Keep the connection open after the last read instead of ending the response. */
  readonly stall?: boolean
}

/**
 * A request the server received.
 *
 * @since 0.1.0
 * @category models
 */
export interface Received {
  readonly path: string
  readonly headers: Readonly<Record<string, string | Array<string> | undefined>>
  readonly body: string
  /** `performance.now()` when the request arrived. */
  readonly atMs: number
  /** `performance.now()` when the connection closed, once it has. */
  closedAtMs?: number
  /** Whether the response had been written to its end before the connection closed. */
  completed: boolean
}

/**
 * A running replay server.
 *
 * @since 0.1.0
 * @category models
 */
export interface Server {
  /** `http://127.0.0.1:<port>` */
  readonly url: string
  readonly requests: ReadonlyArray<Received>
  /** Stops the server, closing any open connection. */
  readonly close: () => Promise<void>
}

/**
 * Routes by path; a function receives the request body and may choose per request.
 *
 * @since 0.1.0
 * @category models
 */
export type Routes = Readonly<Record<string, Route | ((body: string, n: number) => Route)>>

/**
 * Starts a server (a plain Promise, for scripts and benchmarks).
 *
 * @since 0.1.0
 * @category constructors
 */
export const start = (routes: Routes): Promise<Server> =>
  new Promise((resolve, reject) => {
    const requests: Array<Received> = []
    const counts = new Map<string, number>()
    const server = http.createServer((req, res) => {
      const parts: Array<Buffer> = []
      req.on("data", (b: Buffer) => parts.push(b))
      req.on("end", () => {
        const path = (req.url ?? "/").split("?")[0] ?? "/"
        const body = Buffer.concat(parts).toString("utf8")
        const received: Received = { path, headers: req.headers, body, atMs: performance.now(), completed: false }
        requests.push(received)
        res.on("close", () => {
          received.closedAtMs = performance.now()
        })
        const entry = routes[path]
        if (entry === undefined) {
          res.writeHead(404, { "content-type": "application/json" })
          res.end(JSON.stringify({ error: { message: `no route for ${path}`, type: "not_found" } }))
          received.completed = true
          return
        }
        const n = counts.get(path) ?? 0
        counts.set(path, n + 1)
        const route = typeof entry === "function" ? entry(body, n) : entry
        res.writeHead(route.status ?? 200, { "content-type": "text/event-stream", ...route.headers })
        res.flushHeaders()
        let i = 0
        const next = (): void => {
          if (res.destroyed) return
          if (i >= route.reads.length) {
            if (route.stall !== true) {
              res.end()
              received.completed = true
            }
            return
          }
          res.write(route.reads[i++])
          if (route.paceMs !== undefined && route.paceMs > 0) setTimeout(next, route.paceMs)
          else setImmediate(next)
        }
        if (route.paceMs !== undefined && route.paceMs > 0) setTimeout(next, route.paceMs)
        else next()
      })
    })
    server.on("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resolve({
        url: `http://127.0.0.1:${port}`,
        requests,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections()
            server.close(() => done())
          })
      })
    })
  })

/**
 * Starts a server for the life of the scope.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (routes: Routes): Effect.Effect<Server, never, Scope.Scope> =>
  Effect.acquireRelease(Effect.promise(() => start(routes)), (server) => Effect.promise(() => server.close()))
