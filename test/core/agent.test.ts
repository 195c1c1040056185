import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as ChatRequest from "../../src/ChatRequest.js"
import * as LanguageModel from "../../src/LanguageModel.js"
import * as LlmError from "../../src/LlmError.js"
import * as Response from "../../src/Response.js"
import * as StreamChunk from "../../src/StreamChunk.js"
import * as TestModel from "../../src/testing/TestModel.js"
import * as Tool from "../../src/Tool.js"
import * as Toolkit from "../../src/Toolkit.js"
import * as UsageMeter from "../../src/UsageMeter.js"

const collect = <R>(stream: Stream.Stream<StreamChunk.StreamChunk, never, R>) =>
  Effect.map(Stream.runCollect(stream), Chunk.toArray)

const usage = (inputTokens: number, outputTokens: number) =>
  StreamChunk.usage({ inputTokens, outputTokens, totalTokens: inputTokens + outputTokens })

const Weather = Schema.Struct({ temperatureC: Schema.Number, sky: Schema.String })

const getWeather = Tool.make("get_weather", {
  description: "The weather in a city",
  parameters: Schema.Struct({ city: Schema.String }),
  success: Weather,
  handler: ({ city }) => Effect.succeed({ temperatureC: city === "Paris" ? 18 : 25, sky: "clear" })
})

const getTime = Tool.make("get_time", {
  parameters: Schema.Struct({ zone: Schema.String }),
  handler: ({ zone }) => Effect.succeed(`12:00 ${zone}`)
})

const toolkit = Toolkit.make(getWeather, getTime)

const twoCalls: TestModel.Script = [
  StreamChunk.metadata("test", "test-model", "r1"),
  TestModel.toolCall("get_weather", { city: "Paris" }, { id: "c1", index: 0 }),
  TestModel.toolCall("get_time", { zone: "CET" }, { id: "c2", index: 1 }),
  usage(10, 5),
  StreamChunk.finish("tool_calls", "tool_use")
]

const answer = (text: string): TestModel.Script => [
  StreamChunk.metadata("test", "test-model", "r2"),
  StreamChunk.textDelta(text),
  usage(30, 7),
  StreamChunk.finish("stop", "end_turn")
]

const model = (scripts: ReadonlyArray<TestModel.StepScript>) =>
  Layer.mergeAll(TestModel.layer({ responses: TestModel.steps(scripts) }), UsageMeter.layer)

const busy = LlmError.make({ code: "overloaded", message: "busy", status: 529 })

const question = { messages: [ChatRequest.system("Be brief."), ChatRequest.user("Weather and time in Paris?")] }

describe("LanguageModel.streamWithTools", () => {
  it.effect("runs a step's calls, sends the results back and streams every step as one stream", () =>
    Effect.gen(function*() {
      const chunks = yield* collect(LanguageModel.streamWithTools(question, toolkit))
      expect(chunks).toStrictEqual([
        StreamChunk.metadata("test", "test-model", "r1"),
        TestModel.toolCall("get_weather", { city: "Paris" }, { id: "c1", index: 0 }),
        TestModel.toolCall("get_time", { zone: "CET" }, { id: "c2", index: 1 }),
        usage(10, 5),
        StreamChunk.toolResult({
          toolCallId: "c1",
          name: "get_weather",
          result: { temperatureC: 18, sky: "clear" },
          isError: false,
          step: 1
        }),
        StreamChunk.toolResult({ toolCallId: "c2", name: "get_time", result: "12:00 CET", isError: false, step: 1 }),
        StreamChunk.stepFinish(1, "tool_calls", {
          rawReason: "tool_use",
          usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 }
        }),
        // Step 2's metadata is left out; its usage is the sum of both steps.
        StreamChunk.textDelta("18°C and noon."),
        usage(40, 12),
        StreamChunk.stepFinish(2, "stop", {
          rawReason: "end_turn",
          usage: { inputTokens: 30, outputTokens: 7, totalTokens: 37 }
        }),
        StreamChunk.finish("stop", "end_turn")
      ])
      const requests = yield* TestModel.requests
      expect(requests).toHaveLength(2)
      // Step 2 carries the conversation, the assistant message and one result per call.
      expect(requests[1]!.messages).toStrictEqual([
        ...question.messages,
        {
          role: "assistant",
          content: "",
          toolCalls: [
            {
              index: 0,
              id: "c1",
              name: "get_weather",
              arguments: { city: "Paris" },
              rawArguments: "{\"city\":\"Paris\"}"
            },
            { index: 1, id: "c2", name: "get_time", arguments: { zone: "CET" }, rawArguments: "{\"zone\":\"CET\"}" }
          ]
        },
        { role: "tool", toolCallId: "c1", name: "get_weather", content: "{\"temperatureC\":18,\"sky\":\"clear\"}" },
        { role: "tool", toolCallId: "c2", name: "get_time", content: "12:00 CET" }
      ])
      // The tools go to the provider as plain definitions: name, description, JSON Schema.
      expect(requests[0]!.tools).toStrictEqual([
        {
          name: "get_weather",
          description: "The weather in a city",
          parameters: {
            type: "object",
            required: ["city"],
            properties: { city: { type: "string" } },
            additionalProperties: false
          }
        },
        {
          name: "get_time",
          parameters: {
            type: "object",
            required: ["zone"],
            properties: { zone: { type: "string" } },
            additionalProperties: false
          }
        }
      ])
      // The meter counts each step as a request.
      const totals = yield* UsageMeter.snapshot
      expect([totals.requests, totals.inputTokens, totals.outputTokens]).toStrictEqual([2, 40, 12])
    }).pipe(Effect.provide(model([twoCalls, answer("18°C and noon.")]))))

  it.effect("chatWithTools gives the last step's answer, each step and the whole conversation", () =>
    Effect.gen(function*() {
      const response = yield* LanguageModel.chatWithTools(question, toolkit)
      expect(response.text).toBe("18°C and noon.")
      expect(response.usage).toStrictEqual({ inputTokens: 40, outputTokens: 12, totalTokens: 52 })
      expect(response.finishReason).toBe("stop")
      expect(
        response.steps.map((s) => [s.finishReason, s.usage?.totalTokens, s.toolCalls.length, s.toolResults.length])
      )
        .toStrictEqual([["tool_calls", 15, 2, 2], ["stop", 37, 0, 0]])
      expect(response.messages.map((m) => m.role)).toStrictEqual([
        "system",
        "user",
        "assistant",
        "tool",
        "tool",
        "assistant"
      ])
      expect(response.messages[5]).toStrictEqual({ role: "assistant", content: "18°C and noon." })
      // Collecting the stream gives the same steps, and only what the stream added as messages.
      const collected = yield* Response.collect(LanguageModel.streamWithTools(question, toolkit))
      expect(collected.messages).toStrictEqual(response.messages.slice(2))
      expect(collected.steps).toStrictEqual(response.steps)
    }).pipe(
      Effect.provide(model([twoCalls, answer("18°C and noon."), twoCalls, answer("18°C and noon.")]))
    ))

  it.effect("arguments the Schema refuses go back as an error naming the path, and the model repairs its call", () =>
    Effect.gen(function*() {
      const chunks = yield* collect(LanguageModel.streamWithTools("Weather?", toolkit))
      expect(chunks.filter(StreamChunk.is("tool-result"))).toStrictEqual([
        StreamChunk.toolResult({
          toolCallId: "c1",
          name: "get_weather",
          result: "Invalid arguments for get_weather: city: Expected string, actual 42",
          isError: true,
          step: 1
        }),
        StreamChunk.toolResult({
          toolCallId: "c2",
          name: "get_weather",
          result: { temperatureC: 18, sky: "clear" },
          isError: false,
          step: 2
        })
      ])
      expect(chunks.at(-1)).toStrictEqual(StreamChunk.finish("stop", "end_turn"))
      const requests = yield* TestModel.requests
      expect(requests[1]!.messages.at(-1)).toStrictEqual({
        role: "tool",
        toolCallId: "c1",
        name: "get_weather",
        content: "Invalid arguments for get_weather: city: Expected string, actual 42",
        isError: true
      })
    }).pipe(Effect.provide(model([
      [TestModel.toolCall("get_weather", { city: 42 }, { id: "c1" }), StreamChunk.finish("tool_calls")],
      [TestModel.toolCall("get_weather", { city: "Paris" }, { id: "c2" }), StreamChunk.finish("tool_calls")],
      answer("18°C")
    ]))))

  it.effect("an unknown tool, arguments that are not JSON, a typed failure and a defect are error results", () =>
    Effect.gen(function*() {
      class NotFound extends Schema.TaggedError<NotFound>()("NotFound", { city: Schema.String }) {}
      const lookup = Tool.make("lookup", {
        parameters: Schema.Struct({ city: Schema.String }),
        failure: NotFound,
        handler: ({ city }) => Effect.fail(new NotFound({ city }))
      })
      const plainFailure = Tool.make("plain", {
        parameters: Schema.Struct({}),
        handler: () => Effect.fail(new Error("no connection"))
      })
      const crash = Tool.make("crash", {
        parameters: Schema.Struct({}),
        handler: () => Effect.die(new Error("boom"))
      })
      const chunks = yield* collect(LanguageModel.streamWithTools("go", Toolkit.make(lookup, plainFailure, crash)))
      expect(chunks.filter(StreamChunk.is("tool-result")).map((r) => [r.name, r.result, r.isError])).toStrictEqual([
        ["nope", "Unknown tool \"nope\". The tools available are: lookup, plain, crash.", true],
        ["lookup", "The arguments of lookup are not valid JSON (bad). Call it again with a JSON object.", true],
        ["lookup", { _tag: "NotFound", city: "Atlantis" }, true],
        ["plain", "no connection", true],
        ["crash", "crash failed: boom", true]
      ])
      expect(chunks.at(-1)).toStrictEqual(StreamChunk.finish("stop", "end_turn"))
    }).pipe(Effect.provide(model([
      [
        TestModel.toolCall("nope", {}, { id: "a", index: 0 }),
        StreamChunk.toolCall({
          index: 1,
          id: "b",
          name: "lookup",
          arguments: { raw: "{" },
          rawArguments: "{",
          parseError: "bad"
        }),
        TestModel.toolCall("lookup", { city: "Atlantis" }, { id: "c", index: 2 }),
        TestModel.toolCall("plain", {}, { id: "d", index: 3 }),
        TestModel.toolCall("crash", {}, { id: "e", index: 4 }),
        StreamChunk.finish("tool_calls")
      ],
      answer("Sorry.")
    ]))))

  it.effect("a call past toolTimeout, on the Effect clock, is stopped and answered with an error", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const interrupted = yield* Ref.make(false)
      const slow = Tool.make("slow", {
        parameters: Schema.Struct({}),
        handler: () =>
          Deferred.succeed(started, undefined).pipe(
            Effect.zipRight(Effect.never),
            Effect.onInterrupt(() => Ref.set(interrupted, true))
          )
      })
      const fiber = yield* Effect.fork(
        collect(LanguageModel.streamWithTools("go", Toolkit.make(slow), { toolTimeout: "5 seconds" }))
      )
      yield* Deferred.await(started)
      yield* TestClock.adjust("5 seconds")
      const chunks = yield* Fiber.join(fiber)
      expect(chunks.filter(StreamChunk.is("tool-result"))).toStrictEqual([
        StreamChunk.toolResult({
          toolCallId: "call_0",
          name: "slow",
          result: "slow did not finish within 5s and was stopped.",
          isError: true,
          step: 1
        })
      ])
      expect(yield* Ref.get(interrupted)).toBe(true)
    }).pipe(Effect.provide(model([
      [TestModel.toolCall("slow", {}), StreamChunk.finish("tool_calls")],
      answer("Too slow.")
    ]))))

  it.effect("a call that needs approval runs when approved and is answered as denied otherwise", () =>
    Effect.gen(function*() {
      const ran = yield* Ref.make<ReadonlyArray<string>>([])
      const pay = Tool.make("pay", {
        parameters: Schema.Struct({ amount: Schema.Number }),
        needsApproval: ({ amount }) => amount > 100,
        handler: ({ amount }) => Effect.as(Ref.update(ran, (r) => [...r, `paid ${amount}`]), "done")
      })
      const chunks = yield* collect(LanguageModel.streamWithTools("pay", Toolkit.make(pay), {
        approve: (call) => Effect.succeed(call.id === "big-ok")
      }))
      expect(chunks.filter(StreamChunk.is("tool-result")).map((r) => [r.toolCallId, r.result, r.isError]))
        .toStrictEqual([
          ["small", "done", false],
          ["big-ok", "done", false],
          ["big-no", "The user denied this call to pay; it was not run.", true]
        ])
      expect(yield* Ref.get(ran)).toStrictEqual(["paid 5", "paid 500"])
    }).pipe(Effect.provide(model([
      [
        TestModel.toolCall("pay", { amount: 5 }, { id: "small", index: 0 }),
        TestModel.toolCall("pay", { amount: 500 }, { id: "big-ok", index: 1 }),
        TestModel.toolCall("pay", { amount: 900 }, { id: "big-no", index: 2 }),
        StreamChunk.finish("tool_calls")
      ],
      answer("Paid.")
    ]))))

  it.effect("maxSteps reached ends with a normal finish after the last step's results", () =>
    Effect.gen(function*() {
      const chunks = yield* collect(LanguageModel.streamWithTools("go", toolkit, { maxSteps: 1 }))
      expect(chunks.slice(-3)).toStrictEqual([
        StreamChunk.toolResult({ toolCallId: "c2", name: "get_time", result: "12:00 CET", isError: false, step: 1 }),
        StreamChunk.stepFinish(1, "tool_calls", {
          rawReason: "tool_use",
          usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 }
        }),
        StreamChunk.finish("tool_calls", "tool_use")
      ])
      expect(yield* TestModel.requests).toHaveLength(1)
    }).pipe(Effect.provide(model([twoCalls]))))

  it.effect("stopWhen ends the loop: hasToolCall and stepCountIs", () =>
    Effect.gen(function*() {
      const byCall = yield* collect(
        LanguageModel.streamWithTools("go", toolkit, { stopWhen: Tool.hasToolCall("get_time") })
      )
      expect(byCall.at(-1)).toStrictEqual(StreamChunk.finish("tool_calls", "tool_use"))
      const byCount = yield* collect(LanguageModel.streamWithTools("go", toolkit, { stopWhen: [Tool.stepCountIs(1)] }))
      expect(byCount.filter(StreamChunk.is("step-finish")).map((s) => s.step)).toStrictEqual([1])
      expect(yield* TestModel.requests).toHaveLength(2)
    }).pipe(Effect.provide(model([twoCalls, twoCalls]))))

  it.effect("a client tool (no handler, or a plain definition in the request) stops the loop for the caller", () =>
    Effect.gen(function*() {
      const confirm = Tool.make("confirm", { parameters: Schema.Struct({ question: Schema.String }) })
      const chunks = yield* collect(LanguageModel.streamWithTools("go", Toolkit.make(getWeather, confirm)))
      expect(chunks.filter(StreamChunk.is("tool-result")).map((r) => r.name)).toStrictEqual(["get_weather"])
      expect(chunks.at(-1)).toStrictEqual(StreamChunk.finish("tool_calls"))
      const plain = yield* LanguageModel.chatWithTools(
        { messages: [ChatRequest.user("go")], tools: [{ name: "ask_user", parameters: { type: "object" } }] },
        toolkit
      )
      expect(plain.toolCalls.map((c) => c.name)).toStrictEqual(["ask_user"])
      expect(plain.toolResults).toStrictEqual([])
      // The caller answers and continues from the whole conversation.
      expect(plain.messages.map((m) => m.role)).toStrictEqual(["user", "assistant"])
      expect(yield* TestModel.requests).toHaveLength(2)
    }).pipe(Effect.provide(model([
      [
        TestModel.toolCall("get_weather", { city: "Paris" }, { id: "w", index: 0 }),
        TestModel.toolCall("confirm", { question: "Sure?" }, { id: "q", index: 1 }),
        StreamChunk.finish("tool_calls")
      ],
      [TestModel.toolCall("ask_user", {}, { id: "u" }), StreamChunk.finish("tool_calls")]
    ]))))

  it.effect("prepareStep changes the next request: options and active tools", () =>
    Effect.gen(function*() {
      const chunks = yield* collect(LanguageModel.streamWithTools("go", toolkit, {
        prepareStep: ({ step }) => step === 1 ? { toolChoice: "required" } : { activeTools: ["get_time"], maxTokens: 9 }
      }))
      const requests = yield* TestModel.requests
      expect(requests.map((r) => [r.toolChoice, r.maxTokens, r.tools?.map((t) => t.name)])).toStrictEqual([
        ["required", undefined, ["get_weather", "get_time"]],
        [undefined, 9, ["get_time"]],
        [undefined, 9, ["get_time"]]
      ])
      // A call of a tool not active in its step is answered as unknown.
      expect(chunks.filter(StreamChunk.is("tool-result")).at(-1)?.result).toBe(
        "Unknown tool \"get_weather\". The tools available are: get_time."
      )
    }).pipe(Effect.provide(model([
      twoCalls,
      [TestModel.toolCall("get_weather", { city: "Paris" }, { id: "x" }), StreamChunk.finish("tool_calls")],
      answer("ok")
    ]))))

  it.effect("a provider error in a later step ends the stream with it, after the earlier steps' chunks", () =>
    Effect.gen(function*() {
      const chunks = yield* collect(LanguageModel.streamWithTools("go", toolkit))
      expect(chunks.map((c) => c.type)).toStrictEqual([
        "metadata",
        "tool-call",
        "tool-call",
        "usage",
        "tool-result",
        "tool-result",
        "step-finish",
        "text-delta",
        "error"
      ])
      expect(chunks.at(-1)).toStrictEqual(StreamChunk.error(busy))
      const failed = yield* Effect.flip(LanguageModel.chatWithTools("go", toolkit))
      expect(failed.code).toBe("overloaded")
      expect(failed.response?.steps.map((s) => [s.finishReason, s.text])).toStrictEqual([
        ["tool_calls", ""],
        ["error", "Hal"]
      ])
    }).pipe(Effect.provide(model([
      twoCalls,
      [StreamChunk.textDelta("Hal"), TestModel.fail(busy)],
      twoCalls,
      [StreamChunk.textDelta("Hal"), TestModel.fail(busy)]
    ]))))

  it.effect("interrupting the stream interrupts running handlers", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const interrupted = yield* Deferred.make<void>()
      const hang = Tool.make("hang", {
        parameters: Schema.Struct({}),
        handler: () =>
          Deferred.succeed(started, undefined).pipe(
            Effect.zipRight(Effect.never),
            Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined))
          )
      })
      const fiber = yield* Effect.fork(collect(LanguageModel.streamWithTools("go", Toolkit.make(hang))))
      yield* Deferred.await(started)
      yield* Fiber.interrupt(fiber)
      yield* Deferred.await(interrupted)
      expect(yield* TestModel.requests).toHaveLength(1)
    }).pipe(Effect.provide(model([[TestModel.toolCall("hang", {}), StreamChunk.finish("tool_calls")]]))))

  it.effect("handlers run concurrently up to `concurrency`, and results keep the call order", () =>
    Effect.gen(function*() {
      const running = yield* Ref.make(0)
      const peak = yield* Ref.make(0)
      const work = Tool.make("work", {
        parameters: Schema.Struct({ n: Schema.Number }),
        handler: ({ n }) =>
          Effect.gen(function*() {
            const now = yield* Ref.updateAndGet(running, (x) => x + 1)
            yield* Ref.update(peak, (p) => Math.max(p, now))
            // Later calls finish first.
            yield* Effect.sleep(`${10 - n} millis`)
            yield* Ref.update(running, (x) => x - 1)
            return n
          })
      })
      const fiber = yield* Effect.fork(
        collect(LanguageModel.streamWithTools("go", Toolkit.make(work), { concurrency: 2 }))
      )
      yield* TestClock.adjust("1 second")
      const chunks = yield* Fiber.join(fiber)
      expect(chunks.filter(StreamChunk.is("tool-result")).map((r) => r.result)).toStrictEqual([0, 1, 2, 3])
      expect(yield* Ref.get(peak)).toBe(2)
    }).pipe(Effect.provide(model([
      [
        ...[0, 1, 2, 3].map((n) => TestModel.toolCall("work", { n }, { id: `w${n}`, index: n })),
        StreamChunk.finish("tool_calls")
      ],
      answer("done")
    ]))))

  it.effect("bad options and duplicate tool names end the stream with invalid_request before any request", () =>
    Effect.gen(function*() {
      const dup = yield* collect(LanguageModel.streamWithTools("go", Toolkit.merge(toolkit, Toolkit.make(getTime))))
      expect(dup).toStrictEqual([
        StreamChunk.error(LlmError.info({
          code: "invalid_request",
          message: "Two tools are named \"get_time\": tool names must be unique",
          retryable: false
        }))
      ])
      const steps = yield* collect(LanguageModel.streamWithTools("go", toolkit, { maxSteps: 0 }))
      expect(steps.map((c) => c.type === "error" && c.error.message)).toStrictEqual([
        "maxSteps must be a whole number of at least 1 (got 0)"
      ])
      expect(yield* TestModel.requests).toHaveLength(0)
    }).pipe(Effect.provide(model([answer("never")]))))

  it.effect("a handler's requirements become the stream's", () =>
    Effect.gen(function*() {
      class Database extends Context.Tag("Database")<Database, { readonly temperature: (city: string) => number }>() {}
      const fromDb = Tool.make("get_weather", {
        parameters: Schema.Struct({ city: Schema.String }),
        handler: ({ city }) => Effect.map(Database, (db) => db.temperature(city))
      })
      const stream: Stream.Stream<StreamChunk.StreamChunk, never, LanguageModel.LanguageModel | Database> =
        LanguageModel
          .streamWithTools("go", Toolkit.make(fromDb))
      const chunks = yield* collect(stream).pipe(Effect.provideService(Database, { temperature: () => 21 }))
      expect(chunks.filter(StreamChunk.is("tool-result")).map((r) => r.result)).toStrictEqual([21])
    }).pipe(Effect.provide(model([
      [TestModel.toolCall("get_weather", { city: "Oslo" }), StreamChunk.finish("tool_calls")],
      answer("21")
    ]))))
})
