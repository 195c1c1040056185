/**
 * A measurement in a process of its own: runs `node` (with this process's flags) on `args` and
 * gives the JSON of the one `RESULT {json}` line it prints on stdout. Spawned asynchronously, so a
 * bench server in this process keeps answering.
 */
import { spawn } from "node:child_process"

/** What the child printed after `RESULT `, parsed; rejects when it failed or printed none. */
export const resultOf = <A>(args: ReadonlyArray<string>, what: string): Promise<A> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, ...args], { stdio: ["ignore", "pipe", "inherit"] })
    let out = ""
    child.stdout.on("data", (d: Buffer) => (out += d.toString()))
    child.on("exit", (code) => {
      const line = out.split("\n").find((l) => l.startsWith("RESULT "))
      if (code !== 0 || line === undefined) reject(new Error(`${what} failed`))
      else resolve(JSON.parse(line.slice(7)) as A)
    })
  })
