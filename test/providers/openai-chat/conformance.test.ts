/** OpenAI Chat on the shared conformance suite: our transcripts and every recording of the family. */
import { readdirSync, readFileSync } from "node:fs"
import * as Provider from "../../../src/internal/kit/Provider.js"
import * as Decode from "../../../src/providers/openai-chat/decode.js"
import * as Fixture from "../../../src/providers/openai-chat/fixture.js"
import * as OpenAiChat from "../../../src/providers/openai-chat/index.js"
import { conformance } from "../../support/conformance.js"

const ownDir = new URL("../../fixtures/openai-chat/", import.meta.url)

conformance({
  provider: "openai",
  layer: ({ apiKey, baseUrl, retry }) => OpenAiChat.layer({ model: "gpt-test", apiKey, baseUrl, retry }),
  wire: Provider.sse,
  decoder: (provider) => Decode.make({ provider }),
  recorded: { family: "openai-chat", frame: Fixture.sseText },
  transcripts: readdirSync(ownDir).filter((f) => f.endsWith(".sse")).sort().map((f) =>
    [f, readFileSync(new URL(f, ownDir), "utf8")] as const
  )
})
