/**
 * The published package, as a user gets it: `npm pack` (which builds dist/ through `prepack`), the
 * tarball installed into an empty project outside the repository next to the pinned peer dependencies,
 * then
 *   (a) a plain `node` ESM program (no tsx) that imports both entry points and streams a TestModel answer,
 *   (b) a consumer file type-checked with the repository's own `tsc` under strict settings and
 *       `skipLibCheck: false`,
 *   (c) the public/internal line: no `.d.ts` reachable from an entry point lies under dist/internal/,
 *   (d) the `effect-llm-stream` command the package installs, replaying our recorded answer.
 *
 * Run by `npm run test:package` (part of `npm test`), not by the main `vitest run`: it builds and installs.
 * Set KEEP_PACKAGE_TMP=1 to keep the temporary project for inspection.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { declarationGraph } from "./declarationGraph.js"

const root = fileURLToPath(new URL("../..", import.meta.url))
const fixtures = fileURLToPath(new URL("./consumer", import.meta.url))

interface PackageJson {
  readonly name: string
  readonly exports: Record<string, string | Record<string, string>>
  readonly peerDependencies: Record<string, string>
  readonly devDependencies: Record<string, string>
}
const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as PackageJson

/** Runs a command; rejects with its whole output when it exits non-zero. */
const run = (command: string, args: ReadonlyArray<string>, cwd: string): Promise<{ stdout: string; stderr: string }> =>
  new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: process.env, shell: process.platform === "win32" })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()))
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()))
    child.on("error", reject)
    child.on("close", (code) => {
      if (code === 0) resolve({ stdout, stderr })
      else reject(new Error(`\`${command} ${args.join(" ")}\` in ${cwd} exited with ${code}\n${stdout}\n${stderr}`))
    })
  })

const npm = process.platform === "win32" ? "npm.cmd" : "npm"
const tsc = path.join(root, "node_modules", "typescript", "bin", "tsc")

/** The strictest settings a consumer may use; declarations of every package are checked too. */
const strict = {
  target: "ES2022",
  module: "NodeNext",
  moduleResolution: "NodeNext",
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  noImplicitOverride: true,
  noImplicitReturns: true,
  noFallthroughCasesInSwitch: true,
  noPropertyAccessFromIndexSignature: true,
  noUnusedLocals: true,
  noUnusedParameters: true,
  verbatimModuleSyntax: true,
  isolatedModules: true,
  skipLibCheck: false,
  noEmit: true
}
/** A Node project (@types/node, no DOM lib) and a browser or edge one (DOM lib, no @types/node). */
const consumerConfigs = {
  "tsconfig.node.json": {
    compilerOptions: { ...strict, lib: ["ES2022"], types: ["node"] },
    files: ["consumer.ts", "consumer-node.ts"]
  },
  "tsconfig.dom.json": { compilerOptions: { ...strict, lib: ["ES2022", "DOM"], types: [] }, files: ["consumer.ts"] }
}

let tmp = ""
let project = ""
let installed = ""
let tarballFiles: ReadonlyArray<string> = []
let failed = false

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "effect-llm-stream-package-"))
  // `npm pack` runs `prepack` (= `npm run build`), so the tarball always holds a fresh dist/.
  const packed = await run(npm, ["pack", "--json", "--pack-destination", tmp], root)
  const [info] = JSON.parse(packed.stdout) as ReadonlyArray<
    { filename: string; files: ReadonlyArray<{ path: string }> }
  >
  if (info === undefined) throw new Error(`npm pack printed no result:\n${packed.stdout}`)
  tarballFiles = info.files.map((f) => f.path)

  project = path.join(tmp, "consumer")
  fs.mkdirSync(project)
  fs.writeFileSync(
    path.join(project, "package.json"),
    JSON.stringify({ name: "consumer", version: "0.0.0", private: true, type: "module" }, null, 2)
  )
  for (const [name, config] of Object.entries(consumerConfigs)) {
    fs.writeFileSync(path.join(project, name), JSON.stringify(config, null, 2))
  }
  fs.copyFileSync(path.join(fixtures, "main.mjs"), path.join(project, "main.mjs"))
  fs.copyFileSync(path.join(fixtures, "consumer.ts"), path.join(project, "consumer.ts"))
  fs.copyFileSync(path.join(fixtures, "consumer-node.ts"), path.join(project, "consumer-node.ts"))

  // The peers at the versions we develop against (which must satisfy our peer ranges, or npm fails
  // with ERESOLVE), and @types/node because the consumer is a Node program. From the npm cache when
  // possible: `npm ci` has just filled it with exactly these versions.
  const peers = Object.keys(pkg.peerDependencies).map((name) => `${name}@${pkg.devDependencies[name]}`)
  await run(npm, [
    "install",
    "--no-audit",
    "--no-fund",
    "--prefer-offline",
    "--ignore-scripts",
    "--no-package-lock",
    "--loglevel=error",
    path.join(tmp, info.filename),
    ...peers,
    `@types/node@${pkg.devDependencies["@types/node"]}`
  ], project)
  installed = path.join(project, "node_modules", pkg.name)
}, 300_000)

afterAll(() => {
  if (tmp === "") return
  if (process.env.KEEP_PACKAGE_TMP || failed) console.log(`package check: temporary project kept in ${project}`)
  else fs.rmSync(tmp, { recursive: true, force: true })
})

const check = <A>(f: () => Promise<A> | A) => async () => {
  try {
    return await f()
  } catch (e) {
    failed = true
    throw e
  }
}

describe("the packed package", () => {
  it(
    "holds the build, the sources its maps point to, and nothing else",
    check(() => {
      const unexpected = tarballFiles.filter((f) =>
        !/^(dist|src)\//.test(f) &&
        !/^(package\.json|README\.md|LICENSE|CHANGELOG\.md|bin\/effect-llm-stream\.js)$/.test(f)
      )
      expect(unexpected).toStrictEqual([])
      for (const f of tarballFiles.filter((f) => f.startsWith("src/"))) {
        expect(f, "only sources ship under src/").toMatch(/\.ts$/)
        expect(f).not.toMatch(/\.test\.ts$/)
      }
      // Every export target ships (except the repository-only source condition, whose files ship too).
      const targets = Object.values(pkg.exports).flatMap((e) => (typeof e === "string" ? [e] : Object.values(e)))
      for (const target of targets) expect(tarballFiles, target).toContain(target.replace(/^\.\//, ""))
      // Each .js has its .d.ts, and each map points at a file in the tarball (go-to-definition lands in src/).
      for (const f of tarballFiles.filter((f) => /^dist\/.*\.js$/.test(f))) {
        expect(tarballFiles, `${f} without declarations`).toContain(f.replace(/\.js$/, ".d.ts"))
      }
      for (const f of tarballFiles.filter((f) => f.endsWith(".map"))) {
        const map = JSON.parse(fs.readFileSync(path.join(installed, f), "utf8")) as { sources: ReadonlyArray<string> }
        for (const source of map.sources) {
          const target = path.posix.normalize(path.posix.join(path.posix.dirname(f), source))
          expect(tarballFiles, `${f} points at ${source}`).toContain(target)
        }
      }
    })
  )

  it(
    "shares the consumer's copies of its peer dependencies",
    check(() => {
      for (const name of Object.keys(pkg.peerDependencies)) {
        expect(fs.existsSync(path.join(installed, "node_modules", name)), `a private copy of ${name}`).toBe(false)
        const version = (JSON.parse(
          fs.readFileSync(path.join(project, "node_modules", name, "package.json"), "utf8")
        ) as { version: string }).version
        expect(version).toBe(pkg.devDependencies[name])
      }
    })
  )

  it(
    "runs in plain node: every entry point, a TestModel answer streamed and collected, a Chat answer over NodeHttp",
    check(async () => {
      const { stdout } = await run(process.execPath, ["main.mjs"], project)
      expect(JSON.parse(stdout.trim())).toStrictEqual({
        text: "Hello",
        finishReason: "stop",
        error: "rate_limit",
        node: "over undici (stop)"
      })
    }),
    60_000
  )

  it(
    "installs the effect-llm-stream command, which replays our recorded answer with no key",
    check(async () => {
      const bin = path.join(project, "node_modules", ".bin", "effect-llm-stream")
      const { stderr, stdout } = await run(
        process.execPath,
        [bin, "chat", "--replay", "--model", "gemini:gemini-2.5-flash", "What's the weather in Paris?"],
        project
      )
      expect(stderr).toBe(
        "--replay: replaying our recorded conversation with the demo get_weather tool (gemini:gemini-demo-1 over loopback; your prompt is not sent anywhere)\n"
      )
      expect(stdout.split("\n").slice(0, 3)).toStrictEqual([
        "reasoning: The user wants the current weather in Paris. I should call get_weather with city Paris.",
        "Let me look up the weather in Paris.",
        "tool call: get_weather({\"city\":\"Paris\"})"
      ])
      expect(stdout.split("\n").slice(3, 7)).toStrictEqual([
        "tool result: get_weather → {\"city\":\"Paris\",\"temperature\":18,\"unit\":\"celsius\",\"conditions\":\"light rain\"}",
        "── step 1 · tool_calls · in 70 out 61",
        "It's 18 °C with light rain in Paris right now: mild, but take an umbrella if you head out.",
        "── step 2 · stop · in 140 out 19"
      ])
      // The footer sums both steps.
      expect(stdout).toMatch(
        /\n── finish: stop · google:gemini-demo-1 · input 210 \(cache read 192, cache write 0\) · output 80 \(reasoning 40\) · /
      )
    }),
    60_000
  )

  it(
    "type-checks a strict consumer (skipLibCheck: false) against the published declarations",
    check(async () => {
      // Both configurations at once: tsc is single-threaded, and this is the slowest step.
      const results = await Promise.all(
        Object.keys(consumerConfigs).map(async (config) => {
          const result = await run(process.execPath, [tsc, "-p", config, "--listFiles"], project).catch((e: Error) => {
            // Keep the diagnostics, drop the list of files.
            const diagnostics = e.message.split(/\r?\n/).filter((l) => !(path.isAbsolute(l) && fs.existsSync(l)))
            throw new Error(
              `the consumer does not type-check (${config}) against the packed declarations:\n${diagnostics.join("\n")}`
            )
          })
          return { config, files: result.stdout.split(/\r?\n/).filter((l) => l.length > 0).map((l) => path.resolve(l)) }
        })
      )
      for (const { config, files } of results) {
        const ours = files.filter((f) => f.startsWith(installed + path.sep))
          .map((f) => path.relative(installed, f).split(path.sep).join("/"))
        expect(ours, config).toContain("dist/index.d.ts")
        expect(ours, config).toContain("dist/testing/index.d.ts")
        if (config === "tsconfig.node.json") expect(ours, config).toContain("dist/node/index.d.ts")
        // The compiler's own view of the public/internal line: nothing it loaded for the consumer is
        // internal, and no type comes from the shipped sources.
        expect(ours.filter((f) => !f.startsWith("dist/") || f.startsWith("dist/internal/")), config).toStrictEqual([])
      }
    }),
    120_000
  )

  it(
    "never names an internal module in a public declaration",
    check(() => {
      const dist = path.join(installed, "dist")
      const graph = declarationGraph(dist, {
        entries: { [pkg.name]: "index.d.ts", [`${pkg.name}/testing`]: "testing/index.d.ts" },
        peers: Object.keys(pkg.peerDependencies)
      })
      // The Node entry point's types name `@effect/platform-node` (a dependency, installed with this
      // package: its undici client and dispatcher); the other entry points' may not.
      const node = declarationGraph(dist, {
        entries: { [`${pkg.name}/node`]: "node/index.d.ts" },
        peers: [...Object.keys(pkg.peerDependencies), "@effect/platform-node"]
      })
      expect(node.reachable).toContain("node/NodeHttp.d.ts")
      expect(node.problems).toStrictEqual([])
      expect(node.reachable.filter((f) => f.startsWith("internal/"))).toStrictEqual([])
      // The walk must see the public modules, or it proves nothing.
      expect(graph.reachable).toContain("StreamChunk.d.ts")
      expect(graph.reachable).toContain("providers/openai-chat/index.d.ts")
      expect(graph.reachable).toContain("testing/TestModel.d.ts")
      expect(graph.problems).toStrictEqual([])
      const leaks = graph.reachable.filter((f) => f.startsWith("internal/"))
      expect(leaks.map((f) => `dist/${graph.chain(f).join(" -> dist/")}`), "public declarations reach dist/internal/")
        .toStrictEqual([])
    })
  )
})
