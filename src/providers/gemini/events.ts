/**
 * The Gemini stream as it arrives on the wire (`streamGenerateContent?alt=sse`): one
 * `GenerateContentResponse` JSON object per SSE `data:` event, framed with CRLF; no `event:` names
 * and no end marker, the body just closes. Each event is a *partial response*: new parts of the
 * candidate, plus the running usage snapshot. See `reference/wire-formats.md` §4.
 *
 * The decoder does not trust these types: it reads a parsed event as the kit's `Guards.Unchecked`
 * object, whose field names are typed but whose values must pass a guard before use, so the hot
 * path stays at one `JSON.parse` per event, with no Schema decoding.
 *
 * @since 0.1.0
 */

/** One event: a partial `GenerateContentResponse`, or an in-band `{"error": …}`. */
export interface StreamEvent {
  readonly candidates: ReadonlyArray<unknown>
  readonly usageMetadata: UsageMetadata
  /** The model that answered (`gemini-2.5-flash`, …). */
  readonly modelVersion: string
  readonly responseId: string
  /** Vertex: when the response was made (RFC 3339). */
  readonly createTime: string
  /** A prompt blocked before any candidate: `{blockReason, safetyRatings}`. */
  readonly promptFeedback: PromptFeedback
  /** An error inside a 200 stream: `{code, message, status, details}`. */
  readonly error: ErrorObject
}

/** One candidate; only the first is read (`candidateCount` above 1 is not supported). */
export interface Candidate {
  readonly content: { readonly role?: string; readonly parts?: ReadonlyArray<unknown> }
  /** `STOP | MAX_TOKENS | SAFETY | RECITATION | … | MALFORMED_FUNCTION_CALL`; on the last chunk. */
  readonly finishReason: string
  /** Vertex omits it. */
  readonly index: number
  readonly citationMetadata: { readonly citations?: ReadonlyArray<unknown> }
  readonly groundingMetadata: GroundingMetadata
  /** The pages the `urlContext` tool read: `{urlMetadata: [{retrievedUrl, urlRetrievalStatus}]}`. */
  readonly urlContextMetadata: { readonly urlMetadata?: ReadonlyArray<unknown> }
}

/** Every field a part may carry: a part holds one of `text`, `functionCall`, `inlineData` …. */
export interface Part {
  readonly text: string
  /** The text is a thought summary (only with `thinkingConfig.includeThoughts`). */
  readonly thought: boolean
  /** Opaque, to send back on the same kind of part next turn; on any part. */
  readonly thoughtSignature: string
  readonly functionCall: FunctionCall
  /** Generated media, base64 (with `thought: true`, an image drawn while thinking). */
  readonly inlineData: { readonly mimeType?: string; readonly data?: string }
  /** Generated media by URI. */
  readonly fileData: { readonly mimeType?: string; readonly fileUri?: string }
  /** Code the model wrote and Google ran (the `codeExecution` tool): `{language, code, id?}`. */
  readonly executableCode: { readonly id?: string }
  /** What running it gave: `{outcome: "OUTCOME_OK" | "OUTCOME_FAILED" | …, output, id?}`. */
  readonly codeExecutionResult: { readonly id?: string; readonly outcome?: string }
  /** A call of a Google-run tool (tool combination, Gemini 3): `{id?, toolType, args}`. */
  readonly toolCall: ServerTool
  /** Its result: `{id?, toolType, response}`. */
  readonly toolResponse: ServerTool
}

/** A call or result of a tool Google runs itself (`toolType`: `GOOGLE_SEARCH_WEB`, `URL_CONTEXT` …). */
export interface ServerTool {
  readonly id: string
  readonly toolType: string
  readonly args: unknown
  readonly response: unknown
}

/**
 * A function call: whole (`name` + `args`), or streamed on Vertex with
 * `streamFunctionCallArguments`: `{name, willContinue: true}`, then `{partialArgs, willContinue}`
 * parts, then a terminating `{}` (or a last `partialArgs` part without `willContinue`).
 */
export interface FunctionCall {
  readonly id: string
  readonly name: string
  readonly args: unknown
  readonly partialArgs: ReadonlyArray<unknown>
  /** More parts of this same call follow. */
  readonly willContinue: boolean
}

/** One streamed argument value at a JSON path (`$.recipe.ingredients[0].name`). */
export interface PartialArg {
  readonly jsonPath: string
  /** A string value, or the next piece of one already started at this path. */
  readonly stringValue: string
  readonly numberValue: number
  readonly boolValue: boolean
  /** Present (any value, usually `"NULL_VALUE"`) for a JSON `null`. */
  readonly nullValue: unknown
  /** More of this string follows. */
  readonly willContinue: boolean
}

/**
 * The running usage: each event's is the server's total so far (last wins). `promptTokenCount`
 * includes `cachedContentTokenCount`; `candidatesTokenCount` leaves out `thoughtsTokenCount`.
 * Vertex's intermediate events may carry only `{trafficType}`.
 */
export interface UsageMetadata {
  readonly promptTokenCount: number
  readonly cachedContentTokenCount: number
  readonly candidatesTokenCount: number
  readonly thoughtsTokenCount: number
  readonly toolUsePromptTokenCount: number
  readonly totalTokenCount: number
  readonly trafficType: string
}

/** Why a prompt was refused before any candidate. */
export interface PromptFeedback {
  /** `SAFETY | OTHER | BLOCKLIST | PROHIBITED_CONTENT | IMAGE_SAFETY | …`. */
  readonly blockReason: string
  readonly blockReasonMessage: string
}

/** Search grounding: the web pages an answer relied on. */
export interface GroundingMetadata {
  readonly groundingChunks: ReadonlyArray<unknown>
  /** The searches Google ran for the answer. */
  readonly webSearchQueries: ReadonlyArray<unknown>
  /** The search suggestions Google's terms require an app to show (`{renderedContent}`: HTML). */
  readonly searchEntryPoint: unknown
}

/** One entry of `urlContextMetadata.urlMetadata`. */
export interface UrlMetadata {
  readonly retrievedUrl: string
  /** `URL_RETRIEVAL_STATUS_SUCCESS | URL_RETRIEVAL_STATUS_ERROR | …`. */
  readonly urlRetrievalStatus: string
}

/** One grounding chunk: a web page (or a Vertex retrieved document). */
export interface GroundingChunk {
  readonly web: { readonly uri?: string; readonly title?: string }
  readonly retrievedContext: { readonly uri?: string; readonly title?: string }
}

/** A citation of the answer text. */
export interface Citation {
  readonly uri: string
  readonly title: string
}

/**
 * Google's error object (`google.rpc.Status` as JSON), in HTTP error bodies and in-band:
 * `{"error":{"code":429,"message":…,"status":"RESOURCE_EXHAUSTED","details":[…]}}`.
 */
export interface ErrorObject {
  /** The HTTP status as a number. */
  readonly code: number
  readonly message: string
  /** `INVALID_ARGUMENT | UNAUTHENTICATED | PERMISSION_DENIED | NOT_FOUND | RESOURCE_EXHAUSTED | …`. */
  readonly status: string
  /** Typed entries: `google.rpc.RetryInfo {retryDelay: "37s"}`, `google.rpc.QuotaFailure`, `google.rpc.ErrorInfo`. */
  readonly details: ReadonlyArray<unknown>
}
