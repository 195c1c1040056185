/**
 * The bench's statistics, one definition for every script: quantiles interpolate between the two
 * nearest samples, so the median of an even count is the mean of the middle two.
 */

/** The `q` quantile (0–1) of `xs`; NaN when there are none. */
export const quantile = (xs: ReadonlyArray<number>, q: number): number => {
  const s = [...xs].sort((a, b) => a - b)
  if (s.length === 0) return NaN
  const pos = (s.length - 1) * q
  const lo = Math.floor(pos)
  const hi = Math.ceil(pos)
  return s[lo]! + (s[hi]! - s[lo]!) * (pos - lo)
}

/** The median of `xs`; NaN when there are none. */
export const median = (xs: ReadonlyArray<number>): number => quantile(xs, 0.5)
