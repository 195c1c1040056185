/**
 * `Registry`: model strings taken apart at the first colon, every provider module and preset built
 * from the environment (checked by the request each one sends), and the typed errors that name what
 * to set.
 */
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as LanguageModel from "../../src/LanguageModel.js"
import * as Registry from "../../src/Registry.js"
import * as Replay from "../../src/testing/Replay.js"

/** A fake key per variable, built at run time: the variable's name, so a test can tell which was read. */
const fakeKey = (variable: string) => `test-${variable.toLowerCase()}-0123456789`

/** Every variable any entry reads, set; `omit` leaves some out. */
const env = (omit: ReadonlyArray<string> = [], extra: ReadonlyArray<readonly [string, string]> = []) => {
  const vars = [
    "OPENAI_API_KEY",
    "AZURE_OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GROQ_API_KEY",
    "DEEPSEEK_API_KEY",
    "MISTRAL_API_KEY",
    "XAI_API_KEY",
    "OPENROUTER_API_KEY",
    "TOGETHER_API_KEY",
    "FIREWORKS_API_KEY",
    "CEREBRAS_API_KEY",
    "PERPLEXITY_API_KEY",
    "MOONSHOT_API_KEY",
    "DASHSCOPE_API_KEY",
    "GEMINI_API_KEY",
    "COHERE_API_KEY"
  ].filter((v) => !omit.includes(v)).map((v) => [v, fakeKey(v)] as const)
  const base: Array<readonly [string, string]> = omit.includes("AZURE_OPENAI_BASE_URL")
    ? []
    : [["AZURE_OPENAI_BASE_URL", "https://res.openai.azure.com/openai/v1"]]
  return ConfigProvider.fromMap(new Map([...vars, ...base, ...extra]))
}

/** Builds the model a string names under `provider` and sends one request: what was sent, and the service. */
const sent = (spec: string, provider = env(), overrides?: Registry.Overrides) =>
  Effect.gen(function*() {
    const service = yield* LanguageModel.LanguageModel
    yield* Stream.runDrain(LanguageModel.stream("hi"))
    const [request] = yield* Replay.requests
    return { service, request: request! }
  }).pipe(
    Effect.provide(Layer.provideMerge(Registry.layer(spec, overrides), Replay.layer({ body: "" }))),
    Effect.withConfigProvider(provider)
  )

const failure = (spec: string, provider = env()) =>
  Registry.make(spec).pipe(
    Effect.flip,
    Effect.provide(Replay.layer({ body: "" })),
    Effect.withConfigProvider(provider)
  )

describe("Registry.parse", () => {
  it("splits at the first colon only, lower-casing the provider", () => {
    expect(Registry.parse("ollama:qwen3:8b")).toEqual(Either.right({ provider: "ollama", model: "qwen3:8b" }))
    expect(Registry.parse("Groq:llama-3.3-70b-versatile")).toEqual(
      Either.right({ provider: "groq", model: "llama-3.3-70b-versatile" })
    )
    expect(Registry.parse("bedrock:anthropic.claude-3-5-sonnet-20240620-v1:0")).toEqual(
      Either.right({ provider: "bedrock", model: "anthropic.claude-3-5-sonnet-20240620-v1:0" })
    )
  })

  it.each(["gpt-4.1", ":gpt-4.1", "openai:", "  :  ", ""])("rejects %j as InvalidModelString", (spec) => {
    const result = Registry.parse(spec)
    expect(Either.isLeft(result)).toBe(true)
    if (Either.isLeft(result)) {
      expect(result.left.reason).toBe("InvalidModelString")
      expect(result.left.message).toBe(
        `Expected "provider:model" (e.g. "anthropic:claude-sonnet-4-5"), got ${JSON.stringify(spec)}`
      )
    }
  })
})

describe("Registry.layer", () => {
  // [model string, expected provider, URL, auth header, its value]
  const cases: ReadonlyArray<readonly [string, string, string, string, string]> = [
    ["openai:gpt-4.1", "openai", "https://api.openai.com/v1/chat/completions", "authorization", "OPENAI_API_KEY"],
    ["openai-chat:gpt-4.1", "openai", "https://api.openai.com/v1/chat/completions", "authorization", "OPENAI_API_KEY"],
    ["openai-responses:gpt-5", "openai", "https://api.openai.com/v1/responses", "authorization", "OPENAI_API_KEY"],
    [
      "anthropic:claude-sonnet-4-5",
      "anthropic",
      "https://api.anthropic.com/v1/messages",
      "x-api-key",
      "ANTHROPIC_API_KEY"
    ],
    [
      "azure:my-deployment",
      "azure",
      "https://res.openai.azure.com/openai/v1/chat/completions",
      "api-key",
      "AZURE_OPENAI_API_KEY"
    ],
    [
      "groq:llama-3.3-70b-versatile",
      "groq",
      "https://api.groq.com/openai/v1/chat/completions",
      "authorization",
      "GROQ_API_KEY"
    ],
    [
      "deepseek:deepseek-chat",
      "deepseek",
      "https://api.deepseek.com/v1/chat/completions",
      "authorization",
      "DEEPSEEK_API_KEY"
    ],
    [
      "mistral:mistral-small",
      "mistral",
      "https://api.mistral.ai/v1/chat/completions",
      "authorization",
      "MISTRAL_API_KEY"
    ],
    ["xai:grok-4", "xai", "https://api.x.ai/v1/chat/completions", "authorization", "XAI_API_KEY"],
    [
      "openrouter:a/b",
      "openrouter",
      "https://openrouter.ai/api/v1/chat/completions",
      "authorization",
      "OPENROUTER_API_KEY"
    ],
    ["together:m", "together", "https://api.together.xyz/v1/chat/completions", "authorization", "TOGETHER_API_KEY"],
    [
      "fireworks:m",
      "fireworks",
      "https://api.fireworks.ai/inference/v1/chat/completions",
      "authorization",
      "FIREWORKS_API_KEY"
    ],
    ["cerebras:m", "cerebras", "https://api.cerebras.ai/v1/chat/completions", "authorization", "CEREBRAS_API_KEY"],
    [
      "perplexity:sonar",
      "perplexity",
      "https://api.perplexity.ai/chat/completions",
      "authorization",
      "PERPLEXITY_API_KEY"
    ],
    ["moonshot:kimi", "moonshot", "https://api.moonshot.ai/v1/chat/completions", "authorization", "MOONSHOT_API_KEY"],
    [
      "gemini:gemini-2.5-flash",
      "google",
      "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
      "x-goog-api-key",
      "GEMINI_API_KEY"
    ],
    [
      "google:gemini-2.5-pro",
      "google",
      "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
      "x-goog-api-key",
      "GEMINI_API_KEY"
    ],
    ["cohere:command-a-03-2025", "cohere", "https://api.cohere.com/v2/chat", "authorization", "COHERE_API_KEY"],
    [
      "alibaba:qwen-plus",
      "alibaba",
      "https://dashscope-intl.aliyuncs.com/compatible-mode/v1/chat/completions",
      "authorization",
      "DASHSCOPE_API_KEY"
    ]
  ]

  it.effect.each(cases)(
    "%s builds %s, sending to its endpoint with its key",
    ([spec, provider, url, header, variable]) =>
      Effect.gen(function*() {
        const { request, service } = yield* sent(spec)
        expect(service.provider).toBe(provider)
        expect(service.model).toBe(spec.slice(spec.indexOf(":") + 1))
        expect(request.url).toBe(url)
        const value = request.headers[header]
        expect(value === undefined ? undefined : value.replace(/^Bearer /, "")).toBe(fakeKey(variable))
        expect((request.body as { model?: string }).model ?? service.model).toBe(service.model)
      })
  )

  // Local servers need no key; their base URL variable is read when set.
  const locals: ReadonlyArray<readonly [string, string, ReadonlyArray<readonly [string, string]>]> = [
    ["vllm:qwen", "http://localhost:8000/v1/chat/completions", []],
    ["lmstudio:qwen", "http://localhost:1234/v1/chat/completions", []],
    ["llamacpp:qwen", "http://box:9000/v1/chat/completions", [["LLAMACPP_BASE_URL", "http://box:9000/v1"]]]
  ]
  it.effect.each(locals)("%s needs no key and goes to %s", ([spec, url, extra]) =>
    Effect.gen(function*() {
      const { request } = yield* sent(spec, env([], extra))
      expect(request.url).toBe(url)
      expect(request.headers.authorization).toBeUndefined()
    }))

  it.effect("ollama is the native module (not the Chat preset): /api/chat, the model keeps its colons", () =>
    Effect.gen(function*() {
      const { request, service } = yield* sent("ollama:qwen3:8b")
      expect(service.provider).toBe("ollama")
      expect(service.model).toBe("qwen3:8b")
      expect(request.url).toBe("http://localhost:11434/api/chat")
      expect((request.body as { model: string }).model).toBe("qwen3:8b")
      expect(request.headers.authorization).toBeUndefined()
      const remote = yield* sent(
        "ollama:llama3.2",
        env([], [["OLLAMA_HOST", "gpu-box"], ["OLLAMA_API_KEY", fakeKey("OLLAMA_API_KEY")]])
      )
      expect(remote.request.url).toBe("http://gpu-box:11434/api/chat")
      expect(remote.request.headers.authorization).toBe(`Bearer ${fakeKey("OLLAMA_API_KEY")}`)
    }))

  it.effect("bedrock: signed with AWS credentials for the region's endpoint, the model id URL-encoded", () =>
    Effect.gen(function*() {
      const { request, service } = yield* sent(
        "bedrock:us.anthropic.claude-sonnet-4-20250514-v1:0",
        env([], [
          ["AWS_ACCESS_KEY_ID", "AKIDEXAMPLE"],
          ["AWS_SECRET_ACCESS_KEY", fakeKey("AWS_SECRET_ACCESS_KEY")],
          ["AWS_REGION", "eu-west-1"]
        ])
      )
      expect(service.provider).toBe("bedrock")
      expect(service.model).toBe("us.anthropic.claude-sonnet-4-20250514-v1:0")
      expect(request.url).toBe(
        "https://bedrock-runtime.eu-west-1.amazonaws.com/model/us.anthropic.claude-sonnet-4-20250514-v1%3A0/converse-stream"
      )
      expect(request.headers.authorization?.startsWith("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/")).toBe(true)
      expect(request.headers.authorization).toContain("/eu-west-1/bedrock/aws4_request")
    }))

  it.effect("bedrock with a Bedrock API key sends it as a bearer token", () =>
    Effect.gen(function*() {
      const { request } = yield* sent(
        "bedrock:amazon.nova-lite-v1:0",
        env([], [["AWS_BEARER_TOKEN_BEDROCK", fakeKey("AWS_BEARER_TOKEN_BEDROCK")], ["AWS_REGION", "us-east-1"]])
      )
      expect(request.url).toBe(
        "https://bedrock-runtime.us-east-1.amazonaws.com/model/amazon.nova-lite-v1%3A0/converse-stream"
      )
      expect(request.headers.authorization).toBe(`Bearer ${fakeKey("AWS_BEARER_TOKEN_BEDROCK")}`)
    }))

  it.effect("overrides replace what the environment says", () =>
    Effect.gen(function*() {
      const { request, service } = yield* sent("groq:llama", env(), {
        apiKey: Redacted.make("test-override-key-0123"),
        baseUrl: "http://proxy.invalid/v1",
        headers: { "x-team": "a" },
        provider: "groq-eu"
      })
      expect(service.provider).toBe("groq-eu")
      expect(request.url).toBe("http://proxy.invalid/v1/chat/completions")
      expect(request.headers.authorization).toBe("Bearer test-override-key-0123")
      expect(request.headers["x-team"]).toBe("a")
    }))

  it.effect("the same program runs on another provider by changing only the string", () =>
    Effect.gen(function*() {
      const urls: Array<string> = []
      for (const spec of ["openai:gpt-4.1", "anthropic:claude-sonnet-4-5", "openai-responses:gpt-5"]) {
        urls.push((yield* sent(spec)).request.url)
      }
      expect(urls).toEqual([
        "https://api.openai.com/v1/chat/completions",
        "https://api.anthropic.com/v1/messages",
        "https://api.openai.com/v1/responses"
      ])
    }))
})

describe("Registry errors", () => {
  it.effect("an unknown provider names the known ones", () =>
    Effect.gen(function*() {
      const error = yield* failure("gemeni:gemini-2.5-flash")
      expect(error._tag).toBe("RegistryError")
      expect(error.reason).toBe("UnknownProvider")
      expect(error.provider).toBe("gemeni")
      expect(error.message).toBe(
        `Unknown provider "gemeni" in "gemeni:gemini-2.5-flash"; known: ${Registry.providers.join(", ")}`
      )
      expect(Registry.providers).toContain("anthropic")
      expect(Registry.providers).toContain("groq")
    }))

  it.effect("a prototype key is not a provider", () =>
    Effect.gen(function*() {
      const error = yield* failure("__proto__:x")
      expect(error.reason).toBe("UnknownProvider")
      const other = yield* failure("constructor:x")
      expect(other.reason).toBe("UnknownProvider")
    }))

  it.effect("a missing key names the variable to set", () =>
    Effect.gen(function*() {
      const error = yield* failure("groq:llama-3.3-70b-versatile", env(["GROQ_API_KEY"]))
      expect(error.reason).toBe("MissingKey")
      expect(error.variable).toBe("GROQ_API_KEY")
      expect(error.message).toBe("No API key for groq: set GROQ_API_KEY or pass apiKey")
      const anthropic = yield* failure("anthropic:claude", env(["ANTHROPIC_API_KEY"]))
      expect(anthropic.message).toBe("No API key for anthropic: set ANTHROPIC_API_KEY or pass apiKey")
    }))

  it.effect("bedrock without credentials names the variables; without a region names AWS_REGION", () =>
    Effect.gen(function*() {
      const none = yield* failure("bedrock:amazon.nova-lite-v1:0")
      expect(none.reason).toBe("MissingKey")
      expect(none.variable).toBe("AWS_BEARER_TOKEN_BEDROCK")
      expect(none.message).toBe(
        "No Bedrock credentials: set AWS_BEARER_TOKEN_BEDROCK (a Bedrock API key), or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (for bedrock)"
      )
      const noRegion = yield* failure(
        "bedrock:amazon.nova-lite-v1:0",
        env([], [["AWS_BEARER_TOKEN_BEDROCK", fakeKey("AWS_BEARER_TOKEN_BEDROCK")]])
      )
      expect(noRegion.reason).toBe("MissingRegion")
      expect(noRegion.variable).toBe("AWS_REGION")
      expect(noRegion.message).toBe(
        "No AWS region: set AWS_REGION (or AWS_DEFAULT_REGION), or pass region (for bedrock)"
      )
    }))

  it.effect("Azure without its base URL names AZURE_OPENAI_BASE_URL", () =>
    Effect.gen(function*() {
      const error = yield* failure("azure:deployment", env(["AZURE_OPENAI_BASE_URL"]))
      expect(error.reason).toBe("MissingBaseUrl")
      expect(error.variable).toBe("AZURE_OPENAI_BASE_URL")
      expect(error.message).toBe("No base URL for azure: set AZURE_OPENAI_BASE_URL or pass baseUrl")
    }))

  it.effect("a malformed string fails the layer too", () =>
    Effect.gen(function*() {
      const error = yield* failure("claude-sonnet-4-5")
      expect(error.reason).toBe("InvalidModelString")
    }))
})
