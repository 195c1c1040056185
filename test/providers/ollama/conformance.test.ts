/** Ollama on the shared conformance suite: every one of our transcripts (no recordings of this family exist). */
import * as Provider from "../../../src/internal/kit/Provider.js"
import * as Decode from "../../../src/providers/ollama/decode.js"
import * as Ollama from "../../../src/providers/ollama/index.js"
import { conformance } from "../../support/conformance.js"
import { own, ownTranscripts } from "./support.js"

conformance({
  provider: "ollama",
  layer: ({ apiKey, baseUrl, retry }) => Ollama.layer({ model: "llama-test", apiKey, baseUrl, retry }),
  wire: Provider.ndjson,
  decoder: (provider) => Decode.make({ provider }),
  transcripts: ownTranscripts().map((name) => [name, own(name)] as const)
})
