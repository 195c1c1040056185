/**
 * A hostile loopback server for tests: each test hands it a handler with full control of the
 * response (status, headers, redirects, bodies of any size, stalls), and reads back what reached it.
 * 127.0.0.1 only, ephemeral port.
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as http from "node:http"
import type { AddressInfo } from "node:net"

/** A request the server received. */
export interface Received {
  readonly path: string
  readonly method: string
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
}

/** Answers request number `n` (from 0). */
export type Handler = (request: Received, res: http.ServerResponse, n: number) => void

/** A running hostile server. */
export interface Hostile {
  /** `http://127.0.0.1:<port>` */
  readonly url: string
  readonly requests: ReadonlyArray<Received>
  /** Responses not yet closed (finished or aborted). */
  readonly open: () => number
  /** Responses whose connection closed before the handler ended them. */
  readonly aborted: () => number
  /** TCP connections accepted so far (fewer than requests when connections are reused). */
  readonly connections: () => number
}

/** Starts a server for the life of the scope. */
export const make = (handler: Handler): Effect.Effect<Hostile, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<Hostile & { readonly server: http.Server }>((resolve) => {
        const requests: Array<Received> = []
        let open = 0
        let aborted = 0
        let connections = 0
        const server = http.createServer((req, res) => {
          const parts: Array<Buffer> = []
          req.on("data", (b: Buffer) => parts.push(b))
          req.on("end", () => {
            const received: Received = {
              path: req.url ?? "/",
              method: req.method ?? "",
              headers: req.headers,
              body: Buffer.concat(parts).toString("utf8")
            }
            const n = requests.length
            requests.push(received)
            open++
            res.on("close", () => {
              open--
              if (!res.writableEnded) aborted++
            })
            handler(received, res, n)
          })
        })
        server.on("connection", () => connections++)
        server.listen(0, "127.0.0.1", () => {
          const { port } = server.address() as AddressInfo
          resolve({
            url: `http://127.0.0.1:${port}`,
            requests,
            open: () => open,
            aborted: () => aborted,
            connections: () => connections,
            server
          })
        })
      })
    ),
    ({ server }) =>
      Effect.promise(() =>
        new Promise<void>((done) => {
          server.closeAllConnections()
          server.close(() => done())
        })
      )
  )

/** Writes `total` bytes of `unit` repeated, respecting backpressure, then ends (unless the client left). */
export const writeMany = (res: http.ServerResponse, unit: string, total: number): void => {
  const block = Buffer.from(unit.repeat(Math.max(1, Math.floor(65_536 / unit.length))))
  let sent = 0
  const pump = (): void => {
    while (sent < total && !res.destroyed) {
      sent += block.length
      if (!res.write(block)) {
        res.once("drain", pump)
        return
      }
    }
    if (!res.destroyed) res.end()
  }
  pump()
}

/** An SSE body of Chat Completions events for `text`, split into one event per word, ending with `[DONE]`. */
export const chatBody = (text: string, id = "chatcmpl-h"): string =>
  text.split(/(?<= )/).map((w) =>
    `data: ${JSON.stringify({ id, model: "m", choices: [{ index: 0, delta: { content: w } }] })}\n\n`
  )
    .join("") +
  `data: ${JSON.stringify({ id, model: "m", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\n` +
  "data: [DONE]\n\n"
