import * as fs from "node:fs"
import { builtinModules } from "node:module"
import * as path from "node:path"
import ts from "typescript"

/** What {@link declarationGraph} found. Paths are relative to the dist directory, with `/`. */
export interface DeclarationGraph {
  /** Every declaration file reachable from the entry points, entry points first (breadth-first). */
  readonly reachable: ReadonlyArray<string>
  /** References that resolve to nothing, leave dist/, or name a package that is not a peer dependency. */
  readonly problems: ReadonlyArray<string>
  /** A shortest chain of references from an entry point to a reachable file. */
  readonly chain: (file: string) => ReadonlyArray<string>
}

/**
 * Walks the declaration files reachable from a package's entry points through every module reference a
 * .d.ts can hold: import/export declarations (`export * as X from` included, which
 * `ts.preProcessFile` misses), `import("…")` types, `import x = require("…")`, `declare module "…"`,
 * `/// <reference path>` and `/// <reference types>`. Files are parsed with the TypeScript parser, so a
 * reference inside a comment (a TSDoc example) does not count. A bare specifier must be one of the
 * package's own entry points, a peer dependency (or a subpath of one), or a Node builtin.
 */
export const declarationGraph = (
  dist: string,
  options: {
    /** Entry specifiers (`"pkg"`, `"pkg/testing"`) and their declaration files, relative to dist. */
    readonly entries: Readonly<Record<string, string>>
    readonly peers: ReadonlyArray<string>
  }
): DeclarationGraph => {
  const parent = new Map<string, string | undefined>()
  const problems: Array<string> = []
  const queue: Array<string> = []
  const visit = (file: string, from: string | undefined) => {
    if (parent.has(file)) return
    parent.set(file, from)
    queue.push(file)
  }
  const packageName = Object.keys(options.entries).reduce((a, b) => (a.length <= b.length ? a : b))
  const resolveRelative = (from: string, specifier: string): string | undefined => {
    const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier))
    const candidates = /\.d\.[mc]?ts$/.test(base)
      ? [base]
      : /\.[mc]?js$/.test(base)
      ? [base.replace(/\.js$/, ".d.ts").replace(/\.mjs$/, ".d.mts").replace(/\.cjs$/, ".d.cts")]
      : [`${base}.d.ts`, `${base}/index.d.ts`]
    return candidates.find((c) => fs.existsSync(path.join(dist, c)))
  }
  for (const entry of Object.values(options.entries)) visit(entry, undefined)
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    const source = ts.createSourceFile(file, fs.readFileSync(path.join(dist, file), "utf8"), ts.ScriptTarget.Latest)
    const specifiers: Array<string> = source.referencedFiles.map((r) => r.fileName)
    for (const r of source.typeReferenceDirectives) {
      if (!options.peers.includes(r.fileName) && r.fileName !== "node") {
        problems.push(`${file}: /// <reference types="${r.fileName}" />`)
      }
    }
    const walk = (node: ts.Node): void => {
      if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined) {
        if (ts.isStringLiteral(node.moduleSpecifier)) specifiers.push(node.moduleSpecifier.text)
      } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
        if (ts.isStringLiteral(node.moduleReference.expression)) specifiers.push(node.moduleReference.expression.text)
      } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
        if (ts.isStringLiteral(node.argument.literal)) specifiers.push(node.argument.literal.text)
      } else if (ts.isModuleDeclaration(node) && ts.isStringLiteral(node.name)) {
        specifiers.push(node.name.text)
      } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        const [arg] = node.arguments
        if (arg !== undefined && ts.isStringLiteral(arg)) specifiers.push(arg.text)
      }
      ts.forEachChild(node, walk)
    }
    walk(source)
    for (const specifier of specifiers) {
      const entry = options.entries[specifier]
      if (specifier.startsWith(".")) {
        const target = resolveRelative(file, specifier)
        if (target === undefined) problems.push(`${file}: "${specifier}" does not resolve to a declaration file`)
        else if (target.startsWith("../")) problems.push(`${file}: "${specifier}" leaves the dist directory`)
        else visit(target, file)
      } else if (entry !== undefined) {
        visit(entry, file)
      } else if (specifier === packageName || specifier.startsWith(`${packageName}/`)) {
        problems.push(`${file}: "${specifier}" is not an entry point of the package`)
      } else if (
        !specifier.startsWith("node:") && !builtinModules.includes(specifier) &&
        !options.peers.some((peer) => specifier === peer || specifier.startsWith(`${peer}/`))
      ) {
        problems.push(`${file}: "${specifier}" is neither a peer dependency nor a Node builtin`)
      }
    }
  }
  const chain = (file: string): Array<string> => {
    const out: Array<string> = []
    for (let f: string | undefined = file; f !== undefined; f = parent.get(f)) out.unshift(f)
    return out
  }
  return { reachable: [...parent.keys()], problems, chain }
}
