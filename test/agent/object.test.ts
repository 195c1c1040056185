/**
 * Structured output (`LanguageModel.streamObject` / `generateObject`) over each of the seven
 * families, through the real provider layer and a loopback HTTP server: the family's native JSON
 * mechanism in the exact request body, a `partial-object` after each delta that grew the value (over
 * a hundred of them for an array of 40 items in 5-character deltas), the decoded `object` right
 * before `finish`, and one `invalid_output` error naming the path when the Schema refuses the value.
 */
import { describe, expect, expectTypeOf, it } from "@effect/vitest"
import { LanguageModel, StreamChunk } from "effect-llm-stream"
import { NodeHttp } from "effect-llm-stream/node"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { type Case, cases } from "./families.js"
import { type Answer, serve } from "./server.js"
import type { TextStep } from "./wire.js"

const prompt = "The ten-day forecast for Paris, as JSON."

const Forecast = Schema.Struct({
  city: Schema.String,
  days: Schema.Array(Schema.Struct({ day: Schema.Number, summary: Schema.String, tempC: Schema.Number }))
})
type Forecast = typeof Forecast.Type

/** The JSON Schema every family receives for `Forecast` (`JSONSchema.make`, without `$schema`). */
const forecastJsonSchema = {
  type: "object",
  required: ["city", "days"],
  properties: {
    city: { type: "string" },
    days: {
      type: "array",
      items: {
        type: "object",
        required: ["day", "summary", "tempC"],
        properties: { day: { type: "number" }, summary: { type: "string" }, tempC: { type: "number" } },
        additionalProperties: false
      }
    }
  },
  additionalProperties: false
}

/**
 * Summaries of some length: the parser spaces its reports as the open array grows (one per as many
 * characters as the spine has members, so the work stays linear), so the count of partial objects
 * depends on the characters read; with 4-word summaries 40 days give about 80, with these about 140.
 */
const summaries = [
  "sunny all day, light wind from the west",
  "light rain in the morning, dry afternoon",
  "cloudy with bright spells after noon",
  "windy, with gusts near the coast"
]
const forecast: Forecast = {
  city: "Paris",
  days: Array.from({ length: 40 }, (_, i) => ({ day: i + 1, summary: summaries[i % 4]!, tempC: 8 + (i % 9) }))
}

/** Text cut into pieces of `size` characters. */
const pieces = (text: string, size: number): Array<string> => {
  const out: Array<string> = []
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size))
  return out
}

const forecastStep: TextStep = {
  responseId: "resp_forecast",
  deltas: pieces(JSON.stringify(forecast), 5),
  usage: { input: 64, output: 980 }
}

/**
 * Whether `partial` is a view of `whole` cut short: strings and numbers prefixes of its own, arrays no
 * longer and objects with no key it lacks, each member a view of the one in `whole`.
 */
const isViewOf = (partial: unknown, whole: unknown): boolean => {
  if (typeof partial === "string") return typeof whole === "string" && whole.startsWith(partial)
  if (typeof partial === "number") return typeof whole === "number" && String(whole).startsWith(String(partial))
  if (Array.isArray(partial)) {
    return Array.isArray(whole) && partial.length <= whole.length && partial.every((p, i) => isViewOf(p, whole[i]))
  }
  if (typeof partial === "object" && partial !== null) {
    if (typeof whole !== "object" || whole === null || Array.isArray(whole)) return false
    const members = whole as Record<string, unknown>
    return Object.entries(partial).every(([k, v]) => Object.hasOwn(members, k) && isViewOf(v, members[k]))
  }
  return partial === whole
}

/** Runs a structured-output stream against a server answering with `answer`: its chunks and the request body. */
const run = <A, I>(c: Case, answer: Answer, schema: Schema.Schema<A, I>) =>
  Effect.gen(function*() {
    const script = yield* serve(c, [answer])
    const chunks = yield* LanguageModel.streamObject(prompt, schema).pipe(
      Stream.runCollect,
      Effect.provide(c.layer(script.server.url))
    )
    return { chunks: Chunk.toArray(chunks), bodies: script.bodies() }
  }).pipe(Effect.scoped, Effect.provide(NodeHttp.layer))

describe.each(cases)("structured output over $family (loopback HTTP)", (c) => {
  it.effect("asks through the family's native JSON mechanism; > 100 partial objects, then the object, then finish", () =>
    Effect.gen(function*() {
      const { bodies, chunks } = yield* run(c, c.wire.json(forecastStep), Forecast)
      expect(bodies).toStrictEqual([c.objectBody(prompt, forecastJsonSchema)])

      // Every chunk but the partial objects, exactly: the step's own, then the object, then finish.
      const step = c.jsonStep(forecastStep, { first: true })
      expect(chunks.filter((x) => x.type !== "partial-object")).toStrictEqual([
        ...step.chunks,
        StreamChunk.object(forecast),
        step.finish
      ])

      // Each partial object follows a text delta, grew the one before it, and is a view of the object.
      const partials: Array<unknown> = []
      chunks.forEach((x, i) => {
        if (x.type !== "partial-object") return
        expect(chunks[i - 1]!.type).toBe("text-delta")
        const previous = partials[partials.length - 1]
        if (previous !== undefined) {
          expect(isViewOf(previous, x.value)).toBe(true)
          expect(x.value).not.toStrictEqual(previous)
        }
        expect(isViewOf(x.value, forecast)).toBe(true)
        partials.push(x.value)
      })
      expect(forecastStep.deltas.length).toBe(576)
      expect(partials.length).toBeGreaterThanOrEqual(100)
      // The first deltas `{"cit`, `y":"P`, `aris"`, `,"day`, `s":[{`: a key is shown once its value starts.
      expect(partials.slice(0, 4)).toStrictEqual([{}, { city: "P" }, { city: "Paris" }, { city: "Paris", days: [{}] }])
      expect(partials[partials.length - 1]).toStrictEqual(forecast)
      // The object chunk sits right before the terminal finish.
      expect(chunks.slice(-2)).toStrictEqual([StreamChunk.object(forecast), step.finish])
    }))

  it.effect("a value the Schema refuses ends the stream with one invalid_output error naming the path", () =>
    Effect.gen(function*() {
      const step: TextStep = {
        responseId: "resp_bad_object",
        deltas: ["{\"city\":\"Paris\",", "\"days\":[{\"day\":1,", "\"summary\":\"rain\",\"tempC\":\"warm\"}]}"],
        usage: { input: 64, output: 20 }
      }
      const { chunks } = yield* run(c, c.wire.json(step), Forecast)
      const text = step.deltas.join("")
      const issue = "days.0.tempC: Expected number, actual \"warm\""
      const own = c.jsonStep(step, { first: true }).chunks
      const [beforeDeltas, afterDeltas] = [own.findIndex((x) => x.type === "text-delta"), own.length - 1]
      expect(chunks).toStrictEqual([
        ...own.slice(0, beforeDeltas),
        StreamChunk.textDelta(step.deltas[0]!),
        StreamChunk.partialObject({ city: "Paris" }),
        StreamChunk.textDelta(step.deltas[1]!),
        StreamChunk.partialObject({ city: "Paris", days: [{ day: 1 }] }),
        StreamChunk.textDelta(step.deltas[2]!),
        StreamChunk.partialObject({ city: "Paris", days: [{ day: 1, summary: "rain", tempC: "warm" }] }),
        // The step's usage, then the error instead of its finish.
        ...own.slice(afterDeltas),
        StreamChunk.error({
          code: "invalid_output",
          message: `The model's output does not match the schema: ${issue}`,
          retryable: false,
          details: { text, issue }
        })
      ])
      expect(chunks.filter((x) => x.type === "error" || x.type === "finish" || x.type === "object")).toHaveLength(1)
    }))
})

describe("generateObject (loopback HTTP)", () => {
  const c = cases.find((x) => x.family === "openai-chat")!

  it.effect("returns the decoded, typed value", () =>
    Effect.gen(function*() {
      const script = yield* serve(c, [c.wire.json(forecastStep)])
      const value = yield* LanguageModel.generateObject(prompt, Forecast).pipe(
        Effect.provide(c.layer(script.server.url))
      )
      expectTypeOf(value).toEqualTypeOf<Forecast>()
      expect(value).toStrictEqual(forecast)
      expect(script.bodies()).toStrictEqual([c.objectBody(prompt, forecastJsonSchema)])
    }).pipe(Effect.scoped, Effect.provide(NodeHttp.layer)))

  it.effect("fails with invalid_output when the Schema refuses the value", () =>
    Effect.gen(function*() {
      const step: TextStep = {
        responseId: "resp_bad_object",
        deltas: ["{\"city\":\"Paris\",\"days\":", "[{\"day\":\"one\",\"summary\":\"rain\",\"tempC\":9}]}"],
        usage: { input: 64, output: 20 }
      }
      const script = yield* serve(c, [c.wire.json(step)])
      const error = yield* LanguageModel.generateObject(prompt, Forecast).pipe(
        Effect.provide(c.layer(script.server.url)),
        Effect.flip
      )
      expect([error.code, error.message, error.retryable, error.details]).toStrictEqual([
        "invalid_output",
        "The model's output does not match the schema: days.0.day: Expected number, actual \"one\"",
        false,
        { text: step.deltas.join(""), issue: "days.0.day: Expected number, actual \"one\"" }
      ])
    }).pipe(Effect.scoped, Effect.provide(NodeHttp.layer)))
})
