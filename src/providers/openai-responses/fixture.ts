/**
 * How a Responses API recording (one event payload per line) becomes wire text: each line as an
 * event named by its `type` (`event: response.output_text.delta` …), with no end marker: the stream
 * ends after its terminal event. `Fixture.sseText("openai-responses", …)` and this provider's
 * conformance tests frame recordings with it.
 *
 * @since 0.1.0
 */
import * as RecordingText from "../../internal/kit/recordingText.js"

/** The SSE text of a Responses API recording. */
export const sseText = (lines: ReadonlyArray<string>): string => RecordingText.typedEvents(lines)
