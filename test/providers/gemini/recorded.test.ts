/**
 * Every recording in `../shared/fixtures/recorded/google/`, decoded and checked against values
 * written by hand from reading the recording (texts, calls, signatures, usage numbers, finish
 * reasons, ids). Each line is framed `data: <line>\r\n\r\n` as Gemini sends it.
 */
import { expect, it } from "vitest"
import * as Fixture from "../../../src/providers/gemini/fixture.js"
import * as Response from "../../../src/Response.js"
import type * as StreamChunk from "../../../src/StreamChunk.js"
import { expectText, type Long, shapeOf } from "../../support/expectations.js"
import { describeRecorded, listRecorded, readRecorded } from "../../support/recorded.js"
import { decode, frame } from "./support.js"

interface Expected {
  readonly model: string
  readonly responseId: string
  readonly shape: string
  readonly text: string
  readonly reasoning?: ReadonlyArray<{ readonly text: string | Long; readonly signature?: Long }>
  readonly toolCalls?: ReadonlyArray<
    { readonly id: string; readonly name: string; readonly arguments: unknown; readonly signature?: Long }
  >
  readonly usage: {
    readonly inputTokens: number
    readonly outputTokens: number
    readonly totalTokens: number
    readonly reasoningTokens: number
  }
  readonly finish: readonly [StreamChunk.FinishReason, string]
}

const deltas = (n: number) => `tool-call-delta×${n}`

const lasagna = {
  recipe: {
    ingredients: [
      { amount: "16 oz", name: "Lasagna noodles" },
      { amount: "1 lb", name: "Ground beef" },
      { amount: "15 oz", name: "Ricotta cheese" },
      { amount: "3 cups", name: "Mozzarella cheese" },
      { amount: "1/2 cup", name: "Parmesan cheese" },
      { amount: "24 oz", name: "Tomato sauce" },
      { amount: "1", name: "Egg" },
      { amount: "2 cloves", name: "Garlic" },
      { amount: "1 tsp", name: "Salt" },
      { amount: "1/2 tsp", name: "Pepper" }
    ],
    name: "Lasagna",
    steps: [
      "Preheat oven to 375°F (190°C).",
      "Cook lasagna noodles according to package directions, drain and set aside.",
      "Brown ground beef with minced garlic in a skillet. Drain fat and stir in tomato sauce. Simmer for 10 minutes.",
      "In a bowl, mix ricotta cheese, egg, salt, pepper, and Parmesan cheese.",
      "In a 9x13 baking dish, spread a thin layer of meat sauce.",
      "Layer noodles, ricotta mixture, mozzarella, and meat sauce. Repeat.",
      "Top with remaining mozzarella cheese.",
      "Cover with foil and bake for 25 minutes.",
      "Remove foil and bake for another 25 minutes until golden.",
      "Let stand for 15 minutes before serving."
    ]
  }
}

const expectations: Record<string, Expected> = {
  // No thought parts (includeThoughts off): the signature arrives on the empty finishing text part.
  "google-reasoning.chunks.txt": {
    model: "gemini-3-pro-preview",
    responseId: "dX6LadKVC7SZ28oPr9yJoQs",
    shape: "metadata text-delta usage text-delta usage reasoning finish",
    text: "There are **3** \"r\"s in strawberry.\n\nHere is the breakdown: st**r**awbe**rr**y.",
    reasoning: [{ text: "", signature: { prefix: "Eo0HCooHAb4+", suffix: "Aj/uUJKN", length: 1216 } }],
    usage: { inputTokens: 9, outputTokens: 29 + 256, totalTokens: 294, reasoningTokens: 256 },
    finish: ["stop", "STOP"]
  },
  // Vertex: a thought, a whole no-argument call (signed), then three streamed calls each ended by `{}`.
  "google-stream-no-args-tool-call.chunks.txt": {
    model: "gemini-3-flash-preview",
    responseId: "_vr4aYiWEJnYodAPkujX0QM",
    shape:
      "metadata reasoning-delta reasoning tool-call-delta tool-call tool-call-delta×3 tool-call tool-call-delta×3 tool-call tool-call-delta×3 tool-call usage finish",
    text: "",
    reasoning: [{
      text: {
        prefix: "**Processing User Requests**\n\nI've started",
        suffix: "in parallel as instructed.\n\n\n",
        length: 320
      }
    }],
    toolCalls: [
      {
        id: "_vr4aYiWEJnYodAPkujX0QM_call_0",
        name: "read_theme",
        arguments: {},
        signature: { prefix: "AY89a18a8/Lo", suffix: "NTtCJA==", length: 1060 }
      },
      { id: "_vr4aYiWEJnYodAPkujX0QM_call_1", name: "read_screen", arguments: { id: "A" } },
      { id: "_vr4aYiWEJnYodAPkujX0QM_call_2", name: "read_screen", arguments: { id: "B" } },
      { id: "_vr4aYiWEJnYodAPkujX0QM_call_3", name: "read_screen", arguments: { id: "C" } }
    ],
    usage: { inputTokens: 249, outputTokens: 58 + 183, totalTokens: 490, reasoningTokens: 183 },
    finish: ["tool_calls", "STOP"]
  },
  "google-stream-tool-call-arguments.chunks.txt": {
    model: "gemini-3.1-pro-preview",
    responseId: "dqHOab6xGLzWodAPkPuViA4",
    shape: "metadata tool-call-delta×3 tool-call tool-call-delta×3 tool-call usage finish",
    text: "",
    toolCalls: [
      {
        id: "dqHOab6xGLzWodAPkPuViA4_call_0",
        name: "getWeather",
        arguments: { location: "Boston" },
        signature: { prefix: "CiMBjz1rX25K", suffix: "5VsZ0qQ=", length: 1032 }
      },
      { id: "dqHOab6xGLzWodAPkPuViA4_call_1", name: "getWeather", arguments: { location: "San Francisco" } }
    ],
    usage: { inputTokens: 26, outputTokens: 23 + 132, totalTokens: 181, reasoningTokens: 132 },
    finish: ["tool_calls", "STOP"]
  },
  // No terminating `{}`: the last partialArgs part (no willContinue) ends the call; nothing is lost.
  "google-stream-tool-call-array-arguments-missing-terminal-function-call.chunks.txt": {
    model: "gemini-3-flash-preview",
    responseId: "3noMaojQL_2s6tkPiO26qQ4",
    // 14 partialArgs parts, then the brackets that close the call.
    shape: `metadata ${deltas(15)} tool-call usage finish`,
    text: "",
    toolCalls: [{
      id: "3noMaojQL_2s6tkPiO26qQ4_call_0",
      name: "writeItems",
      arguments: {
        operations: [
          { action: "add", description: "Fresh red apple", itemid: "apple_001", price: 0.5 },
          { action: "add", description: "Ripe yellow banana", itemid: "banana_001", price: 0.3 }
        ]
      },
      signature: { prefix: "AY89a19ZkXSM", suffix: "+TNqtgGW", length: 732 }
    }],
    usage: { inputTokens: 54, outputTokens: 74 + 121, totalTokens: 249, reasoningTokens: 121 },
    finish: ["tool_calls", "STOP"]
  },
  "google-text.chunks.txt": {
    model: "gemini-3-pro-preview",
    responseId: "bH6LaZW8Fp_3nsEPqtaSwQ4",
    shape: "metadata text-delta usage text-delta usage reasoning finish",
    text: "There are **3** \"r\"s in strawberry.\n\nst**r**awbe**rr**y",
    reasoning: [{ text: "", signature: { prefix: "EqsFCqgFAb4+", suffix: "7eeWcow=", length: 916 } }],
    usage: { inputTokens: 9, outputTokens: 23 + 185, totalTokens: 217, reasoningTokens: 185 },
    finish: ["stop", "STOP"]
  },
  "google-tool-call.chunks.txt": {
    model: "gemini-3-pro-preview",
    responseId: "b36LacjwM668nsEP2tbsgQQ",
    shape: "metadata tool-call-delta tool-call usage finish",
    text: "",
    toolCalls: [{
      id: "b36LacjwM668nsEP2tbsgQQ_call_0",
      name: "weather",
      arguments: { location: "San Francisco" },
      signature: { prefix: "EqUCCqICAb4+", suffix: "yAMkHj4=", length: 396 }
    }],
    usage: { inputTokens: 29, outputTokens: 15 + 45, totalTokens: 89, reasoningTokens: 45 },
    finish: ["tool_calls", "STOP"]
  },
  // One call, nested objects and arrays streamed value by value; `{willContinue}` parts carry nothing.
  "google-vertex-stream-tool-call-arguments-nested.1.chunks.txt": {
    model: "gemini-3.1-pro-preview",
    responseId: "tjXVaYaxFISTq8YP_MWiyAo",
    // 64 partialArgs parts, each a fragment (an empty closing stringValue writes the quote), then the closing `}]}}`-style one.
    shape: `metadata ${deltas(65)} tool-call usage finish`,
    text: "",
    toolCalls: [{
      id: "tjXVaYaxFISTq8YP_MWiyAo_call_0",
      name: "cookRecipe",
      arguments: lasagna,
      signature: { prefix: "CmIBjz1rX0OQ", suffix: "a6nrcsk=", length: 5832 }
    }],
    usage: { inputTokens: 31, outputTokens: 684 + 1026, totalTokens: 1741, reasoningTokens: 1026 },
    finish: ["tool_calls", "STOP"]
  }
}

describeRecorded("google", () => {
  it("every recording has its expectations written here", () => {
    expect(listRecorded("google")).toStrictEqual(Object.keys(expectations).sort())
  })

  for (const [file, e] of Object.entries(expectations)) {
    it(file, () => {
      const chunks = decode(frame(Fixture.sseText(readRecorded("google", file))))
      expect(shapeOf(chunks)).toBe(e.shape)
      expect(chunks[0]).toStrictEqual({
        type: "metadata",
        provider: "google",
        model: e.model,
        responseId: e.responseId
      })
      const r = Response.fromChunks(chunks)
      expect(r.text).toBe(e.text)
      expect(r.reasoningParts.length).toBe(e.reasoning?.length ?? 0)
      e.reasoning?.forEach((want, i) => {
        const got = r.reasoningParts[i]!
        expectText(got.text, want.text)
        if (want.signature === undefined) expect(got.signature).toBeUndefined()
        else expectText(got.signature, want.signature)
      })
      expect(r.toolCalls.map((c) => [c.index, c.id, c.name, c.arguments, c.parseError])).toStrictEqual(
        (e.toolCalls ?? []).map((c, i) => [i, c.id, c.name, c.arguments, undefined])
      )
      e.toolCalls?.forEach((want, i) => {
        const got = r.toolCalls[i]!
        if (want.signature === undefined) expect(got.signature).toBeUndefined()
        else expectText(got.signature, want.signature)
        // The deltas of a call, joined, are its raw arguments.
        const joined = chunks.flatMap((c) => c.type === "tool-call-delta" && c.index === i ? [c.argumentsDelta] : [])
          .join("")
        expect(joined).toBe(got.rawArguments)
        expect(JSON.parse(got.rawArguments)).toStrictEqual(want.arguments)
      })
      const { raw: _raw, ...usage } = r.usage!
      expect(usage).toStrictEqual(e.usage)
      expect([r.finishReason, r.rawFinishReason]).toStrictEqual(e.finish)
    })
  }
})
