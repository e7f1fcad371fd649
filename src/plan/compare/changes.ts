/**
 * A phrase to keep beyond the read: a copy, not a slice of the answer's text (a slice would keep the
 * whole answer, megabytes for one changed term, alive as long as the plan).
 */
export function detach(phrase: string): string {
  return phrase.length < 16 ? phrase : (JSON.parse(JSON.stringify(phrase)) as string);
}

/** Two lists sorted by source (no source in both), merged into one. */
export function merge<T>(a: readonly T[], b: readonly T[], sourceOf: (item: T) => string): T[] {
  if (b.length === 0) return a as T[];
  if (a.length === 0) return b as T[];
  const out: T[] = new Array<T>(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = sourceOf(a[i] as T) < sourceOf(b[j] as T) ? (a[i++] as T) : (b[j++] as T);
  while (i < a.length) out[k++] = a[i++] as T;
  while (j < b.length) out[k++] = b[j++] as T;
  return out;
}
