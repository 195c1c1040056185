// `npm run web-chat`: starts the web chat server and prints its URL.
//
//   npm run web-chat                                   our transcript, replayed (no key needed)
//   npm run web-chat -- --model anthropic:claude-sonnet-4-5 --port 3000
//   MODEL=groq:llama-3.3-70b-versatile PORT=3000 npm run web-chat
//
// A model whose key is not set falls back to the replay, saying so. Ctrl-C stops the server.
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as WebChat from "./server.js"

/** The value after `--name` (or `--name=value`), else the environment variable. */
const option = (name: string, variable: string): string | undefined => {
  const args = process.argv.slice(2)
  for (let i = 0; i < args.length; i++) {
    if (args[i] === `--${name}`) return args[i + 1]
    if (args[i]?.startsWith(`--${name}=`)) return args[i]!.slice(name.length + 3)
  }
  const value = process.env[variable]
  return value === undefined || value === "" ? undefined : value
}

const port = Number(option("port", "PORT") ?? "3000")

const program = Effect.gen(function*() {
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    return yield* Effect.fail(`--port must be a port number, got ${option("port", "PORT")}`)
  }
  const running = yield* WebChat.start({ port, model: option("model", "MODEL") })
  if (running.notice !== undefined) yield* Console.log(running.notice)
  yield* Console.log(`Web chat (${running.model}) on ${running.url}`)
  return yield* Effect.never
}).pipe(
  Effect.scoped,
  // A short message, not a stack trace: an unknown provider, a port in use, a client that does not bundle.
  Effect.catchAll((e) =>
    Effect.zipRight(
      Console.error(
        typeof e === "string" ? e : e._tag === "ServeError" ? `Could not listen: ${String(e.cause)}` : e.message
      ),
      Effect.sync(() => {
        process.exitCode = 1
      })
    )
  )
)

NodeRuntime.runMain(program)
