/**
 * Every recording in `../shared/fixtures/recorded/bedrock/`, framed as Bedrock sends it (one binary
 * event-stream message per line), decoded, and checked against values written by hand from reading
 * the recording: texts, reasoning and its signature, each tool call's id, name and arguments, every
 * usage number, the finish reason.
 */
import * as Either from "effect/Either"
import { expect, it } from "vitest"
import * as EventStream from "../../../src/internal/framing/EventStream.js"
import * as Fixture from "../../../src/providers/bedrock/fixture.js"
import * as Response from "../../../src/Response.js"
import * as StreamChunk from "../../../src/StreamChunk.js"
import { shapeOf } from "../../support/expectations.js"
import { describeRecorded, listRecorded, readRecorded } from "../../support/recorded.js"
import { decode, MODEL } from "./support.js"

interface Expected {
  readonly shape: string
  readonly text: string
  readonly reasoning?: ReadonlyArray<{ readonly text: string; readonly signature?: string }>
  readonly toolCalls?: ReadonlyArray<
    { readonly id: string; readonly name: string; readonly arguments: unknown; readonly rawArguments: string }
  >
  readonly usage?: { readonly inputTokens: number; readonly outputTokens: number; readonly totalTokens: number }
  readonly finish: readonly [StreamChunk.FinishReason, string]
}

const call = (id: string, name: string, rawArguments: string) => ({
  id,
  name,
  arguments: JSON.parse(rawArguments === "" ? "{}" : rawArguments) as unknown,
  rawArguments
})

const expectations: Record<string, Expected> = {
  // Usage (metadata) comes before messageStop here: the finish goes out at messageStop.
  "amazon-bedrock-json-only-text-first.1.chunks.txt": {
    shape: "metadata text-delta tool-call-delta tool-call usage finish",
    text: "Here is your data:",
    toolCalls: [call("json-tool-1", "json", "{\"name\":\"John\"}")],
    usage: { inputTokens: 100, outputTokens: 20, totalTokens: 120 },
    finish: ["tool_calls", "tool_use"]
  },
  "amazon-bedrock-json-other-tool.1.chunks.txt": {
    shape: "metadata tool-call-delta×2 tool-call usage finish",
    text: "",
    toolCalls: [call("toolu_01PQjhxo3eirCdKNvCJrKc8f", "get-weather", "{\"location\":\"San Francisco\"}")],
    usage: { inputTokens: 843, outputTokens: 28, totalTokens: 871 },
    finish: ["tool_calls", "tool_use"]
  },
  // No metadata at all: the body ends after messageStop, which still finishes (no usage).
  "amazon-bedrock-json-tool.1.chunks.txt": {
    shape: "metadata tool-call-delta tool-call finish",
    text: "",
    toolCalls: [call("json-tool-id", "json", "{\"value\":\"test\"}")],
    finish: ["tool_calls", "tool_use"]
  },
  // The text block is never stopped: the tool block's start does not close it, nothing is lost.
  "amazon-bedrock-json-tool.2.chunks.txt": {
    shape: "metadata text-delta×2 tool-call-delta tool-call finish",
    text: "Let me generate that JSON for you.",
    toolCalls: [call("json-tool-id", "json", "{\"value\":\"test\"}")],
    finish: ["tool_calls", "tool_use"]
  },
  // Three text blocks, none stopped, then a call.
  "amazon-bedrock-json-tool.3.chunks.txt": {
    shape: "metadata text-delta×3 tool-call-delta tool-call finish",
    text: "First text block.Second text block.Third block.",
    toolCalls: [call("json-tool-id", "json", "{\"result\":42}")],
    finish: ["tool_calls", "tool_use"]
  },
  "amazon-bedrock-json-with-tool.1.chunks.txt": {
    shape: "metadata text-delta tool-call-delta tool-call text-delta tool-call-delta tool-call finish",
    text: "Calling a tool first.Now JSON.",
    toolCalls: [
      call("tool-1", "get-weather", "{\"location\":\"SF\"}"),
      call("json-tool-id", "json", "{\"result\":\"data\"}")
    ],
    finish: ["tool_calls", "tool_use"]
  },
  "amazon-bedrock-json-with-tools.1.chunks.txt": {
    shape:
      "metadata text-delta tool-call-delta tool-call tool-call-delta tool-call text-delta tool-call-delta tool-call finish",
    text: "Multiple tools.Final JSON.",
    toolCalls: [
      call("tool-1", "tool-a", "{\"a\":\"1\"}"),
      call("tool-2", "tool-b", "{\"b\":\"2\"}"),
      call("json-tool-id", "json", "{\"final\":\"result\"}")
    ],
    finish: ["tool_calls", "tool_use"]
  },
  // Ten reasoning texts (the eleventh is ""), the signature, then nine text deltas.
  "amazon-bedrock-reasoning.chunks.txt": {
    shape: "metadata reasoning-delta×10 reasoning text-delta×9 usage finish",
    text: "There are **3** r's in \"strawberry\":\n\n1. st**r**awbe**r****r**y",
    reasoning: [{
      text:
        "Let me count the r's in \"strawberry\":\n\ns-t-r-a-w-b-e-r-r-y\n\nr appears at positions 3, 8, and 9.\n\n" +
        "So there are 3 r's.",
      signature:
        "Ep0CCkgICxABGAIqQOWPB6/PmA5SW9jC6FvaNq3E+U9ev4FMWcFWuAho+VGLCtazKc5WDjQ5i0MuxsY0o5pKDSVWVKii8KJDusXH4eASDK7jyzuk8iij7fJNihoMxHO9haYzt48R36HVIjCb/EmIFrJLIXShqN6DN//T6vZBtO9qj1QhNWJa3CGm8VZoq80S2/Ok4U0aVaIDiZcqggHC2b8BHuv8BHZrmsR0wjU1ynansBGMdfjnG+iIv8R5lPpRmYGhSVwNybwP3aQZ6o8Dr48Rau8TJfdsArW+r7bvL7bPs4f5nnlp2vG7WkMzWwABHK3fdM44zZ1GZQaWyECNWR2GfY6dXiklo94vgpFTPuZ97mfiN3LY6uYyBwL8RkDaGAE="
    }],
    usage: { inputTokens: 51, outputTokens: 94, totalTokens: 145 },
    finish: ["stop", "end_turn"]
  },
  "amazon-bedrock-text.chunks.txt": {
    shape: "metadata text-delta×12 usage finish",
    text:
      "Let me count the \"r\"s in \"strawberry\":\n\ns-t-**r**-a-w-b-e-**r**-**r**-y\n\nThere are **3** r's in \"strawberry.\"",
    usage: { inputTokens: 22, outputTokens: 55, totalTokens: 77 },
    finish: ["stop", "end_turn"]
  },
  // A text block with an empty `start`, then a call whose input is "": arguments {}.
  "amazon-bedrock-tool-no-args.chunks.txt": {
    shape: "metadata text-delta tool-call usage finish",
    text: "I'll update the issue list for you.",
    toolCalls: [call("tool-use-id", "updateIssueList", "")],
    usage: { inputTokens: 100, outputTokens: 25, totalTokens: 125 },
    finish: ["tool_calls", "tool_use"]
  }
}

describeRecorded("bedrock", () => {
  it("has an expectation for every recording, and a recording for every expectation", () => {
    expect(listRecorded("bedrock")).toStrictEqual(Object.keys(expectations).sort())
  })

  for (const [file, expected] of Object.entries(expectations)) {
    it(file, () => {
      const framer = new EventStream.Framer()
      const frames = [...framer.push(Fixture.eventStreamBytes(readRecorded("bedrock", file))), ...framer.end()]
      expect(framer.error).toBeUndefined()
      expect(frames).toHaveLength(readRecorded("bedrock", file).length)
      const chunks = decode(frames)
      for (const chunk of chunks) expect(Either.isRight(StreamChunk.validate(chunk))).toBe(true)
      expect(shapeOf(chunks)).toBe(expected.shape)

      const response = Response.fromChunks(chunks)
      expect(response.metadata).toStrictEqual({ provider: "bedrock", model: MODEL })
      expect(response.text).toBe(expected.text)
      expect(response.reasoningParts).toStrictEqual(
        (expected.reasoning ?? []).map((part) => ({ ...part, provider: "bedrock" }))
      )
      expect(
        response.toolCalls.map(({ arguments: args, id, name, rawArguments }) => ({
          id,
          name,
          arguments: args,
          rawArguments
        }))
      )
        .toStrictEqual(expected.toolCalls ?? [])
      if (expected.usage === undefined) expect(response.usage).toBeUndefined()
      else {
        const { raw, ...usage } = response.usage!
        expect(usage).toStrictEqual(expected.usage)
        expect(raw).toBeTypeOf("object")
      }
      expect([response.finishReason, response.rawFinishReason]).toStrictEqual([...expected.finish])
      expect(response.error).toBeUndefined()
    })
  }
})
