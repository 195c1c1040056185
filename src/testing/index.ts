/**
 * Test support shipped to users: scripted models, recorded-stream replay, a loopback replay server.
 *
 * @since 0.1.0
 */
export * as Fixture from "./Fixture.js"
export * as Replay from "./Replay.js"
export * as ReplayServer from "./ReplayServer.js"
export * as TestModel from "./TestModel.js"
