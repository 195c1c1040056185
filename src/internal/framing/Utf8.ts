/**
 * UTF-8 decoding of a body one network read at a time, with the output of one `TextDecoder` in
 * streaming mode (a BOM at the start of the body dropped, invalid bytes as U+FFFD, a character split
 * across reads joined) at a fraction of its cost on the ASCII text most streams are.
 *
 * Why not `decode(bytes, { stream: true })`: Node (20) decodes UTF-8 without `stream` on a fast
 * path, and with it through ICU's converter, which costs about ten times as much on ASCII (0.6 ms
 * against 0.06 ms for a 730 KB body). ICU is the faster one on text that is mostly multi-byte
 * (Chinese, emoji), so each read goes to the one that suited the read before it.
 *
 * How it stays exact: a read is decoded only up to its last complete character; the bytes of a
 * character it leaves unfinished (at most three, and only while they can still make one) are held
 * and put before the next read. A decoder then only ever sees whole characters, or bytes no
 * character could be made of, which decode the same wherever the body was split. Both decoders
 * keep the BOM (a U+FEFF after the start of the body is text); it is dropped here, once, from the
 * start of the body.
 *
 * @since 0.1.0
 */

/** How many bytes at the end of `bytes` begin a character that needs more bytes than are there (0–3). */
const unfinished = (bytes: Uint8Array): number => {
  const n = bytes.length
  const reach = n < 3 ? n : 3
  for (let k = 1; k <= reach; k++) {
    const b = bytes[n - k]!
    // A continuation byte (10xxxxxx): the character, if any, began further back.
    if ((b & 0xc0) === 0x80) continue
    // The byte that begins it: how many bytes its character takes (invalid leads take one).
    const length = b >= 0xf0 ? (b <= 0xf4 ? 4 : 1) : b >= 0xe0 ? 3 : b >= 0xc2 ? 2 : 1
    if (length <= k) return 0
    // Held only while it can still become a character: a second byte out of its lead's range
    // (an overlong form, a surrogate, past U+10FFFF) is an error now, as a streaming decoder says.
    return k === 1 || secondFits(b, bytes[n - k + 1]!) ? k : 0
  }
  return 0
}

/** Whether `second` may follow the lead byte `lead` (the WHATWG decoder's ranges; any continuation byte else). */
const secondFits = (lead: number, second: number): boolean =>
  lead === 0xe0
    ? second >= 0xa0
    : lead === 0xed
    ? second <= 0x9f
    : lead === 0xf0
    ? second >= 0x90
    : lead === 0xf4
    ? second <= 0x8f
    : true

/**
 * Used without `stream` only, so it keeps Node's fast path (one streaming call loses it), and holds
 * nothing between calls: one serves every body. Making two decoders per body cost a cold request
 * about 15 µs before its first chunk.
 */
const fast = new TextDecoder("utf-8", { ignoreBOM: true })

/** The UTF-8 decoder of one body: {@link Utf8Reads.decode} each read, {@link Utf8Reads.end} at its end. */
export class Utf8Reads {
  /**
   * Used with `stream` (ICU), fed whole characters, so it holds no bytes back between reads; made
   * at the first read that is not ASCII (most bodies have none).
   */
  private converter: TextDecoder | undefined = undefined
  /** The unfinished character the last read ended with. */
  private held: Uint8Array | undefined = undefined
  /** The last read decoded to one code unit per byte (ASCII): the fast path suits the next one. */
  private ascii = true
  /** Some text came out: a BOM from now on is text. */
  private started = false

  /** The text of one read: every character it completes, none it leaves unfinished. */
  decode(read: Uint8Array): string {
    let bytes = read
    if (this.held !== undefined) {
      bytes = new Uint8Array(this.held.length + read.length)
      bytes.set(this.held)
      bytes.set(read, this.held.length)
      this.held = undefined
    }
    const cut = unfinished(bytes)
    if (cut > 0) {
      this.held = bytes.slice(bytes.length - cut)
      bytes = bytes.subarray(0, bytes.length - cut)
    }
    if (bytes.length === 0) return ""
    let text: string
    if (this.ascii) text = fast.decode(bytes)
    else {
      const converter = this.converter ??= new TextDecoder("utf-8", { ignoreBOM: true })
      text = converter.decode(bytes, { stream: true })
      // What it holds back now (a character begun before the held one) can never be finished: an
      // error, said now, as a streaming decoder says it on the byte after (the held one).
      if (cut > 0 && unfinished(bytes) > 0) text += converter.decode()
    }
    this.ascii = text.length === bytes.length
    if (this.started) return text
    this.started = true
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  }

  /** Ends the body: whether it ended inside a character (whose bytes are dropped). */
  end(): boolean {
    const cut = this.held !== undefined
    this.held = undefined
    return cut
  }
}
