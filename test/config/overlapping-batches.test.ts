import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readEntriesBatch, type EntriesJob } from '../../src/config/read-entries.js';
import { PackedEntries } from '../../src/model/packed-entries.js';

// The load worker starts a batch while an earlier one awaits a multilingual file's reader, and
// every batch's text files are read into the same per-thread arena. A deferred file's digest must be
// of its own bytes, whatever batch ran in the meantime.

const A = 'apple\tApfel\npear\tBirne\n';
const B = 'apple\tApfxl\npear\tBirnx\n'; // as long as A: it lands where A's bytes were
const TBX =
  '<?xml version="1.0" encoding="UTF-8"?><tbx type="TBX-Basic" xml:lang="en" xmlns="urn:iso:std:iso:30042:ed-2"><text><body>' +
  '<conceptEntry id="c1"><langSec xml:lang="en"><termSec><term>cat</term></termSec></langSec><langSec xml:lang="de"><termSec><term>Katze</term></termSec></langSec></conceptEntry>' +
  '</body></text></tbx>';

/** The digest the client compares: sha256 of the text as a JSON string (quotes included), in UTF-8. */
const literal = (text: string): string => createHash('sha256').update(JSON.stringify(text), 'utf8').digest('hex');

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'termsync-overlap-'));
  await writeFile(path.join(root, 'a.tsv'), A);
  await writeFile(path.join(root, 'b.tsv'), B);
  await writeFile(path.join(root, 'multi.tbx'), TBX);
  await writeFile(path.join(root, 'multi.tsv'), 'en\tde\ncat\tKatze\n');
  await writeFile(path.join(root, 'r.yaml'), 'x');
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const job = (declared: string, glossaryLevel: boolean): EntriesJob => ({
  root,
  rootReal: root,
  resourceFile: 'r.yaml',
  declared,
  at: { file: 'r.yaml', line: 1, column: 1 },
  pairs: [{ sourceLang: 'en', targetLang: 'de' }],
  glossaryLevel,
  languages: ['en', 'de'],
  options: { terms: 'first' },
} as unknown as EntriesJob);

describe('overlapping batches of entries files', () => {
  for (const multi of ['multi.tbx', 'multi.tsv']) {
    it(`a deferred file after a multilingual one (${multi}) keeps the digest of its own text while the next batch reads another`, async () => {
      const first = readEntriesBatch([job(multi, true), job('a.tsv', false)], undefined, { defer: true });
      const second = readEntriesBatch([job('b.tsv', false)], undefined, { defer: true });
      const [outcomes, others] = await Promise.all([first, second]);
      expect(outcomes[0]?.dictionaries?.[0]?.size).toBe(1);
      const a = outcomes[1]?.entries;
      const b = others[0]?.entries;
      if (!(a instanceof PackedEntries) || !(b instanceof PackedEntries)) throw new Error('expected entries');
      expect(a.deferredText?.digest).toBe(literal(A.slice(0, -1)));
      expect(b.deferredText?.digest).toBe(literal(B.slice(0, -1)));
      // Read again (the file has not changed): the same text, no `entries_file_changed`.
      expect(a.text).toBe(A);
    });
  }
});
