/**
 * Splits bytes into reads at arbitrary cut points (any order, duplicates, out of range folded in),
 * empty reads included — harsher than `Fixture.splitAt`, which skips them, as framing tests want.
 */
export const splitAnywhere = (bytes: Uint8Array, cuts: ReadonlyArray<number>): Array<Uint8Array> => {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)
  const reads: Array<Uint8Array> = []
  let start = 0
  for (const p of points) {
    reads.push(bytes.subarray(start, p))
    start = p
  }
  reads.push(bytes.subarray(start))
  return reads
}
