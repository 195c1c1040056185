/**
 * The agent loop behind `LanguageModel.streamWithTools`: one stream across steps. Each step's chunks
 * pass through as they arrive; after a step that ends in `tool_calls` its calls run (bounded
 * concurrency, each interruptible, `toolTimeout` on the Effect clock) and their `tool-result` chunks
 * follow in call order, then the step's `step-finish`, then the next step, whose request carries the
 * step's whole assistant message and the results. Exactly one terminal chunk ends the stream.
 */
import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as ChatRequest from "../../ChatRequest.js"
import type * as LanguageModel from "../../LanguageModel.js"
import * as LlmError from "../../LlmError.js"
import * as Response from "../../Response.js"
import * as StreamChunk from "../../StreamChunk.js"
import type * as Tool from "../../Tool.js"
import type * as ToolCall from "../../ToolCall.js"
import * as Toolkit from "../../Toolkit.js"
import * as Usage from "../../Usage.js"
import * as Json from "../json.js"

/** The loop's options (documented on `LanguageModel.ToolLoopOptions`). */
export type Options<R> = LanguageModel.ToolLoopOptions<R>

/** A typed tool as the loop runs it: its types erased (they were checked where the tool was made). */
interface Runnable {
  readonly name: string
  readonly parametersSchema: Schema.Schema<unknown, unknown>
  readonly success: Schema.Schema<unknown, unknown> | undefined
  readonly failure: Schema.Schema<unknown, unknown> | undefined
  readonly handler: ((params: unknown) => Effect.Effect<unknown, unknown, unknown>) | undefined
  readonly needsApproval: boolean | ((params: unknown) => boolean)
}

const invalid = (message: string): Stream.Stream<StreamChunk.StreamChunk> =>
  Stream.make(StreamChunk.error(LlmError.info({ code: "invalid_request", message, retryable: false })))

/** The problem with the options or the toolkit, before any request. */
const problemOf = <R>(
  toolkit: Toolkit.Toolkit<Tool.Any>,
  plain: ReadonlyArray<ChatRequest.Tool>,
  options: Options<R>
): string | undefined => {
  const { concurrency, maxSteps } = options
  if (maxSteps !== undefined && !(Number.isSafeInteger(maxSteps) && maxSteps >= 1)) {
    return `maxSteps must be a whole number of at least 1 (got ${String(maxSteps)})`
  }
  if (concurrency !== undefined && !(Number.isSafeInteger(concurrency) && concurrency >= 1)) {
    return `concurrency must be a whole number of at least 1 (got ${String(concurrency)})`
  }
  const duplicate = Toolkit.duplicateName([...toolkit, ...plain])
  return duplicate === undefined ? undefined : `Two tools are named "${duplicate}": tool names must be unique`
}

/** The loop over one service. */
export const run = <Tools extends Tool.Any, R>(
  service: LanguageModel.Service,
  input: ChatRequest.Input,
  toolkit: Toolkit.Toolkit<Tools>,
  options: Options<R> = {}
): Stream.Stream<StreamChunk.StreamChunk, never, R | Tool.Requirements<Tools>> =>
  Stream.suspend(() => {
    const base = ChatRequest.make(input)
    const plain = base.tools ?? []
    const problem = problemOf(toolkit, plain, options)
    if (problem !== undefined) return invalid(problem)
    return StreamChunk.ensureTerminal(new Loop<R>(service, base, toolkit, options).step(1), {
      provider: service.provider
    }) as Stream.Stream<StreamChunk.StreamChunk, never, R | Tool.Requirements<Tools>>
  })

/** One run of the loop: the conversation so far, the finished steps and the usage they add up to. */
class Loop<R> {
  private readonly tools: ReadonlyMap<string, Runnable>
  /** Tools given as plain definitions in the request: the caller answers them. */
  private readonly clientNames: ReadonlySet<string>
  private readonly offered: ReadonlyArray<ChatRequest.Tool>
  private readonly messages: Array<ChatRequest.Message>
  private readonly steps: Array<Response.Response> = []
  private total: Usage.Usage | undefined = undefined
  private readonly maxSteps: number
  private readonly concurrency: number
  private readonly stopWhen: ReadonlyArray<Tool.StopCondition>

  constructor(
    private readonly service: LanguageModel.Service,
    private readonly base: ChatRequest.ChatRequest,
    toolkit: Toolkit.Toolkit<Tool.Any>,
    private readonly options: Options<R>
  ) {
    this.tools = new Map(toolkit.map((tool) => [tool.name, tool as unknown as Runnable]))
    const plain = base.tools ?? []
    this.clientNames = new Set(plain.map((t) => t.name))
    this.offered = [...plain, ...toolkit.map((tool) => tool)]
    this.messages = [...base.messages]
    this.maxSteps = options.maxSteps ?? 10
    this.concurrency = options.concurrency ?? 8
    const stop = options.stopWhen
    this.stopWhen = stop === undefined ? [] : typeof stop === "function" ? [stop] : stop
  }

  /** Step `k`: its request (through `prepareStep`), its chunks, then what follows it. */
  step(k: number): Stream.Stream<StreamChunk.StreamChunk, never, R> {
    return Stream.unwrap(Effect.map(this.prepare(k), ({ active, request }) => {
      const own: Array<StreamChunk.StreamChunk> = []
      const prior = this.total
      let terminal: StreamChunk.Of<"finish"> | StreamChunk.Of<"error"> | undefined
      const chunks = this.service.stream(request).pipe(Stream.mapChunks((batch) => {
        const out: Array<StreamChunk.StreamChunk> = []
        for (const c of batch) {
          own.push(c)
          switch (c.type) {
            case "metadata":
              // One beginning for the whole stream: the first step's.
              if (k === 1) out.push(c)
              break
            case "usage":
              // Running totals across steps: the last usage chunk sums every step.
              out.push(prior === undefined ? c : StreamChunk.usage(Usage.sum(prior, c.usage)))
              break
            case "finish":
              terminal = c
              break
            case "error":
              terminal = c
              out.push(c)
              break
            default:
              out.push(c)
          }
        }
        return Chunk.unsafeFromArray(out)
      }))
      return Stream.concat(
        chunks,
        Stream.suspend(() => (terminal?.type === "finish" ? this.after(k, own, terminal, active) : Stream.empty))
      )
    }))
  }

  /** The request of step `k`: the conversation so far, changed by `prepareStep` when given. */
  private prepare(k: number): Effect.Effect<
    {
      readonly request: ChatRequest.ChatRequest
      readonly active: ReadonlySet<string> | undefined
    },
    never,
    R
  > {
    const request: ChatRequest.ChatRequest = { ...this.base, messages: [...this.messages], tools: this.offered }
    const prepareStep = this.options.prepareStep
    if (prepareStep === undefined) return Effect.succeed({ request, active: undefined })
    return Effect.suspend(() => {
      const out = prepareStep({ step: k, request, steps: [...this.steps] })
      return Effect.isEffect(out) ? out : Effect.succeed(out)
    }).pipe(Effect.map(({ activeTools, ...overrides }) => {
      const active = activeTools === undefined ? undefined : new Set(activeTools)
      const tools = active === undefined ? this.offered : this.offered.filter((t) => active.has(t.name))
      return { request: { ...request, ...overrides, tools }, active }
    }))
  }

  /** After step `k` finished: its calls run, then its `step-finish`, then the next step or the end. */
  private after(
    k: number,
    own: ReadonlyArray<StreamChunk.StreamChunk>,
    finish: StreamChunk.Of<"finish">,
    active: ReadonlySet<string> | undefined
  ): Stream.Stream<StreamChunk.StreamChunk, never, R> {
    const response = Response.fromChunks(own)
    const stepUsage = response.usage
    if (stepUsage !== undefined) this.total = this.total === undefined ? stepUsage : Usage.sum(this.total, stepUsage)
    const stepFinish = StreamChunk.stepFinish(k, finish.reason, { rawReason: finish.rawReason, usage: stepUsage })
    const calls = response.toolCalls
    if (finish.reason !== "tool_calls" || calls.length === 0) {
      this.record(response, [])
      return Stream.make(stepFinish, finish)
    }
    // One call runs in this fiber; several run in fibers of their own, up to `concurrency` at once.
    const concurrency = calls.length === 1 ? undefined : this.concurrency
    return Stream.unwrap(Effect.map(
      Effect.forEach(calls, (call) => this.call(k, call, active), { concurrency }),
      (outcomes) => {
        // In call order, whatever order they finished in.
        const results = outcomes.filter((o): o is StreamChunk.Of<"tool-result"> => o !== "client")
        const finished = this.record(response, results)
        const stop = results.length < outcomes.length || k >= this.maxSteps ||
          this.stopWhen.some((condition) => condition({ step: k, response: finished, steps: [...this.steps] }))
        const out: Array<StreamChunk.StreamChunk> = [...results, stepFinish]
        if (stop) out.push(finish)
        return stop ? Stream.fromIterable(out) : Stream.concat(Stream.fromIterable(out), this.step(k + 1))
      }
    ))
  }

  /** Keeps a finished step and extends the conversation with its messages. */
  private record(
    response: Response.Response,
    results: ReadonlyArray<StreamChunk.Of<"tool-result">>
  ): Response.Response {
    const toolResults: ReadonlyArray<Response.ToolResult> = results.map((r) => ({
      toolCallId: r.toolCallId,
      name: r.name,
      result: r.result,
      isError: r.isError
    }))
    const step: Response.Response = {
      ...response,
      toolResults,
      messages: [response.message, ...toolResults.map(Response.toolMessage)]
    }
    this.steps.push(step)
    for (const message of step.messages) this.messages.push(message)
    return step
  }

  /** Answers one call: its `tool-result` chunk, or `"client"` when the caller answers it. */
  private call(
    k: number,
    call: ToolCall.ToolCall,
    active: ReadonlySet<string> | undefined
  ): Effect.Effect<StreamChunk.Of<"tool-result"> | "client", never, R> {
    const result = (value: unknown, isError: boolean) =>
      StreamChunk.toolResult({ toolCallId: call.id, name: call.name, result: value, isError, step: k })
    const fail = (message: string) => Effect.succeed(result(message, true))
    const offered = active === undefined || active.has(call.name)
    const tool = offered ? this.tools.get(call.name) : undefined
    if (tool === undefined) {
      if (offered && this.clientNames.has(call.name)) return Effect.succeed("client")
      const names = [...this.tools.keys()].filter((name) => active === undefined || active.has(name))
      return fail(
        `Unknown tool "${call.name}". ${
          names.length === 0 ? "No tools are available." : `The tools available are: ${names.join(", ")}.`
        }`
      )
    }
    if (tool.handler === undefined) return Effect.succeed("client")
    const handler = tool.handler
    if (call.parseError !== undefined) {
      return fail(
        `The arguments of ${call.name} are not valid JSON (${call.parseError}). Call it again with a JSON object.`
      )
    }
    const decoded = Schema.decodeUnknownEither(tool.parametersSchema)(call.arguments)
    if (Either.isLeft(decoded)) return fail(`Invalid arguments for ${call.name}: ${describeIssue(decoded.left)}`)
    const params = decoded.right
    return Effect.gen(this, function*() {
      const needs = typeof tool.needsApproval === "function"
        ? yield* Effect.try(() => (tool.needsApproval as (params: unknown) => boolean)(params)).pipe(
          Effect.orElseSucceed(() => true)
        )
        : tool.needsApproval
      if (needs) {
        const approve = this.options.approve
        const approved = approve === undefined ? false : yield* approve(call)
        if (!approved) return result(`The user denied this call to ${call.name}; it was not run.`, true)
      }
      const running = Effect.exit(Effect.suspend(() => handler(params))) as Effect.Effect<
        Exit.Exit<unknown, unknown>,
        never,
        R
      >
      const timeout = this.options.toolTimeout
      const exit = timeout === undefined
        ? Option.some(yield* running)
        : yield* Effect.timeoutOption(running, timeout)
      if (Option.isNone(exit)) {
        return result(
          `${call.name} did not finish within ${Duration.format(Duration.decode(timeout!))} and was stopped.`,
          true
        )
      }
      return Exit.match(exit.value, {
        onSuccess: (value) => this.encoded(tool.success, value, call.name, result, false),
        onFailure: (cause) => {
          const failure = Cause.failureOption(cause)
          if (Option.isSome(failure)) return this.encoded(tool.failure, failure.value, call.name, result, true)
          if (Cause.isInterruptedOnly(cause)) return result(`${call.name} was interrupted before it finished.`, true)
          return result(`${call.name} failed: ${messageOf(Cause.squash(cause))}`, true)
        }
      })
    })
  }

  /** A handler's value (or typed failure) as the model gets it: encoded by its Schema, and JSON. */
  private encoded(
    schema: Schema.Schema<unknown, unknown> | undefined,
    value: unknown,
    name: string,
    result: (value: unknown, isError: boolean) => StreamChunk.Of<"tool-result">,
    isError: boolean
  ): StreamChunk.Of<"tool-result"> {
    let out: unknown = value
    if (schema !== undefined) {
      const encoded = Schema.encodeUnknownEither(schema)(value)
      if (Either.isLeft(encoded)) {
        return result(
          `${name}'s ${isError ? "failure" : "result"} could not be encoded: ${describeIssue(encoded.left)}`,
          true
        )
      }
      out = encoded.right
    } else if (isError) {
      out = messageOf(value)
    }
    if (out === undefined) return result(null, isError)
    return isJson(out) ? result(out, isError) : result(`${name}'s result is not JSON, so it could not be sent`, true)
  }
}

/** Whether a value survives `JSON.stringify` as itself (no cycles, BigInts, `Infinity` or deep nesting). */
const isJson = (value: unknown): boolean => {
  if (Json.check(value) !== undefined) return false
  try {
    return JSON.stringify(value) !== undefined
  } catch {
    return false
  }
}

/** An error's message, never its stack. */
const messageOf = (e: unknown): string => {
  if (e instanceof Error) return e.message
  if (typeof e === "object" && e !== null && "message" in e && typeof e.message === "string") return e.message
  if (typeof e === "string") return e
  return isJson(e) ? JSON.stringify(e) : String(e)
}

/** A Schema's issue as the model reads it: each problem with its path (`city: Expected string, actual 42`). */
export const describeIssue = (error: ParseResult.ParseError): string =>
  ParseResult.ArrayFormatter.formatErrorSync(error)
    .map((issue) => (issue.path.length === 0 ? issue.message : `${issue.path.map(String).join(".")}: ${issue.message}`))
    .join("; ")
