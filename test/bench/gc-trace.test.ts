import { describe, expect, it } from 'vitest';
import { isCollection, isGcLine, reducerDone } from '../../bench/gc-trace.js';

// Lines of `node --trace-gc --trace-gc-verbose` (Node 20) from an idle daemon of 200 targets.
const RUN = [
  '[9285:0x9257170]     6658 ms: Scavenge 45.7 (64.6) -> 35.3 (66.3) MB, 8.83 / 0.00 ms  (average mu = 1.000, current mu = 1.000) task; ',
  '[9285:0x9257170]     6834 ms: Mark-Compact 37.3 (66.3) -> 19.8 (66.3) MB, 19.05 / 0.01 ms  (+ 1.6 ms in 11 steps since start of marking) finalize incremental marking via task; GC in old space requested',
];
const WAITING = ['[9285:0x9257170]    16255 ms: Memory reducer: high alloc, foreground', '[9285:0x9257170]    16255 ms: Memory reducer: waiting for 8000 ms'];
const FIRST = [
  '[9285:0x9257170]   113666 ms: Memory reducer: started GC #1',
  '[9285:0x9257170]   113798 ms: Memory reducer: finished GC #1 (will do more)',
  '[9285:0x9257170]   113798 ms: Mark-Compact (reduce) 31.9 (66.6) -> 19.8 (25.6) MB, 43.81 / 0.02 ms  (+ 76.8 ms in 40 steps since start of marking)',
];
const LAST = [
  '[9285:0x9257170]   228348 ms: Memory reducer: started GC #2',
  'Memory reducer: finished GC #2 (done)',
  '[9285:0x9257170]   228461 ms: Mark-Compact (reduce) 19.8 (22.3) -> 19.6 (21.8) MB, 44.65 / 0.02 ms  (+ 28.9 ms in 42 steps since start of marking)',
];

describe('bench: reading V8 trace of collections', () => {
  it('keeps collections and the reducer starting or finishing one, not its waits', () => {
    expect([...RUN, ...WAITING, ...FIRST].filter(isGcLine)).toEqual([...RUN, ...FIRST]);
    expect([...RUN, ...FIRST, ...LAST].filter(isCollection)).toEqual([RUN[0], RUN[1], FIRST[2], LAST[2]]);
  });

  it('says the reducer is done only once it finished the cycle after the run’s last full collection', () => {
    expect(reducerDone(RUN.filter(isGcLine))).toBe(false);
    // A collection it will follow with more is not the end, however long after the run.
    expect(reducerDone([...RUN, ...FIRST])).toBe(false);
    expect(reducerDone([...RUN, ...FIRST, ...LAST])).toBe(true);
    // A cycle done before a later full collection of the run does not count.
    expect(reducerDone([...FIRST, ...LAST, ...RUN])).toBe(false);
  });
});
