import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadRepository } from '../../src/config/index.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('a name declared twice', () => {
  it('points at the `name:` line of both files, wherever it is in them', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'termsync-dup-'));
    await writeFile(path.join(dir, 'termsync.yaml'), 'version: 1\ntargets:\n  - name: default\n');
    await mkdir(path.join(dir, 'glossaries'));
    const body = 'dictionaries:\n  - {source_lang: en, target_lang: de, entries: {cart: Warenkorb}}\n';
    await writeFile(path.join(dir, 'glossaries', 'a.yaml'), `# the shop\n# terms\nkind: glossary\n${body}name: Shop terms\n`);
    await writeFile(path.join(dir, 'glossaries', 'b.yaml'), `kind: glossary\n\n\nname: Shop terms\n${body}`);
    const style = 'kind: style_rules\nlanguage: de\n';
    await writeFile(path.join(dir, 'glossaries', 'c.yaml'), `${style}name: House style\n`);
    await writeFile(path.join(dir, 'glossaries', 'd.yaml'), `# copy\n${style}\nname: House style\n`);
    const { diagnostics } = await loadRepository({ dir });
    const duplicates = diagnostics.filter((d) => d.code === 'resource/duplicate-name').map((d) => [d.file, d.line, d.message]);
    expect(duplicates).toEqual([
      ['glossaries/b.yaml', 4, 'glossary "Shop terms" is declared twice (also in glossaries/a.yaml:6); the name is its identity'],
      ['glossaries/d.yaml', 5, 'style rule list "House style" is declared twice (also in glossaries/c.yaml:3); the name is its identity'],
    ]);
  });
});
