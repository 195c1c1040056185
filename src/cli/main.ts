/**
 * `effect-llm-stream`: the command-line tool (`bin/effect-llm-stream.js` imports the built form of
 * this file). Runs the `chat` command with Node's context; the exit code is 0 when the answer
 * finished, 1 when it ended in an error, 2 for bad arguments and 130 on Ctrl-C (the request is
 * aborted first).
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as ValidationError from "@effect/cli/ValidationError"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { createRequire } from "node:module"
import * as Chat from "./chat.js"
import * as Render from "./render.js"

// src/cli/main.ts and dist/cli/main.js both sit two levels below package.json.
const { version } = createRequire(import.meta.url)("../../package.json") as { readonly version: string }

const output: Render.Output = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  interactive: process.stdout.isTTY === true && (process.env.NO_COLOR ?? "") === ""
}

// A reader that went away (`… | head`) is no failure of ours: stop quietly (the request dies with us).
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0)
  throw error
})

let exitCode: number = Render.ExitCode.finished

const cli = Command.make("effect-llm-stream").pipe(
  Command.withDescription("Stream answers from LLM providers, one uniform stream of chunks"),
  Command.withSubcommands([Chat.command(output, (code) => void (exitCode = code))]),
  Command.run({ name: "effect-llm-stream", version })
)

const program = Effect.suspend(() => cli(process.argv)).pipe(
  Effect.provide(Layer.merge(NodeContext.layer, FetchHttpClient.layer))
)

NodeRuntime.runMain(program, {
  disableErrorReporting: true,
  teardown: (exit, onExit) => {
    if (Exit.isSuccess(exit)) return onExit(exitCode)
    if (Cause.isInterruptedOnly(exit.cause)) return onExit(Render.ExitCode.interrupted)
    // @effect/cli has printed what was wrong with the arguments.
    const failure = Cause.failureOption(exit.cause)
    if (Option.isSome(failure) && ValidationError.isValidationError(failure.value)) {
      return onExit(Render.ExitCode.badArguments)
    }
    output.err(`${Cause.pretty(exit.cause)}\n`)
    onExit(1)
  }
})
