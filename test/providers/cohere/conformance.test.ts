/** Cohere on the shared conformance suite: our transcripts and every recording of the family. */
import * as Provider from "../../../src/internal/kit/Provider.js"
import * as Decode from "../../../src/providers/cohere/decode.js"
import * as Fixture from "../../../src/providers/cohere/fixture.js"
import * as Cohere from "../../../src/providers/cohere/index.js"
import { conformance } from "../../support/conformance.js"
import { own, ownTranscripts } from "./support.js"

conformance({
  provider: "cohere",
  layer: ({ apiKey, baseUrl, retry }) => Cohere.layer({ model: "command-test", apiKey, baseUrl, retry }),
  wire: Provider.sse,
  decoder: (provider) => Decode.make({ provider }),
  recorded: { family: "cohere", frame: Fixture.sseText },
  transcripts: ownTranscripts().map((name) => [name, own(name)] as const)
})
