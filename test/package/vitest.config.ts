import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

// `npm run test:package`: the packed-tarball check (see package.test.ts), kept out of the main
// `vitest run` because it builds dist/ and installs the tarball into a temporary project.
export default defineConfig({
  root: fileURLToPath(new URL("../..", import.meta.url)),
  test: {
    include: ["test/package/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 300_000
  }
})
