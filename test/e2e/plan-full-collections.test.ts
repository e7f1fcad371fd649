import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateMany, HERE, ROOT, startEmulatorProcess } from '../../bench/cpu-common.js';
import { isAskedScavenge, isMarkCompact } from '../../bench/gc-trace.js';

// `termsync plan` with no change receives every dictionary and compares its bytes with the files
// without decoding them: it receives far more bytes (socket reads: ArrayBuffers outside V8's heap)
// than it allocates JavaScript objects. V8 (Node 20) counts the external memory allocated since the
// last mark-compact against the old generation's room, and a young ArrayBuffer is only freed by a
// scavenge, which such a process seldom runs by itself: without a scavenge every few MiB received
// (src/api/young-collection.ts) the plan below ran 9-14 full mark-compacts, about one every 8 MB
// received. The repository and the service are bench/floor-many.js's: 1,000 glossaries × 2 × 1,000
// entries (138 MB of answers), the emulator answering in 20-40 ms, the replace-all script the last
// to write. The count comes from `node --trace-gc` (V8's own lines), not from any timing.

const TERMSYNC = path.join(ROOT, 'bin', 'termsync.js');

let work: string;
let emulator: Awaited<ReturnType<typeof startEmulatorProcess>>;
let env: NodeJS.ProcessEnv;

function run(args: readonly string[], nodeFlags: readonly string[] = [], script = TERMSYNC): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [...nodeFlags, script, ...args, '--dir', work], { env, encoding: 'utf8', maxBuffer: 1 << 28 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'termsync-full-gc-'));
  await generateMany(work);
  emulator = await startEmulatorProcess();
  env = { ...process.env, TERMSYNC_BASE_URL: emulator.url, TERMSYNC_API_KEY: 'e2e-key' };
  const applied = run(['apply']);
  expect(applied.code, applied.stderr).toBe(0);
  const rewritten = run([], [], path.join(HERE, 'baseline.js'));
  expect(rewritten.code, rewritten.stderr).toBe(0);
}, 300_000);

afterAll(async () => {
  await emulator?.close();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

describe('plan of many dictionaries: full collections', () => {
  it('runs at most a couple of mark-compacts while it receives 2,000 dictionaries, and asks for scavenges instead', () => {
    const plan = run(['plan', '--detailed-exitcode'], ['--trace-gc']);
    expect(plan.code, plan.stderr).toBe(0); // no change
    const lines = plan.stdout.split('\n');
    const markCompacts = lines.filter(isMarkCompact);
    const asked = lines.filter(isAskedScavenge);
    // One while the command starts (its modules and the repository's files), and a margin of one.
    expect(markCompacts.length, markCompacts.join('\n')).toBeLessThanOrEqual(2);
    expect(asked.length).toBeGreaterThanOrEqual(5);
  }, 180_000);
});
