/** Anthropic on the shared conformance suite: our transcripts and every recording of the family. */
import * as Provider from "../../../src/internal/kit/Provider.js"
import * as Decode from "../../../src/providers/anthropic/decode.js"
import * as Fixture from "../../../src/providers/anthropic/fixture.js"
import * as Anthropic from "../../../src/providers/anthropic/index.js"
import { conformance } from "../../support/conformance.js"
import { own, ownTranscripts } from "./support.js"

conformance({
  provider: "anthropic",
  layer: ({ apiKey, baseUrl, retry }) => Anthropic.layer({ model: "claude-test", apiKey, baseUrl, retry }),
  wire: Provider.sse,
  decoder: (provider) => Decode.make({ provider }),
  recorded: { family: "anthropic", frame: Fixture.sseText },
  // overloaded.sse ends in a retryable error before any content, which the transport retries and,
  // out of retries, reports alone (its held metadata dropped): layer.test.ts checks that case.
  transcripts: ownTranscripts().filter((name) => name !== "overloaded.sse").map((name) => [name, own(name)] as const)
})
