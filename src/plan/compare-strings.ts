/** Code-unit order: the same on every machine and locale (localeCompare is not). */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
