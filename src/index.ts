/**
 * effect-llm-stream: one uniform, typed Effect stream of chunks for every LLM provider.
 *
 * @since 0.1.0
 */
export * as ChatRequest from "./ChatRequest.js"
export * as ContentPart from "./ContentPart.js"
export * as FinishReason from "./FinishReason.js"
export * as LanguageModel from "./LanguageModel.js"
export * as LlmError from "./LlmError.js"
export * as Response from "./Response.js"
export * as StreamChunk from "./StreamChunk.js"
export * as ToolCall from "./ToolCall.js"
export * as Usage from "./Usage.js"
export * as UsageMeter from "./UsageMeter.js"
export * as ProviderOptions from "./ProviderOptions.js"

/** The Chat Completions provider: OpenAI, Azure OpenAI and the compatible hosts (see its presets). */
export * as OpenAiChat from "./providers/openai-chat/index.js"
