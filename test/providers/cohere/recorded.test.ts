/**
 * Every recording in `../shared/fixtures/recorded/cohere/`, decoded and checked against values
 * written by hand from reading the recording (texts, calls, usage numbers, finish reasons, ids).
 * Each line is framed `event: <type>\ndata: <line>` as the wire carries it.
 */
import * as Either from "effect/Either"
import { expect, it } from "vitest"
import * as Fixture from "../../../src/providers/cohere/fixture.js"
import * as Response from "../../../src/Response.js"
import * as StreamChunk from "../../../src/StreamChunk.js"
import { shapeOf } from "../../support/expectations.js"
import { describeRecorded, listRecorded, readRecorded } from "../../support/recorded.js"
import { decode, frame } from "./support.js"

interface Expected {
  readonly responseId: string
  /** The chunk types in order, runs written `type×n`. */
  readonly shape: string
  readonly text: string
  readonly reasoning?: ReadonlyArray<{ readonly text: string }>
  readonly toolCalls?: ReadonlyArray<{ readonly id: string; readonly name: string; readonly arguments: unknown }>
  readonly usage: {
    readonly inputTokens: number
    readonly outputTokens: number
    readonly totalTokens: number
    readonly cacheReadTokens?: number
  }
  /** The provider's usage object, kept whole. */
  readonly raw: unknown
  readonly finish: readonly [StreamChunk.FinishReason, string]
}

const expectations: Record<string, Expected> = {
  // 36 thinking pieces in block 0, then 9 text pieces in block 1.
  "cohere-reasoning.chunks.txt": {
    responseId: "c9117d7f-a7e4-499f-b643-a2a1e139687b",
    shape: "metadata reasoning-delta×36 reasoning text-delta×9 usage cache-read finish",
    text: "The answer to 2 + 2 is 4.",
    reasoning: [{
      text: "The user is asking for the sum of 2 and 2. Since this is a straightforward arithmetic problem, " +
        "I don't need to use any tools. I can calculate the answer directly."
    }],
    // tokens 1394 / 54; billed 8 / 50; 1360 cached.
    usage: { inputTokens: 1394, outputTokens: 54, totalTokens: 1448, cacheReadTokens: 1360 },
    raw: {
      billed_units: { input_tokens: 8, output_tokens: 50 },
      tokens: { input_tokens: 1394, output_tokens: 54 },
      cached_tokens: 1360
    },
    finish: ["stop", "COMPLETE"]
  },
  "cohere-text.chunks.txt": {
    responseId: "321d178c-2c12-44d3-ae42-2f5510f6b1cc",
    shape: "metadata text-delta×7 usage cache-read finish",
    text: "The capital of France is Paris.",
    usage: { inputTokens: 507, outputTokens: 10, totalTokens: 517, cacheReadTokens: 448 },
    raw: {
      billed_units: { input_tokens: 12, output_tokens: 7 },
      tokens: { input_tokens: 507, output_tokens: 10 },
      cached_tokens: 448
    },
    finish: ["stop", "COMPLETE"]
  },
  // A 27-piece tool plan, then two calls of 7 argument pieces each.
  "cohere-tool-call.chunks.txt": {
    responseId: "2941521a-b87a-45f6-9b0d-235fd66c3025",
    shape: "metadata text-delta×27 tool-call-delta×7 tool-call tool-call-delta×7 tool-call usage cache-read finish",
    text: "I will use the weather tool to find the weather in San Francisco and the cityAttractions tool " +
      "to find attractions in San Francisco.",
    toolCalls: [
      { id: "weather_e8p4pn45zt0t", name: "weather", arguments: { location: "San Francisco" } },
      { id: "cityAttractions_pyxssbwnq9fq", name: "cityAttractions", arguments: { city: "San Francisco" } }
    ],
    usage: { inputTokens: 1549, outputTokens: 95, totalTokens: 1644, cacheReadTokens: 1504 },
    raw: {
      billed_units: { input_tokens: 119, output_tokens: 44 },
      tokens: { input_tokens: 1549, output_tokens: 95 },
      cached_tokens: 1504
    },
    finish: ["tool_calls", "TOOL_CALL"]
  }
}

describeRecorded("cohere", () => {
  it("has an expectation for every recording, and a recording for every expectation", () => {
    expect(listRecorded("cohere")).toStrictEqual(Object.keys(expectations).sort())
  })

  for (const [file, expected] of Object.entries(expectations)) {
    it(file, () => {
      const chunks = decode(frame(Fixture.sseText(readRecorded("cohere", file))))
      for (const chunk of chunks) expect(Either.isRight(StreamChunk.validate(chunk))).toBe(true)
      expect(shapeOf(chunks)).toBe(expected.shape)

      const response = Response.fromChunks(chunks)
      expect(response.metadata).toStrictEqual({ provider: "cohere", responseId: expected.responseId })
      expect(response.text).toBe(expected.text)
      expect(response.reasoningParts).toStrictEqual(expected.reasoning ?? [])
      expect(response.toolCalls.map(({ arguments: args, id, name }) => ({ id, name, arguments: args })))
        .toStrictEqual(expected.toolCalls ?? [])
      expect(response.contentParts).toStrictEqual([])
      const { raw, ...usage } = response.usage ?? { raw: undefined }
      expect(usage).toStrictEqual(expected.usage)
      expect(raw).toStrictEqual(expected.raw)
      expect([response.finishReason, response.rawFinishReason]).toStrictEqual([...expected.finish])
      expect(response.error).toBeUndefined()
    })
  }
})
