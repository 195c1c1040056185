/**
 * How a Gemini recording (one `GenerateContentResponse` per line) becomes wire text: each line as an
 * unnamed `data:` event closed by a CRLF blank line (`data: <line>\r\n\r\n`), as Gemini frames it;
 * no end marker, the body just closes. This provider's conformance tests frame recordings with it.
 *
 * @since 0.1.0
 */
import * as RecordingText from "../../internal/kit/recordingText.js"

/** The SSE text of a Gemini recording, with Gemini's CRLF line ends. */
export const sseText = (lines: ReadonlyArray<string>): string => RecordingText.dataEvents(lines, "\r\n")
