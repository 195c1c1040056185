/**
 * effect-llm-stream: one uniform, typed Effect stream of chunks for every LLM provider.
 *
 * @example
 * ```ts
 * import { FetchHttpClient } from "@effect/platform"
 * import { Effect, Layer, Stream } from "effect"
 * import { LanguageModel, OpenAiChat, Response, UsageMeter } from "effect-llm-stream"
 *
 * const program = LanguageModel.stream("Why is the sky blue?").pipe(
 *   Stream.tap((chunk) => Effect.sync(() => chunk.type === "text-delta" && process.stdout.write(chunk.delta))),
 *   Response.collect
 * )
 * const runnable = program.pipe(
 *   Effect.provide(Layer.mergeAll(OpenAiChat.layerConfig({ model: "gpt-4.1-mini" }), UsageMeter.layer)),
 *   Effect.provide(FetchHttpClient.layer)
 * )
 * ```
 *
 * @since 0.1.0
 */
export * as ChatRequest from "./ChatRequest.js"
export * as ContentPart from "./ContentPart.js"
export * as FinishReason from "./FinishReason.js"
export * as Interop from "./interop/Interop.js"
export * as Relay from "./interop/Relay.js"
export * as LanguageModel from "./LanguageModel.js"
export * as LlmError from "./LlmError.js"
export * as Pricing from "./Pricing.js"
export * as ProviderOptions from "./ProviderOptions.js"
export * as Registry from "./Registry.js"
export * as Response from "./Response.js"
export * as Smooth from "./Smooth.js"
export * as StreamChunk from "./StreamChunk.js"
export * as Telemetry from "./Telemetry.js"
export * as Tool from "./Tool.js"
export * as ToolCall from "./ToolCall.js"
export * as Toolkit from "./Toolkit.js"
export * as Usage from "./Usage.js"
export * as UsageMeter from "./UsageMeter.js"

/** The Chat Completions provider: OpenAI, Azure OpenAI and the compatible hosts (see its presets). */
export * as OpenAiChat from "./providers/openai-chat/index.js"

/**
 * The Anthropic Messages provider.
 *
 * @since 0.1.0
 */
export * as Anthropic from "./providers/anthropic/index.js"

/**
 * The OpenAI Responses API provider: OpenAI, Azure OpenAI, xAI and LM Studio (see its presets).
 *
 * @since 0.1.0
 */
export * as OpenAiResponses from "./providers/openai-responses/index.js"

/**
 * The Ollama native chat provider (`/api/chat`, NDJSON): a local server, Ollama's cloud or a proxy.
 *
 * @since 0.1.0
 */
export * as Ollama from "./providers/ollama/index.js"

/**
 * The Cohere v2 chat provider (`/v2/chat`, SSE).
 *
 * @since 0.1.0
 */
export * as Cohere from "./providers/cohere/index.js"

/**
 * The Gemini provider (`streamGenerateContent`, SSE): Google AI Studio, and Vertex AI by base URL and bearer auth.
 *
 * @since 0.1.0
 */
export * as Gemini from "./providers/gemini/index.js"

/**
 * The Amazon Bedrock provider (ConverseStream, AWS event-stream binary frames; SigV4 or a Bedrock API key).
 *
 * @since 0.1.0
 */
export * as Bedrock from "./providers/bedrock/index.js"
