/**
 * Vertex argument streaming (`toolConfig.functionCallingConfig.streamFunctionCallArguments`): the
 * `partialArgs` values of one function call, each a value at a `jsonPath`, turned into JSON text that
 * only grows, so the decoder can emit it as `tool-call-delta` fragments. See
 * `reference/wire-formats.md` §4.
 *
 * @since 0.1.0
 */
import * as Json from "../../internal/json.js"
import type * as Guards from "../../internal/kit/guards.js"
import type * as Events from "./events.js"

/** One open container of the JSON text being written. */
interface Level {
  readonly path: string
  readonly isArray: boolean
  count: number
}

/** Path segments deeper than this are not accepted (the kit's JSON depth limit). */
const maxSegments = Json.maxDepth

/**
 * The arguments of one streamed call, built from `partialArgs` values as JSON text that only grows:
 * each value is written where its `jsonPath` puts it (`$.recipe.ingredients[0].name`), opening and
 * closing objects and arrays on the way, a string left open while `willContinue` says more follows.
 * The fragments concatenated, plus {@link PartialArgs.close}, are the call's raw arguments.
 *
 * Values that text written in order cannot hold (a path revisited after its container closed, an
 * array index out of order, a value twice at one path) are kept anyway: the text is then abandoned
 * and {@link PartialArgs.raw} is the JSON of every value received, so nothing is lost.
 */
export class PartialArgs {
  private text = ""
  private readonly stack: Array<Level> = []
  private readonly closed = new Set<string>()
  private readonly written = new Set<string>()
  private openString: string | undefined = undefined
  private diverged = false
  private readonly tree: Record<string, unknown> = {}

  /** Takes one value; returns the JSON text fragment it adds ("" when none). */
  push(arg: Guards.Unchecked<Events.PartialArg>): string {
    const segments = typeof arg.jsonPath === "string" ? parsePath(arg.jsonPath) : undefined
    if (segments === undefined || segments.length === 0 || segments.length > maxSegments) return ""
    const key = pathKey(segments)
    const continues = arg.willContinue === true
    if (typeof arg.stringValue === "string" && this.openString === key) {
      // The next piece of the string open at this path.
      if (!setIn(this.tree, segments, arg.stringValue, true)) return ""
      if (this.diverged) return ""
      let fragment = JSON.stringify(arg.stringValue).slice(1, -1)
      if (!continues) {
        fragment += "\""
        this.openString = undefined
      }
      this.text += fragment
      return fragment
    }
    const value = typeof arg.stringValue === "string"
      ? arg.stringValue
      : typeof arg.numberValue === "number" && Number.isFinite(arg.numberValue)
      ? arg.numberValue
      : typeof arg.boolValue === "boolean"
      ? arg.boolValue
      : "nullValue" in arg
      ? null
      : undefined
    if (value === undefined) return ""
    const append = typeof value === "string" && this.written.has(key)
    if (!setIn(this.tree, segments, value, append)) return ""
    if (this.diverged) return ""
    const fragment = this.write(segments, key, value, typeof value === "string" && continues)
    if (fragment === undefined) {
      this.diverged = true
      return ""
    }
    this.text += fragment
    return fragment
  }

  /** The text that closes what is open (the whole `{}` when nothing came); "" once diverged. */
  close(): string {
    if (this.diverged) return ""
    if (this.text === "") return (this.text = "{}")
    let closing = this.openString !== undefined ? "\"" : ""
    this.openString = undefined
    while (this.stack.length > 0) closing += this.stack.pop()!.isArray ? "]" : "}"
    this.text += closing
    return closing
  }

  /** The call's raw arguments: the text written, or every value's JSON once the text was abandoned. */
  raw(): string {
    return this.diverged ? Json.stringify(this.tree) : this.text
  }

  /** The fragment that writes a value at a path, or undefined when written text cannot hold it. */
  private write(segments: ReadonlyArray<string | number>, key: string, value: unknown, keepOpen: boolean) {
    if (this.written.has(key)) return undefined
    let fragment = ""
    if (this.openString !== undefined) {
      fragment += "\""
      this.openString = undefined
    }
    if (this.stack.length === 0) {
      this.stack.push({ path: "", isArray: false, count: 0 })
      fragment += "{"
    }
    // Keep the open containers the path shares, close the others.
    let depth = 1
    while (
      depth < this.stack.length && depth < segments.length &&
      this.stack[depth]!.path === pathKey(segments.slice(0, depth))
    ) depth++
    while (this.stack.length > depth) {
      const level = this.stack.pop()!
      this.closed.add(level.path)
      fragment += level.isArray ? "]" : "}"
    }
    // Open the containers down to the value's, then write it.
    for (let i = this.stack.length - 1; i < segments.length; i++) {
      const parent = this.stack[this.stack.length - 1]!
      const segment = segments[i]!
      if (parent.isArray !== (typeof segment === "number")) return undefined
      if (typeof segment === "number" && segment !== parent.count) return undefined
      if (parent.count > 0) fragment += ","
      parent.count++
      if (typeof segment === "string") fragment += JSON.stringify(segment) + ":"
      if (i === segments.length - 1) {
        const json = JSON.stringify(value)
        fragment += keepOpen ? json.slice(0, -1) : json
        if (keepOpen) this.openString = key
        this.written.add(key)
        return fragment
      }
      const path = pathKey(segments.slice(0, i + 1))
      if (this.closed.has(path) || this.written.has(path)) return undefined
      const isArray = typeof segments[i + 1] === "number"
      fragment += isArray ? "[" : "{"
      this.stack.push({ path, isArray, count: 0 })
    }
    return fragment
  }
}

/** `$.recipe.ingredients[0].name` → `["recipe", "ingredients", 0, "name"]`; undefined when unreadable. */
const parsePath = (jsonPath: string): Array<string | number> | undefined => {
  if (!jsonPath.startsWith("$")) return undefined
  const segments: Array<string | number> = []
  const re = /\.([^.[\]]+)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]|\["((?:[^"\\]|\\.)*)"\]/y
  re.lastIndex = 1
  while (re.lastIndex < jsonPath.length) {
    const match = re.exec(jsonPath)
    if (match === null) return undefined
    if (match[1] !== undefined) segments.push(match[1])
    else if (match[2] !== undefined) segments.push(Number(match[2]))
    else segments.push((match[3] ?? match[4])!.replace(/\\(.)/g, "$1"))
  }
  return segments
}

/** A path as a map key (segments are typed: `a[0]` and `a.0` differ). */
const pathKey = (segments: ReadonlyArray<string | number>): string => JSON.stringify(segments)

/**
 * Sets (or, for `append`, extends) the value at a path of the tree, creating containers on the way
 * as own data properties (a `"__proto__"` key stays a key). Refuses (false) a path through a value
 * of the other kind or an array index past the end, which would make a sparse array.
 */
const setIn = (
  tree: Record<string, unknown>,
  segments: ReadonlyArray<string | number>,
  value: unknown,
  append: boolean
): boolean => {
  let node: Record<string | number, unknown> | Array<unknown> = tree
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!
    if (Array.isArray(node) !== (typeof segment === "number")) return false
    if (Array.isArray(node) && (segment as number) > node.length) return false
    const last = i === segments.length - 1
    const has = Object.prototype.hasOwnProperty.call(node, segment)
    const current: unknown = has ? (node as Record<string | number, unknown>)[segment] : undefined
    let next: unknown
    if (last) {
      next = append && typeof current === "string" && typeof value === "string" ? current + value : value
    } else if (typeof current === "object" && current !== null) {
      next = current
    } else if (has) {
      return false
    } else {
      next = typeof segments[i + 1] === "number" ? [] : {}
    }
    if (!has || last) {
      Object.defineProperty(node, segment, { value: next, enumerable: true, writable: true, configurable: true })
    }
    if (!last) node = next as Record<string | number, unknown> | Array<unknown>
  }
  return true
}
