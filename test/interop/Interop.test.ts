/**
 * `Interop`: chunk streams for hosts without Effect. The chunks arrive exactly; a layer that cannot
 * be built is one error chunk; a shared `ManagedRuntime` keeps its services across runs; leaving the
 * loop (or cancelling the reader) closes the request on a real loopback server.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import { describe, expect, it } from "vitest"
import * as Interop from "../../src/interop/Interop.js"
import * as LanguageModel from "../../src/LanguageModel.js"
import * as OpenAiChat from "../../src/providers/openai-chat/index.js"
import * as Registry from "../../src/Registry.js"
import * as StreamChunk from "../../src/StreamChunk.js"
import * as ReplayServer from "../../src/testing/ReplayServer.js"
import * as TestModel from "../../src/testing/TestModel.js"
import * as UsageMeter from "../../src/UsageMeter.js"

const script = [
  StreamChunk.metadata("test", "test-model", "r1"),
  StreamChunk.textDelta("Hel"),
  StreamChunk.textDelta("lo"),
  StreamChunk.usage({ inputTokens: 3, outputTokens: 2, totalTokens: 5 }),
  StreamChunk.finish("stop")
]

const collect = async (iterable: AsyncIterable<StreamChunk.StreamChunk>) => {
  const out: Array<StreamChunk.StreamChunk> = []
  for await (const chunk of iterable) out.push(chunk)
  return out
}

const event = (payload: unknown) => `data: ${JSON.stringify(payload)}\n\n`
const delta = (content: string) => event({ id: "c1", model: "m", choices: [{ index: 0, delta: { content } }] })

/** The OpenAI Chat layer over the loopback server. */
const chatModel = (server: { readonly url: string }) =>
  Layer.provide(
    OpenAiChat.layer({ model: "m", apiKey: Redacted.make("test-interop-key-123"), baseUrl: `${server.url}/v1` }),
    FetchHttpClient.layer
  )

/** The layer, with a count of the times it was released. */
const releaseCounted = <A>(layer: Layer.Layer<A>) => {
  let released = 0
  return {
    layer: Layer.merge(layer, Layer.scopedDiscard(Effect.addFinalizer(() => Effect.sync(() => released++)))),
    released: () => released
  }
}

/** Waits (real time) until `check` holds, for at most `ms`. */
const eventually = async (check: () => boolean, ms = 3_000) => {
  const until = Date.now() + ms
  while (!check() && Date.now() < until) await new Promise((r) => setTimeout(r, 10))
  return check()
}

describe("Interop.toAsyncIterable", () => {
  it("gives every chunk, in order, with a layer", async () => {
    const chunks = await collect(
      Interop.toAsyncIterable(LanguageModel.stream("hi"), TestModel.layer({ responses: script }))
    )
    expect(chunks).toEqual(script)
  })

  it("a layer that cannot be built is one invalid_request error chunk, not a rejection", async () => {
    const model = Layer.provide(Registry.layer("nowhere:model-1"), FetchHttpClient.layer)
    const chunks = await collect(Interop.toAsyncIterable(LanguageModel.stream("hi"), model))
    expect(chunks).toHaveLength(1)
    const [only] = chunks
    expect(only?.type).toBe("error")
    if (only?.type === "error") {
      expect(only.error.code).toBe("invalid_request")
      expect(only.error.retryable).toBe(false)
      expect(only.error.message).toBe(
        `Could not start the stream: Unknown provider "nowhere" in "nowhere:model-1"; known: ${
          Registry.providers.join(", ")
        }`
      )
    }
  })

  it("a ManagedRuntime is shared by every run: one meter counts both", async () => {
    const runtime = ManagedRuntime.make(Layer.mergeAll(TestModel.layer({ responses: script }), UsageMeter.layer))
    try {
      await collect(Interop.toAsyncIterable(LanguageModel.stream("one"), runtime))
      await collect(Interop.toAsyncIterable(LanguageModel.stream("two"), runtime))
      const totals = await runtime.runPromise(UsageMeter.snapshot)
      expect(totals.requests).toBe(2)
      expect(totals.inputTokens).toBe(6)
      expect(totals.outputTokens).toBe(4)
    } finally {
      await runtime.dispose()
    }
  })

  it("a runtime whose layer fails gives one error chunk", async () => {
    const runtime = ManagedRuntime.make(Layer.provide(Registry.layer("no-colon"), FetchHttpClient.layer))
    try {
      const chunks = await collect(Interop.toAsyncIterable(LanguageModel.stream("hi"), runtime))
      expect(chunks.map((c) => c.type)).toEqual(["error"])
      const [only] = chunks
      if (only?.type === "error") {
        expect(only.error.message).toBe(
          `Could not start the stream: Expected "provider:model" (e.g. "anthropic:claude-sonnet-4-5"), got "no-colon"`
        )
      }
    } finally {
      await runtime.dispose()
    }
  })

  it("leaving the loop early closes the request on the server", async () => {
    const server = await ReplayServer.start({
      "/v1/chat/completions": { reads: [delta("Hel"), delta("lo"), delta(" there")], paceMs: 20, stall: true }
    })
    try {
      const model = chatModel(server)
      const seen: Array<string> = []
      for await (const chunk of Interop.toAsyncIterable(LanguageModel.stream("hi"), model)) {
        if (chunk.type === "text-delta") {
          seen.push(chunk.delta)
          break
        }
      }
      expect(seen).toEqual(["Hel"])
      expect(await eventually(() => server.requests[0]?.closedAtMs !== undefined)).toBe(true)
      expect(server.requests[0]?.completed).toBe(false)
    } finally {
      await server.close()
    }
  })
})

describe("Interop.toAsyncIterable, run by run", () => {
  it("each iteration runs the stream afresh, with every chunk", async () => {
    const iterable = Interop.toAsyncIterable(LanguageModel.stream("hi"), TestModel.layer({ responses: script }))
    expect(await collect(iterable)).toEqual(script)
    expect(await collect(iterable)).toEqual(script)
  })

  it("chunks that come in batches (a network read) arrive one by one, in order", async () => {
    const server = await ReplayServer.start({
      "/v1/chat/completions": { reads: [delta("a") + delta("b") + delta("c"), delta("d")] }
    })
    try {
      const model = chatModel(server)
      const chunks = await collect(Interop.toAsyncIterable(LanguageModel.stream("hi"), model))
      expect(chunks.filter(StreamChunk.is("text-delta")).map((c) => c.delta)).toEqual(["a", "b", "c", "d"])
      expect(chunks[0]).toEqual(StreamChunk.metadata("openai", "m", "c1"))
      const last = chunks[chunks.length - 1]
      expect(last?.type === "error" ? last.error.code : last?.type).toBe("truncated")
    } finally {
      await server.close()
    }
  })

  it("next() called again before the last one settled gives the chunks in order, each once", async () => {
    const server = await ReplayServer.start({
      "/v1/chat/completions": { reads: [delta("a"), delta("b"), delta("c")], paceMs: 5 }
    })
    try {
      const iterator = Interop.toAsyncIterable(LanguageModel.stream("hi"), chatModel(server))[Symbol.asyncIterator]()
      const steps = await Promise.all(Array.from({ length: 6 }, () => iterator.next()))
      expect(
        steps.map((r) => (r.done === true ? "done" : r.value.type === "text-delta" ? r.value.delta : r.value.type))
      )
        .toEqual(["metadata", "a", "b", "c", "error", "done"])
    } finally {
      await server.close()
    }
  })

  it("leaving the loop early releases the layer", async () => {
    const { layer: tracked, released } = releaseCounted(TestModel.layer({ responses: script }))
    const seen: Array<string> = []
    for await (const chunk of Interop.toAsyncIterable(LanguageModel.stream("hi"), tracked)) {
      seen.push(chunk.type)
      if (chunk.type === "text-delta") break
    }
    expect(seen).toEqual(["metadata", "text-delta"])
    expect(released()).toBe(1)
  })

  it("return() while a read waits ends that read with done and aborts the request", async () => {
    const server = await ReplayServer.start({
      "/v1/chat/completions": { reads: [delta("Hel")], stall: true }
    })
    try {
      const model = chatModel(server)
      const iterator = Interop.toAsyncIterable(LanguageModel.stream("hi"), model)[Symbol.asyncIterator]()
      const firsts: Array<string> = []
      for (;;) {
        const next = await iterator.next()
        if (next.done === true) break
        firsts.push(next.value.type)
        if (next.value.type === "text-delta") break
      }
      expect(firsts).toEqual(["metadata", "text-delta"])
      const pending = iterator.next()
      expect(await iterator.return!()).toEqual({ done: true, value: undefined })
      expect(await pending).toEqual({ done: true, value: undefined })
      expect(await iterator.next()).toEqual({ done: true, value: undefined })
      expect(await eventually(() => server.requests[0]?.closedAtMs !== undefined)).toBe(true)
      expect(server.requests[0]?.completed).toBe(false)
    } finally {
      await server.close()
    }
  })

  it("a defect in the stream rejects the next read and still releases the layer", async () => {
    const { layer: broken, released } = releaseCounted(
      Layer.succeed(LanguageModel.LanguageModel, {
        provider: "test",
        model: "m",
        stream: () => Stream.die(new Error("boom"))
      })
    )
    await expect(collect(Interop.toAsyncIterable(LanguageModel.stream("hi"), broken))).rejects.toThrow("boom")
    expect(released()).toBe(1)
  })
})

describe("Interop.toReadableStream", () => {
  it("gives every chunk, in order", async () => {
    const reader = Interop.toReadableStream(LanguageModel.stream("hi"), TestModel.layer({ responses: script }))
      .getReader()
    const out: Array<StreamChunk.StreamChunk> = []
    while (true) {
      const next = await reader.read()
      if (next.done) break
      out.push(next.value)
    }
    expect(out).toEqual(script)
  })

  it("cancelling the reader closes the request on the server", async () => {
    const server = await ReplayServer.start({
      "/v1/chat/completions": { reads: [delta("Hel"), delta("lo")], paceMs: 20, stall: true }
    })
    try {
      const model = chatModel(server)
      const reader = Interop.toReadableStream(LanguageModel.stream("hi"), model).getReader()
      let first: StreamChunk.StreamChunk | undefined
      while (first?.type !== "text-delta") {
        const next = await reader.read()
        if (next.done) break
        first = next.value
      }
      expect(first).toEqual({ type: "text-delta", delta: "Hel" })
      await reader.cancel()
      expect(await eventually(() => server.requests[0]?.closedAtMs !== undefined)).toBe(true)
      expect(server.requests[0]?.completed).toBe(false)
    } finally {
      await server.close()
    }
  })

  it("the layer is released when the run ends", async () => {
    const { layer: tracked, released } = releaseCounted(TestModel.layer({ responses: script }))
    await collect(Interop.toAsyncIterable(LanguageModel.stream("hi"), tracked))
    expect(released()).toBe(1)
  })
})
