/**
 * A small seeded PRNG (mulberry32): the emulator's ids and fault draws are reproducible for a
 * given seed, so a failing test or demo can be replayed exactly.
 */
export type Random = () => number;

export function createRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Derives an independent stream, so e.g. fault draws never shift the sequence of ids. */
export function deriveSeed(seed: number, stream: number): number {
  return (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) + Math.imul(stream + 1, 0xc2b2ae35)) >>> 0;
}

function hex32(random: Random): string {
  return Math.floor(random() * 4294967296)
    .toString(16)
    .padStart(8, '0');
}

/** A version-4-shaped uuid drawn from `random`. */
export function createUuid(random: Random): string {
  const h = hex32(random) + hex32(random) + hex32(random) + hex32(random);
  const variant = ((parseInt(h[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
