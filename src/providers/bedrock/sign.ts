/**
 * AWS Signature Version 4 for Bedrock requests, by the maintained signer (`@smithy/signature-v4`
 * with `@aws-crypto/sha256-js`). The kit runs it for every request sent — each attempt, each
 * followed redirect — so the signature covers that request's exact body bytes, host and path, and
 * the time, read from the Effect `Clock` (so `TestClock` drives it).
 *
 * What is signed: `host`, `x-amz-date`, the session token (`x-amz-security-token`) when there is
 * one, and any `x-amz-*` header of the request; the payload hash is part of the signature but not
 * sent as a header. The path is signed as AWS services other than S3 expect: each segment encoded
 * once more (a model id's `%3A` signs as `%253A`).
 *
 * @since 0.1.0
 */
import { Sha256 } from "@aws-crypto/sha256-js"
import { SignatureV4 } from "@smithy/signature-v4"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import type * as Http from "../../internal/transport/Http.js"
import * as LlmError from "../../LlmError.js"

/** AWS credentials: an access key id, its secret, and a session token for temporary credentials. */
export interface Credentials {
  readonly accessKeyId: string
  readonly secretAccessKey: Redacted.Redacted<string>
  readonly sessionToken?: Redacted.Redacted<string> | undefined
}

/** The signing name of Bedrock's runtime API. */
export const service = "bedrock"

/** The credentials' secret values, to be masked everywhere. */
export const secretsOf = (credentials: Credentials): Array<string> => [
  Redacted.value(credentials.secretAccessKey),
  ...(credentials.sessionToken === undefined ? [] : [Redacted.value(credentials.sessionToken)])
]

/** A request signer for the kit: SigV4 with these credentials, for `region` and `signingName`. */
export const signer = (
  credentials: Credentials,
  region: string,
  provider: string,
  signingName: string = service
): Http.Signer => {
  const sigv4 = new SignatureV4({
    credentials: {
      accessKeyId: credentials.accessKeyId,
      secretAccessKey: Redacted.value(credentials.secretAccessKey),
      ...(credentials.sessionToken !== undefined ? { sessionToken: Redacted.value(credentials.sessionToken) } : {})
    },
    region,
    service: signingName,
    sha256: Sha256,
    applyChecksum: false
  })
  return (request) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => {
      let url: URL
      try {
        url = new URL(request.url)
      } catch {
        return Effect.fail(
          LlmError.make({ code: "invalid_request", message: `Not a URL: ${request.url}`, provider, retryable: false })
        )
      }
      const headers: Record<string, string> = { host: url.host }
      for (const [name, value] of Object.entries(request.headers)) {
        const lower = name.toLowerCase()
        if (lower.startsWith("x-amz-")) headers[lower] = value
      }
      const query: Record<string, string> = {}
      for (const [k, v] of url.searchParams) query[k] = v
      return Effect.tryPromise({
        try: () =>
          sigv4.sign({
            method: request.method,
            protocol: url.protocol,
            hostname: url.hostname,
            ...(url.port !== "" ? { port: Number(url.port) } : {}),
            path: url.pathname,
            query,
            headers,
            body: request.body
          }, { signingDate: new Date(now) }),
        catch: (e) =>
          LlmError.make({
            code: "authentication",
            message: `Signing the request failed: ${e instanceof Error ? e.message : String(e)}`,
            provider,
            retryable: false
          })
      }).pipe(Effect.map((signed) => {
        const out: Record<string, string> = {}
        for (const [name, value] of Object.entries(signed.headers)) if (name !== "host") out[name] = value
        return out
      }))
    })
}
