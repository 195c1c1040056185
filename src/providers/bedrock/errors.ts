/**
 * Bedrock errors → {@link LlmError.ErrorInfo}: HTTP error responses, and the `exception` and
 * `error` messages of a 200 event stream. Bedrock names the error apart from its body
 * (`{"message": …}`): in the `x-amzn-ErrorType` response header (`ThrottlingException:http://…`,
 * the part after `:` dropped), in a body's `__type` (`com.amazon…#ValidationException`), or in an
 * exception message's `:exception-type` header (`throttlingException`). That name decides, except
 * that an over-long prompt (a `ValidationException` in words only) is `context_length`; then the status.
 *
 * @since 0.1.0
 */
import * as ErrorBody from "../../internal/kit/ErrorBody.js"
import * as Guards from "../../internal/kit/guards.js"
import * as LlmError from "../../LlmError.js"

/** What the transport passes besides the body: the masked response headers too. */
export type Extras = ErrorBody.Extras & { readonly headers?: Readonly<Record<string, string>> | undefined }

/** Bedrock's exception names (lower case), HTTP and in-stream alike. */
const byType: ReadonlyMap<string, LlmError.ErrorCode> = new Map<string, LlmError.ErrorCode>([
  ["validationexception", "invalid_request"],
  ["accessdeniedexception", "permission"],
  ["resourcenotfoundexception", "not_found"],
  ["modeltimeoutexception", "timeout"],
  ["modelerrorexception", "server"],
  ["modelstreamerrorexception", "server"],
  ["throttlingexception", "rate_limit"],
  // A model still loading: worth a retry, like an overloaded host.
  ["modelnotreadyexception", "overloaded"],
  ["servicequotaexceededexception", "quota"],
  ["internalserverexception", "server"],
  ["internalfailure", "server"],
  ["serviceunavailableexception", "overloaded"],
  // AWS authentication failures, whatever the service.
  ["unrecognizedclientexception", "authentication"],
  ["expiredtokenexception", "authentication"],
  ["invalidsignatureexception", "authentication"],
  ["incompletesignatureexception", "authentication"],
  ["missingauthenticationtokenexception", "authentication"],
  ["signaturedoesnotmatch", "authentication"]
])

const mapper = ErrorBody.make({
  phrases: [
    ["input is too long", "context_length"],
    ["too many input tokens", "context_length"],
    ["prompt is too long", "context_length"],
    ["context window", "context_length"],
    ["maximum context length", "context_length"],
    ["context length", "context_length"]
  ]
})

/** An exception name without a namespace (`…#Name`) or a trailing `:http://…`. */
export const typeName = (raw: unknown): string | undefined => {
  if (!Guards.isNonEmptyString(raw)) return undefined
  const noUri = raw.split(":")[0]!
  const name = noUri.slice(noUri.lastIndexOf("#") + 1).trim()
  return name === "" ? undefined : name
}

/** The error's code: a context-length phrase, else the exception name, else what the body and status say. */
const withType = (info: LlmError.ErrorInfo, type: string | undefined): LlmError.ErrorInfo => {
  const code = info.code === "context_length"
    ? undefined
    : type === undefined
    ? undefined
    : byType.get(type.toLowerCase())
  const details = type === undefined ? info.details : { type, body: info.details ?? null }
  return LlmError.info({
    ...info,
    details,
    ...(code !== undefined ? { code, retryable: LlmError.isRetryableCode(code) } : {})
  })
}

/**
 * Maps an HTTP error response (or a JSON document in a 200 response) to error data, by the
 * `x-amzn-ErrorType` header or the body's `__type`, then its words and the status.
 */
export const fromBody = (
  status: number | undefined,
  body: unknown,
  provider: string,
  extras?: Extras
): LlmError.ErrorInfo => {
  const parsed = typeof body === "string" ? ErrorBody.parse(body) : body
  const bodyType = Guards.isObject<{ __type: string }>(parsed) ? parsed.__type : undefined
  const type = typeName(extras?.headers?.["x-amzn-errortype"]) ?? typeName(bodyType)
  return withType(mapper(status, parsed, provider, extras), type)
}

/**
 * Maps an `exception` message of the stream: `:exception-type` names it, the payload is
 * `{"message": …}` (a `modelStreamErrorException` adds `originalStatusCode` and `originalMessage`).
 */
export const fromException = (
  exceptionType: string | undefined,
  payload: string,
  provider: string
): LlmError.ErrorInfo =>
  withType(mapper(undefined, ErrorBody.parse(payload), provider), typeName(exceptionType) ?? "exception")

/** Maps an `error` message of the stream (`:error-code`, `:error-message`; no payload to read). */
export const fromErrorMessage = (
  errorCode: string | undefined,
  errorMessage: string | undefined,
  provider: string
): LlmError.ErrorInfo =>
  withType(
    mapper(
      undefined,
      { message: errorMessage ?? `The stream reported an error${errorCode ? ` (${errorCode})` : ""}` },
      provider
    ),
    typeName(errorCode)
  )
