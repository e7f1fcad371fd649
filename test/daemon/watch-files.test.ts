import { appendFile, mkdir, mkdtemp, rm, stat, writeFile, unlink } from 'node:fs/promises';
import { statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileClockNow, fileClockPast } from '../../src/daemon/file-clock.js';
import { watchFiles, type FileWatcher } from '../../src/daemon/watch-files.js';
import { silentLogger } from '../../src/lib/logger.js';
import { createVirtualClock } from '../../src/lib/virtual-clock.js';
import { until } from '../helpers/until.js';

let dir: string;
let watcher: FileWatcher | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'termsync-watch-files-'));
  await mkdir(join(dir, 'glossaries', 'entries'), { recursive: true });
  await mkdir(join(dir, 'config'));
  await writeFile(join(dir, 'config', 'termsync.yaml'), 'version: 1\n');
  for (const name of ['a', 'b']) await writeFile(join(dir, 'glossaries', `${name}.yaml`), `kind: glossary\nname: ${name}\n`);
  for (const name of ['x', 'y']) await writeFile(join(dir, 'glossaries', 'entries', `${name}.en-de.tsv`), 'term\tBegriff\n');
});

afterEach(async () => {
  await watcher?.close();
  watcher = undefined;
  await rm(dir, { recursive: true, force: true });
});

/**
 * The file system's clock now, once it has moved past every file written so far: what is written
 * after it is newer than all of them. (The clock moves by ticks of a few milliseconds; the loop ends
 * as soon as it has.)
 */
async function afterEveryFile(): Promise<number> {
  const files = ['config/termsync.yaml', 'glossaries', 'glossaries/entries', 'glossaries/a.yaml', 'glossaries/b.yaml', 'glossaries/entries/x.en-de.tsv', 'glossaries/entries/y.en-de.tsv'];
  const latest = Math.max(...(await Promise.all(files.map(async (f) => (await stat(join(dir, f))).ctimeMs))));
  return until('the file clock to pass the files', () => {
    const now = fileClockNow();
    return now > latest && now;
  }, { everyMs: 1 });
}

/** Waits until the file clock has moved past `since`: a file written then is newer than `since`. */
async function clockPast(since: number): Promise<void> {
  await until('the file clock to move', () => fileClockNow() > since, { everyMs: 1 });
}

describe('watchFiles', () => {
  it('reports, from its first scan, what changed since `changedSince` (edited, new, renamed, deleted) and nothing older', async () => {
    const since = await afterEveryFile();
    await clockPast(since);
    // Made "during the first load", before the watcher starts.
    await appendFile(join(dir, 'glossaries', 'b.yaml'), 'description: edited\n');
    await writeFile(join(dir, 'glossaries', 'c.yaml'), 'kind: glossary\nname: c\n');
    await unlink(join(dir, 'glossaries', 'entries', 'y.en-de.tsv'));
    const clock = createVirtualClock({ manual: true });
    const batches: (readonly string[])[] = [];
    watcher = watchFiles({ root: () => dir, clock, debounceMs: 100, maxWaitMs: 1000, writeFinishMs: 20, logger: silentLogger, changedSince: since, onChange: (files) => batches.push(files) });
    watcher.setPaths([join(dir, 'glossaries'), join(dir, 'config', 'termsync.yaml')]);
    const w = watcher;
    // b.yaml, c.yaml, and the two folders whose listing changed (glossaries: c.yaml added; entries: y removed).
    await until('the first scan to report four changes', () => w.pending() >= 4);
    // Then a marker, watched as any later edit: once it is in the batch, the first scan is over.
    await appendFile(join(dir, 'glossaries', 'a.yaml'), 'description: marker\n');
    await until('the marker', () => w.pending() >= 5);
    clock.advance(100);
    expect(batches).toEqual([['glossaries', 'glossaries/a.yaml', 'glossaries/b.yaml', 'glossaries/c.yaml', 'glossaries/entries']]);
  });

  it('the catch-up watch is one unbroken watch from before it starts (`changedSince` on), unless a folder changed since', async () => {
    const since = await afterEveryFile();
    const clock = createVirtualClock({ manual: true });
    watcher = watchFiles({ root: () => dir, clock, debounceMs: 100, maxWaitMs: 1000, writeFinishMs: 20, logger: silentLogger, changedSince: since, onChange: () => undefined });
    const w = watcher;
    // Taken as the first load begins, before the watch starts: the catch-up reports what changes from then on.
    const before = w.unbroken();
    expect(before).toBeDefined();
    w.setPaths([join(dir, 'glossaries'), join(dir, 'config', 'termsync.yaml')]);
    expect(w.unbroken()).toBe(before);
    // Its scan finds the folders unchanged: no break. A marker edit, reported once the scan is over.
    await until('the marker', async () => {
      if (w.pending() > 0) return true;
      await appendFile(join(dir, 'glossaries', 'a.yaml'), 'description: marker\n');
      return false;
    });
    expect(w.unbroken()).toBe(before);

    // A folder added since: its files cannot be vouched for across it, the watch broke.
    await watcher.close();
    const again = await afterEveryFile();
    await clockPast(again);
    await mkdir(join(dir, 'glossaries', 'more'));
    watcher = watchFiles({ root: () => dir, clock, debounceMs: 100, maxWaitMs: 1000, writeFinishMs: 20, logger: silentLogger, changedSince: again, onChange: () => undefined });
    const broken = watcher;
    const first = broken.unbroken();
    broken.setPaths([join(dir, 'glossaries'), join(dir, 'config', 'termsync.yaml')]);
    await until('the scan to find the new folder', () => broken.unbroken() !== first);
    // Without `changedSince`, nothing is vouched for before the watch is ready.
    await watcher.close();
    watcher = watchFiles({ root: () => dir, clock, debounceMs: 100, maxWaitMs: 1000, writeFinishMs: 20, logger: silentLogger, onChange: () => undefined });
    expect(watcher.unbroken()).toBeUndefined();
  });

  it('fileClockPast resolves once the file clock reads later than the given time, not before', async () => {
    const readings = [5, 5, 5, 6];
    let asked = 0;
    await fileClockPast(5, () => readings[Math.min(asked++, readings.length - 1)]!);
    expect(asked).toBe(4);
    // And on the real clock: a file written then is stamped after it.
    const since = fileClockNow();
    await fileClockPast(since);
    const file = join(dir, 'probe');
    writeFileSync(file, 'x');
    expect(statSync(file).ctimeMs).toBeGreaterThan(since);
  });

  it('reports nothing of its first scan without `changedSince`', async () => {
    await afterEveryFile();
    await appendFile(join(dir, 'glossaries', 'b.yaml'), 'description: edited\n');
    const clock = createVirtualClock({ manual: true });
    const batches: (readonly string[])[] = [];
    watcher = watchFiles({ root: () => dir, clock, debounceMs: 100, maxWaitMs: 1000, writeFinishMs: 20, logger: silentLogger, onChange: (files) => batches.push(files) });
    watcher.setPaths([join(dir, 'glossaries'), join(dir, 'config', 'termsync.yaml')]);
    const w = watcher;
    // The marker: an edit the watch sees once it is set up (the scan that precedes it reports nothing).
    await until('the watch to report the marker', async () => {
      if (w.pending() > 0) return true;
      await appendFile(join(dir, 'glossaries', 'entries', 'x.en-de.tsv'), 'marker\tMarke\n');
      return false;
    });
    clock.advance(100);
    expect(batches).toEqual([['glossaries/entries/x.en-de.tsv']]);
  });
});
