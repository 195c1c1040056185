/** OpenAiResponses on the shared conformance suite: our transcripts and every recording of the family. */
import { readdirSync, readFileSync } from "node:fs"
import * as Provider from "../../../src/internal/kit/Provider.js"
import * as Decode from "../../../src/providers/openai-responses/decode.js"
import * as Fixture from "../../../src/providers/openai-responses/fixture.js"
import * as OpenAiResponses from "../../../src/providers/openai-responses/index.js"
import { conformance } from "../../support/conformance.js"

const ownDir = new URL("../../fixtures/openai-responses/", import.meta.url)

// failed.sse and error-flat.sse end in a retryable error before any content, which the transport
// retries and, out of retries, reports alone (its held metadata dropped): layer.test.ts checks them.
const retriedAway: ReadonlySet<string> = new Set(["failed.sse", "error-flat.sse"])

conformance({
  provider: "openai",
  layer: ({ apiKey, baseUrl, retry }) => OpenAiResponses.layer({ model: "gpt-5-mini", apiKey, baseUrl, retry }),
  wire: Provider.sse,
  decoder: (provider) => Decode.make({ provider }),
  recorded: { family: "openai-responses", frame: Fixture.sseText },
  transcripts: readdirSync(ownDir)
    .filter((name) => name.endsWith(".sse") && !retriedAway.has(name))
    .sort()
    .map((name) => [name, readFileSync(new URL(name, ownDir), "utf8")] as const)
})
