/**
 * The `chat` command: one prompt to the model a `provider:model` string names (`Registry`), shown
 * as it streams (`render.ts`). When the provider's key is not set, or with `--replay`, the real
 * provider layer runs our recorded conversation over a loopback replay server (`replay.ts`): the
 * agent loop (`LanguageModel.streamWithTools`) with the demo's canned `get_weather` tool
 * (`weather.ts`), so the model's tool call, the tool's result and the answer after it all show. A
 * live run is a plain chat, with no tools.
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import type { HttpClient } from "@effect/platform/HttpClient"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Redacted from "effect/Redacted"
import type * as Stream from "effect/Stream"
import * as LanguageModel from "../LanguageModel.js"
import * as Registry from "../Registry.js"
import type * as StreamChunk from "../StreamChunk.js"
import * as Render from "./render.js"
import * as Replay from "./replay.js"
import * as Weather from "./weather.js"

/**
 * The model used when neither `--model` nor `EFFECT_LLM_MODEL` names one.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultModel = "openai:gpt-4.1-mini"

/**
 * What `chat` was asked.
 *
 * @since 0.1.0
 * @category models
 */
export interface Input {
  readonly prompt: string
  readonly model: string
  readonly json: boolean
  readonly replay: boolean
}

/** Milliseconds between the replay server's reads: slow enough to watch the answer stream. */
const replayPaceMs = 15

/** The key the replayed provider gets (the replay server ignores it; a real key never goes there). */
const replayKey = Redacted.make("replay-key")

/** Renders a stream as text or JSON lines. */
const render = <R>(
  input: Input,
  output: Render.Output,
  stream: Stream.Stream<StreamChunk.StreamChunk, never, R>
): Effect.Effect<number, never, R> => input.json ? Render.json(stream, output) : Render.text(stream, output)

/** A live answer: the prompt alone, no tools. */
const show = (input: Input, output: Render.Output): Effect.Effect<number, never, LanguageModel.LanguageModel> =>
  render(input, output, LanguageModel.stream(input.prompt))

/** A replayed conversation: the prompt with the demo's weather tool, through the agent loop. */
const showLoop = (input: Input, output: Render.Output): Effect.Effect<number, never, LanguageModel.LanguageModel> =>
  render(input, output, LanguageModel.streamWithTools(input.prompt, Weather.toolkit))

/** A bad argument: its message on stderr, exit code 2. */
const badArguments = (output: Render.Output, message: string): Effect.Effect<number> =>
  Effect.sync(() => {
    output.err(`${message}\n`)
    return Render.ExitCode.badArguments
  })

/**
 * Plays our recorded conversation for `provider` through the real provider layer over loopback: the
 * tool-call turn, the canned weather tool's result, the answer.
 */
const replay = (
  input: Input,
  output: Render.Output,
  provider: string,
  family: Replay.Family,
  why: string
): Effect.Effect<number, never, HttpClient> =>
  Effect.scoped(Effect.gen(function*() {
    const server = yield* Replay.server(replayPaceMs)
    output.err(
      `${why}: replaying our recorded conversation with the demo get_weather tool (${provider}:${family.model} over loopback; your prompt is not sent anywhere)\n`
    )
    return yield* showLoop(input, output).pipe(
      Effect.provide(
        Registry.layer(`${provider}:${family.model}`, { apiKey: replayKey, baseUrl: family.baseUrl(server.url) })
      ),
      Effect.catchTag("RegistryError", (e) => badArguments(output, e.message))
    )
  }))

/**
 * Runs `chat`; the result is the process's exit code (see `Render.ExitCode`).
 *
 * @since 0.1.0
 * @category commands
 */
export const run = (input: Input, output: Render.Output): Effect.Effect<number, never, HttpClient> =>
  Effect.suspend(() => {
    const parsed = Registry.parse(input.model)
    if (Either.isLeft(parsed)) return badArguments(output, parsed.left.message)
    const { provider } = parsed.right
    const family = Replay.familyOf(provider)
    if (input.replay) {
      if (!Registry.providers.includes(provider)) {
        // The registry's own message for an unknown provider (it lists the known ones).
        return Registry.make(input.model).pipe(
          Effect.matchEffect({
            onFailure: (e) => badArguments(output, e.message),
            onSuccess: () => badArguments(output, `Unknown provider ${provider}`)
          })
        )
      }
      if (family === undefined) return badArguments(output, `No recorded answer to replay for ${provider}`)
      return replay(input, output, provider, family, "--replay")
    }
    return show(input, output).pipe(
      Effect.provide(Registry.layer(input.model)),
      Effect.catchTag("RegistryError", (e) =>
        e.reason === "MissingKey" && family !== undefined
          ? replay(input, output, provider, family, `${e.variable ?? "The API key"} is not set`)
          : badArguments(output, e.message))
    )
  })

/**
 * The `chat` command; `onExit` receives the exit code.
 *
 * @since 0.1.0
 * @category commands
 */
export const command = (output: Render.Output, onExit: (code: number) => void) =>
  Command.make(
    "chat",
    {
      prompt: Args.text({ name: "prompt" }).pipe(Args.withDescription("What to ask the model")),
      model: Options.text("model").pipe(
        Options.withAlias("m"),
        Options.withDescription(
          `The model as provider:model (e.g. anthropic:claude-sonnet-4-5); default: $EFFECT_LLM_MODEL, else ${defaultModel}`
        ),
        Options.withFallbackConfig(Config.string("EFFECT_LLM_MODEL").pipe(Config.withDefault(defaultModel)))
      ),
      json: Options.boolean("json").pipe(Options.withDescription("Print each chunk as one JSON line, nothing else")),
      replay: Options.boolean("replay").pipe(
        Options.withDescription(
          "Play our recorded conversation (a get_weather call, the demo tool's canned result, the answer) through the real provider layer over loopback (no key needed)"
        )
      )
    },
    (input) => Effect.map(run(input, output), onExit)
  ).pipe(Command.withDescription("Stream one answer from a model to the terminal"))
