/**
 * How an Ollama recording (one JSON object per line) becomes wire text: the lines themselves, each
 * ended by `\n`, as `/api/chat` streams them (`application/x-ndjson`); the last line, `done: true`,
 * is the end marker. No recordings of this family ship in `../shared/fixtures`; our own transcripts
 * are already wire text, and tests that build a stream from objects frame it with this.
 *
 * @since 0.1.0
 */

/** The NDJSON text of a recording's lines. */
export const ndjsonText = (lines: ReadonlyArray<string>): string => {
  let text = ""
  for (const line of lines) text += `${line}\n`
  return text
}
