/**
 * How a Chat Completions recording (one `data:` payload per line) becomes wire text: each line as a
 * `data:` event, then the `[DONE]` marker the recordings leave out. `Fixture.sseText("openai-chat", …)`
 * and this provider's conformance tests frame recordings with it.
 *
 * @since 0.1.0
 */
import * as RecordingText from "../../internal/kit/recordingText.js"

/** The SSE text of a Chat Completions recording. */
export const sseText = (lines: ReadonlyArray<string>): string => RecordingText.dataEvents(lines) + "data: [DONE]\n\n"
