#!/usr/bin/env node
// The `effect-llm-stream` command: the built CLI (src/cli/main.ts) does the work.
import "../dist/cli/main.js"
