/**
 * What the recorded-stream tests of every provider share: a compact shape of a chunk sequence, and
 * long texts pinned by their ends and length.
 */
import { expect } from "vitest"
import type * as StreamChunk from "../../src/StreamChunk.js"

/** A long text, pinned by its ends and its length in UTF-16 code units. */
export interface Long {
  readonly prefix: string
  readonly suffix: string
  readonly length: number
}

/** The chunk types in order, runs written `type×n` ("metadata text-delta×12 usage finish"). */
export const shapeOf = (chunks: ReadonlyArray<StreamChunk.StreamChunk>): string => {
  const runs: Array<string> = []
  let i = 0
  while (i < chunks.length) {
    let j = i
    while (j < chunks.length && chunks[j]!.type === chunks[i]!.type) j++
    runs.push(j - i === 1 ? chunks[i]!.type : `${chunks[i]!.type}×${j - i}`)
    i = j
  }
  return runs.join(" ")
}

/** Asserts a text exactly, or a long one by its ends and length. */
export const expectText = (actual: string | undefined, expected: string | Long): void => {
  if (typeof expected === "string") return expect(actual).toBe(expected)
  expect([actual?.slice(0, expected.prefix.length), actual?.slice(-expected.suffix.length), actual?.length])
    .toStrictEqual([expected.prefix, expected.suffix, expected.length])
}
