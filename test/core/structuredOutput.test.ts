import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as JSONSchema from "effect/JSONSchema"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as ChatRequest from "../../src/ChatRequest.js"
import * as LanguageModel from "../../src/LanguageModel.js"
import * as LlmError from "../../src/LlmError.js"
import * as StreamChunk from "../../src/StreamChunk.js"
import * as TestModel from "../../src/testing/TestModel.js"
import * as Tool from "../../src/Tool.js"
import * as Toolkit from "../../src/Toolkit.js"

const Person = Schema.Struct({
  name: Schema.String,
  age: Schema.Number,
  tags: Schema.Array(Schema.String)
})

const personJson = {
  type: "object",
  required: ["name", "age", "tags"],
  properties: { name: { type: "string" }, age: { type: "number" }, tags: { type: "array", items: { type: "string" } } },
  additionalProperties: false
}

/** A text cut into pieces of `size` characters, as text deltas, then `finish`. */
const deltas = (text: string, size: number, reason: StreamChunk.FinishReason = "stop"): TestModel.Script => {
  const out: Array<StreamChunk.StreamChunk> = []
  for (let i = 0; i < text.length; i += size) out.push(StreamChunk.textDelta(text.slice(i, i + size)))
  out.push(StreamChunk.finish(reason))
  return out
}

const run = <A, I>(schema: Schema.Schema<A, I>, script: TestModel.Script) =>
  LanguageModel.streamObject("Describe Ada", schema).pipe(
    Stream.runCollect,
    Effect.map(Chunk.toArray),
    Effect.provide(TestModel.layer({ responses: script }))
  )

describe("LanguageModel.streamObject", () => {
  it.effect("streams a partial object each time it grows, then the decoded object, then finish", () =>
    Effect.gen(function*() {
      const chunks = yield* run(Person, deltas("{\"name\":\"Ada\",\"age\":36,\"tags\":[\"math\",\"code\"]}", 6))
      // Pieces: `{"name` `":"Ada` `","age` `":36,"` `tags":` `["math` `","cod` `e"]}` — a key alone adds nothing.
      expect(chunks.filter(StreamChunk.is("partial-object")).map((c) => c.value)).toStrictEqual([
        {},
        { name: "Ada" },
        { name: "Ada", age: 36 },
        { name: "Ada", age: 36, tags: ["math"] },
        { name: "Ada", age: 36, tags: ["math", "cod"] },
        { name: "Ada", age: 36, tags: ["math", "code"] }
      ])
      expect(chunks.slice(-2)).toStrictEqual([
        StreamChunk.object({ name: "Ada", age: 36, tags: ["math", "code"] }),
        StreamChunk.finish("stop")
      ])
      // The typed value.
      const last = chunks.at(-2)
      if (last?.type === "object") expect(last.value.tags).toStrictEqual(["math", "code"])
    }))

  it.effect("asks for the Schema's JSON Schema as the response format", () =>
    Effect.gen(function*() {
      yield* LanguageModel.streamObject("Describe Ada", Person, { name: "person", strict: true }).pipe(Stream.runDrain)
      const [request] = yield* TestModel.requests
      expect(request!.responseFormat).toStrictEqual({
        type: "json_schema",
        name: "person",
        schema: personJson,
        strict: true
      })
    }).pipe(Effect.provide(TestModel.layer({ responses: deltas("{}", 2) }))))

  it.effect("the last of 100+ partial objects equals the decoded object, in 3-character deltas", () =>
    Effect.gen(function*() {
      const value = {
        name: "Ada Lovelace",
        age: 36,
        tags: Array.from({ length: 40 }, (_, i) => `tag ${i}: ${"a long description of the tag ".repeat(3)}`)
      }
      const chunks = yield* run(Person, deltas(JSON.stringify(value), 3))
      const partials = chunks.filter(StreamChunk.is("partial-object"))
      expect(partials.length).toBeGreaterThanOrEqual(100)
      expect(partials.at(-1)!.value).toStrictEqual(value)
      expect(chunks.at(-2)).toStrictEqual(StreamChunk.object(value))
    }))

  it.effect("a value the Schema refuses ends the stream with one invalid_output error naming the path", () =>
    Effect.gen(function*() {
      const text = "{\"name\":\"Ada\",\"age\":\"old\",\"tags\":[]}"
      const chunks = yield* run(Person, deltas(text, 10))
      expect(chunks.filter(StreamChunk.isTerminal)).toHaveLength(1)
      expect(chunks.at(-1)).toStrictEqual(StreamChunk.error(LlmError.info({
        code: "invalid_output",
        message: "The model's output does not match the schema: age: Expected number, actual \"old\"",
        retryable: false,
        details: { text, issue: "age: Expected number, actual \"old\"" }
      })))
      expect(chunks.some((c) => c.type === "object")).toBe(false)
    }))

  it.effect("output that is not JSON, or cut by the length limit, is invalid_output too", () =>
    Effect.gen(function*() {
      const prose = yield* run(Person, deltas("Sure! Ada was", 5))
      const last = prose.at(-1)
      expect(last?.type === "error" && [last.error.code, last.error.details]).toStrictEqual([
        "invalid_output",
        { text: "Sure! Ada was" }
      ])
      const cut = yield* run(Person, deltas("{\"name\":\"Ad", 5, "length"))
      const cutLast = cut.at(-1)
      expect(cutLast?.type === "error" && cutLast.error.message).toBe(
        "The model's output could not be read as the requested object: the answer ended (length) before its JSON was complete"
      )
    }))

  it.effect("an object nested past 64 levels is invalid_output, never a chunk the JSON codec would refuse", () =>
    Effect.gen(function*() {
      const deep = "[".repeat(70) + "]".repeat(70)
      const chunks = yield* run(Schema.Unknown, deltas(deep, 10))
      const last = chunks.at(-1)
      expect(last?.type === "error" && [last.error.code, last.error.message]).toStrictEqual([
        "invalid_output",
        "The model's output could not be read as the requested object: it is nested too deeply (more than 64 levels of arrays and objects)"
      ])
      for (const chunk of chunks) {
        expect(Either.isRight(StreamChunk.decodeJson(StreamChunk.encodeJson(chunk)))).toBe(true)
      }
    }))

  it.effect("a Markdown code fence around the JSON is read through", () =>
    Effect.gen(function*() {
      const chunks = yield* run(Person, deltas("```json\n{\"name\":\"Ada\",\"age\":1,\"tags\":[]}\n```", 4))
      expect(chunks.at(-2)).toStrictEqual(StreamChunk.object({ name: "Ada", age: 1, tags: [] }))
    }))

  it.effect("a stream error passes through as the terminal chunk", () =>
    Effect.gen(function*() {
      const busy = LlmError.make({ code: "overloaded", message: "busy", status: 529 })
      const chunks = yield* run(Person, [StreamChunk.textDelta("{\"na"), TestModel.fail(busy)])
      expect(chunks.at(-1)).toStrictEqual(StreamChunk.error(busy))
    }))

  it.effect("generateObject gives the typed value, or fails with invalid_output", () =>
    Effect.gen(function*() {
      const person = yield* LanguageModel.generateObject("Describe Ada", Person).pipe(
        Effect.provide(TestModel.layer({ responses: deltas("{\"name\":\"Ada\",\"age\":36,\"tags\":[]}", 8) }))
      )
      expect(person).toStrictEqual({ name: "Ada", age: 36, tags: [] })
      const error = yield* Effect.flip(
        LanguageModel.generateObject("Describe Ada", Person).pipe(
          Effect.provide(TestModel.layer({ responses: deltas("{\"name\":1}", 8) }))
        )
      )
      expect(error.code).toBe("invalid_output")
    }))
})

describe("ChatRequest and typed tools", () => {
  it("responseFormat takes JSONSchema.make's result as it is, and ChatRequest.jsonSchema builds it", () => {
    const request: ChatRequest.ChatRequest = {
      messages: [ChatRequest.user("Ada?")],
      responseFormat: { type: "json_schema", name: "person", schema: JSONSchema.make(Person) }
    }
    expect(request.responseFormat?.type).toBe("json_schema")
    expect(ChatRequest.jsonSchema("person", Person, { description: "A person" })).toStrictEqual({
      type: "json_schema",
      name: "person",
      schema: personJson,
      description: "A person"
    })
  })

  it("a toolkit goes in ChatRequest.tools, and reaches the provider as plain definitions", () => {
    const lookup = Tool.make("lookup", {
      description: "Looks up",
      parameters: Schema.Struct({ q: Schema.String }),
      strict: true,
      handler: ({ q }) => Effect.succeed(q)
    })
    const request = ChatRequest.make({ messages: [ChatRequest.user("hi")], tools: Toolkit.make(lookup) })
    expect(request.tools).toStrictEqual([{
      name: "lookup",
      parameters: {
        type: "object",
        required: ["q"],
        properties: { q: { type: "string" } },
        additionalProperties: false
      },
      description: "Looks up",
      strict: true
    }])
    expect(Tool.isTool(request.tools![0])).toBe(false)
    expect(Toolkit.isToolkit(Toolkit.make(lookup))).toBe(true)
  })
})

describe("the new chunks", () => {
  const chunks: ReadonlyArray<StreamChunk.StreamChunk> = [
    StreamChunk.toolResult({ toolCallId: "c1", name: "get_weather", result: { t: 18 }, isError: false, step: 1 }),
    StreamChunk.stepFinish(1, "tool_calls", {
      rawReason: "tool_use",
      usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 }
    }),
    StreamChunk.partialObject({ name: "A" }),
    StreamChunk.object({ name: "Ada" })
  ]

  it("round-trip through the JSON codec and pass the validator", () => {
    for (const chunk of chunks) {
      expect(StreamChunk.decodeJson(StreamChunk.encodeJson(chunk))).toStrictEqual(Either.right(chunk))
      expect(StreamChunk.validate(chunk)).toStrictEqual(Either.right(chunk))
    }
    expect(StreamChunk.validate({ type: "step-finish", step: 0, finishReason: "stop" })).toStrictEqual(
      Either.left("step-finish chunks must have a positive integer step")
    )
    expect(StreamChunk.validate({ type: "tool-result", toolCallId: "", name: "x", result: 1, isError: false, step: 1 }))
      .toStrictEqual(Either.left("tool-result chunks must have a non-empty toolCallId"))
    expect(StreamChunk.validate({ type: "object" })).toStrictEqual(Either.left("object chunks must have a value"))
  })

  it.effect("ensureTerminal counts a loop's call ids per step: step 2's call 0 keeps its own id", () =>
    Effect.gen(function*() {
      const out = yield* StreamChunk.ensureTerminal(Stream.make(
        StreamChunk.toolCallDelta(0, "{}", { id: "first", name: "a" }),
        StreamChunk.stepFinish(1, "tool_calls"),
        StreamChunk.toolCallDelta(0, "{}", { id: "second", name: "a" }),
        StreamChunk.stepFinish(2, "tool_calls"),
        StreamChunk.textDelta("done"),
        StreamChunk.stepFinish(3, "stop"),
        StreamChunk.finish("stop")
      )).pipe(Stream.runCollect, Effect.map(Chunk.toArray))
      expect(out.filter(StreamChunk.is("tool-call-delta")).map((c) => c.id)).toStrictEqual(["first", "second"])
      // The last step called no tool: its `stop` stays `stop`.
      expect(out.at(-1)).toStrictEqual(StreamChunk.finish("stop"))
    }))
})
