import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { isAskedScavenge } from '../../bench/gc-trace.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const MODULE = JSON.stringify(path.join(ROOT, 'dist', 'api', 'young-collection.js'));

/**
 * Runs `script` in a node of its own with `--trace-gc`: V8's lines say which scavenges the process
 * asked for ("testing", V8's reason for a collection the embedder asks for).
 */
async function traced(script: string): Promise<{ asked: number; stdout: string }> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--trace-gc', '--input-type=module', '-e', script], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
  return { asked: stdout.split('\n').filter(isAskedScavenge).length, stdout };
}

// 40 MiB of answers in 64 KiB socket reads, each read then dropped, as the client's exchanges do;
// a turn of the event loop after each answer of 64 KiB.
const RECEIVE = (allocate: boolean): string => `
  const { countReceived } = await import(${MODULE});
  const READ = 64 * 1024;
  for (let i = 0; i < 640; i++) {
    ${allocate ? 'Buffer.allocUnsafeSlow(READ).fill(i);' : ''}
    countReceived(READ);
    await new Promise((resolve) => setImmediate(resolve));
  }`;

describe('a minor collection when answers pile up outside the heap (young-collection)', () => {
  it('asks for scavenges while the socket reads of answers read pile up as external memory, and none when they do not', async () => {
    const piling = await traced(RECEIVE(true));
    // 40 MiB, one every 4 MiB of external memory gained: about 10 (the reads of a turn are freed by the next).
    expect(piling.asked).toBeGreaterThanOrEqual(5);
    expect(piling.asked).toBeLessThanOrEqual(12);
    // The same bytes counted, nothing piling up outside the heap: nothing to free, nothing asked for.
    expect((await traced(RECEIVE(false))).asked).toBe(0);
  });

  it('leaves no gc function in the global scope, in a context made later, or in a worker', async () => {
    const { stdout } = await traced(`
      ${RECEIVE(true)}
      const vm = await import('node:vm');
      const { Worker } = await import('node:worker_threads');
      const inWorker = await new Promise((resolve, reject) => {
        const w = new Worker('import("node:worker_threads").then((m) => m.parentPort.postMessage(typeof gc))', { eval: true });
        w.once('message', resolve);
        w.once('error', reject);
      });
      console.log('gc: ' + JSON.stringify([typeof globalThis.gc, vm.runInNewContext('typeof gc'), inWorker]));`);
    expect(stdout).toContain('gc: ["undefined","undefined","undefined"]');
  });
});
