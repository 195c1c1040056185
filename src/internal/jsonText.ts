/**
 * Reading chunk JSON back out of text (`StreamChunk.decodeJsonLines`, `StreamChunk.decodeJsonStream`):
 * NDJSON, one chunk per line, or SSE whose `data:` fields hold the chunk JSON. The text may arrive in
 * pieces of any size; lines end in LF, CRLF or CR, a CRLF split across two pieces included.
 *
 * @since 0.1.0
 */
import * as Channel from "effect/Channel"
import * as Chunk from "effect/Chunk"
import * as Either from "effect/Either"
import * as Stream from "effect/Stream"
import * as LlmError from "../LlmError.js"

/** The longest line (or SSE event) read from a stream of text, in characters: 16 Mi. */
export const maxLineLength = 16 * 1024 * 1024

/** Reads lines one at a time, handing each decoded value to `emit`. */
export interface LineReader {
  /** Reads one line (without its line break); returns why it is not a chunk, naming the line, or undefined. */
  readonly line: (text: string) => string | undefined
  /** Ends the input: a pending SSE event is read. */
  readonly end: () => string | undefined
}

const ignoredFields: ReadonlySet<string> = new Set(["event", "id", "retry"])

/**
 * A line reader for NDJSON and SSE at once. A blank line is skipped (in SSE it ends an event); a line
 * starting with `:` is an SSE comment; `data:` lines are an SSE event's data, joined with `\n` and read
 * as one JSON value when the event ends; `event:`, `id:` and `retry:` lines are ignored; any other line
 * is one JSON value. Errors name the 1-based line (an event's first data line).
 */
export const lineReader = <A>(decode: (json: string) => Either.Either<A, string>, emit: (a: A) => void): LineReader => {
  let n = 0
  let data: Array<string> | undefined = undefined
  let dataLine = 0
  let dataLength = 0
  const read = (json: string, at: number): string | undefined => {
    const decoded = decode(json)
    if (Either.isLeft(decoded)) return `line ${at}: ${decoded.left}`
    emit(decoded.right)
    return undefined
  }
  const dispatch = (): string | undefined => {
    if (data === undefined) return undefined
    const json = data.join("\n")
    data = undefined
    return read(json, dataLine)
  }
  return {
    line: (text) => {
      n++
      if (text.trim() === "") return dispatch()
      if (text.startsWith(":")) return undefined
      const colon = text.indexOf(":")
      const field = colon < 0 ? text : text.slice(0, colon)
      if (field === "data") {
        const value = colon < 0 ? "" : text.slice(text[colon + 1] === " " ? colon + 2 : colon + 1)
        if (data === undefined) {
          data = []
          dataLine = n
          dataLength = 0
        }
        dataLength += value.length + 1
        if (dataLength > maxLineLength) return `line ${dataLine}: the event is longer than ${maxLineLength} characters`
        data.push(value)
        return undefined
      }
      if (ignoredFields.has(field)) return undefined
      return dispatch() ?? read(text, n)
    },
    end: dispatch
  }
}

/** Splits a whole text into lines (LF, CRLF or CR). */
export const splitLines = (text: string): Array<string> => text.split(/\r\n|\r|\n/)

/**
 * Cuts text arriving in pieces into lines; returns an error message when a line grows past
 * {@link maxLineLength}. A CR ending one piece and an LF starting the next are one line break.
 */
export const lineSplitter = (onLine: (line: string) => string | undefined) => {
  const lineBreak = /\r\n|\r|\n/g
  let buffer = ""
  let skipLf = false
  return {
    push: (piece: string): string | undefined => {
      let text = piece
      if (skipLf && text.startsWith("\n")) text = text.slice(1)
      skipLf = false
      if (text === "") return undefined
      const scanFrom = buffer.length
      buffer += text
      lineBreak.lastIndex = scanFrom
      let start = 0
      for (let m = lineBreak.exec(buffer); m !== null; m = lineBreak.exec(buffer)) {
        const error = onLine(buffer.slice(start, m.index))
        if (error !== undefined) return error
        start = m.index + m[0].length
        if (m[0] === "\r" && start === buffer.length) skipLf = true
      }
      buffer = start === 0 ? buffer : buffer.slice(start)
      if (buffer.length > maxLineLength) return `a line is longer than ${maxLineLength} characters`
      return undefined
    },
    end: (): string | undefined => {
      const rest = buffer
      buffer = ""
      return rest === "" ? undefined : onLine(rest)
    }
  }
}

/**
 * Decodes a stream of text pieces with a fresh {@link lineReader} per run. A line that is not a value
 * fails the stream with an `LlmError` of code `protocol`, after the values read before it.
 */
export const decodeStream = <A, E, R>(
  text: Stream.Stream<string, E, R>,
  decode: (json: string) => Either.Either<A, string>,
  step: () => (a: A) => A
): Stream.Stream<A, E | LlmError.LlmError, R> =>
  Stream.suspend(() => {
    const next = step()
    let out: Array<A> = []
    const reader = lineReader(decode, (a) => out.push(next(a)))
    const splitter = lineSplitter(reader.line)
    const flush = (error: string | undefined) => {
      const chunk = Chunk.unsafeFromArray(out)
      out = []
      const written = Chunk.isEmpty(chunk) ? Channel.void : Channel.write(chunk)
      return error === undefined
        ? written
        : Channel.zipRight(written, Channel.fail(LlmError.make({ code: "protocol", message: error, retryable: false })))
    }
    const loop: Channel.Channel<Chunk.Chunk<A>, Chunk.Chunk<string>, E | LlmError.LlmError, E, unknown, unknown> =
      Channel.readWithCause({
        onInput: (pieces: Chunk.Chunk<string>) => {
          let error: string | undefined = undefined
          for (const piece of pieces) {
            error = splitter.push(piece)
            if (error !== undefined) break
          }
          return error === undefined ? Channel.zipRight(flush(undefined), loop) : flush(error)
        },
        onFailure: (cause) => Channel.zipRight(flush(undefined), Channel.failCause(cause)),
        onDone: () => flush(splitter.end() ?? reader.end())
      })
    return Stream.fromChannel(Channel.pipeTo(Stream.toChannel(text), loop))
  })
