import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { declarationGraph } from "./declarationGraph.js"

// The public/internal check is only as strict as its walk: each kind of reference a .d.ts can hold
// must lead it on, and a comment must not.
const dist = fs.mkdtempSync(path.join(os.tmpdir(), "effect-llm-stream-dts-"))
afterAll(() => fs.rmSync(dist, { recursive: true, force: true }))

const files: Record<string, string> = {
  "index.d.ts": [
    "/**",
    " * @example",
    " * import { Nope } from \"./internal/comment.js\"",
    " */",
    "export * as A from \"./a.js\"",
    "export { b } from \"./b.js\""
  ].join("\n"),
  "testing/index.d.ts": "import type { C } from \"../c.js\"\nexport declare const c: C\n",
  "a.d.ts": "export declare const a: import(\"./internal/typeImport.js\").T\n",
  "b.d.ts": "/// <reference path=\"./internal/referenced.d.ts\" />\nexport declare const b: 1\n",
  "c.d.ts":
    "import X = require(\"./internal/required.js\")\nexport type C = X.T\ndeclare module \"./internal/augmented.js\" {}\n",
  "d.d.ts": "export declare const unreachable: 1\n",
  "e.d.ts":
    "import type { Effect } from \"effect/Effect\"\nimport type * as T from \"pkg/testing\"\nexport type E = Effect<T.X>\nimport type { V } from \"vitest\"\n",
  "internal/comment.d.ts": "export type Nope = 1\n",
  "internal/typeImport.d.ts": "export type T = 1\n",
  "internal/referenced.d.ts": "export type R = 1\n",
  "internal/required.d.ts": "export type T = 1\nimport type { E } from \"../e.js\"\nimport \"./missing.js\"\n",
  "internal/augmented.d.ts": "export {}\n"
}
for (const [file, text] of Object.entries(files)) {
  fs.mkdirSync(path.dirname(path.join(dist, file)), { recursive: true })
  fs.writeFileSync(path.join(dist, file), text)
}

describe("declarationGraph", () => {
  const graph = declarationGraph(dist, {
    entries: { pkg: "index.d.ts", "pkg/testing": "testing/index.d.ts" },
    peers: ["effect"]
  })

  it("follows every kind of module reference, and none in comments", () => {
    expect([...graph.reachable].sort()).toStrictEqual([
      "a.d.ts",
      "b.d.ts",
      "c.d.ts",
      "e.d.ts",
      "index.d.ts",
      "internal/augmented.d.ts",
      "internal/referenced.d.ts",
      "internal/required.d.ts",
      "internal/typeImport.d.ts",
      "testing/index.d.ts"
    ])
  })

  it("names the chain to a file", () => {
    expect(graph.chain("e.d.ts")).toStrictEqual(["testing/index.d.ts", "c.d.ts", "internal/required.d.ts", "e.d.ts"])
  })

  it("reports what does not resolve and packages that are not peers", () => {
    expect(graph.problems).toStrictEqual([
      "internal/required.d.ts: \"./missing.js\" does not resolve to a declaration file",
      "e.d.ts: \"vitest\" is neither a peer dependency nor a Node builtin"
    ])
  })
})
