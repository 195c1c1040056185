// End to end: the web chat example (examples/web-chat) in a real headless Chromium. The server runs in
// this process, replaying our Anthropic transcript through the real Anthropic layer over a loopback
// ReplayServer; the page's bundled script reads the answer with Relay.fetch and renders it.
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { existsSync } from "node:fs"
import { type Browser, chromium, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as WebChat from "../../examples/web-chat/server.js"

const executablePath = "/usr/bin/chromium"

const prompt = "What's the weather in Paris right now?"

let scope: Scope.CloseableScope
let browser: Browser | undefined
let fast: WebChat.Running
let stalled: WebChat.Running

/** Resolves once `check` holds, polling; fails with `what` after 10 s (a hang, not a slow answer). */
const eventually = async (what: string, check: () => boolean): Promise<void> => {
  const deadline = Date.now() + 10_000
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting until ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

const openPage = async (url: string): Promise<Page> => {
  if (browser === undefined) throw new Error("Chromium did not start")
  const page = await browser.newPage()
  await page.goto(url)
  await page.waitForSelector("body[data-ready=true]")
  return page
}

const send = async (page: Page, text: string): Promise<void> => {
  await page.getByTestId("prompt").fill(text)
  await page.getByTestId("send").click()
}

beforeAll(async () => {
  if (!existsSync(executablePath)) {
    throw new Error(
      `The web chat test needs Debian's Chromium at ${executablePath}: install it with ` +
        "`apt-get install chromium` (.ci/run does so in CI)."
    )
  }
  scope = Effect.runSync(Scope.make())
  const started = await Promise.all([
    Effect.runPromise(Scope.extend(WebChat.start({ paceMs: 0 }), scope)),
    // An answer that stops after its first 12 reads (64 bytes each) and never ends: closed mid-stream.
    Effect.runPromise(Scope.extend(WebChat.start({ paceMs: 5, stallAfterReads: 12 }), scope))
  ])
  fast = started[0]
  stalled = started[1]
  // launch() gives every run a fresh, temporary user-data dir (removed on close).
  browser = await chromium.launch({
    executablePath,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync"
    ]
  })
})

afterAll(async () => {
  await browser?.close()
  if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
})

describe("web chat example in Chromium", () => {
  it("renders the answer, the reasoning apart, the tool call and the usage", async () => {
    const page = await openPage(fast.url)
    await send(page, prompt)
    const turn = page.locator("#turn-1")
    await page.waitForSelector("#turn-1[data-state=done]")

    expect(await turn.getByTestId("prompt-text").textContent()).toBe(prompt)
    expect(await turn.getByTestId("reasoning").textContent()).toBe(
      "The user wants current weather in Paris. I should call get_weather with city Paris."
    )
    expect(await turn.getByTestId("answer").textContent()).toBe("Let me look up the weather in Paris.")
    expect(await turn.getByTestId("tool-call").allTextContents()).toEqual([
      "get_weather({\"city\":\"Paris\",\"unit\":\"celsius\"})"
    ])
    expect(await turn.getByTestId("tool-call").getAttribute("data-call-id")).toBe("toolu_demo_1")
    expect(await turn.getByTestId("usage").textContent()).toBe(
      "in 198 · cache read 128 · cache write 0 · out 61 · total 259"
    )
    expect(await turn.getByTestId("finish").textContent()).toBe("· tool_calls")
    expect(await turn.getByTestId("error").textContent()).toBe("")
    expect(await turn.getAttribute("data-provider")).toBe("anthropic")
    expect(await turn.getAttribute("data-model")).toBe("claude-demo-1")
    // The reasoning is its own (dimmed) block, not part of the answer.
    expect(await turn.getByTestId("reasoning").evaluate((el) => getComputedStyle(el).fontStyle)).toBe("italic")

    // The prompt reached the provider request, with the tool the server offers.
    const upstream = fast.upstream!.requests
    expect(upstream.length).toBe(1)
    const body = JSON.parse(upstream[0]!.body) as {
      messages: ReadonlyArray<{ role: string; content: unknown }>
      tools: ReadonlyArray<{ name: string }>
    }
    expect(body.messages.map((m) => m.role)).toEqual(["user"])
    expect(JSON.stringify(body.messages[0]!.content)).toContain(JSON.stringify(prompt).slice(1, -1))
    expect(body.tools.map((t) => t.name)).toEqual(["get_weather"])
    expect(upstream[0]!.completed).toBe(true)
    await page.close()
  })

  it("closing the page mid-stream aborts the upstream provider request", async () => {
    const page = await openPage(stalled.url)
    await send(page, prompt)
    // Everything in the 12 reads has been rendered: the first thinking deltas, and the stream is still open.
    await page.waitForFunction(() =>
      document.querySelector("#turn-1 [data-testid=reasoning]")?.textContent === "The user "
    )
    expect(await page.locator("#turn-1").getAttribute("data-state")).toBe("streaming")
    expect(await page.locator("#turn-1").getByTestId("answer").textContent()).toBe("")
    const upstream = stalled.upstream!.requests
    expect(upstream.length).toBe(1)
    expect(upstream[0]!.closedAtMs).toBe(undefined)

    await page.close()
    await eventually("the upstream connection closes", () => upstream[0]!.closedAtMs !== undefined)
    expect(upstream[0]!.completed).toBe(false)
  })

  it("the stop button aborts the upstream request and leaves what was rendered", async () => {
    const page = await openPage(stalled.url)
    await send(page, prompt)
    await page.waitForFunction(() =>
      document.querySelector("#turn-1 [data-testid=reasoning]")?.textContent === "The user "
    )
    const upstream = stalled.upstream!.requests
    expect(upstream.length).toBe(2)
    await page.getByTestId("stop").click()
    await page.waitForSelector("#turn-1[data-state=stopped]")
    await eventually("the upstream connection closes", () => upstream[1]!.closedAtMs !== undefined)
    expect(upstream[1]!.completed).toBe(false)
    expect(await page.locator("#turn-1").getByTestId("reasoning").textContent()).toBe("The user ")
    expect(await page.getByTestId("send").isDisabled()).toBe(false)
    await page.close()
  })
})
