/**
 * The one loopback server every client reads from (run by bench/main.ts in its own process, so its
 * work is never charged to a client): the same bytes, in the same 16 KiB writes, to all of them.
 * - `POST /s/<scenario>/…`: that scenario's stream (bench/streams.ts);
 * - `POST /pass/<bytes>/…`: a Chat text stream of about `bytes`, generated as the socket drains;
 * - `POST /hold/…`: one Chat event, then the connection stays open until `POST /drop` cuts every
 *   held connection (the clients' error path).
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as Streams from "./streams.js"

const writeSize = 16 * 1024

/** Starts the server on an ephemeral loopback port. */
export const start = async (): Promise<{ readonly url: string; readonly close: () => Promise<void> }> => {
  const bodies = new Map<string, Array<Buffer>>()
  for (const s of Streams.scenarios) {
    const bytes = Buffer.from(s.build().body)
    const pieces: Array<Buffer> = []
    for (let i = 0; i < bytes.length; i += writeSize) pieces.push(bytes.subarray(i, i + writeSize))
    bodies.set(s.name, pieces)
  }
  const pass = Streams.passBlock()
  const passBlock = Buffer.from(pass.block)
  const held = new Set<http.ServerResponse>()
  const first = Buffer.from(Streams.passHead + Streams.passBlock().block.split("\n\n")[0] + "\n\n")

  const server = http.createServer((req, res) => {
    req.resume()
    req.on("end", () => {
      const [, kind, arg] = (req.url ?? "/").split("/")
      if (kind === "drop") {
        for (const r of held) r.destroy()
        held.clear()
        res.end("dropped")
        return
      }
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
      if (kind === "s" && arg !== undefined && bodies.has(arg)) {
        for (const piece of bodies.get(arg)!) res.write(piece)
        res.end()
      } else if (kind === "hold") {
        held.add(res)
        res.on("close", () => held.delete(res))
        res.write(first)
      } else if (kind === "pass") {
        let blocks = Math.ceil(Number(arg) / passBlock.length)
        res.write(Streams.passHead)
        const pump = (): void => {
          while (blocks > 0) {
            blocks--
            if (!res.write(passBlock)) {
              res.once("drain", pump)
              return
            }
          }
          res.end(Streams.passTail)
        }
        pump()
      } else {
        res.statusCode = 404
        res.end()
      }
    })
  })
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const r of held) r.destroy()
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
