/** Bedrock on the shared conformance suite: our transcripts and every recording of the family, as binary event streams. */
import * as Provider from "../../../src/internal/kit/Provider.js"
import * as Decode from "../../../src/providers/bedrock/decode.js"
import * as Fixture from "../../../src/providers/bedrock/fixture.js"
import * as Bedrock from "../../../src/providers/bedrock/index.js"
import { conformance } from "../../support/conformance.js"
import { MODEL, own, ownTranscripts } from "./support.js"

conformance({
  provider: "bedrock",
  layer: ({ apiKey, baseUrl, retry }) => Bedrock.layer({ model: MODEL, apiKey, baseUrl, retry }),
  wire: Provider.eventStream,
  decoder: (provider) => Decode.make({ provider, model: MODEL }),
  recorded: { family: "bedrock", frame: Fixture.eventStreamBytes },
  transcripts: ownTranscripts().map((name) => [name, own(name)] as const),
  usageAfterEnd: true
})
