/**
 * Masking of the configured credentials by value. The key-shaped patterns of `LlmError.scrub` catch
 * keys we do not know (a proxy echoing someone's key); this catches the ones we do, whatever their
 * shape (Azure keys have no prefix), in the forms a server can echo them back: as sent, upper- or
 * lower-cased, URL-encoded, Base64 (HTTP Basic), JSON-escaped.
 *
 * The transport masks what the server sends before anything reads it (response headers, error
 * bodies, the text of every stream read), so a later excerpt or size cap can never cut a key in half
 * and keep one half. Error chunks are masked once more on the way out, where a key that arrived in a
 * form only JSON decoding reveals (`\u` escapes) may have been cut: there any piece of a key of 8
 * characters or more is masked too.
 *
 * @since 0.1.0
 */

/** What replaces a masked credential. */
export const placeholder = "[redacted]"

/** Credentials shorter than this are not masked: a short test value would mask ordinary words. */
export const minSecretLength = 8

/** Masks the configured credentials in text and in plain data. */
export interface Masker {
  /** `text` with every occurrence of a credential form replaced by {@link placeholder}. */
  readonly text: (text: string) => string
  /**
   * The masker for the text of a stream, read on every network read: the forms a stream can carry
   * as text (as sent, in any case, URL-encoded, JSON-escaped), not the Base64 ones, which only an
   * echoed HTTP Basic header would hold. One literal pattern for a usual key: about 0.1 ms per MB.
   */
  readonly stream: Masker
  /**
   * Like {@link Masker.text}, and any piece of a credential of at least {@link minSecretLength}
   * characters is masked too: what a cut or a partial mask ("****" and the last characters) left.
   * Linear in the text; meant for error fields, not for every read.
   */
  readonly cut: (text: string) => string
  /**
   * Plain data (JSON-like) with {@link Masker.cut} applied to every string in it: a copy where a
   * string changed, the value itself where nothing in it did.
   */
  readonly deep: (value: unknown) => unknown
  /** The longest form of any credential, in characters. */
  readonly longest: number
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

const base64 = (s: string): string => {
  const bytes = new TextEncoder().encode(s)
  let binary = ""
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary)
}

/** The textual forms in which a server may echo `secret` back. */
const textFormsOf = (secret: string): Array<string> => [
  secret,
  encodeURIComponent(secret),
  encodeURIComponent(encodeURIComponent(secret)),
  JSON.stringify(secret).slice(1, -1)
]

/** The Base64 forms (an echoed HTTP Basic header). */
const base64FormsOf = (secret: string): Array<string> => {
  const b64 = base64(secret)
  return [b64, b64.replace(/=+$/, ""), b64.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")]
}

/**
 * The forms worth searching: long enough, and none containing another (case-insensitively), since
 * masking the shorter one already breaks the longer ("Bearer sk-…" holds "sk-…").
 */
const minimal = (forms: Iterable<string>): Array<string> => {
  const all = [...new Set([...forms].filter((f) => f.length >= minSecretLength))]
  const lower = all.map((f) => f.toLowerCase())
  return all.filter((_, i) => {
    const self = lower[i]!
    return !lower.some((other, j) => j !== i && other.length < self.length && self.includes(other))
  })
}

/** `s` with its ASCII capitals in lower case: the same length, so every index stays where it was. */
const asciiLower = (s: string): string => s.replace(/[A-Z]+/g, (m) => m.toLowerCase())

/** The character code at `i` with an ASCII capital folded to lower case. */
const folded = (s: string, i: number): number => {
  const c = s.charCodeAt(i)
  return c >= 65 && c <= 90 ? c | 32 : c
}

/** The multiplier of the windows' polynomial hash (32-bit), and its power for the leaving character. */
const hashBase = 31
const leavingWeight = hashBase ** (minSecretLength - 1) | 0

/** The size of a masker's window filter, in bits (8 KB). */
const filterBits = 1 << 16

/** The hash of the `minSecretLength` folded characters of `s` from `at`. */
const windowHash = (s: string, at: number): number => {
  let h = 0
  for (let k = 0; k < minSecretLength; k++) h = (Math.imul(h, hashBase) + folded(s, at + k)) | 0
  return h
}

/** The hash of the next window: `leaving` drops out at the front, `entering` comes in at the end. */
const rollHash = (h: number, leaving: number, entering: number): number =>
  (Math.imul((h - Math.imul(leaving, leavingWeight)) | 0, hashBase) + entering) | 0

/** Sets a member as a plain assignment would, even one named `__proto__`. */
const member = (out: Record<string, unknown>, key: string, value: unknown): void => {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true })
}

/** The longest cut a deep copy follows, in levels: what we mask is our own, bounded data. */
const maxDepth = 64

/** A masker for the given credentials; `undefined` when none is long enough to mask. */
export const make = (secrets: Iterable<string>): Masker | undefined => {
  const list = [...secrets]
  const textForms = minimal(list.flatMap(textFormsOf))
  if (textForms.length === 0) return undefined
  const stream = build(textForms, undefined)
  return build(
    minimal([...textForms, ...list.filter((s) => s.length >= minSecretLength).flatMap(base64FormsOf)]),
    stream
  )
}

const build = (forms: ReadonlyArray<string>, stream: Masker | undefined): Masker => {
  // Longest first, so a form that shares a start with another is masked whole.
  const sorted = [...forms].sort((a, b) => b.length - a.length)
  const pattern = new RegExp(sorted.map(escapeRegExp).join("|"), "gi")
  // A text shorter than every form holds none (most header values): no search at all.
  const shortest = sorted[sorted.length - 1]!.length
  const text = (s: string): string => {
    if (s.length < shortest) return s
    pattern.lastIndex = 0
    if (!pattern.test(s)) return s
    pattern.lastIndex = 0
    return s.replace(pattern, placeholder)
  }
  // Every run of `minSecretLength` characters of every form: a piece of a key left anywhere (a cut,
  // a "****" mask that kept the last characters) is found by its windows. Windows compare with
  // ASCII letters folded to lower case (which keeps every index where it was). The text is searched
  // by a rolling hash of its windows: a window is sliced out and looked up only when its hash's low
  // bits are marked in `filter` (one bit per value), which a form's window always is.
  const windows = new Set<string>()
  const filter = new Uint32Array(filterBits >>> 5)
  for (const form of sorted.map(asciiLower)) {
    for (let i = 0; i + minSecretLength <= form.length; i++) {
      windows.add(form.slice(i, i + minSecretLength))
      const bit = windowHash(form, i) & (filterBits - 1)
      filter[bit >>> 5]! |= 1 << (bit & 31)
    }
  }
  const cut = (input: string): string => {
    const s = text(input)
    const n = s.length
    if (n < minSecretLength) return s
    let lower: string | undefined = undefined
    const isWindow = (at: number): boolean => windows.has((lower ??= asciiLower(s)).slice(at, at + minSecretLength))
    let out = ""
    let from = 0
    let h = windowHash(s, 0)
    for (let i = 0; i + minSecretLength <= n;) {
      const bit = h & (filterBits - 1)
      if ((filter[bit >>> 5]! & (1 << (bit & 31))) === 0 || !isWindow(i)) {
        if (i + minSecretLength < n) h = rollHash(h, folded(s, i), folded(s, i + minSecretLength))
        i++
        continue
      }
      let end = i + minSecretLength
      while (end < n && isWindow(end - minSecretLength + 1)) end++
      out += s.slice(from, i) + placeholder
      from = i = end
      if (i + minSecretLength <= n) h = windowHash(s, i)
    }
    return from === 0 ? s : out + s.slice(from)
  }
  // The value itself when nothing in it changes (the common case: no key anywhere), else a copy.
  const deep = (value: unknown, depth: number): unknown => {
    if (typeof value === "string") return cut(value)
    if (typeof value !== "object" || value === null) return value
    if (depth > maxDepth) return "[nested too deeply]"
    if (Array.isArray(value)) {
      let out: Array<unknown> | undefined = undefined
      for (let i = 0; i < value.length; i++) {
        const v: unknown = value[i]
        const masked = deep(v, depth + 1)
        if (!Object.is(masked, v)) (out ??= value.slice())[i] = masked
      }
      return out ?? value
    }
    // Nothing is allocated until a key or a value changes; then the members so far are copied.
    const record = value as Record<string, unknown>
    const keys = Object.keys(record)
    let out: Record<string, unknown> | undefined = undefined
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!
      const v = record[k]
      const maskedKey = cut(k)
      const maskedValue = deep(v, depth + 1)
      if (out === undefined && (maskedKey !== k || !Object.is(maskedValue, v))) {
        out = {}
        for (let j = 0; j < i; j++) member(out, keys[j]!, record[keys[j]!])
      }
      if (out !== undefined) member(out, maskedKey, maskedValue)
    }
    return out ?? value
  }
  const self: Masker = {
    text,
    cut,
    deep: (v) => deep(v, 0),
    longest: Math.max(...sorted.map((f) => f.length)),
    get stream() {
      return stream ?? self
    }
  }
  return self
}
