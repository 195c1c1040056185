/**
 * Best-effort reading of JSON text that is still streaming (`{"city":"Par` → `{ city: "Par" }`).
 *
 * The text is completed, not re-parsed by hand: one linear scan finds the longest prefix that is
 * valid JSON once its open arrays and objects are closed (finishing a string, number or literal in
 * progress where it can), and `JSON.parse` reads the result. So the view has exactly `JSON.parse`'s
 * semantics, the same as the finished arguments: a `"__proto__"` key stays an own data property
 * (hand-written parsers such as the `partial-json` package assign keys, which lets the input choose
 * the prototype), `Infinity`/`NaN` words are not JSON, and no recursion means no stack overflow.
 */
import * as Json from "./json.js"

// What the scanner expects next (shared with the incremental parser, partialJsonIncremental.ts).
/** A value (top level, after `:`, after `,` in an array). */
export const VALUE = 0
/** A value or `]` (just after `[`). */
export const FIRST_VALUE = 1
/** A key (after `,` in an object). */
export const KEY = 2
/** A key or `}` (just after `{`). */
export const FIRST_KEY = 3
/** `:` after a key. */
export const COLON = 4
/** `,` or a closing bracket after a value, or the end. */
export const AFTER = 5

// The token in progress.
/** No token. */
export const NONE = 0
/** A string. */
export const STRING = 1
/** A number. */
export const NUMBER = 2
/** `true`, `false` or `null`. */
export const LITERAL = 3

const OBJECT = 0
const ARRAY = 1

const literals = ["true", "false", "null"]

const isNumberChar = (c: number): boolean =>
  (c >= 48 && c <= 57) || c === 45 /* - */ || c === 43 /* + */ || c === 46 /* . */ || c === 101 || c === 69 // e E

const isWhitespace = (c: number): boolean => c === 32 || c === 10 || c === 13 || c === 9

/**
 * Completes a prefix of JSON text into JSON text, or `undefined` when the prefix cannot begin a JSON
 * value (or nests deeper than `maxDepth`). What cannot be finished (a key, a `-`, a dangling `,`) is
 * left out; a string in progress is closed, a number is cut to its valid part, `tr` becomes `true`.
 */
export const complete = (text: string, maxDepth: number = Json.maxDepth): string | undefined => {
  const stack: Array<number> = []
  let mode = VALUE
  let token = NONE
  let tokenStart = 0
  let isKey = false
  let escapeAt = -1 // the backslash of an escape still incomplete inside a string
  let hexLeft = 0 // hex digits still owed by a `\u` escape
  let lastCut = -1 // text.slice(0, lastCut) + closers is valid JSON
  const n = text.length

  const valueDone = (end: number): void => {
    mode = AFTER
    lastCut = end
  }

  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i)
    if (token === STRING) {
      if (hexLeft > 0) {
        if (--hexLeft === 0) escapeAt = -1
      } else if (escapeAt >= 0) {
        if (c === 117 /* u */) hexLeft = 4
        else escapeAt = -1
      } else if (c === 92 /* \ */) {
        escapeAt = i
      } else if (c === 34 /* " */) {
        token = NONE
        if (isKey) mode = COLON
        else valueDone(i + 1)
      }
      continue
    }
    if (token === NUMBER) {
      if (isNumberChar(c)) continue
      token = NONE
      valueDone(i)
    } else if (token === LITERAL) {
      if (c >= 97 && c <= 122) continue // a-z
      token = NONE
      if (!literals.includes(text.slice(tokenStart, i))) return undefined
      valueDone(i)
    }
    if (isWhitespace(c)) continue
    switch (mode) {
      case VALUE:
      case FIRST_VALUE:
        if (c === 123 /* { */ || c === 91 /* [ */) {
          stack.push(c === 123 ? OBJECT : ARRAY)
          if (stack.length > maxDepth) return undefined
          mode = c === 123 ? FIRST_KEY : FIRST_VALUE
          lastCut = i + 1
        } else if (c === 34) {
          token = STRING
          isKey = false
          tokenStart = i
        } else if ((c >= 48 && c <= 57) || c === 45) {
          token = NUMBER
          tokenStart = i
        } else if (c === 116 || c === 102 || c === 110) { // t f n
          token = LITERAL
          tokenStart = i
        } else if (c === 93 /* ] */ && mode === FIRST_VALUE) {
          stack.pop()
          valueDone(i + 1)
        } else {
          return undefined
        }
        break
      case KEY:
      case FIRST_KEY:
        if (c === 34) {
          token = STRING
          isKey = true
        } else if (c === 125 /* } */ && mode === FIRST_KEY) {
          stack.pop()
          valueDone(i + 1)
        } else {
          return undefined
        }
        break
      case COLON:
        if (c !== 58 /* : */) return undefined
        mode = VALUE
        break
      default: { // AFTER
        const top = stack.length === 0 ? undefined : stack[stack.length - 1]
        if (c === 44 /* , */ && top !== undefined) mode = top === OBJECT ? KEY : VALUE
        else if ((c === 125 && top === OBJECT) || (c === 93 && top === ARRAY)) {
          stack.pop()
          valueDone(i + 1)
        } else {
          return undefined
        }
      }
    }
  }

  let closers = ""
  for (let i = stack.length - 1; i >= 0; i--) closers += stack[i] === OBJECT ? "}" : "]"
  if (token === STRING && !isKey) {
    // A half-written escape cannot be finished: the string ends before it.
    return text.slice(0, escapeAt >= 0 ? escapeAt : n) + "\"" + closers
  }
  if (token === NUMBER) {
    const digits = text.slice(tokenStart).replace(/[-+.eE]+$/, "")
    if (digits !== "") return text.slice(0, tokenStart) + digits + closers
  } else if (token === LITERAL) {
    const word = text.slice(tokenStart)
    const literal = literals.find((l) => l.startsWith(word))
    if (literal === undefined) return undefined
    return text.slice(0, tokenStart) + literal + closers
  }
  return lastCut < 0 ? undefined : text.slice(0, lastCut) + closers
}
