// The page's script, bundled for the browser by server.ts (esbuild, at startup). It posts the prompt
// to /chat and reads the answer back with Relay.fetch: the same typed chunks the server streamed,
// ending in exactly one finish or error chunk. Each chunk is rendered as it arrives into plain DOM
// elements (stable ids and data-testid attributes, which the end-to-end test reads). Model output only
// ever becomes text nodes (append, textContent), never HTML. An agent loop's chunks
// (LanguageModel.streamWithTools) render too: each tool result on its call's line, a line per step.
import { Effect, Fiber, Stream } from "effect"
import { Relay } from "effect-llm-stream"
import type { StreamChunk, Usage } from "effect-llm-stream"

const byId = <E extends HTMLElement>(id: string): E => document.getElementById(id) as E

const form = byId<HTMLFormElement>("chat")
const input = byId<HTMLInputElement>("prompt")
const send = byId<HTMLButtonElement>("send")
const stop = byId<HTMLButtonElement>("stop")
const turns = byId<HTMLElement>("turns")

const element = <K extends keyof HTMLElementTagNameMap>(
  tag: K,
  testId: string,
  className = testId
): HTMLElementTagNameMap[K] => {
  const el = document.createElement(tag)
  el.className = className
  el.dataset.testid = testId
  return el
}

/** The elements of one question and its answer. */
interface Turn {
  readonly section: HTMLElement
  readonly reasoning: HTMLElement
  readonly answer: HTMLElement
  readonly toolCalls: HTMLElement
  readonly steps: HTMLElement
  readonly usage: HTMLElement
  readonly finish: HTMLElement
  readonly error: HTMLElement
}

let count = 0

const newTurn = (prompt: string): Turn => {
  const n = ++count
  const section = element("section", "turn")
  section.id = `turn-${n}`
  section.dataset.state = "streaming"
  const question = element("p", "prompt-text", "prompt")
  question.textContent = prompt
  const turn: Turn = {
    section,
    reasoning: element("div", "reasoning"),
    answer: element("div", "answer"),
    toolCalls: element("ul", "tool-calls"),
    steps: element("ol", "steps"),
    usage: element("span", "usage"),
    finish: element("span", "finish"),
    error: element("p", "error")
  }
  const footer = element("p", "footer")
  footer.append(turn.usage, " ", turn.finish)
  section.append(question, turn.reasoning, turn.answer, turn.toolCalls, turn.steps, footer, turn.error)
  turns.append(section)
  return turn
}

/**
 * The line of a tool call, created by its first fragment (the id is on every fragment). Lines of
 * finished steps carry `data-step` and are never reused, so a later step may repeat an id.
 */
const toolCallLine = (turn: Turn, id: string, name: string | undefined) => {
  const existing = turn.toolCalls.querySelector<HTMLElement>(`li[data-call-id="${CSS.escape(id)}"]:not([data-step])`)
  if (existing !== null) return existing
  const li = element("li", "tool-call")
  li.dataset.callId = id
  li.dataset.complete = "false"
  const nameEl = document.createElement("b")
  nameEl.className = "tool-name"
  nameEl.textContent = name ?? "tool"
  const args = document.createElement("code")
  args.className = "tool-arguments"
  li.append(nameEl, "(", args, ")")
  turn.toolCalls.append(li)
  return li
}

const usageLine = (u: Usage.Usage): string =>
  [
    `in ${u.inputTokens}`,
    ...(u.cacheReadTokens !== undefined ? [`cache read ${u.cacheReadTokens}`] : []),
    ...(u.cacheWriteTokens !== undefined ? [`cache write ${u.cacheWriteTokens}`] : []),
    `out ${u.outputTokens}`,
    ...(u.reasoningTokens !== undefined ? [`reasoning ${u.reasoningTokens}`] : []),
    `total ${u.totalTokens}`
  ].join(" · ")

/** A tool result as text: a string as it is, anything else as compact JSON. */
const resultText = (result: unknown): string => typeof result === "string" ? result : JSON.stringify(result) ?? "null"

/** Starts a new paragraph in a text area that already holds a finished step's text. */
const breakAfterStep = (el: HTMLElement): void => {
  if (el.dataset.stepEnded === "true") {
    el.dataset.stepEnded = "false"
    if (el.textContent !== "") el.append("\n\n")
  }
}

const render = (turn: Turn, chunk: StreamChunk.StreamChunk): void => {
  switch (chunk.type) {
    case "metadata":
      turn.section.dataset.provider = chunk.provider
      if (chunk.model !== undefined) turn.section.dataset.model = chunk.model
      return
    case "reasoning-delta":
      breakAfterStep(turn.reasoning)
      turn.reasoning.append(chunk.delta)
      return
    case "text-delta":
      breakAfterStep(turn.answer)
      turn.answer.append(chunk.delta)
      return
    case "tool-call-delta": {
      // Every fragment carries its call's id (the library guarantees it); the index is a fallback.
      const args = toolCallLine(turn, chunk.id ?? `#${chunk.index}`, chunk.name).querySelector(".tool-arguments")
      args?.append(chunk.argumentsDelta)
      return
    }
    case "tool-call": {
      const call = chunk.toolCall
      const li = toolCallLine(turn, call.id, call.name)
      const nameEl = li.querySelector(".tool-name")
      const args = li.querySelector(".tool-arguments")
      if (nameEl !== null) nameEl.textContent = call.name
      // The decoded arguments, as compact JSON (the raw text when it did not parse).
      if (args !== null) {
        args.textContent = call.parseError === undefined
          ? JSON.stringify(call.arguments)
          : call.rawArguments
      }
      li.dataset.complete = "true"
      return
    }
    case "tool-result": {
      // On its call's line: `get_weather({"city":"Paris"}) → {"temperature":18}`, errors marked.
      const li = toolCallLine(turn, chunk.toolCallId, chunk.name)
      const result = document.createElement("code")
      result.className = "tool-result"
      result.dataset.testid = "tool-result"
      result.dataset.error = String(chunk.isError)
      result.textContent = `${chunk.isError ? "error: " : ""}${resultText(chunk.result)}`
      li.append(" → ", result)
      return
    }
    case "step-finish": {
      const li = element("li", "step")
      li.dataset.step = String(chunk.step)
      li.textContent = [
        `step ${chunk.step}`,
        chunk.finishReason,
        ...(chunk.usage !== undefined ? [usageLine(chunk.usage)] : [])
      ].join(" · ")
      turn.steps.append(li)
      // This step's calls are done: a later step's call with the same id gets a line of its own.
      turn.toolCalls.querySelectorAll<HTMLElement>("li:not([data-step])").forEach((call) => {
        call.dataset.step = String(chunk.step)
      })
      turn.answer.dataset.stepEnded = "true"
      turn.reasoning.dataset.stepEnded = "true"
      return
    }
    case "usage":
      // The running total: in an agent loop, the sum over the steps so far.
      turn.usage.textContent = usageLine(chunk.usage)
      return
    case "finish":
      turn.finish.textContent = `· ${chunk.reason}`
      turn.section.dataset.state = "done"
      return
    case "error":
      turn.error.textContent = `${chunk.error.code}: ${chunk.error.message}`
      turn.section.dataset.state = "error"
      return
    default:
      return
  }
}

let running: Fiber.RuntimeFiber<void> | undefined

form.addEventListener("submit", (event) => {
  event.preventDefault()
  const prompt = input.value.trim()
  if (prompt === "" || running !== undefined) return
  const turn = newTurn(prompt)
  send.disabled = true
  stop.disabled = false
  const fiber = Relay.fetch("/chat", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ prompt })
  }).pipe(
    Stream.runForEach((chunk) => Effect.sync(() => render(turn, chunk))),
    Effect.ensuring(Effect.sync(() => {
      // Stopped before a terminal chunk: interrupting the stream aborted the request.
      if (turn.section.dataset.state === "streaming") turn.section.dataset.state = "stopped"
      running = undefined
      send.disabled = false
      stop.disabled = true
    }))
  )
  running = Effect.runFork(fiber)
})

stop.addEventListener("click", () => {
  if (running !== undefined) Effect.runFork(Fiber.interrupt(running))
})

document.body.dataset.ready = "true"
