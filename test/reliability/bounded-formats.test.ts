// Bounded cost for every entries file: a TBX file of millions of unclosed elements and a workbook
// whose one long shared string fills every row end with a located exit 3, in bounded memory; a
// SIGTERM in the middle of a long workbook stops the run at once, not at the end of the file.
// Every run is a real process (bin/termsync.js). The figures of record (CPU, wall, peak memory
// against the goal: under 30 s and 400 MB) come from bench/hostile-formats.js.
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { amplifiedWorkbook, deepTbx, longWorkbook } from '../../bench/hostile-formats-files.js';
import { createArea, looksLikeStackTrace, writeRepo } from './harness.js';
import { CONFIG } from './bad-repositories.js';

const area = createArea('bounded-formats');

/** Peak resident set a run may reach (the goal of the bounded-cost item). */
const MAX_RSS_MIB = 400;
/** A run that has not ended by then is killed (it then fails its exit check): the parse ran away. */
const KILL_AFTER_MS = 180_000;

/** CPU seconds a process has used (user and system, from /proc). */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

async function repository(name: string, entriesFile: string, content: Buffer): Promise<string> {
  const dir = await area.folder(name);
  await writeRepo(dir, { 'termsync.yaml': CONFIG, 'glossaries/g.yaml': `kind: glossary\nname: T\nentries_file: ${entriesFile}\nlanguages: [en, de]\n`, [`glossaries/${entriesFile}`]: content });
  return dir;
}

describe('bounded cost for every entries file', () => {
  it.each([
    ['a TBX file of 4 million unclosed elements (12 MB)', 'deep', 't.tbx', () => Promise.resolve(deepTbx(4_000_000)), /^glossaries\/t\.tbx:2:\d+: error: \[entries\/xml-too-deep\] elements nest more than 64 deep here/m],
    [
      'a 1.2 MB workbook whose one 1 MiB shared string fills 150,000 rows',
      'amplified',
      't.xlsx',
      () => amplifiedWorkbook(150_000, 1024 * 1024),
      /^glossaries\/t\.xlsx:Terms!A7: error: \[entries\/too-much-text\] the language columns hold more than 10485760 characters by this cell/m,
    ],
  ])('%s: exit 3, located, in bounded memory', async (what, name, file, build, located) => {
    const bytes = await build();
    const dir = await repository(name, file, bytes);
    const run = await area.run(['validate', '--dir', '.'], { cwd: dir, watchMemory: true, timeoutMs: KILL_AFTER_MS });
    const peakMiB = run.peakRssKiB / 1024;
    area.tried(`${what} (${bytes.length} bytes): exit ${run.code ?? run.signal} after ${(run.ms / 1000).toFixed(1)} s, peak RSS ${peakMiB.toFixed(0)} MiB; ${run.stdout.split('\n').find((l) => / error: \[entries\/(xml-too-deep|too-much-text)\]/.test(l))?.slice(0, 140) ?? run.stdout.slice(0, 140)}`);
    expect(run.code).toBe(3);
    expect(run.stdout).toMatch(located);
    expect(looksLikeStackTrace(run.stdout + run.stderr)).toBe(false);
    expect(run.peakRssKiB).toBeGreaterThan(0);
    expect(peakMiB).toBeLessThan(MAX_RSS_MIB);
  });

  it('SIGTERM while a long workbook is read: exit 130, with next to no CPU spent after the signal', async () => {
    // 100,000 rows of 40 note cells (about 90 MB of XML): seconds of reading, nothing hostile.
    const dir = await repository('long', 't.xlsx', await longWorkbook(100_000, 40));
    // Read whole once: how much CPU the file costs, so that the signal below lands in its middle.
    let whole = 0;
    let pid: number | undefined;
    const sampleWhole = setInterval(() => {
      if (pid !== undefined) whole = Math.max(whole, cpuSeconds(pid) || 0);
    }, 20);
    const full = await area.run(['validate', '--dir', '.'], { cwd: dir, timeoutMs: KILL_AFTER_MS, onSpawn: (c) => (pid = c.pid) });
    clearInterval(sampleWhole);
    expect(full.code).toBe(0);
    expect(whole).toBeGreaterThan(2.5);

    let child: ChildProcess | undefined;
    let atSignal = 0;
    let last = 0;
    const running = area.run(['validate', '--dir', '.'], { cwd: dir, timeoutMs: KILL_AFTER_MS, onSpawn: (c) => (child = c) });
    // Once the process has spent a third of the whole read, it is in the middle of the workbook.
    const sampler = setInterval(() => {
      const id = child?.pid;
      if (id === undefined) return;
      const cpu = cpuSeconds(id);
      if (Number.isNaN(cpu)) return;
      last = cpu;
      if (atSignal === 0 && cpu >= whole / 3) {
        atSignal = cpu;
        child?.kill('SIGTERM');
      }
    }, 10);
    const run = await running;
    clearInterval(sampler);
    const after = last - atSignal;
    area.tried(`long workbook: read whole in ${whole.toFixed(2)} CPU s; SIGTERM at ${atSignal.toFixed(2)} CPU s, exit ${run.code ?? run.signal} ${after.toFixed(2)} CPU s later (last sample); said: ${run.stderr.trim().split('\n').pop() ?? ''}`);
    expect(atSignal).toBeGreaterThan(0);
    expect(run.code).toBe(130);
    expect(run.stderr).toContain('interrupted while reading the repository (received SIGTERM)');
    // The rest of the file would cost two thirds of `whole`; the run stops within a piece of it.
    expect(after).toBeLessThan(Math.min(1, whole / 3));
    expect(looksLikeStackTrace(run.stdout + run.stderr)).toBe(false);
  });
});
