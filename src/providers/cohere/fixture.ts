/**
 * How a Cohere v2 chat recording (one event payload per line) becomes wire text: each line as an
 * event named by its `type` (`event: message-start` …); no end marker beyond `message-end`, which
 * the recordings keep. This provider's conformance tests frame recordings with it.
 *
 * @since 0.1.0
 */
import * as RecordingText from "../../internal/kit/recordingText.js"

/** The SSE text of a Cohere v2 chat recording. */
export const sseText = (lines: ReadonlyArray<string>): string => RecordingText.typedEvents(lines)
