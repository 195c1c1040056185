/**
 * effect-llm-stream on Node: the `HttpClient` the SDK's requests are fastest over.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { Anthropic } from "effect-llm-stream"
 * import { NodeHttp } from "effect-llm-stream/node"
 *
 * const Model = Anthropic.layerConfig({ model: "claude-sonnet-4-5" }).pipe(Layer.provide(NodeHttp.layer))
 * ```
 *
 * @since 0.1.0
 */
export * as NodeHttp from "./NodeHttp.js"
