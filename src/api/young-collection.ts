import { createRequire } from 'node:module';
import type * as V8 from 'node:v8';
import type * as Vm from 'node:vm';

/**
 * Frees the socket reads of answers already read with a minor collection (a scavenge, about a
 * millisecond) when the memory outside V8's heap has grown by YOUNG_COLLECTION_BYTES since it was
 * last seen lowest, while answers come in.
 *
 * Why: every socket read is a fresh ArrayBuffer whose bytes live outside V8's heap (external
 * memory). In V8 11.3 (Node 20) the old generation's room, as V8 judges whether to begin a full
 * collection (Heap::OldGenerationSpaceAvailable in Heap::IncrementalMarkingLimitReached), is its
 * limit less its objects *and* the external memory allocated since the last mark-compact; below
 * the young generation's capacity (16 MB by default), a task begins incremental marking, then a
 * full mark-compact. A dead ArrayBuffer's bytes count until a collection sweeps it, and a young one
 * is swept by the next scavenge; but a scavenge waits for 16 MB of JavaScript objects, and a plan
 * that compares the answers' bytes with its files without decoding them allocates far fewer objects
 * than it receives bytes. So `plan` with no change on 1,000 glossaries × 2 × 1,000 entries (138 MB
 * received, a heap of ~20 MB whose limit leaves ~24 MB of room) ran 9-14 mark-compacts, about one
 * every 8 MB received (`node bench/plan-gc.js`): `--trace-incremental-marking` shows each begun by a
 * task while the old generation's objects alone left 23-58 MB of room, and the scavenges asked for
 * here take them away.
 *
 * The trigger is the external memory itself (v8.getHeapStatistics().external_memory, V8's own
 * count, read once per MiB received): where the process allocates enough for scavenges to come by
 * themselves, they keep it low and none is asked for. A scavenge asked for every 4 MiB received,
 * whatever the external memory did, cut those mark-compacts to one, but on 300 glossaries, where
 * scavenges came often enough anyway, it moved objects still in use to the old generation and
 * added one to three mark-compacts. `node --max-semi-space-size=4` also cut them to one, but
 * is a flag of the process only (V8 sizes the young generation when the heap is set up:
 * v8.setFlagsFromString later changes nothing) and slowed the 10 MiB plan, whose decoding does
 * allocate. `--minor-gc-task-trigger` (the scavenge task's threshold, read at run time) counts
 * JavaScript objects, not external bytes: at 5 % it ran six times the scavenges and left 8
 * mark-compacts.
 *
 * The collection runs on the next turn of the event loop (setImmediate), not in the middle of an
 * answer: by then the answer counted has been read and its buffers are dead, so they are freed
 * rather than moved to the old generation (where only a mark-compact frees them).
 */
export const YOUNG_COLLECTION_BYTES = 4 * 1024 * 1024;

/** Answer bytes received between two readings of the external memory. */
const CHECK_EVERY_BYTES = 1024 * 1024;

type MinorGc = (options: { type: 'minor' }) => void;

let received = 0;
let pending = false;
/** The least external memory seen since the last collection asked for. */
let lowest = Infinity;
let v8: typeof V8 | undefined;
/** The `gc` function (undefined until first needed; null where this Node cannot give it). */
let minorGc: MinorGc | null | undefined;

/**
 * V8's `gc` function without `--expose-gc` on the command line: the flag is set only while one new
 * context is made, whose global `gc` is taken, and unset at once, so that neither this process's
 * global scope nor any context or worker made later has a `gc` (node:v8, node:vm loaded only here,
 * on first need: a command that receives little never loads them).
 */
function obtainGc(): MinorGc | null {
  try {
    const vm = createRequire(import.meta.url)('node:vm') as typeof Vm;
    const flags = v8 as typeof V8;
    flags.setFlagsFromString('--expose-gc');
    try {
      const gc = vm.runInNewContext('typeof gc === "function" ? gc : undefined') as unknown;
      return typeof gc === 'function' ? (gc as MinorGc) : null;
    } finally {
      flags.setFlagsFromString('--no-expose-gc');
    }
  } catch {
    return null;
  }
}

function collect(): void {
  pending = false;
  minorGc ??= obtainGc();
  minorGc?.({ type: 'minor' });
}

/**
 * Counts `bytes` of an answer body read whole; once a MiB, reads the external memory, and a
 * collection is started when it stands YOUNG_COLLECTION_BYTES above the least seen (see above).
 */
export function countReceived(bytes: number): void {
  received += bytes;
  if (received < CHECK_EVERY_BYTES || pending) return;
  received = 0;
  v8 ??= createRequire(import.meta.url)('node:v8') as typeof V8;
  const external = v8.getHeapStatistics().external_memory;
  if (external < lowest) lowest = external;
  if (external - lowest < YOUNG_COLLECTION_BYTES) return;
  // Freed by the collection's sweeping (on another thread, after it): the least is found anew.
  lowest = Infinity;
  pending = true;
  setImmediate(collect).unref();
}
