// The key file: TERMSYNC_API_KEY_FILE naming something that is not a small regular file (a device
// that never ends, a named pipe nobody writes to, a folder, a file far larger than any key) ends
// the run at once with exit 7 and a message that says what it is, in bounded memory, before any
// request; a symbolic link to a regular file (a mounted secret) is read as the file.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { createArea, inParallel, looksLikeStackTrace, SECRET_KEY, writeRepo } from './harness.js';
import { termRepository } from './term-repository.js';

const area = createArea('key-file');

describe('the key file: only a small regular file is read', () => {
  let emulator: RunningEmulator | undefined;
  let keyDir = '';
  afterAll(async () => {
    await emulator?.close();
    if (keyDir !== '') await rm(keyDir, { recursive: true, force: true });
  });

  it('a device, a named pipe, a folder, an oversized file: exit 7 within seconds, bounded memory, nothing sent', async () => {
    emulator = await startEmulator({ port: 0, seed: 61, keys: [SECRET_KEY] });
    const dir = await area.folder('repo');
    await writeRepo(dir, termRepository(61, 0, { v3: 1, v2: 0, styleLists: 0, entries: 2 }));
    // Outside the searched folder: the key belongs in these files and nowhere else.
    keyDir = await mkdtemp(join(tmpdir(), 'termsync-keyfile-'));
    const pipe = join(keyDir, 'pipe');
    execFileSync('mkfifo', [pipe]);
    const large = join(keyDir, 'large');
    await writeFile(large, `${SECRET_KEY}\n${'x'.repeat(64 * 1024)}\n`);
    const good = join(keyDir, 'key');
    await writeFile(good, `${SECRET_KEY}\n`, { mode: 0o600 });
    const linked = join(keyDir, 'linked');
    await symlink(good, linked);

    const cases: readonly (readonly [name: string, file: string, says: string])[] = [
      ['/dev/zero (a device that never ends)', '/dev/zero', 'it is a device'],
      ['a named pipe nobody writes to', pipe, 'it is a named pipe'],
      ['a folder', keyDir, 'it is a folder'],
      ['a file of 64 KiB', large, 'it is larger than 4096 bytes'],
    ];
    const problems: string[] = [];
    await inParallel(
      2,
      cases.map(([name, file, says]) => async () => {
        const before = emulator?.requests().length ?? 0;
        const run = await area.run(['plan', '--dir', '.'], {
          cwd: dir,
          env: { TERMSYNC_BASE_URL: emulator?.url ?? '', TERMSYNC_API_KEY_FILE: file },
          timeoutMs: 30_000,
          watchMemory: true,
        });
        const sent = (emulator?.requests().length ?? 0) - before;
        const said = run.stderr.trim().split('\n').pop() ?? '';
        area.count('bad inputs', 1);
        area.tried(`${name}: exit ${run.code ?? run.signal} after ${(run.ms / 1000).toFixed(1)} s, peak memory ${(run.peakRssKiB / 1024).toFixed(0)} MiB, ${sent} requests; said: ${said}`);
        if (run.code !== 7) problems.push(`${name}: exit ${run.code ?? run.signal} after ${Math.round(run.ms)} ms (expected 7)`);
        if (!said.includes(`cannot read the API key file named by TERMSYNC_API_KEY_FILE (${says}`)) problems.push(`${name}: said "${said.slice(0, 200)}"`);
        if (run.peakRssKiB > 200 * 1024) problems.push(`${name}: peak memory ${(run.peakRssKiB / 1024).toFixed(0)} MiB`);
        if (sent !== 0) problems.push(`${name}: ${sent} requests sent`);
        if (looksLikeStackTrace(run.stdout + run.stderr)) problems.push(`${name}: a stack trace in the output`);
      }),
    );
    expect(problems).toEqual([]);

    // A mounted secret is a symbolic link to a regular file: read as the file.
    const ok = await area.run(['plan', '--dir', '.'], { cwd: dir, env: { TERMSYNC_BASE_URL: emulator.url, TERMSYNC_API_KEY_FILE: linked }, timeoutMs: 60_000 });
    area.tried(`a symbolic link to the key file: exit ${ok.code ?? ok.signal}`);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('Plan: 3 to add');
  });

  it('the key appears in none of the outputs of this check', async () => {
    const { places, hits } = await area.searchForKey();
    area.tried(`searched ${places} files for the key: ${hits.length} found`);
    expect(places).toBeGreaterThan(5);
    expect(hits).toEqual([]);
  });
});
