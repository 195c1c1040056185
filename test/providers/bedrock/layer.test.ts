/**
 * The Bedrock layer over HTTP (Replay): the exact URL, headers and body; SigV4 signing (the
 * published test-suite vector, then every request of the layer signed anew at the `TestClock`'s
 * time); the bearer key; missing credentials and region; HTTP errors named by `x-amzn-ErrorType`;
 * a 200 that is not an event stream; a corrupt frame; exceptions retried only before content.
 */
import { Sha256 } from "@aws-crypto/sha256-js"
import { describe, expect, it } from "@effect/vitest"
import { SignatureV4 } from "@smithy/signature-v4"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as LanguageModel from "../../../src/LanguageModel.js"
import * as Fixture from "../../../src/providers/bedrock/fixture.js"
import * as Bedrock from "../../../src/providers/bedrock/index.js"
import * as Sign from "../../../src/providers/bedrock/sign.js"
import * as Replay from "../../../src/testing/Replay.js"
import { awaitSleepUntil } from "../../support/clock.js"
import { MODEL, own } from "./support.js"

/** AWS's published example credentials (the SigV4 test suite's), built at run time. */
const suiteKeyId = ["AKID", "EXAMPLE"].join("")
const suiteSecret = ["wJalrXUtnFEMI", "K7MDENG+bPxRfiCYEXAMPLEKEY"].join("/")
const fakeSecret = ["fake", "secret", "0123456789abcdef"].join("-")
const fakeToken = ["fake", "session", "token", "fedcba9876543210"].join("-")
const credentials: Bedrock.Credentials = {
  accessKeyId: "AKIDFAKEKEYID",
  secretAccessKey: Redacted.make(fakeSecret),
  sessionToken: Redacted.make(fakeToken)
}
const bearer = Redacted.make(["bedrock", "api", "key", "0123456789abcdef"].join("-"))
/** An ARN-like model id: `:` and `/` must be encoded in the path. */
const arn = "arn:aws:bedrock:us-west-2:123456789012:inference-profile/us.anthropic.claude-test-v1:0"
const stream = Fixture.eventStreamBytes([
  "{\"messageStart\":{\"role\":\"assistant\"}}",
  "{\"contentBlockDelta\":{\"contentBlockIndex\":0,\"delta\":{\"text\":\"Hi\"}}}",
  "{\"messageStop\":{\"stopReason\":\"end_turn\"}}",
  "{\"metadata\":{\"usage\":{\"inputTokens\":3,\"outputTokens\":1,\"totalTokens\":4}}}"
])
const ok: Replay.Reply = { headers: { "content-type": "application/vnd.amazon.eventstream" }, body: stream }

const chunksOf = <E>(layer: Layer.Layer<LanguageModel.LanguageModel, E, never>) =>
  LanguageModel.stream("hi").pipe(Stream.runCollect, Effect.map((c) => [...c]), Effect.provide(layer))

const last = <A>(xs: ReadonlyArray<A>): A => xs[xs.length - 1]!

/** 2015-08-30T12:36:00Z, the test suite's time. */
const suiteTime = Date.UTC(2015, 7, 30, 12, 36, 0)

describe("Bedrock SigV4", () => {
  it.effect("signs the test suite's post-vanilla request exactly as published", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(suiteTime)
      const sign = Sign.signer(
        { accessKeyId: suiteKeyId, secretAccessKey: Redacted.make(suiteSecret) },
        "us-east-1",
        "bedrock",
        "service"
      )
      const headers = yield* sign({ method: "POST", url: "https://example.amazonaws.com/", headers: {}, body: "" })
      expect(headers).toStrictEqual({
        "x-amz-date": "20150830T123600Z",
        authorization: "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, " +
          "SignedHeaders=host;x-amz-date, Signature=5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"
      })
    }))

  it.effect("signs each request of the layer at the clock's time: exact signature, session token, a new one per retry", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(suiteTime)
      const fiber = yield* Effect.fork(
        Effect.gen(function*() {
          const chunks = yield* LanguageModel.stream("hi").pipe(Stream.runCollect)
          return { chunks: [...chunks], requests: yield* Replay.requests }
        }).pipe(
          Effect.provide(Bedrock.layer({
            model: arn,
            region: "us-west-2",
            credentials,
            retry: { times: 1, schedule: Schedule.spaced("5 seconds") }
          })),
          Effect.provide(Replay.layer([{ status: 503, body: "{\"message\":\"busy\"}" }, ok]))
        )
      )
      yield* awaitSleepUntil(suiteTime + 5000)
      yield* TestClock.adjust("5 seconds")
      const { chunks, requests } = yield* Fiber.join(fiber)
      expect(last(chunks)).toStrictEqual({ type: "finish", reason: "stop", rawReason: "end_turn" })
      const path = `/model/${encodeURIComponent(arn)}/converse-stream`
      expect(path).toBe(
        "/model/arn%3Aaws%3Abedrock%3Aus-west-2%3A123456789012%3Ainference-profile%2Fus.anthropic.claude-test-v1%3A0/converse-stream"
      )
      expect(requests.map((r) => r.url)).toStrictEqual(
        [0, 1].map(() => `https://bedrock-runtime.us-west-2.amazonaws.com${path}`)
      )
      // The same request signed by hand with the library, at each attempt's time.
      const reference = new SignatureV4({
        credentials: { accessKeyId: "AKIDFAKEKEYID", secretAccessKey: fakeSecret, sessionToken: fakeToken },
        region: "us-west-2",
        service: "bedrock",
        sha256: Sha256,
        applyChecksum: false
      })
      for (const [i, stamp] of [[0, "20150830T123600Z"], [1, "20150830T123605Z"]] as const) {
        const signed = yield* Effect.promise(() =>
          reference.sign({
            method: "POST",
            protocol: "https:",
            hostname: "bedrock-runtime.us-west-2.amazonaws.com",
            path,
            query: {},
            headers: { host: "bedrock-runtime.us-west-2.amazonaws.com" },
            body: JSON.stringify(requests[i]!.body)
          }, { signingDate: new Date(suiteTime + i * 5000) })
        )
        const h = requests[i]!.headers
        expect(h["x-amz-date"]).toBe(stamp)
        expect(h["x-amz-security-token"]).toBe(fakeToken)
        expect(h.authorization).toBe(signed.headers.authorization)
        expect(h.authorization).toMatch(
          /^AWS4-HMAC-SHA256 Credential=AKIDFAKEKEYID\/20150830\/us-west-2\/bedrock\/aws4_request, SignedHeaders=host;x-amz-date;x-amz-security-token, Signature=[0-9a-f]{64}$/
        )
      }
      expect(requests[0]!.headers.authorization).not.toBe(requests[1]!.headers.authorization)
    }))

  it.effect("the secret and the session token are masked when the server echoes them", () =>
    Effect.gen(function*() {
      const body = Fixture.eventStreamBytes([
        "{\"contentBlockDelta\":{\"contentBlockIndex\":0,\"delta\":{\"text\":\"x\"}}}",
        JSON.stringify({
          exception: { type: "validationException", payload: { message: `bad ${fakeSecret} ${fakeToken}` } }
        })
      ])
      const chunks = yield* chunksOf(
        Bedrock.layer({ model: MODEL, region: "us-east-1", credentials }).pipe(Layer.provide(Replay.layer({ body })))
      )
      expect(last(chunks)).toMatchObject({
        type: "error",
        error: { code: "invalid_request", message: "bad [redacted] [redacted]" }
      })
      expect(JSON.stringify(chunks)).not.toContain("fake-secret")
      expect(JSON.stringify(chunks)).not.toContain("fake-session")
    }))
})

describe("Bedrock over HTTP (Replay)", () => {
  it.effect("a Bedrock API key goes as a bearer token; exact URL, headers and body; no signature", () =>
    Effect.gen(function*() {
      const chunks = yield* LanguageModel.stream({
        messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hello" }],
        maxTokens: 100
      }).pipe(Stream.runCollect, Effect.map((c) => [...c]))
      const [request] = yield* Replay.requests
      expect(request!.url).toBe(
        "https://bedrock-runtime.eu-west-1.amazonaws.com/model/amazon.nova-pro-v1%3A0/converse-stream"
      )
      expect(request!.headers.authorization).toBe(`Bearer ${Redacted.value(bearer)}`)
      expect(request!.headers.accept).toBe("application/vnd.amazon.eventstream")
      expect(request!.headers["x-amz-date"]).toBeUndefined()
      expect(request!.body).toStrictEqual({
        messages: [{ role: "user", content: [{ text: "Hello" }] }],
        system: [{ text: "Be brief." }],
        inferenceConfig: { maxTokens: 100 }
      })
      expect(chunks).toStrictEqual([
        { type: "metadata", provider: "bedrock", model: "amazon.nova-pro-v1:0" },
        { type: "text-delta", delta: "Hi" },
        {
          type: "usage",
          usage: {
            inputTokens: 3,
            outputTokens: 1,
            totalTokens: 4,
            raw: { inputTokens: 3, outputTokens: 1, totalTokens: 4 }
          }
        },
        { type: "finish", reason: "stop", rawReason: "end_turn" }
      ])
    }).pipe(
      Effect.provide(Bedrock.layer({ model: "amazon.nova-pro-v1:0", region: "eu-west-1", apiKey: bearer })),
      Effect.provide(Replay.layer(ok))
    ))

  it.effect("the demo transcripts: a get_weather call for Paris, then the answer", () =>
    Effect.gen(function*() {
      const layer = (body: Uint8Array) =>
        Bedrock.layer({ model: MODEL, region: "us-east-1", apiKey: bearer }).pipe(Layer.provide(Replay.layer({ body })))
      const call = yield* LanguageModel.chat("weather?").pipe(
        Effect.provide(layer(own("demo-weather-tool-call.jsonl")))
      )
      expect(call.toolCalls).toStrictEqual([
        {
          index: 0,
          id: "tooluse_demo_1",
          name: "get_weather",
          arguments: { city: "Paris" },
          rawArguments: "{\"city\": \"Paris\"}"
        }
      ])
      expect(call.text).toBe("Let me look up the weather in Paris.")
      expect(call.reasoningParts).toStrictEqual([{
        text: "The user wants current weather in Paris. I should call get_weather with city Paris.",
        signature: "EqQBCkYIBRgCKkDemoSignature0123",
        provider: "bedrock"
      }])
      expect([call.finishReason, call.rawFinishReason]).toStrictEqual(["tool_calls", "tool_use"])
      const { raw: _raw, ...usage } = call.usage!
      expect(usage).toStrictEqual({
        inputTokens: 198,
        outputTokens: 61,
        totalTokens: 259,
        cacheReadTokens: 128,
        cacheWriteTokens: 0
      })
      const answer = yield* LanguageModel.chat("weather?").pipe(Effect.provide(layer(own("demo-weather-answer.jsonl"))))
      expect(answer.text).toBe(
        "It's 18 °C with light rain in Paris right now: mild, but take an umbrella if you head out."
      )
      expect(answer.usage?.totalTokens).toBe(297)
    }))

  it.effect("responseFormat over HTTP: the forced json_response tool in the body, its input back as the answer's text", () =>
    Effect.gen(function*() {
      const schema = { type: "object", properties: { city: { type: "string" }, celsius: { type: "number" } } }
      const [response, requests] = yield* Effect.all([
        LanguageModel.chat({
          messages: [{ role: "user", content: "Weather in Paris as JSON" }],
          responseFormat: { type: "json_schema", name: "weather", schema }
        }),
        Replay.requests
      ]).pipe(
        Effect.provide(
          Bedrock.layer({ model: MODEL, region: "us-east-1", apiKey: bearer }).pipe(
            Layer.provideMerge(Replay.layer({ body: own("json-response.jsonl") }))
          )
        )
      )
      expect((requests[0]!.body as { toolConfig: unknown }).toolConfig).toStrictEqual({
        tools: [{
          toolSpec: {
            name: "json_response",
            description: "Respond with a JSON object matching this schema: call this tool once, with the whole answer.",
            inputSchema: { json: schema }
          }
        }],
        toolChoice: { tool: { name: "json_response" } }
      })
      expect(response.text).toBe("{\"city\": \"Paris\", \"celsius\": 18}")
      expect(response.toolCalls).toStrictEqual([])
      expect([response.finishReason, response.rawFinishReason]).toStrictEqual(["stop", "tool_use"])
    }))

  it.effect("citations over HTTP: source parts in order, the cited text whole", () =>
    Effect.gen(function*() {
      const response = yield* LanguageModel.chat("Summarize").pipe(
        Effect.provide(Bedrock.layer({ model: MODEL, region: "us-east-1", apiKey: bearer })),
        Effect.provide(Replay.layer({ body: own("citations.jsonl") }))
      )
      expect(response.text).toBe("According to the report, revenue grew 12% in Q3; markets rose.")
      expect(response.contentParts.map((p) => p.type === "source" ? [p.sourceType, p.title, p.url] : [])).toStrictEqual(
        [
          ["document", "Q3 report", undefined],
          ["url", "Markets today", "https://example.com/markets"]
        ]
      )
      expect(response.usage?.totalTokens).toBe(2818)
      expect(response.usage?.raw).toMatchObject({ performanceConfig: { latency: "standard" } })
    }))

  it.effect("no credentials of either kind: one authentication error naming what to set, and no request", () =>
    Effect.gen(function*() {
      const chunks = yield* chunksOf(
        Bedrock.layer({ model: MODEL, region: "us-east-1" }).pipe(Layer.provide(Replay.layer(ok)))
      )
      expect(chunks).toStrictEqual([{
        type: "error",
        error: {
          code: "authentication",
          message: "No credentials for bedrock: pass apiKey (a Bedrock API key) or credentials, or set " +
            "AWS_BEARER_TOKEN_BEDROCK, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY",
          provider: "bedrock",
          retryable: false
        }
      }])
      const noRegion = yield* chunksOf(
        Bedrock.layer({ model: MODEL, credentials }).pipe(Layer.provide(Replay.layer(ok)))
      )
      expect(noRegion).toMatchObject([{
        type: "error",
        error: {
          code: "invalid_request",
          message: "No region for bedrock: pass region or set AWS_REGION (or pass baseUrl, or set BEDROCK_BASE_URL)"
        }
      }])
    }))

  it.effect("layerConfig reads the AWS variables; a missing one is a ConfigError naming it", () =>
    Effect.gen(function*() {
      const withEnv = (env: Record<string, string>) =>
        Layer.provide(
          Bedrock.layerConfig({ model: MODEL }),
          Layer.mergeAll(
            Replay.layer(ok),
            Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))
          )
        )
      const signed = yield* Effect.gen(function*() {
        yield* LanguageModel.chat("hi")
        return yield* Replay.requests
      }).pipe(
        Effect.provide(Layer.provideMerge(
          Bedrock.layerConfig({ model: MODEL }),
          Layer.mergeAll(
            Replay.layer(ok),
            Layer.setConfigProvider(ConfigProvider.fromMap(
              new Map([["AWS_ACCESS_KEY_ID", "AKIDENV"], ["AWS_SECRET_ACCESS_KEY", fakeSecret], [
                "AWS_DEFAULT_REGION",
                "ap-south-1"
              ]])
            ))
          )
        ))
      )
      expect(signed[0]!.url).toBe(
        `https://bedrock-runtime.ap-south-1.amazonaws.com/model/${encodeURIComponent(MODEL)}/converse-stream`
      )
      expect(signed[0]!.headers.authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=AKIDENV\/\d{8}\/ap-south-1\/bedrock\/aws4_request, SignedHeaders=host;x-amz-date, /
      )
      const fail = (env: Record<string, string>) =>
        Effect.flip(Layer.build(withEnv(env)).pipe(Effect.scoped)).pipe(Effect.map((e) => String(e)))
      expect(yield* fail({ AWS_REGION: "us-east-1" })).toContain(
        "No Bedrock credentials: set AWS_BEARER_TOKEN_BEDROCK (a Bedrock API key), or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"
      )
      expect(yield* fail({ AWS_REGION: "us-east-1", AWS_ACCESS_KEY_ID: "AKIDENV" })).toContain(
        "AWS_ACCESS_KEY_ID is set without AWS_SECRET_ACCESS_KEY"
      )
      expect(yield* fail({ AWS_BEARER_TOKEN_BEDROCK: "bedrock-api-key-0123456789" })).toContain(
        "No AWS region: set AWS_REGION"
      )
      const viaBearer = yield* Effect.gen(function*() {
        yield* LanguageModel.chat("hi")
        return yield* Replay.requests
      }).pipe(Effect.provide(Layer.provideMerge(
        Bedrock.layerConfig({ model: MODEL }),
        Layer.mergeAll(
          Replay.layer(ok),
          Layer.setConfigProvider(ConfigProvider.fromMap(
            new Map([["AWS_BEARER_TOKEN_BEDROCK", "bedrock-api-key-0123456789"], [
              "BEDROCK_BASE_URL",
              "http://proxy.invalid"
            ]])
          ))
        )
      )))
      expect(viaBearer[0]!.url).toBe(`http://proxy.invalid/model/${encodeURIComponent(MODEL)}/converse-stream`)
      expect(viaBearer[0]!.headers.authorization).toBe("Bearer bedrock-api-key-0123456789")
    }))

  const errorCase = (status: number, errorType: string, message: string) =>
    chunksOf(
      Bedrock.layer({ model: MODEL, region: "us-east-1", apiKey: bearer, retry: { times: 0 } }).pipe(
        Layer.provide(Replay.layer({
          status,
          headers: { "content-type": "application/json", "x-amzn-errortype": errorType, "x-amzn-requestid": "req-1" },
          body: JSON.stringify({ message })
        }))
      )
    ).pipe(Effect.map(last))

  it.effect("HTTP errors are named by x-amzn-ErrorType (what follows ':' dropped), then the words", () =>
    Effect.gen(function*() {
      expect(
        yield* errorCase(
          400,
          "ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/",
          "Input is too long for requested model."
        )
      )
        .toMatchObject({
          type: "error",
          error: { code: "context_length", status: 400, requestId: "req-1", retryable: false }
        })
      expect(yield* errorCase(400, "ValidationException", "Malformed input request"))
        .toMatchObject({ error: { code: "invalid_request", message: "Malformed input request" } })
      expect(yield* errorCase(429, "ThrottlingException", "Too many requests"))
        .toMatchObject({ error: { code: "rate_limit", status: 429, retryable: true } })
      expect(
        yield* errorCase(403, "UnrecognizedClientException", "The security token included in the request is invalid.")
      )
        .toMatchObject({ error: { code: "authentication", status: 403, retryable: false } })
      expect(yield* errorCase(403, "AccessDeniedException", "No access to this model"))
        .toMatchObject({ error: { code: "permission" } })
      expect(yield* errorCase(400, "ServiceQuotaExceededException", "Quota exceeded"))
        .toMatchObject({ error: { code: "quota", retryable: false } })
      expect(yield* errorCase(424, "ModelErrorException", "The model failed"))
        .toMatchObject({ error: { code: "server", status: 424 } })
      expect(yield* errorCase(503, "ServiceUnavailableException", "Unavailable"))
        .toMatchObject({ error: { code: "overloaded", retryable: true } })
    }))

  it.effect("a 200 that is a JSON document is its error; an HTML page is a protocol error; never an empty answer", () =>
    Effect.gen(function*() {
      const run = (reply: Replay.Reply) =>
        chunksOf(
          Bedrock.layer({ model: MODEL, region: "us-east-1", apiKey: bearer, retry: { times: 0 } }).pipe(
            Layer.provide(Replay.layer(reply))
          )
        ).pipe(Effect.map(last))
      expect(
        yield* run({ headers: { "content-type": "application/json" }, body: "{\"message\":\"oops\",\"status\":500}" })
      )
        .toMatchObject({ type: "error", error: { code: "server", message: "oops" } })
      expect(
        yield* run({ headers: { "content-type": "application/vnd.amazon.eventstream" }, body: "<html>proxy</html>" })
      )
        .toMatchObject({ type: "error", error: { code: "protocol" } })
    }))

  it.effect("a corrupt message CRC: the text before it, then one protocol error", () =>
    Effect.gen(function*() {
      const bad = stream.slice()
      const second = Fixture.eventStreamBytes(["{\"messageStart\":{\"role\":\"assistant\"}}"]).length +
        Fixture.eventStreamBytes(["{\"contentBlockDelta\":{\"contentBlockIndex\":0,\"delta\":{\"text\":\"Hi\"}}}"])
          .length
      bad[second + 20]! ^= 0x40
      const chunks = yield* chunksOf(
        Bedrock.layer({ model: MODEL, region: "us-east-1", apiKey: bearer }).pipe(
          Layer.provide(Replay.layer({ body: bad, split: { seed: 3, maxRead: 16 } }))
        )
      )
      expect(chunks.slice(0, 2)).toStrictEqual([
        { type: "metadata", provider: "bedrock", model: MODEL },
        { type: "text-delta", delta: "Hi" }
      ])
      expect(chunks).toHaveLength(3)
      expect(last(chunks)).toMatchObject({ type: "error", error: { code: "protocol", provider: "bedrock" } })
    }))

  it.effect("a throttlingException before any content is retried; after content it ends the stream", () =>
    Effect.gen(function*() {
      const throttled = Fixture.eventStreamBytes([
        "{\"messageStart\":{\"role\":\"assistant\"}}",
        JSON.stringify({ exception: { type: "throttlingException", payload: { message: "Slow down" } } })
      ])
      const retried = yield* Effect.gen(function*() {
        const chunks = yield* LanguageModel.stream("hi").pipe(Stream.runCollect)
        return { chunks: [...chunks], requests: (yield* Replay.requests).length }
      }).pipe(
        Effect.provide(
          Bedrock.layer({
            model: MODEL,
            region: "us-east-1",
            apiKey: bearer,
            retry: { times: 1, schedule: Schedule.forever }
          })
        ),
        Effect.provide(Replay.layer([{ body: throttled }, ok]))
      )
      expect(retried.requests).toBe(2)
      expect(last(retried.chunks)).toStrictEqual({ type: "finish", reason: "stop", rawReason: "end_turn" })
      const late = yield* chunksOf(
        Bedrock.layer({ model: MODEL, region: "us-east-1", apiKey: bearer }).pipe(
          Layer.provide(Replay.layer({ body: own("exception-midstream.jsonl") }))
        )
      )
      expect(late).toStrictEqual([
        { type: "metadata", provider: "bedrock", model: MODEL },
        { type: "text-delta", delta: "Once upon" },
        {
          type: "error",
          error: {
            code: "server",
            message: "Model stream error",
            provider: "bedrock",
            retryable: true,
            details: {
              type: "modelStreamErrorException",
              body: { message: "Model stream error", originalStatusCode: 500, originalMessage: "upstream reset" }
            }
          }
        }
      ])
    }))
})
