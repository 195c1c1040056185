/**
 * How a Bedrock ConverseStream recording (one decoded event per line, wrapped in its event name:
 * `{"contentBlockDelta":{…}}`) becomes the bytes Bedrock sends: one AWS event-stream message per
 * line, with the headers `:message-type: event`, `:event-type: <the key>` and
 * `:content-type: application/json`, and the wrapped value as the JSON payload. Messages are encoded
 * by the maintained codec (`@smithy/eventstream-codec`), CRCs included. This provider's tests, and
 * the demo, frame recordings and our own `.jsonl` transcripts with it.
 *
 * @since 0.1.0
 */
import { EventStreamCodec } from "@smithy/eventstream-codec"
import { fromUtf8, toUtf8 } from "@smithy/util-utf8"

const codec = new EventStreamCodec(toUtf8, fromUtf8)

/** One event-stream message with string headers and a text payload. */
export const message = (headers: Readonly<Record<string, string>>, payload: string): Uint8Array => {
  const typed: Record<string, { type: "string"; value: string }> = {}
  for (const [name, value] of Object.entries(headers)) typed[name] = { type: "string", value }
  return codec.encode({ headers: typed, body: fromUtf8(payload) })
}

/** An `event` message: `eventType` with its JSON payload. */
export const event = (eventType: string, payload: unknown): Uint8Array =>
  message(
    { ":message-type": "event", ":event-type": eventType, ":content-type": "application/json" },
    JSON.stringify(payload)
  )

/** An `exception` message (`throttlingException` …) with its JSON payload (`{"message": …}`). */
export const exception = (exceptionType: string, payload: unknown): Uint8Array =>
  message(
    { ":message-type": "exception", ":exception-type": exceptionType, ":content-type": "application/json" },
    JSON.stringify(payload)
  )

/**
 * The wire bytes of a recording or transcript: one message per non-blank line, the line's only key
 * naming the event (`exception` lines, `{"exception":{"type":…,"payload":…}}`, become exception
 * messages, for transcripts that end in one).
 */
export const eventStreamBytes = (lines: ReadonlyArray<string>): Uint8Array => {
  const messages: Array<Uint8Array> = []
  let size = 0
  for (const line of lines) {
    if (line.trim() === "") continue
    const parsed = JSON.parse(line) as Record<string, unknown>
    const name = Object.keys(parsed)[0] ?? "unknown"
    const value = parsed[name]
    const bytes = name === "exception"
      ? exception(String((value as { type?: unknown }).type), (value as { payload?: unknown }).payload ?? {})
      : event(name, value)
    messages.push(bytes)
    size += bytes.length
  }
  const out = new Uint8Array(size)
  let at = 0
  for (const m of messages) {
    out.set(m, at)
    at += m.length
  }
  return out
}

/** The lines of a `.jsonl` transcript or recording text. */
export const linesOf = (text: string): Array<string> =>
  text.split("\n").map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l)).filter((l) => l.trim() !== "")
