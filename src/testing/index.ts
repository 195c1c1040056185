/**
 * Test support shipped to users: scripted models, recorded-stream replay, a loopback replay server.
 *
 * @since 0.1.0
 */
export * as TestModel from "./TestModel.js"
