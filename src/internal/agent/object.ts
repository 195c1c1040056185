/**
 * Structured output behind `LanguageModel.streamObject`: the request asks for JSON matching the
 * Schema through each family's native mechanism (`responseFormat: json_schema`), the answer's text
 * feeds one incremental parser (linear in the text), a `partial-object` chunk follows each text delta
 * that grew the value, and the Schema-decoded `object` comes right before the terminal `finish`. A
 * value that is not JSON or fails the Schema ends the stream with one `invalid_output` error instead.
 */
import * as Chunk from "effect/Chunk"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as ChatRequest from "../../ChatRequest.js"
import type * as LanguageModel from "../../LanguageModel.js"
import * as LlmError from "../../LlmError.js"
import * as StreamChunk from "../../StreamChunk.js"
import { Joiner } from "../joiner.js"
import * as Json from "../json.js"
import { Incremental } from "../partialJsonIncremental.js"
import { describeIssue } from "./loop.js"

/** The options of `streamObject` (documented on `LanguageModel.ObjectOptions`). */
export interface Options {
  readonly name?: string | undefined
  readonly description?: string | undefined
  readonly strict?: boolean | undefined
}

/**
 * Feeds the answer's text to the parser, past a Markdown code fence some models wrap JSON in
 * (```` ```json ```` on the first line, ```` ``` ```` at the end).
 */
class Feeder {
  readonly text = new Joiner()
  readonly parser = new Incremental()
  /** Text seen before the first non-blank character: a fence line is skipped whole. */
  private head = ""
  private started = false
  private inFence = false

  /** Feeds a delta; whether the parsed value grew. */
  push(delta: string): boolean {
    this.text.push(delta)
    if (this.started) return this.feed(delta)
    this.head += delta
    const trimmed = this.head.trimStart()
    if (trimmed === "") return false
    if (trimmed.startsWith("`")) {
      const newline = trimmed.indexOf("\n")
      if (newline < 0) return false
      this.inFence = true
      this.started = true
      return this.feed(trimmed.slice(newline + 1))
    }
    this.started = true
    return this.feed(trimmed)
  }

  private feed(text: string): boolean {
    // Inside a fence the closing backticks are not JSON: the parser stops at them, and `finish` cuts them.
    if (this.inFence) {
      const fence = text.indexOf("`")
      if (fence >= 0) text = text.slice(0, fence)
    }
    return text === "" ? false : this.parser.push(text)
  }

  /** The whole JSON text, fence removed. */
  json(): string {
    let all = this.text.join().trim()
    if (all.startsWith("`")) {
      const newline = all.indexOf("\n")
      all = newline < 0 ? "" : all.slice(newline + 1)
      const end = all.lastIndexOf("```")
      if (end >= 0) all = all.slice(0, end)
    }
    return all
  }
}

const invalidOutput = (message: string, text: string, issue?: string): StreamChunk.Of<"error"> =>
  StreamChunk.error(
    LlmError.info({
      code: "invalid_output",
      message,
      retryable: false,
      details: issue === undefined ? { text } : { text, issue }
    })
  )

/** The structured-output stream over one service. */
export const run = <A, I>(
  service: LanguageModel.Service,
  input: ChatRequest.Input,
  schema: Schema.Schema<A, I>,
  options: Options = {}
): Stream.Stream<StreamChunk.WithObject<A>> =>
  Stream.suspend(() => {
    const base = ChatRequest.make(input)
    const format: { description?: string; strict?: boolean } = {}
    if (options.description !== undefined) format.description = options.description
    if (options.strict !== undefined) format.strict = options.strict
    const request: ChatRequest.ChatRequest = {
      ...base,
      responseFormat: ChatRequest.jsonSchema(options.name ?? "response", schema, format)
    }
    const feeder = new Feeder()
    const decode = Schema.decodeUnknownEither(schema)
    const end = (finish: StreamChunk.Of<"finish">, out: Array<StreamChunk.WithObject<A>>): void => {
      const text = feeder.json()
      let parsed: unknown
      try {
        parsed = JSON.parse(text)
      } catch (e) {
        const why = finish.reason === "stop"
          ? `it is not JSON (${e instanceof Error ? e.message : String(e)})`
          : `the answer ended (${finish.reason}) before its JSON was complete`
        out.push(invalidOutput(`The model's output could not be read as the requested object: ${why}`, text))
        return
      }
      // What we emit must survive the chunk codec (64 levels of nesting, no `Infinity`).
      const problem = Json.check(parsed)
      if (problem !== undefined) {
        out.push(
          invalidOutput(
            `The model's output could not be read as the requested object: it ${Json.describe(problem)}`,
            text
          )
        )
        return
      }
      const decoded = decode(parsed)
      if (Either.isLeft(decoded)) {
        const issue = describeIssue(decoded.left)
        out.push(invalidOutput(`The model's output does not match the schema: ${issue}`, text, issue))
        return
      }
      out.push(StreamChunk.object(decoded.right), finish)
    }
    return service.stream(request).pipe(Stream.mapChunks((batch) => {
      const out: Array<StreamChunk.WithObject<A>> = []
      for (const c of batch) {
        if (c.type === "text-delta") {
          out.push(c)
          if (feeder.push(c.delta)) out.push(StreamChunk.partialObject(feeder.parser.snapshot()))
        } else if (c.type === "finish") {
          end(c, out)
        } else if (c.type !== "object") {
          out.push(c)
        }
      }
      return Chunk.unsafeFromArray(out)
    }))
  })
