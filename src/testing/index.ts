/**
 * Test support shipped to users: scripted models, recorded-stream replay, a loopback replay server,
 * fault injection (`Chaos`).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { LanguageModel, LlmError, StreamChunk } from "effect-llm-stream"
 * import { TestModel } from "effect-llm-stream/testing"
 *
 * const model = TestModel.layer({
 *   responses: [
 *     [StreamChunk.textDelta("Hel"), TestModel.sleep("1 second"), StreamChunk.textDelta("lo"), StreamChunk.finish("stop")],
 *     [TestModel.fail(LlmError.make({ code: "rate_limit", message: "Slow down" }))]
 *   ]
 * })
 * const first = LanguageModel.chat("Hi").pipe(Effect.provide(model)) // "Hello", after 1 s of TestClock time
 * ```
 *
 * @since 0.1.0
 */
export * as Chaos from "./Chaos.js"
export * as Fixture from "./Fixture.js"
export * as Replay from "./Replay.js"
export * as ReplayServer from "./ReplayServer.js"
export * as TestModel from "./TestModel.js"
