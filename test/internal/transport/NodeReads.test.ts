/**
 * A Node body (undici's response body under `NodeHttpClient.layerUndici`) read directly with
 * `read()` and its events: every read in order, then the end; an error or a close before the end
 * fails the read under way and every read after it; `cancel` destroys the body. Real `Readable`s,
 * in the shape of undici's response data under the platform's response (the status code and the body).
 */
import { Readable } from "node:stream"
import { describe, expect, it } from "vitest"
import * as Http from "../../../src/internal/transport/Http.js"

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s)
const text = (
  b: Uint8Array | undefined
): string | undefined => (b === undefined ? undefined : new TextDecoder().decode(b))

/** A body the test pushes into, under the platform response's shape. */
const body = () => {
  const stream = new Readable({ read: () => undefined })
  const reads = Http.readsOf({ statusCode: 200, headers: {}, body: stream })
  if (reads === undefined) throw new Error("the Node body was not read directly")
  return { stream, reads }
}

/** Whether `p` settled within a turn of the event loop (and how). */
const settled = async <A>(p: Promise<A>): Promise<{ readonly value?: A; readonly error?: unknown } | "pending"> => {
  const pending = Symbol("pending")
  const out = await Promise.race([
    p.then((value) => ({ value }), (error: unknown) => ({ error })),
    new Promise<typeof pending>((r) => setImmediate(() => r(pending)))
  ])
  return out === pending ? "pending" : out
}

describe("Http.readsOf: a Node body", () => {
  it("gives what is buffered in one read, then waits for more, then the end (and the end again)", async () => {
    const { stream, reads } = body()
    stream.push(bytes("data: one\n\n"))
    stream.push(bytes("data: two\n\n"))
    expect(text(await reads.next())).toBe("data: one\n\ndata: two\n\n")
    const next = reads.next()
    expect(await settled(next)).toBe("pending")
    stream.push(bytes("data: three\n\n"))
    expect(text(await next)).toBe("data: three\n\n")
    stream.push(null)
    expect(await reads.next()).toBeUndefined()
    expect(await reads.next()).toBeUndefined()
  })

  it("an error fails the read under way and every read after it, with the body's own error", async () => {
    const { stream, reads } = body()
    stream.push(bytes("data: one\n\n"))
    expect(text(await reads.next())).toBe("data: one\n\n")
    const next = reads.next()
    const cut = new Error("other side closed")
    stream.destroy(cut)
    expect(await settled(next)).toStrictEqual({ error: cut })
    expect(await settled(reads.next())).toStrictEqual({ error: cut })
  })

  it("a close before the end with no error fails the read as a premature close", async () => {
    const { stream, reads } = body()
    const next = reads.next()
    stream.destroy()
    const out = await settled(next)
    expect(out !== "pending" && out.error instanceof Error ? out.error.message : out).toBe("Premature close")
  })

  it("what was buffered before an error is not handed out after it", async () => {
    const { stream, reads } = body()
    stream.push(bytes("data: lost\n\n"))
    const cut = new Error("reset")
    stream.destroy(cut)
    expect(await settled(reads.next())).toStrictEqual({ error: cut })
  })

  it("a body already failed when it is opened fails its first read", async () => {
    const stream = new Readable({ read: () => undefined })
    const cut = new Error("reset before the body")
    stream.on("error", () => undefined)
    stream.destroy(cut)
    const reads = Http.readsOf({ statusCode: 200, headers: {}, body: stream })!
    expect(await settled(reads.next())).toStrictEqual({ error: cut })
  })

  it("a body that ended and closed is read to its end as usual", async () => {
    const { stream, reads } = body()
    stream.push(bytes("data: last\n\n"))
    stream.push(null)
    expect(text(await reads.next())).toBe("data: last\n\n")
    expect(await reads.next()).toBeUndefined()
    await new Promise((r) => setImmediate(r))
    expect(stream.destroyed).toBe(true)
    expect(await reads.next()).toBeUndefined()
  })

  it("cancel destroys the body, and a read waiting then fails", async () => {
    const { stream, reads } = body()
    const next = reads.next()
    reads.cancel()
    expect(stream.destroyed).toBe(true)
    const out = await settled(next)
    expect(out !== "pending" && out.error instanceof Error ? out.error.message : out).toBe("Premature close")
  })

  it("a body read to its end before it was opened gives the end, not a wait", async () => {
    const stream = new Readable({ read: () => undefined })
    stream.push(bytes("data: taken\n\n"))
    stream.push(null)
    stream.read()
    await new Promise((r) => setImmediate(r))
    expect([stream.readableEnded, stream.destroyed]).toStrictEqual([true, true])
    const reads = Http.readsOf({ statusCode: 200, headers: {}, body: stream })!
    expect(await settled(reads.next())).toStrictEqual({ value: undefined })
  })

  it("a body destroyed whose error comes later reports that error, not a premature close", async () => {
    const stream = new Readable({
      read: () => undefined,
      destroy: (_, cb) => void setImmediate(() => cb(new Error("Request aborted")))
    })
    stream.destroy()
    const reads = Http.readsOf({ statusCode: 200, headers: {}, body: stream })!
    const out = await new Promise<unknown>((r) => reads.next().then(r, r))
    expect(out instanceof Error ? out.message : out).toBe("Request aborted")
  })
})
