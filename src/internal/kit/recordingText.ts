/**
 * How a recording (one event payload per line, see `../shared/fixtures/README.md`) becomes the SSE
 * text a provider sends: the two shapes every SSE family uses, for each provider's `fixture.ts` to
 * pick from (with its own end marker or line ends).
 *
 * @since 0.1.0
 */

/** Each line as an unnamed event, `data: <line>` closed by a blank line (`lineEnd` twice). */
export const dataEvents = (lines: ReadonlyArray<string>, lineEnd = "\n"): string => {
  let text = ""
  for (const line of lines) text += `data: ${line}${lineEnd}${lineEnd}`
  return text
}

/** Each line as an event named by its JSON `type` field (`message` when it has none): `event: <type>`, `data: <line>`. */
export const typedEvents = (lines: ReadonlyArray<string>): string => {
  let text = ""
  for (const line of lines) text += `event: ${typeOf(line)}\ndata: ${line}\n\n`
  return text
}

/** A line's JSON `type` field, or `message` (the SSE default) when it is not JSON or has none. */
const typeOf = (line: string): string => {
  try {
    const parsed: unknown = JSON.parse(line)
    if (typeof parsed === "object" && parsed !== null && "type" in parsed && typeof parsed.type === "string") {
      return parsed.type
    }
  } catch {
    // a line that is not JSON has no type; it is framed as an unnamed event
  }
  return "message"
}
