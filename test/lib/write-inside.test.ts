import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isTermsyncError } from '../../src/lib/errors.js';
import { removeInside, resolveInside, writeInside } from '../../src/lib/write-inside.js';

/** The one function every write of termsync goes through: nothing lands outside its root, links included. */

let base: string;
let repo: string;
let outside: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'termsync-write-inside-'));
  repo = join(base, 'repo');
  outside = join(base, 'outside');
  await mkdir(join(repo, 'glossaries'), { recursive: true });
  await mkdir(outside);
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function refusal(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (error) {
    if (isTermsyncError(error) && error.code === 'write_outside_root') return error.message;
    throw error;
  }
  throw new Error('expected the write to be refused');
}

describe('writeInside', () => {
  it('refuses a path that leads out of the root as written, before writing anything', async () => {
    const message = await refusal(
      writeInside(repo, [
        { path: 'glossaries/fine.tsv', content: 'a\tb\n', mode: 'create' },
        { path: 'glossaries/shop.en-../../../../outside/pwned.tsv', content: 'x', mode: 'create' },
      ]),
    );
    expect(message).toBe(`refused to write glossaries/shop.en-../../../../outside/pwned.tsv: the path leads outside ${repo}; nothing was written`);
    expect(await readdir(outside)).toEqual([]);
    expect(await readdir(join(repo, 'glossaries'))).toEqual([]);
    await expect(refusal(writeInside(repo, [{ path: join(outside, 'abs.tsv'), content: 'x', mode: 'replace' }]))).resolves.toContain('the path leads outside');
  });

  it('refuses a write that a symbolic link of a folder or of the file itself carries out of the root', async () => {
    await symlink(outside, join(repo, 'glossaries', 'linked'));
    await writeFile(join(outside, 'victim.txt'), 'keep me\n');
    await symlink(join(outside, 'victim.txt'), join(repo, 'glossaries', 'terms.tsv'));
    await symlink(join(outside, 'missing.txt'), join(repo, 'glossaries', 'dangling.tsv'));
    expect(await refusal(writeInside(repo, [{ path: 'glossaries/linked/new.tsv', content: 'x', mode: 'create' }]))).toContain(`a symbolic link leads it to ${join(outside, 'new.tsv')}, outside ${repo}`);
    expect(await refusal(writeInside(repo, [{ path: 'glossaries/terms.tsv', content: 'x', mode: 'replace' }]))).toContain(`a symbolic link leads it to ${join(outside, 'victim.txt')}`);
    expect(await refusal(writeInside(repo, [{ path: 'glossaries/dangling.tsv', content: 'x', mode: 'replace' }]))).toContain('a symbolic link to nothing');
    expect(await readFile(join(outside, 'victim.txt'), 'utf8')).toBe('keep me\n');
    expect((await readdir(outside)).sort()).toEqual(['victim.txt']);
    // The link is still the link: nothing was written over it either.
    expect(await readlink(join(repo, 'glossaries', 'terms.tsv'))).toBe(join(outside, 'victim.txt'));
  });

  it('a link that stays inside is written through; a root reached through a link is its real folder', async () => {
    await writeFile(join(repo, 'glossaries', 'real.tsv'), 'old\n');
    await symlink('real.tsv', join(repo, 'glossaries', 'alias.tsv'));
    await writeInside(repo, [{ path: 'glossaries/alias.tsv', content: 'new\n', mode: 'replace' }]);
    expect(await readFile(join(repo, 'glossaries', 'real.tsv'), 'utf8')).toBe('new\n');
    expect((await lstat(join(repo, 'glossaries', 'alias.tsv'))).isSymbolicLink()).toBe(true);
    const viaLink = join(base, 'checkout');
    await symlink(repo, viaLink);
    await writeInside(viaLink, [{ path: 'glossaries/b.tsv', content: 'b\n', mode: 'create' }]);
    expect(await readFile(join(repo, 'glossaries', 'b.tsv'), 'utf8')).toBe('b\n');
  });

  it('every file or none: a failed create removes what was written and the folders it made', async () => {
    await writeFile(join(repo, 'glossaries', 'taken.tsv'), 'a\tb\n');
    await expect(
      writeInside(repo, [
        { path: 'imported/one.yaml', content: 'x', mode: 'create' },
        { path: 'glossaries/replaced.tsv', content: 'y', mode: 'replace' },
        { path: 'glossaries/taken.tsv', content: 'z', mode: 'create' },
      ]),
    ).rejects.toMatchObject({ code: 'EEXIST' });
    expect((await readdir(repo)).sort()).toEqual(['glossaries']);
    expect(await readdir(join(repo, 'glossaries'))).toEqual(['taken.tsv']);
    expect(await readFile(join(repo, 'glossaries', 'taken.tsv'), 'utf8')).toBe('a\tb\n');
  });

  it('makes the folders asked for, and a root that does not exist yet', async () => {
    const fresh = join(base, 'new', 'repo');
    await writeInside(fresh, [{ path: 'config/termsync.yaml', content: 'version: 1\n', mode: 'create' }], { folders: ['glossaries'] });
    expect((await readdir(fresh)).sort()).toEqual(['config', 'glossaries']);
    await expect(writeInside(repo, [{ path: 'missing/x.json', content: '{}', mode: 'replace' }], { makeFolders: false })).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('resolveInside and removeInside', () => {
  it('resolveInside names the real place; removeInside removes a link, never what it points at', async () => {
    expect(await resolveInside(repo, 'glossaries/x.tsv')).toBe(join(repo, 'glossaries', 'x.tsv'));
    await writeFile(join(outside, 'victim.txt'), 'keep me\n');
    await symlink(join(outside, 'victim.txt'), join(repo, 'glossaries', 'link.tsv'));
    await removeInside(repo, 'glossaries/link.tsv');
    expect(await readdir(join(repo, 'glossaries'))).toEqual([]);
    expect(await readFile(join(outside, 'victim.txt'), 'utf8')).toBe('keep me\n');
    await symlink(outside, join(repo, 'glossaries', 'away'));
    expect(await refusal(removeInside(repo, 'glossaries/away/victim.txt'))).toContain('a symbolic link leads it to');
    expect(await readFile(join(outside, 'victim.txt'), 'utf8')).toBe('keep me\n');
  });
});
