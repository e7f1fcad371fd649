// Reading V8's --trace-gc-verbose output (bench/daemon-idle.js): which lines are collections or
// steps of the memory reducer, and whether the reducer has finished what a run started; and
// (bench/plan-gc.js, the plan's tests) which are full collections and which scavenges were asked for.

/** A collection, or the memory reducer starting or finishing one. */
export function isGcLine(line) {
  return /Memory reducer: (started|finished)|: (Scavenge|Mark-Compact|Minor Mark-Compact) /.test(line);
}

/** A collection (not a step of the reducer). */
export function isCollection(line) {
  return isGcLine(line) && !line.includes('Memory reducer:');
}

/** A full collection (`--trace-gc`). */
export function isMarkCompact(line) {
  return / Mark-Compact /.test(line);
}

/** A scavenge the process asked for (V8 names a collection the embedder asked for "testing"). */
export function isAskedScavenge(line) {
  return / Scavenge .*testing/.test(line);
}

/**
 * Whether V8's memory reducer has finished the cycle the last full collection of a run started: a
 * "finished GC #n (done)" after the last Mark-Compact that was not its own ("(reduce)").
 */
export function reducerDone(lines) {
  const lastRunCollection = lines.findLastIndex((l) => /: Mark-Compact (?!\(reduce\))/.test(l));
  return lines.slice(lastRunCollection + 1).some((l) => /Memory reducer: finished GC #\d+ \(done\)/.test(l));
}
