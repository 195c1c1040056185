/**
 * Every `@example` in the TSDoc of the public modules, and every `ts` block of the README, is
 * type-checked: the blocks are compiled in memory, as files inside the package (so
 * `effect-llm-stream` resolves to it), with the project's compiler options. An example that no
 * longer compiles fails this test; so does a README copy of an example file that drifted from it.
 */
import { readdirSync, readFileSync } from "node:fs"
import * as path from "node:path"
import ts from "typescript"
import { describe, expect, it } from "vitest"

const root = path.resolve(import.meta.dirname, "../..")

/** The public modules: everything under src/ but src/internal/ and providers' private files. */
const publicFiles = (): Array<string> => {
  const out: Array<string> = []
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) {
        if (entry.name !== "internal") walk(full)
      } else if (entry.name.endsWith(".ts")) {
        const inProvider = full.includes(`${path.sep}providers${path.sep}`)
        if (!inProvider || entry.name === "index.ts") out.push(full)
      }
    }
  }
  walk(path.join(root, "src"))
  return out.sort()
}

/** The ```ts blocks that follow an `@example` tag in a file's doc comments. */
export const examplesOf = (source: string): Array<string> => {
  const out: Array<string> = []
  for (const comment of source.match(/\/\*\*[\s\S]*?\*\//g) ?? []) {
    const lines = comment.split("\n").map((l) => l.replace(/^\s*\/?\*+\/?\s?/, "").replace(/\*\/\s*$/, ""))
    let inExample = false
    let block: Array<string> | undefined
    for (const line of lines) {
      if (line.startsWith("@")) inExample = line.startsWith("@example")
      if (!inExample) continue
      if (line.trim().startsWith("```")) {
        if (block === undefined) block = []
        else {
          out.push(block.join("\n"))
          block = undefined
        }
      } else if (block !== undefined) block.push(line)
    }
  }
  return out
}

/** The ```ts blocks of a Markdown text. */
const markdownBlocks = (text: string): Array<string> =>
  [...text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? "")

describe("documentation examples", () => {
  it("the README shows the example files as they are", () => {
    const readme = readFileSync(path.join(root, "README.md"), "utf8")
    const blocks = markdownBlocks(readme).map((b) => b.trim())
    const bodyOf = (file: string): string =>
      readFileSync(path.join(root, file), "utf8").replace(/^(\/\/.*\n)+/, "").trim()
    for (
      const file of [
        "examples/readme.ts",
        "examples/requests.ts",
        "examples/structured.ts",
        "test/examples/testing-your-program.test.ts",
        "test/examples/chaos.test.ts"
      ]
    ) {
      expect(blocks, file).toContain(bodyOf(file))
    }
    const seeds = markdownBlocks(readFileSync(path.join(root, "docs", "seeds.md"), "utf8")).map((b) => b.trim())
    expect(seeds, "examples/seeds.ts").toContain(bodyOf("examples/seeds.ts"))
  })

  it("every @example of the public API and every ts block of the README compiles", () => {
    const files = new Map<string, string>()
    markdownBlocks(readFileSync(path.join(root, "README.md"), "utf8")).forEach((code, i) => {
      files.set(path.join(root, "examples", `.readme_${i}.ts`), `export {}\n${code}\n`)
    })
    for (const file of publicFiles()) {
      examplesOf(readFileSync(file, "utf8")).forEach((code, i) => {
        const name = path.relative(path.join(root, "src"), file).replace(/[\\/]/g, "_").replace(/\.ts$/, "")
        files.set(path.join(root, "examples", `.tsdoc_${name}_${i}.ts`), `export {}\n${code}\n`)
      })
    }
    expect(files.size).toBeGreaterThan(0)
    const config = ts.readConfigFile(path.join(root, "tsconfig.json"), ts.sys.readFile)
    const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root)
    const host = ts.createCompilerHost({ ...parsed.options, noEmit: true })
    const readFile = host.readFile.bind(host)
    const fileExists = host.fileExists.bind(host)
    const getSourceFile = host.getSourceFile.bind(host)
    host.readFile = (f) => files.get(f) ?? readFile(f)
    host.fileExists = (f) => files.has(f) || fileExists(f)
    host.getSourceFile = (f, language) => {
      const text = files.get(f)
      return text !== undefined ? ts.createSourceFile(f, text, language) : getSourceFile(f, language)
    }
    // An example may name a value only to show its type.
    const options = { ...parsed.options, noEmit: true, noUnusedLocals: false, noUnusedParameters: false }
    const program = ts.createProgram({ rootNames: [...files.keys()], options, host })
    const diagnostics = [...files.keys()].flatMap((f) => {
      const source = program.getSourceFile(f)
      return source === undefined
        ? []
        : [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]
    })
    const messages = diagnostics.map((d) => {
      const where = d.file === undefined || d.start === undefined
        ? ""
        : `${path.basename(d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start).line}: `
      return where + ts.flattenDiagnosticMessageText(d.messageText, "\n") + "\n" +
        (d.file !== undefined ? files.get(d.file.fileName) : "")
    })
    expect(messages).toStrictEqual([])
  }, 120_000)
})
