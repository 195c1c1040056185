import { configDefaults, defineConfig } from "vitest/config"

// Tests run on the sources, with no build step: the package's self-reference (`import … from
// "effect-llm-stream"`, as the examples do) resolves through the "effect-llm-stream/source" export
// condition to src/*.ts, never to a (possibly stale) dist/. The same condition is in tsconfig.json
// (customConditions) and in the tsx scripts of package.json (--conditions). Vite replaces its default
// conditions when given a list, so they are repeated here (Vite's defaultServerConditions /
// defaultClientConditions).
const source = "effect-llm-stream/source"

export default defineConfig({
  resolve: { conditions: [source, "module", "browser", "development|production"] },
  ssr: { resolve: { conditions: [source, "module", "node", "development|production"] } },
  test: {
    include: ["test/**/*.test.ts"],
    // The packed-tarball check builds and installs the package: `npm run test:package`, run by `npm test`.
    exclude: [...configDefaults.exclude, "test/package/**"],
    testTimeout: 30_000,
    hookTimeout: 30_000
  }
})
