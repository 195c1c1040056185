/**
 * Incremental reading of JSON text that is still streaming, in time linear in the whole text.
 *
 * `complete` in `partialJson.ts` re-reads the whole prefix at every delta, which is quadratic
 * over a stream; {@link Incremental} reads each character once and keeps the value built so far.
 * The view is the same: what `JSON.parse(complete(prefix))` gives (a string in progress shows its
 * decoded prefix, a number its valid prefix, `tr` shows `true`, a key without its value is left
 * out, an open array or object shows its members so far), and a `"__proto__"` key stays an own
 * data property as with `JSON.parse`. Nesting is kept on an explicit stack (no recursion) and
 * bounded by `Json.maxDepth`.
 *
 * Snapshots share structure: a finished array or object is never touched again, so every snapshot
 * (and the final value) holds the same instance; only the open containers on the path from the top
 * to the value in progress (the "spine") are copied when a snapshot is taken.
 *
 * Numbers are read exactly as `JSON.parse` reads them, but from a short equivalent text: the first
 * 800 significant digits, a `1` standing for any further non-zero digit, and the decimal exponent.
 * The nearest double is decided by fewer than 770 significant digits (the longest exact decimal of
 * a point halfway between two doubles), so that text rounds to the same double, and converting a
 * number in progress costs at most 800 digits however long the number grows.
 */
import * as Json from "./json.js"
import { AFTER, COLON, FIRST_KEY, FIRST_VALUE, KEY, LITERAL, NONE, NUMBER, STRING, VALUE } from "./partialJson.js"

// Where a string in progress is in an escape.
const NO_ESCAPE = 0
const ESCAPE = 1 // just after `\`
const HEX = 2 // inside the four hex digits of `\u`

// Where a number in progress is in JSON's number grammar.
const N_START = 0 // nothing read yet
const N_MINUS = 1 // `-`
const N_ZERO = 2 // a leading `0`
const N_INT = 3 // integer digits
const N_DOT = 4 // `.`
const N_FRAC = 5 // fraction digits
const N_E = 6 // `e` or `E`
const N_EXP_SIGN = 7 // the exponent's sign
const N_EXP = 8 // exponent digits

const isComplete = (state: number): boolean =>
  state === N_ZERO || state === N_INT || state === N_FRAC || state === N_EXP

// Significant digits kept from a number: enough to decide its double (see the module comment).
const maxDigits = 800
// Converting a number in progress for a snapshot costs one unit of work per this many digits (or part).
const digitsPerUnit = 32
// An exponent past this reads as 0 or Infinity whatever the digits; capping keeps it exact in a double.
const maxExponent = 1e12

// Result of a number step.
const TAKEN = 0
const NOT_NUMBER = 1
const BAD = 2

type JsonObject = { [key: string]: unknown }

/**
 * Sets an own data property, as `JSON.parse` does. Plain assignment is that on a fresh plain object
 * unless `Object.prototype` (or a polluter) has the key: `"__proto__"` would set the prototype, a
 * setter would run, a frozen prototype's property would refuse it; those keys are defined instead.
 */
const put = (target: JsonObject, key: string, value: unknown): void => {
  if (key in Object.prototype) {
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true })
  } else {
    target[key] = value
  }
}

/** Builds an object from its keys and values: one insertion per member (faster than spreading a large object). */
const build = (keys: ReadonlyArray<string>, values: ReadonlyArray<unknown>): JsonObject => {
  const target: JsonObject = {}
  for (let i = 0; i < keys.length; i++) put(target, keys[i]!, values[i])
  return target
}

// Past this many keys, an open object finds repeated keys through a Map rather than a scan.
const scanKeys = 16

/** An open array or object. An object keeps its members as parallel arrays until it closes. */
class Frame {
  /** The members so far (an array's own elements, handed on as is when it closes), or an object's values. */
  readonly values: Array<unknown> = []
  /** An object's keys, parallel to `values`: a repeated key replaces its value in place, as with `JSON.parse`. */
  readonly keys: Array<string> = []
  /** Where each key is, once the object has more than `scanKeys` of them. */
  index: Map<string, number> | undefined = undefined
  /** The key of the object's member being read. */
  key = ""
  constructor(readonly isArray: boolean) {}

  /** Adds a finished member; returns whether the member count grew. */
  add(value: unknown): boolean {
    if (this.isArray) {
      this.values.push(value)
      return true
    }
    const key = this.key
    const at = this.index !== undefined ? this.index.get(key) : this.keys.indexOf(key)
    if (at !== undefined && at >= 0) {
      this.values[at] = value
      return false
    }
    this.index?.set(key, this.keys.length)
    this.keys.push(key)
    this.values.push(value)
    if (this.index === undefined && this.keys.length > scanKeys) {
      this.index = new Map()
      for (let i = 0; i < this.keys.length; i++) this.index.set(this.keys[i]!, i)
    }
    return true
  }
}

const isWhitespace = (c: number): boolean => c === 32 || c === 10 || c === 13 || c === 9

const isDigit = (c: number): boolean => c >= 48 && c <= 57

const hexValue = (c: number): number =>
  c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1

const simpleEscape = (c: number): string | undefined => {
  switch (c) {
    case 34:
      return "\""
    case 92:
      return "\\"
    case 47:
      return "/"
    case 98:
      return "\b"
    case 102:
      return "\f"
    case 110:
      return "\n"
    case 114:
      return "\r"
    case 116:
      return "\t"
    default:
      return undefined
  }
}

const show = (c: number): string =>
  c < 32 ? `U+${c.toString(16).toUpperCase().padStart(4, "0")}` : JSON.stringify(String.fromCharCode(c))

/**
 * A JSON value read delta by delta, in time linear in the whole text however it is split.
 *
 * Each character is scanned once; a string grows by appending (`+=`, which V8 keeps as a rope), and a
 * snapshot copies only the open containers (the spine), sharing every finished value, and only when
 * `snapshot()` is called after a reported change. A change is reported at most once per push, and
 * for very large open containers spaced so the total work stays linear: `push` reports a change only
 * when the characters read since the last reported change are at least the spine's copy cost (the
 * members of the open containers, plus one per container, plus one per 32 digits of a number in
 * progress, of which at most 800 are read), or when the value is complete (or the text turns bad).
 * A change held back is reported by a later push. For a small value (a spine of a few members) fed
 * in pieces of 20 characters, every push that changes it reports it.
 *
 * Bound: the copy cost grows by at most one per character read, so a snapshot taken right after
 * each push that reports a change copies at most the characters read since the previous report, and
 * total work (scan plus copies) is at most 2 × the text's length; taken later, a snapshot also pays
 * for the characters read since the report, at most 3 × in all (plus, once, a last copy when the
 * text turns bad). One exception: a bare top-level number is complete at each digit, so each push
 * that extends it is reported and re-reads at most 800 of its digits (25 units: still linear).
 *
 * Bad input: the push that meets a character that cannot continue JSON still reports what was read
 * before it (held back or not), then `error` is set and every later push returns false, so the
 * snapshot stays the last good value. No exception is thrown.
 */
export class Incremental {
  private readonly maxDepth: number
  // The open containers, outermost first.
  private readonly frames: Array<Frame> = []
  // Σ (members + 1) over the open containers: what copying the spine costs, minus a number in progress.
  private spine = 0
  private mode = VALUE
  private token = NONE
  // A string in progress: its decoded text so far, whether it is a key, and where it is in an escape.
  private isKey = false
  private decoded = ""
  private escape = NO_ESCAPE
  private hex = 0
  private hexLeft = 0
  // A literal in progress: the word, how much of it was read, its value.
  private word = ""
  private matched = 0
  private literal: boolean | null = null
  // A number in progress, as sign × 0.digits × 10^(point + exponent).
  private numberState = N_START
  private numberLength = 0
  private negative = false
  private digits = ""
  private sticky = false // a non-zero digit past the first `maxDigits` significant ones
  private point = 0
  private exponentNegative = false
  private exponent = 0
  // The finished top-level value.
  private root: unknown = undefined
  private hasRoot = false
  // Reporting: whether the value changed since the last report, the characters read since then,
  // whether a reported change still has to be materialized, and the last snapshot handed out.
  private changed = false
  private credit = 0
  private dirty = false
  private shown: unknown = undefined
  private problem: string | undefined = undefined
  private units = 0
  private position = 0

  constructor(options?: { readonly maxDepth?: number }) {
    this.maxDepth = options?.maxDepth ?? Json.maxDepth
  }

  /** Whether the text so far is a complete JSON value (only whitespace may follow, or more digits of a bare number). */
  get done(): boolean {
    if (this.problem !== undefined || this.frames.length > 0) return false
    if (this.token === NONE) return this.hasRoot
    return this.token === NUMBER && isComplete(this.numberState)
  }

  /** A message when the text can no longer be JSON (then push returns false forever), else undefined. */
  get error(): string | undefined {
    return this.problem
  }

  /** Units of work done so far: characters scanned plus container members copied for snapshots. For tests of linearity. */
  get work(): number {
    return this.units
  }

  /** The value so far, as an immutable snapshot (never mutated afterwards), or undefined before any value started. */
  snapshot(): unknown {
    if (this.dirty) {
      this.shown = this.materialize()
      this.dirty = false
    }
    return this.shown
  }

  /** Feeds the next piece of text. Returns true when the value visible through `snapshot()` changed. */
  push(text: string): boolean {
    if (this.problem !== undefined) return false
    const n = text.length
    for (let i = 0; i < n; i++) {
      let c = text.charCodeAt(i)

      if (this.token === STRING) {
        if (this.escape === NO_ESCAPE) {
          // A run without escapes is appended in one piece.
          let j = i
          while (j < n) {
            const d = text.charCodeAt(j)
            if (d === 34 || d === 92 || d < 32) break
            j++
          }
          if (j > i) {
            this.decoded += text.slice(i, j)
            if (!this.isKey) this.changed = true
          }
          if (j === n) break
          i = j
          c = text.charCodeAt(i)
          if (c === 34) this.endString()
          else if (c === 92) this.escape = ESCAPE
          else return this.fail(`Unescaped control character ${show(c)} in a string`, i)
        } else if (this.escape === ESCAPE) {
          if (c === 117) { // u
            this.escape = HEX
            this.hex = 0
            this.hexLeft = 4
          } else {
            const decoded = simpleEscape(c)
            if (decoded === undefined) return this.fail(`Bad escape \\${String.fromCharCode(c)} in a string`, i)
            this.append(decoded)
          }
        } else {
          const h = hexValue(c)
          if (h < 0) return this.fail(`Bad \\u escape (${show(c)} is not a hex digit) in a string`, i)
          this.hex = this.hex * 16 + h
          // Each escape is one UTF-16 unit, as with JSON.parse: `\ud83d\ude00` makes a pair.
          if (--this.hexLeft === 0) this.append(String.fromCharCode(this.hex))
        }
        continue
      }

      if (this.token === NUMBER) {
        const step = this.numberStep(c)
        if (step === TAKEN) continue
        if (step === BAD || !isComplete(this.numberState)) return this.fail(`Unexpected ${show(c)} in a number`, i)
        this.token = NONE
        this.place(this.numberValue())
      } else if (this.token === LITERAL) {
        if (c !== this.word.charCodeAt(this.matched)) return this.fail(`Unexpected ${show(c)} in ${this.word}`, i)
        if (++this.matched === this.word.length) {
          this.token = NONE
          this.place(this.literal)
        }
        continue
      }

      if (isWhitespace(c)) continue
      switch (this.mode) {
        case VALUE:
        case FIRST_VALUE:
          if (c === 123 || c === 91) { // { [
            if (this.frames.length >= this.maxDepth) {
              return this.fail(`The JSON ${Json.describe("too-deep", this.maxDepth)}`, i)
            }
            this.frames.push(new Frame(c === 91))
            this.spine += 1
            this.mode = c === 123 ? FIRST_KEY : FIRST_VALUE
            this.changed = true
          } else if (c === 34) {
            this.startString(false)
            this.changed = true
          } else if (isDigit(c) || c === 45) { // -
            this.token = NUMBER
            this.numberState = N_START
            this.numberLength = 0
            this.negative = false
            this.digits = ""
            this.sticky = false
            this.point = 0
            this.exponentNegative = false
            this.exponent = 0
            this.numberStep(c)
          } else if (c === 116 || c === 102 || c === 110) { // t f n
            this.token = LITERAL
            this.word = c === 116 ? "true" : c === 102 ? "false" : "null"
            this.literal = c === 116 ? true : c === 102 ? false : null
            this.matched = 1
            this.changed = true
          } else if (c === 93 && this.mode === FIRST_VALUE) { // ]
            this.close()
          } else {
            return this.fail(`Unexpected ${show(c)}`, i)
          }
          break
        case KEY:
        case FIRST_KEY:
          if (c === 34) this.startString(true)
          else if (c === 125 && this.mode === FIRST_KEY) this.close() // }
          else return this.fail(`Unexpected ${show(c)} where a key was expected`, i)
          break
        case COLON:
          if (c !== 58) return this.fail(`Unexpected ${show(c)} where ":" was expected`, i)
          this.mode = VALUE
          break
        default: { // AFTER
          const top = this.frames.length - 1
          if (top < 0) return this.fail(`Unexpected ${show(c)} after the JSON value`, i)
          const isArray = this.frames[top]!.isArray
          if (c === 44) this.mode = isArray ? VALUE : KEY // ,
          else if (c === (isArray ? 93 : 125)) this.close()
          else return this.fail(`Unexpected ${show(c)}`, i)
        }
      }
    }
    return this.settle(n)
  }

  /** Counts the characters read by a push and decides whether it reports a change. */
  private settle(read: number): boolean {
    this.units += read
    this.position += read
    this.credit += read
    if (!this.changed) return false
    if (this.problem === undefined && !this.done && this.credit < this.cost()) return false
    this.changed = false
    this.credit = 0
    this.dirty = true
    return true
  }

  /** What copying the spine costs now: members and containers, and the digits of a number in progress. */
  private cost(): number {
    return this.spine + (this.token === NUMBER ? this.numberUnits() : 0)
  }

  /** What converting the number in progress costs: one unit per 32 digits read, up to the 800 kept. */
  private numberUnits(): number {
    return Math.ceil(Math.min(this.numberLength, maxDigits) / digitsPerUnit)
  }

  /** Stops at a character that cannot continue JSON; what was read before it may still be reported. */
  private fail(what: string, i: number): boolean {
    this.problem = `${what} at position ${this.position + i}`
    return this.settle(i + 1)
  }

  private startString(isKey: boolean): void {
    this.token = STRING
    this.isKey = isKey
    this.decoded = ""
    this.escape = NO_ESCAPE
  }

  private append(decoded: string): void {
    this.decoded += decoded
    this.escape = NO_ESCAPE
    if (!this.isKey) this.changed = true
  }

  private endString(): void {
    this.token = NONE
    const decoded = this.decoded
    this.decoded = ""
    if (this.isKey) {
      this.frames[this.frames.length - 1]!.key = decoded
      this.mode = COLON
    } else {
      this.place(decoded)
    }
  }

  /** Places a finished value in the innermost open container (or as the top-level value). */
  private place(value: unknown): void {
    this.mode = AFTER
    const top = this.frames.length - 1
    if (top < 0) {
      this.root = value
      this.hasRoot = true
    } else if (this.frames[top]!.add(value)) {
      this.spine++
    }
  }

  /** Closes the innermost container, which becomes a finished value of its parent. */
  private close(): void {
    const frame = this.frames.pop()!
    this.spine -= frame.values.length + 1
    this.place(frame.isArray ? frame.values : build(frame.keys, frame.values))
  }

  /** Reads one character of a number in progress: TAKEN, NOT_NUMBER (it ends the number) or BAD. */
  private numberStep(c: number): number {
    const digit = isDigit(c)
    if (!digit && c !== 45 && c !== 43 && c !== 46 && c !== 101 && c !== 69) return NOT_NUMBER
    const state = this.numberState
    this.numberLength++
    if (digit) {
      switch (state) {
        case N_START:
        case N_MINUS:
          this.numberState = c === 48 ? N_ZERO : N_INT
          this.changed = true // the number appears
          if (c !== 48) this.significant(c, true)
          return TAKEN
        case N_INT:
          this.changed = true
          this.significant(c, true)
          return TAKEN
        case N_DOT:
        case N_FRAC:
          this.numberState = N_FRAC
          if (this.digits === "" && c === 48) {
            this.point-- // 0.05 is 0.5 × 10^-1
          } else {
            if (c !== 48) this.changed = true
            this.significant(c, false)
          }
          return TAKEN
        case N_E:
        case N_EXP_SIGN:
        case N_EXP: {
          this.numberState = N_EXP
          const exponent = Math.min(this.exponent * 10 + (c - 48), maxExponent)
          if (exponent !== this.exponent && this.digits !== "") this.changed = true
          this.exponent = exponent
          return TAKEN
        }
        default: // a digit after a leading 0
          return BAD
      }
    }
    if (c === 45) { // -
      if (state === N_START) {
        this.numberState = N_MINUS
        this.negative = true
        return TAKEN
      }
    } else if (c === 46) { // .
      if (state === N_ZERO || state === N_INT) {
        this.numberState = N_DOT
        return TAKEN
      }
    } else if (c === 43) { // +
    } else if (state === N_ZERO || state === N_INT || state === N_FRAC) { // e E
      this.numberState = N_E
      return TAKEN
    }
    if ((c === 45 || c === 43) && state === N_E) {
      this.numberState = N_EXP_SIGN
      this.exponentNegative = c === 45
      return TAKEN
    }
    return BAD
  }

  private significant(c: number, integer: boolean): void {
    if (this.digits.length < maxDigits) this.digits += String.fromCharCode(c)
    else if (c !== 48) this.sticky = true
    if (integer) this.point++
  }

  /** The number read so far (its valid prefix), converted from its short equivalent text. */
  private numberValue(): number {
    if (this.digits === "") return this.negative ? -0 : 0
    const exponent = this.point + (this.exponentNegative ? -this.exponent : this.exponent)
    return Number((this.negative ? "-0." : "0.") + this.digits + (this.sticky ? "1" : "") + "e" + exponent)
  }

  /** Builds a snapshot: copies of the open containers, sharing every finished value. */
  private materialize(): unknown {
    let child: unknown = undefined
    let hasChild = true
    if (this.token === STRING && !this.isKey) {
      child = this.decoded
    } else if (this.token === NUMBER && this.numberState !== N_START && this.numberState !== N_MINUS) {
      child = this.numberValue()
      this.units += this.numberUnits()
    } else if (this.token === LITERAL) {
      child = this.literal
    } else {
      hasChild = false
    }
    const depth = this.frames.length
    if (depth === 0) return hasChild ? child : this.hasRoot ? this.root : undefined
    for (let d = depth - 1; d >= 0; d--) {
      const frame = this.frames[d]!
      if (frame.isArray) {
        const copy = frame.values.slice()
        if (hasChild) copy.push(child)
        child = copy
      } else {
        const copy = build(frame.keys, frame.values)
        if (hasChild) put(copy, frame.key, child)
        child = copy
      }
      this.units += frame.values.length + 1
      hasChild = true
    }
    return child
  }
}
