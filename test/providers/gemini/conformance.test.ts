/** Gemini on the shared conformance suite: our transcripts and every recording of the family. */
import * as Provider from "../../../src/internal/kit/Provider.js"
import * as Decode from "../../../src/providers/gemini/decode.js"
import * as Fixture from "../../../src/providers/gemini/fixture.js"
import * as Gemini from "../../../src/providers/gemini/index.js"
import { conformance } from "../../support/conformance.js"
import { own, ownTranscripts } from "./support.js"

conformance({
  provider: "google",
  layer: ({ apiKey, baseUrl, retry }) => Gemini.layer({ model: "gemini-test", apiKey, baseUrl, retry }),
  wire: Provider.sse,
  decoder: (provider) => Decode.make({ provider }),
  recorded: { family: "google", frame: Fixture.sseText },
  // overloaded.sse is a retryable in-band error before any content, which the transport retries and,
  // out of retries, reports alone (its held metadata dropped): layer.test.ts checks that case.
  transcripts: ownTranscripts().filter((name) => name !== "overloaded.sse").map((name) => [name, own(name)] as const)
})
