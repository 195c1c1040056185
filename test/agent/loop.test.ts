/**
 * The agent loop (`LanguageModel.streamWithTools`) over each of the seven families, through the real
 * provider layer and a loopback HTTP server: the exact chunks of the whole stream and the exact body
 * of every request, for parallel calls, a repaired bad argument, a typed failure, a defect, a
 * timeout, a denied approval, `maxSteps`, a client tool, an interruption and a provider error.
 */
import { describe, expect, it } from "@effect/vitest"
import { LanguageModel, type StreamChunk, Tool, Toolkit } from "effect-llm-stream"
import { NodeHttp } from "effect-llm-stream/node"
import * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { type Case, cases } from "./families.js"
import { bodiesOf, chunksOf, type Offered, type Planned } from "./plan.js"
import { type Answer, serve } from "./server.js"
import type { TextStep, ToolStep } from "./wire.js"

const prompt = "What's the weather and the time in Paris?"

const City = Schema.Struct({ city: Schema.String })
const Zone = Schema.Struct({ zone: Schema.String })
const weatherDescription = "The current weather in a city"
const timeDescription = "The current time in a time zone"

const weatherOffered: Offered = {
  name: "get_weather",
  description: weatherDescription,
  parameters: {
    type: "object",
    required: ["city"],
    properties: { city: { type: "string" } },
    additionalProperties: false
  }
}
const timeOffered: Offered = {
  name: "get_time",
  description: timeDescription,
  parameters: {
    type: "object",
    required: ["zone"],
    properties: { zone: { type: "string" } },
    additionalProperties: false
  }
}

const getWeather = Tool.make("get_weather", {
  description: weatherDescription,
  parameters: City,
  success: Schema.Struct({ city: Schema.String, temperatureC: Schema.Number }),
  handler: ({ city }) => Effect.succeed({ city, temperatureC: 18 })
})
const getTime = Tool.make("get_time", {
  description: timeDescription,
  parameters: Zone,
  handler: ({ zone }) => Effect.succeed({ zone, time: "14:05" })
})

// The steps the model answers with.

/** Step 1 of the main conversation: some text, then two parallel calls, their arguments in pieces. */
const parallel: ToolStep = {
  responseId: "resp_parallel",
  text: ["Let me ", "check."],
  calls: [
    { id: "call_weather_1", name: "get_weather", fragments: ["{\"ci", "ty\":\"Pa", "ris\"}"] },
    { id: "call_time_1", name: "get_time", fragments: ["{\"zone\"", ":\"CET\"}"] }
  ],
  usage: { input: 52, output: 24 }
}

/** One call of `get_weather` with this argument text. */
const weatherCall = (responseId: string, id: string, fragments: ReadonlyArray<string>): ToolStep => ({
  responseId,
  calls: [{ id, name: "get_weather", fragments }],
  usage: { input: 40, output: 9 }
})

const answer = (responseId: string, deltas: ReadonlyArray<string>, input = 131): TextStep => ({
  responseId,
  deltas,
  usage: { input, output: 12 }
})

const parisAnswer = answer("resp_answer", ["It is 18 °C ", "and 14:05 ", "in Paris."])
const parisResults = [
  { index: 0, result: { city: "Paris", temperatureC: 18 }, isError: false },
  { index: 1, result: { zone: "CET", time: "14:05" }, isError: false }
]

/** The wire answers of a plan's steps. */
const answersOf = (c: Case, plan: ReadonlyArray<Planned>): Array<Answer> =>
  plan.map((p) => ("tool" in p ? c.wire.toolCalls(p.tool) : c.wire.text(p.text)))

/** Runs the loop against a server answering with `answers`: every chunk, and every request body. */
const run = (
  c: Case,
  answers: ReadonlyArray<Answer>,
  stream: Stream.Stream<StreamChunk.StreamChunk, never, LanguageModel.LanguageModel>
) =>
  Effect.gen(function*() {
    const script = yield* serve(c, answers)
    const chunks = yield* Stream.runCollect(stream).pipe(Effect.provide(c.layer(script.server.url)))
    return { chunks: Chunk.toArray(chunks), bodies: script.bodies() }
  }).pipe(Effect.scoped, Effect.provide(NodeHttp.layer))

/**
 * The shared check of a scenario: the loop over `tools` answers `plan` step by step; the stream is
 * exactly what the plan says (ending in `error` when given) and each request is exactly its body.
 */
const expectPlan = (
  c: Case,
  options: {
    readonly plan: ReadonlyArray<Planned>
    readonly offered: ReadonlyArray<Offered>
    readonly stream: Stream.Stream<StreamChunk.StreamChunk, never, LanguageModel.LanguageModel>
    readonly answers?: ReadonlyArray<Answer>
    readonly error?: StreamChunk.Of<"error">
  }
) =>
  Effect.gen(function*() {
    const answers = options.answers ?? answersOf(c, options.plan)
    const { bodies, chunks } = yield* run(c, answers, options.stream)
    expect(chunks).toStrictEqual(chunksOf(c, options.plan, options.error))
    expect(bodies).toStrictEqual(bodiesOf(c, prompt, options.offered, options.plan, answers.length))
    return chunks
  })

/** Waits, in real time and without moving the test clock, until some fiber sleeps until `atMs`. */
const sleepingUntil = (atMs: number) =>
  Effect.gen(function*() {
    for (let i = 0; i < 5_000; i++) {
      if (Chunk.some(yield* TestClock.sleeps(), (t) => t === atMs)) return
      yield* Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))
    }
    return yield* Effect.dieMessage(`no fiber sleeps until ${atMs} ms`)
  })

describe.each(cases)("agent loop over $family (loopback HTTP)", (c) => {
  it.effect("two parallel calls, then the answer: the whole stream, and the step-2 body with both calls and results", () =>
    Effect.gen(function*() {
      const plan: Array<Planned> = [{ tool: parallel, results: parisResults }, { text: parisAnswer }]
      const chunks = yield* expectPlan(c, {
        plan,
        offered: [weatherOffered, timeOffered],
        stream: LanguageModel.streamWithTools(prompt, Toolkit.make(getWeather, getTime))
      })
      // The spine of the stream, spelled out: one metadata, one terminal chunk, the steps in order.
      expect(chunks.filter((x) => x.type === "metadata")).toHaveLength(1)
      expect(chunks.filter((x) => x.type === "finish" || x.type === "error")).toStrictEqual([
        { type: "finish", reason: "stop", rawReason: c.textStep(parisAnswer, { first: false }).finish.rawReason }
      ])
      expect(chunks.flatMap((x) => (x.type === "step-finish" ? [[x.step, x.finishReason]] : []))).toStrictEqual([
        [1, "tool_calls"],
        [2, "stop"]
      ])
    }))

  it.effect("a bad argument goes back as an error naming the field; the model repairs it, then answers", () =>
    Effect.gen(function*() {
      const bad = weatherCall("resp_bad", "call_bad", ["{\"city\":", "42}"])
      const fixed = weatherCall("resp_fixed", "call_fixed", ["{\"city\":", "\"Paris\"}"])
      const plan: Array<Planned> = [
        {
          tool: bad,
          results: [{
            index: 0,
            result: "Invalid arguments for get_weather: city: Expected string, actual 42",
            isError: true
          }]
        },
        { tool: fixed, results: [{ index: 0, result: { city: "Paris", temperatureC: 18 }, isError: false }] },
        { text: answer("resp_answer", ["It is 18 °C in Paris."]) }
      ]
      const chunks = yield* expectPlan(c, {
        plan,
        offered: [weatherOffered],
        stream: LanguageModel.streamWithTools(prompt, Toolkit.make(getWeather))
      })
      expect(chunks.filter((x) => x.type === "tool-result")).toStrictEqual([
        {
          type: "tool-result",
          toolCallId: c.callId(bad, 0),
          name: "get_weather",
          result: "Invalid arguments for get_weather: city: Expected string, actual 42",
          isError: true,
          step: 1
        },
        {
          type: "tool-result",
          toolCallId: c.callId(fixed, 0),
          name: "get_weather",
          result: { city: "Paris", temperatureC: 18 },
          isError: false,
          step: 2
        }
      ])
    }))

  it.effect("a typed failure goes back encoded by the tool's failure Schema, as an error result", () => {
    class CityNotFound extends Schema.TaggedError<CityNotFound>()("CityNotFound", { city: Schema.String }) {}
    const lookup = Tool.make("get_weather", {
      description: weatherDescription,
      parameters: City,
      failure: CityNotFound,
      handler: ({ city }) => Effect.fail(new CityNotFound({ city }))
    })
    return expectPlan(c, {
      plan: [
        {
          tool: weatherCall("resp_atlantis", "call_atlantis", ["{\"city\":", "\"Atlantis\"}"]),
          // The failure's encoded form, its fields in the order its Schema encodes them.
          results: [{ index: 0, result: { city: "Atlantis", _tag: "CityNotFound" }, isError: true }]
        },
        { text: answer("resp_answer", ["I could not find ", "Atlantis."]) }
      ],
      offered: [weatherOffered],
      stream: LanguageModel.streamWithTools(prompt, Toolkit.make(lookup))
    })
  })

  it.effect("a defect in a handler goes back as its message only, no stack", () => {
    const broken = Tool.make("get_weather", {
      description: weatherDescription,
      parameters: City,
      handler: () => Effect.die(new Error("boom"))
    })
    return expectPlan(c, {
      plan: [
        {
          tool: weatherCall("resp_boom", "call_boom", ["{\"city\":", "\"Paris\"}"]),
          results: [{ index: 0, result: "get_weather failed: boom", isError: true }]
        },
        { text: answer("resp_answer", ["The weather service ", "is down."]) }
      ],
      offered: [weatherOffered],
      stream: LanguageModel.streamWithTools(prompt, Toolkit.make(broken))
    })
  })

  it.effect("a handler past toolTimeout (on the test clock) is stopped and goes back as an error", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const stuck = Tool.make("get_weather", {
        description: weatherDescription,
        parameters: City,
        handler: () => Effect.zipRight(Deferred.succeed(started, undefined), Effect.never)
      })
      const plan: Array<Planned> = [
        {
          tool: weatherCall("resp_slow", "call_slow", ["{\"city\":", "\"Paris\"}"]),
          results: [{ index: 0, result: "get_weather did not finish within 5s and was stopped.", isError: true }]
        },
        { text: answer("resp_answer", ["The weather service ", "is slow."]) }
      ]
      const fiber = yield* Effect.fork(expectPlan(c, {
        plan,
        offered: [weatherOffered],
        stream: LanguageModel.streamWithTools(prompt, Toolkit.make(stuck), { toolTimeout: "5 seconds" })
      }))
      // Step 1 has been read whole (the handler runs after its finish); the timeout now sleeps on the clock.
      yield* Deferred.await(started)
      yield* sleepingUntil(5_000)
      yield* TestClock.adjust("5 seconds")
      yield* Fiber.join(fiber)
    }))

  it.effect("a denied approval goes back as an error; the handler never runs", () =>
    Effect.gen(function*() {
      const ran = yield* Ref.make(0)
      const guarded = Tool.make("get_weather", {
        description: weatherDescription,
        parameters: City,
        needsApproval: true,
        handler: ({ city }) => Effect.as(Ref.update(ran, (n) => n + 1), { city, temperatureC: 18 })
      })
      const asked = yield* Ref.make<ReadonlyArray<string>>([])
      const call = weatherCall("resp_guarded", "call_guarded", ["{\"city\":", "\"Paris\"}"])
      yield* expectPlan(c, {
        plan: [
          {
            tool: call,
            results: [{ index: 0, result: "The user denied this call to get_weather; it was not run.", isError: true }]
          },
          { text: answer("resp_answer", ["I was not allowed ", "to check."]) }
        ],
        offered: [weatherOffered],
        stream: LanguageModel.streamWithTools(prompt, Toolkit.make(guarded), {
          approve: (toolCall) => Effect.as(Ref.update(asked, (ids) => [...ids, toolCall.id]), false)
        })
      })
      expect(yield* Ref.get(ran)).toBe(0)
      expect(yield* Ref.get(asked)).toStrictEqual([c.callId(call, 0)])
    }))

  it.effect("maxSteps: 1 ends after the first step's results, with its tool_calls finish; one request", () =>
    expectPlan(c, {
      plan: [{ tool: parallel, results: parisResults }],
      offered: [weatherOffered, timeOffered],
      stream: LanguageModel.streamWithTools(prompt, Toolkit.make(getWeather, getTime), { maxSteps: 1 })
    }))

  it.effect("a client tool (no handler) stops the loop after its step: no result for it; one request", () => {
    const confirm = Tool.make("get_time", { description: timeDescription, parameters: Zone })
    return expectPlan(c, {
      // The weather call runs; the clock call is the caller's to answer.
      plan: [{ tool: parallel, results: [parisResults[0]!] }],
      offered: [weatherOffered, timeOffered],
      stream: LanguageModel.streamWithTools(prompt, Toolkit.make(getWeather, confirm))
    })
  })

  it.effect("interrupting the consumer mid-handler interrupts the handler; no second request", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const interrupted = yield* Deferred.make<void>()
      const blocking = Tool.make("get_weather", {
        description: weatherDescription,
        parameters: City,
        handler: () =>
          Effect.zipRight(Deferred.succeed(started, undefined), Effect.never).pipe(
            Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined))
          )
      })
      const step = weatherCall("resp_block", "call_block", ["{\"city\":", "\"Paris\"}"])
      const script = yield* serve(c, [c.wire.toolCalls(step), c.wire.text(answer("resp_answer", ["never"]))])
      const seen: Array<StreamChunk.StreamChunk> = []
      const fiber = yield* LanguageModel.streamWithTools(prompt, Toolkit.make(blocking)).pipe(
        Stream.runForEach((chunk) => Effect.sync(() => seen.push(chunk))),
        Effect.provide(c.layer(script.server.url)),
        Effect.fork
      )
      yield* Deferred.await(started)
      // The consumer has every chunk of step 1 up to its tool call and usage (its finish is withheld).
      expect(seen).toStrictEqual([...c.toolStep(step, { first: true }).chunks])
      yield* Fiber.interrupt(fiber)
      expect(yield* Deferred.isDone(interrupted)).toBe(true)
      expect(seen).toHaveLength(c.toolStep(step, { first: true }).chunks.length)
      expect(script.bodies()).toStrictEqual(bodiesOf(c, prompt, [weatherOffered], [], 1))
    }).pipe(Effect.scoped, Effect.provide(NodeHttp.layer)))

  it.effect("a provider error in step 2 ends the stream with that error, after step 1's chunks and results", () =>
    expectPlan(c, {
      plan: [{ tool: parallel, results: parisResults }],
      answers: [c.wire.toolCalls(parallel), c.wire.serverError],
      error: c.serverError,
      offered: [weatherOffered, timeOffered],
      stream: LanguageModel.streamWithTools(prompt, Toolkit.make(getWeather, getTime))
    }))
})
