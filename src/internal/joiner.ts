/**
 * Text appended a piece at a time and joined once at the end, holding at most {@link blockPieces}
 * pieces loose: a long answer streamed in small deltas (a million and more) would otherwise keep a
 * string and an array slot per delta alive until the end, several times the text itself.
 */

/** Loose pieces joined into one block as soon as there are this many. */
export const blockPieces = 4096

/** Appends strings; {@link Joiner.join} gives them joined, in order. */
export class Joiner {
  private readonly blocks: Array<string> = []
  private readonly loose: Array<string> = []
  /** How many pieces were appended (empty ones included). */
  get pieces(): number {
    return this.blocks.length * blockPieces + this.loose.length
  }

  /** Appends `s`. */
  push(s: string): void {
    this.loose.push(s)
    if (this.loose.length === blockPieces) {
      this.blocks.push(this.loose.join(""))
      this.loose.length = 0
    }
  }

  /** Everything appended, in order. */
  join(): string {
    const tail = this.loose.join("")
    return this.blocks.length === 0 ? tail : this.blocks.join("") + tail
  }
}
