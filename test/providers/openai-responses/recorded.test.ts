/**
 * Every recording in `../shared/fixtures/recorded/openai-responses/`, decoded and checked against
 * values written by hand from reading the recording (texts, calls, usage numbers, finish reasons,
 * ids, content parts), and the step1..step4 exchanges encoded back turn by turn.
 */
import * as Either from "effect/Either"
import { expect, it } from "vitest"
import type * as ChatRequest from "../../../src/ChatRequest.js"
import { decodeAll } from "../../../src/internal/ChunkDecoder.js"
import type * as Sse from "../../../src/internal/framing/Sse.js"
import * as Decode from "../../../src/providers/openai-responses/decode.js"
import * as Request from "../../../src/providers/openai-responses/request.js"
import * as Response from "../../../src/Response.js"
import * as StreamChunk from "../../../src/StreamChunk.js"
import { expectText, type Long, shapeOf } from "../../support/expectations.js"
import { describeRecorded, listRecorded, readRecorded } from "../../support/recorded.js"

interface Expected {
  readonly provider: string
  readonly model: string
  readonly responseId: string
  /** The chunk types in order, runs written `type×n`. */
  readonly shape: string
  readonly text: string | Long
  /** Each reasoning block: its text, and the item id and encrypted content it carries back. */
  readonly reasoning?: ReadonlyArray<
    { readonly text: string | Long; readonly signature?: string; readonly redacted?: Long }
  >
  readonly toolCalls?: ReadonlyArray<{ readonly id: string; readonly name: string; readonly arguments: unknown }>
  readonly usage?: {
    readonly inputTokens: number
    readonly outputTokens: number
    readonly totalTokens: number
    readonly cacheReadTokens?: number
    readonly cacheWriteTokens?: number
    readonly reasoningTokens?: number
  }
  readonly finish?: readonly [StreamChunk.FinishReason, string]
  readonly error?: { readonly code: string; readonly message: string | Long; readonly retryable: boolean }
  /** The content parts, each as `type`, `type:kind:name` (provider tools) or `source:<url or file id>`. */
  readonly parts?: ReadonlyArray<string>
}

const calc = (a: number, b: number, op: string) => ({ a, b, op })
const noUsageExtras = { cacheReadTokens: 0, reasoningTokens: 0 }

const expectations: Record<string, Expected> = {
  "azure-reasoning-encrypted-content.1.step1.chunks.txt": {
    provider: "azure",
    model: "gpt-5.1-codex-max",
    responseId: "resp_0ca3f598125653cf01693c1f21bf8c819596a078608d16a52d",
    shape: "metadata reasoning-delta×89 reasoning tool-call-delta×13 tool-call usage finish",
    text: "",
    reasoning: [{
      text: {
        prefix: "**Calculating in steps**\n\nI need to carr",
        suffix: ", then proceed with the multiplications.",
        length: 455
      },
      signature: "rs_0ca3f598125653cf01693c1f22e2d08195b4275856d2c3bd9f",
      // The finished item's blob, not the one on output_item.added.
      redacted: { prefix: "gAAAAABpPB8lj5jDwSDj", suffix: "xBcNflrwsw==", length: 1188 }
    }],
    toolCalls: [{ id: "call_UdvUeOElp5zdU0DKr6IoyhjE", name: "calculator", arguments: calc(12, 7, "add") }],
    usage: { inputTokens: 137, outputTokens: 28, totalTokens: 165, ...noUsageExtras },
    finish: ["tool_calls", "completed"]
  },
  "azure-reasoning-encrypted-content.1.step2.chunks.txt": {
    provider: "azure",
    model: "gpt-5.1-codex-max",
    responseId: "resp_0ca3f598125653cf01693c1f2686188195adf328026135e433",
    shape: "metadata tool-call-delta×13 tool-call usage finish",
    text: "",
    toolCalls: [{ id: "call_Qm7RkNSRinyfYLyTUPXLrgH5", name: "calculator", arguments: calc(19, 3, "multiply") }],
    usage: { inputTokens: 237, outputTokens: 26, totalTokens: 263, ...noUsageExtras },
    finish: ["tool_calls", "completed"]
  },
  "azure-reasoning-encrypted-content.1.step3.chunks.txt": {
    provider: "azure",
    model: "gpt-5.1-codex-max",
    responseId: "resp_0ca3f598125653cf01693c1f28ad348195a1daf61cc1aa6381",
    shape: "metadata tool-call-delta×13 tool-call usage finish",
    text: "",
    toolCalls: [{ id: "call_axaLIcwBQwyb49kT8613pJxW", name: "calculator", arguments: calc(57, 10, "multiply") }],
    usage: { inputTokens: 276, outputTokens: 26, totalTokens: 302, ...noUsageExtras },
    finish: ["tool_calls", "completed"]
  },
  "azure-reasoning-encrypted-content.1.step4.chunks.txt": {
    provider: "azure",
    model: "gpt-5.1-codex-max",
    responseId: "resp_0ca3f598125653cf01693c1f2ae8a081959804dec902c996c2",
    shape: "metadata text-delta×8 usage finish",
    text: "The final result is **570**.",
    usage: { inputTokens: 315, outputTokens: 12, totalTokens: 327, ...noUsageExtras },
    finish: ["stop", "completed"]
  },
  "azure-text.1.chunks.txt": {
    provider: "azure",
    model: "gpt-5.1",
    responseId: "resp_02ce8deeb6197db200698c5196e9588197a572bbea62d38cd1",
    shape: "metadata text-delta usage finish",
    text: "Hello",
    usage: { inputTokens: 11, outputTokens: 11, totalTokens: 22, ...noUsageExtras },
    finish: ["stop", "completed"]
  },
  // Every event carries a new id (capture-id-1 … 69): items are matched by output_index.
  "github-copilot-id-rotation.1.chunks.txt": {
    provider: "github-copilot",
    model: "gpt-5.3-codex",
    responseId: "capture-id-1",
    shape: "metadata reasoning-delta reasoning text-delta×55 usage finish",
    text: {
      prefix: "There are **3** letter **“r”**s in **“st",
      suffix: " see **r** at positions **3, 8, and 9**.",
      length: 138
    },
    // encrypted_content is null: nothing to send back.
    reasoning: [{ text: "**Counting character occurrences**" }],
    usage: {
      inputTokens: 19,
      outputTokens: 105,
      totalTokens: 124,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 44
    },
    finish: ["stop", "completed"]
  },
  "lmstudio-basic.1.chunks.txt": {
    provider: "lmstudio",
    model: "gemma-7b-it",
    responseId: "resp_604f426346767f2cd7f98c793d9cfd27cba9ef834509019c",
    shape: "metadata text-delta×282 usage cache-read finish",
    text: {
      prefix: "## The Festival of Whispering Leaves (Fe",
      suffix: "r roots through storytelling around fire",
      length: 1384
    },
    usage: { inputTokens: 31, outputTokens: 282, totalTokens: 313, cacheReadTokens: 30, reasoningTokens: 0 },
    finish: ["stop", "completed"]
  },
  // Raw reasoning text; the call's arguments arrive only on function_call_arguments.done.
  "lmstudio-tool-call.1.chunks.txt": {
    provider: "lmstudio",
    model: "zai-org/glm-4.7-flash",
    responseId: "resp_cc7bfe18e2f2eca93006515c0fd19cfed16e46a93a60444a",
    shape: "metadata reasoning-delta×48 reasoning text-delta×13 tool-call-delta tool-call usage cache-read finish",
    text: "I'll get the current weather information for San Francisco for you.",
    reasoning: [{
      text: {
        prefix: "The user is asking for the weather in Sa",
        suffix: "d information to make the function call.",
        length: 242
      }
    }],
    toolCalls: [{ id: "call_2025306790300011", name: "weather", arguments: { location: "San Francisco" } }],
    usage: { inputTokens: 182, outputTokens: 61, totalTokens: 243, cacheReadTokens: 2, reasoningTokens: 48 },
    finish: ["tool_calls", "completed"]
  },
  // The nested error event, then response.failed (which repeats it and is ignored).
  "openai-error.1.chunks.txt": {
    provider: "openai",
    model: "gpt-5-nano-2025-08-07",
    responseId: "resp_05500b38c2cd9bfc00691c7c9d222481a3b595421266dab424",
    shape: "metadata error",
    text: "",
    error: {
      code: "quota",
      message: {
        prefix: "You exceeded your current quota, please check your plan and",
        suffix: "error-codes/api-errors.",
        length: 191
      },
      retryable: false
    }
  },
  "openai-file-search-tool.1.chunks.txt": {
    provider: "openai",
    model: "gpt-5-mini-2025-08-07",
    responseId: "resp_0459517ad68504ad0068cabfba22b88192836339640e9a765a",
    shape: "metadata content-part×2 text-delta×33 content-part text-delta×42 usage cache-read finish",
    text: {
      prefix: "According to the document, an embedding ",
      suffix: "as input for other models or NLP tasks .",
      length: 383
    },
    usage: { inputTokens: 3737, outputTokens: 621, totalTokens: 4358, cacheReadTokens: 2304, reasoningTokens: 512 },
    finish: ["stop", "completed"],
    parts: ["provider-tool:call:file_search", "provider-tool:result:file_search", "source:file-Ebzhf8H4DPGPr9pUhr7n7v"]
  },
  // One partial image (stream-only, left out of the Response), then the final one; no text at all.
  "openai-image-generation-tool.1.chunks.txt": {
    provider: "openai",
    model: "gpt-5-2025-08-07",
    responseId: "resp_0df93c0bb83a72f20068c979db26ac819e8b5a444fad3f0d7f",
    shape: "metadata content-part×2 usage cache-read finish",
    text: "",
    usage: { inputTokens: 2941, outputTokens: 1249, totalTokens: 4190, cacheReadTokens: 1920, reasoningTokens: 1024 },
    finish: ["stop", "completed"],
    parts: ["image"]
  },
  // mcp_list_tools is not output; the approval request is a provider tool call awaiting approval.
  "openai-mcp-tool-approval.1.chunks.txt": {
    provider: "openai",
    model: "gpt-5-mini-2025-08-07",
    responseId: "resp_04a97b4fce127879006949a837a3a48195b37f26ae73f550c0",
    shape: "metadata content-part usage finish",
    text: "",
    usage: { inputTokens: 422, outputTokens: 48, totalTokens: 470, ...noUsageExtras },
    finish: ["stop", "completed"],
    parts: ["provider-tool:call:create_short_url"]
  },
  "openai-reasoning-encrypted-content.1.step1.chunks.txt": {
    provider: "openai",
    model: "gpt-5.1-codex-max",
    responseId: "resp_01830d662ab3856501693c321345c88190b0de00f3b9975691",
    shape: "metadata reasoning-delta×32 reasoning tool-call-delta×13 tool-call usage finish",
    text: "",
    reasoning: [{
      text: {
        prefix: "**Calculating step-by-step using calcula",
        suffix: "that by 10, reporting the final product.",
        length: 163
      },
      signature: "rs_01830d662ab3856501693c321405c88190be3ab04d5782d5f9",
      redacted: { prefix: "gAAAAABpPDIVOKrsHNZ0", suffix: "Nxat0wz4uQ==", length: 1060 }
    }],
    toolCalls: [{ id: "call_AB6AaRZ1FYZB2RwS6A5vbdqn", name: "calculator", arguments: calc(12, 7, "add") }],
    usage: { inputTokens: 134, outputTokens: 28, totalTokens: 162, ...noUsageExtras },
    finish: ["tool_calls", "completed"]
  },
  "openai-reasoning-encrypted-content.1.step2.chunks.txt": {
    provider: "openai",
    model: "gpt-5.1-codex-max",
    responseId: "resp_01830d662ab3856501693c3215903881909b710d150ff65014",
    shape: "metadata tool-call-delta×13 tool-call usage finish",
    text: "",
    toolCalls: [{ id: "call_Q6pW65MUgW9vF59BmItYGos3", name: "calculator", arguments: calc(19, 3, "multiply") }],
    usage: { inputTokens: 221, outputTokens: 26, totalTokens: 247, ...noUsageExtras },
    finish: ["tool_calls", "completed"]
  },
  "openai-reasoning-encrypted-content.1.step3.chunks.txt": {
    provider: "openai",
    model: "gpt-5.1-codex-max",
    responseId: "resp_01830d662ab3856501693c3216bef88190bf0e034cff24137b",
    shape: "metadata tool-call-delta×13 tool-call usage finish",
    text: "",
    toolCalls: [{ id: "call_Zl5vIMnD7dVAjgU6FkhmiCZh", name: "calculator", arguments: calc(57, 10, "multiply") }],
    usage: { inputTokens: 260, outputTokens: 26, totalTokens: 286, ...noUsageExtras },
    finish: ["tool_calls", "completed"]
  },
  "openai-reasoning-encrypted-content.1.step4.chunks.txt": {
    provider: "openai",
    model: "gpt-5.1-codex-max",
    responseId: "resp_01830d662ab3856501693c3217ba4c8190a3ddf6c839d4f12a",
    shape: "metadata text-delta×8 usage finish",
    text: "The final result is **570**.",
    usage: { inputTokens: 299, outputTokens: 12, totalTokens: 311, ...noUsageExtras },
    finish: ["stop", "completed"]
  },
  // Six searches (call + result each); twelve citations of seven distinct URLs, each source once.
  "openai-web-search-tool.1.chunks.txt": {
    provider: "openai",
    model: "gpt-5-mini-2025-08-07",
    responseId: "resp_0cc96ac817fdc57e00693337060a408198b92bf1f99cf1b8ec",
    shape: "metadata content-part×12 text-delta×15 content-part text-delta×5 content-part text-delta×7 " +
      "content-part text-delta×5 content-part text-delta×4 content-part text-delta×51 content-part " +
      "text-delta×25 content-part text-delta×9 usage cache-read finish",
    text: {
      prefix: "I checked today’s tech headlines (today ",
      suffix: "age pages and pull out more details now?",
      length: 3645
    },
    usage: { inputTokens: 31073, outputTokens: 4416, totalTokens: 35489, cacheReadTokens: 3712, reasoningTokens: 3712 },
    finish: ["stop", "completed"],
    parts: [
      ...Array.from({ length: 6 }, () => ["provider-tool:call:web_search", "provider-tool:result:web_search"]).flat(),
      "source:https://techcrunch.com/2025/12/05/petco-confirms-security-lapse-exposed-customers-personal-data/?utm_source=openai",
      "source:https://techcrunch.com/2025/12/05/the-new-york-times-is-suing-perplexity-for-copyright-infringement/?utm_source=openai",
      "source:https://techcrunch.com/2025/12/05/meta-signs-commercial-ai-data-agreements-with-publishers-to-offer-real-time-news-on-meta-ai/?utm_source=openai",
      "source:https://techcrunch.com/2025/12/05/netflix-to-acquire-warner-bros-in-a-disruptive-deal-valued-at-82-7b/?utm_source=openai",
      "source:https://www.wired.com/story/the-big-interview-2025-recap?utm_source=openai",
      "source:https://techstartups.com/2025/12/05/technology-news-today-the-latest-in-tech-ai-startup-news-december-5-2025/?utm_source=openai",
      "source:https://finance.yahoo.com/news/ai-coding-startup-vercel-raises-163055044.html?utm_source=openai"
    ]
  },
  // xAI counts reasoning inside output_tokens here (216 + 863 = 1079), unlike its Chat Completions.
  "xai-text-streaming.1.chunks.txt": {
    provider: "xai",
    model: "grok-code-fast-1",
    responseId: "769f3302-64f9-4c72-2b48-860c87fd9b2a",
    shape: "metadata reasoning-delta×59 reasoning text-delta×626 usage cache-read finish",
    text: {
      prefix: "### Overview of Sonoran Cuisine\nSonoran ",
      suffix: " places to experience authentic flavors.",
      length: 3068
    },
    reasoning: [{
      text: {
        prefix: "First, the question is: \"What is specifi",
        suffix: "ative response to highlight key aspects.",
        length: 569
      }
    }],
    usage: { inputTokens: 216, outputTokens: 863, totalTokens: 1079, cacheReadTokens: 192, reasoningTokens: 237 },
    finish: ["stop", "completed"]
  }
}

/** Each line framed as `event: <type>` + `data: <line>`, as the SSE framer would hand them over. */
const events = (lines: ReadonlyArray<string>): Array<Sse.Event> =>
  lines.map((data) => ({ event: (JSON.parse(data) as { type: string }).type, data, id: undefined }))

const decodeFile = (file: string, provider = "openai") =>
  decodeAll(Decode.make({ provider }), events(readRecorded("openai-responses", file)))

/** The chunk types in order, runs of one type written `type×n`. */
const partName = (part: Response.Response["contentParts"][number]): string =>
  part.type === "provider-tool"
    ? `provider-tool:${part.kind}:${part.name}`
    : part.type === "source"
    ? `source:${part.url ?? part.id}`
    : part.type

describeRecorded("openai-responses", () => {
  it("has an expectation for every recording, and a recording for every expectation", () => {
    expect(listRecorded("openai-responses")).toStrictEqual(Object.keys(expectations).sort())
  })

  for (const [file, expected] of Object.entries(expectations)) {
    it(file, () => {
      const chunks = decodeFile(file, expected.provider)
      for (const chunk of chunks) expect(Either.isRight(StreamChunk.validate(chunk))).toBe(true)
      expect(shapeOf(chunks)).toBe(expected.shape)

      const response = Response.fromChunks(chunks)
      expect(response.metadata).toStrictEqual({
        provider: expected.provider,
        model: expected.model,
        responseId: expected.responseId
      })
      expectText(response.text, expected.text)
      const reasoning = expected.reasoning ?? []
      expect(response.reasoningParts.length).toBe(reasoning.length)
      reasoning.forEach((part, i) => {
        const actual = response.reasoningParts[i]
        expectText(actual?.text, part.text)
        expect(actual?.signature).toBe(part.signature)
        if (part.redacted === undefined) expect(actual?.redacted).toBeUndefined()
        else expectText(actual?.redacted, part.redacted)
      })
      expect(response.toolCalls.map(({ arguments: args, id, name, parseError }) => ({ id, name, args, parseError })))
        .toStrictEqual(
          (expected.toolCalls ?? []).map((c) => ({ id: c.id, name: c.name, args: c.arguments, parseError: undefined }))
        )
      if (expected.usage === undefined) expect(response.usage).toBeUndefined()
      else {
        const { raw, ...usage } = response.usage ?? { raw: undefined }
        expect(usage).toStrictEqual(expected.usage)
        expect(raw).toBeTypeOf("object")
      }
      if (expected.error === undefined) {
        expect([response.finishReason, response.rawFinishReason, response.error])
          .toStrictEqual([...(expected.finish ?? []), undefined])
      } else {
        expect([response.finishReason, response.error?.code, response.error?.retryable])
          .toStrictEqual(["error", expected.error.code, expected.error.retryable])
        expectText(response.error?.message, expected.error.message)
      }
      expect(response.contentParts.map(partName)).toStrictEqual(expected.parts ?? [])
      const cacheRead = expected.usage?.cacheReadTokens ?? 0
      expect(chunks.find((c) => c.type === "cache-read")).toStrictEqual(
        cacheRead > 0 ? { type: "cache-read", cacheReadTokens: cacheRead, accumulated: cacheRead } : undefined
      )
    })
  }

  it("the image recording: a stream-only preview, then the final image with its prompt", () => {
    const parts = decodeFile("openai-image-generation-tool.1.chunks.txt")
      .filter((c): c is StreamChunk.Of<"content-part"> => c.type === "content-part")
    expect(parts.map((c) => [c.part.type, c.streamOnly])).toStrictEqual([["image", true], ["image", undefined]])
    const [preview, final] = parts.map((c) => c.part)
    expect(preview).toMatchObject({
      mediaType: "image/webp",
      providerMetadata: { itemId: "ig_0df93c0bb83a72f20068c979f589c0819e9f0fc2d1a27aa1b8", partialImageIndex: 0 }
    })
    expect(final).toMatchObject({
      mediaType: "image/webp",
      providerMetadata: { size: "1536x1024", quality: "low", background: "opaque" }
    })
    expectText(final?.type === "image" ? final.data : undefined, {
      prefix: "UklGRuIWGQBXRUJQVlA4",
      suffix: "HNgnA2uzI=",
      length: 327
    })
  })

  it("the MCP recording: the approval request names its server and arguments", () => {
    const [part] = Response.fromChunks(decodeFile("openai-mcp-tool-approval.1.chunks.txt")).contentParts
    expect(part).toStrictEqual({
      type: "provider-tool",
      kind: "call",
      id: "mcpr_04a97b4fce127879006949a83ac9308195a7f7b69ea82e91fe",
      name: "create_short_url",
      input: {
        alias: "",
        description: "Shortened link for ai-sdk.dev",
        max_clicks: 100,
        password: "",
        url: "https://ai-sdk.dev/"
      },
      providerMetadata: { serverLabel: "zip1", approvalRequest: true }
    })
  })

  for (const family of ["openai", "azure"] as const) {
    it(`the ${family} step1..step4 exchange encodes back turn by turn as the API requires`, () => {
      const steps = [1, 2, 3, 4].map((n) =>
        Response.fromChunks(decodeFile(`${family}-reasoning-encrypted-content.1.step${n}.chunks.txt`))
      )
      const results = ["19", "57", "570"]
      const messages: Array<ChatRequest.Message> = [{ role: "user", content: "Compute ((12 + 7) * 3) * 10." }]
      steps.slice(0, 3).forEach((step, i) => {
        messages.push(step.message, { role: "tool", toolCallId: step.toolCalls[0]!.id, content: results[i]! })
      })
      const body = Request.encode({ messages }, { model: "gpt-5.1-codex-max" })
      const input = body.input as Array<Record<string, unknown>>
      const reasoningItem = input[1]!
      // The blob is 1 KiB of opaque text, pinned by its ends above; the rest of the body is exact.
      expect(typeof reasoningItem.encrypted_content).toBe("string")
      expect(reasoningItem.encrypted_content).toBe(steps[0]!.reasoningParts[0]!.redacted)
      const ids = family === "openai"
        ? [
          "rs_01830d662ab3856501693c321405c88190be3ab04d5782d5f9",
          "call_AB6AaRZ1FYZB2RwS6A5vbdqn",
          "call_Q6pW65MUgW9vF59BmItYGos3",
          "call_Zl5vIMnD7dVAjgU6FkhmiCZh"
        ]
        : [
          "rs_0ca3f598125653cf01693c1f22e2d08195b4275856d2c3bd9f",
          "call_UdvUeOElp5zdU0DKr6IoyhjE",
          "call_Qm7RkNSRinyfYLyTUPXLrgH5",
          "call_axaLIcwBQwyb49kT8613pJxW"
        ]
      const fn = (callId: string | undefined, args: string) => ({
        type: "function_call",
        call_id: callId,
        name: "calculator",
        arguments: args
      })
      expect({ ...body, input: input.map((item, i) => (i === 1 ? { ...item, encrypted_content: "…" } : item)) })
        .toStrictEqual({
          model: "gpt-5.1-codex-max",
          input: [
            { role: "user", content: "Compute ((12 + 7) * 3) * 10." },
            {
              type: "reasoning",
              id: ids[0],
              summary: [{ type: "summary_text", text: steps[0]!.reasoning }],
              encrypted_content: "…"
            },
            fn(ids[1], "{\"a\":12,\"b\":7,\"op\":\"add\"}"),
            { type: "function_call_output", call_id: ids[1], output: "19" },
            fn(ids[2], "{\"a\":19,\"b\":3,\"op\":\"multiply\"}"),
            { type: "function_call_output", call_id: ids[2], output: "57" },
            fn(ids[3], "{\"a\":57,\"b\":10,\"op\":\"multiply\"}"),
            { type: "function_call_output", call_id: ids[3], output: "570" }
          ],
          store: false,
          include: ["reasoning.encrypted_content"],
          stream: true
        })
      expect(steps[3]!.message).toStrictEqual({ role: "assistant", content: "The final result is **570**." })
    })
  }
})
