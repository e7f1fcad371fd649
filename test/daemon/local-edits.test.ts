import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { commitsNotUpstream, setLocalEditsAside } from '../../src/daemon/local-edits.js';
import { isLoopback } from '../../src/daemon/serve-endpoints.js';

const ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
const git = (dir: string, ...args: string[]): string =>
  execFileSync('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@localhost', ...args], { encoding: 'utf8', env: ENV });

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('git mode: local edits of the working tree', () => {
  it('sets aside changed, deleted, renamed and new files of the daemon folder in one stash, keeping the lock and the files it is told to keep', async () => {
    const top = await mkdtemp(join(tmpdir(), 'termsync-local-edits-'));
    dirs.push(top);
    // The daemon's folder is a subfolder of the repository (a monorepo): paths are relative to it.
    const dir = join(top, 'terms');
    await mkdir(join(dir, 'glossaries'), { recursive: true });
    await writeFile(join(dir, 'glossaries/a.tsv'), 'a\tA\n');
    await writeFile(join(dir, 'glossaries/b.tsv'), 'b\tB\n');
    await writeFile(join(dir, 'glossaries/c.tsv'), 'c\tC\n');
    await writeFile(join(dir, 'glossaries/kept.tsv'), 'k\tK\n');
    await writeFile(join(top, 'outside.txt'), 'x\n');
    git(top, 'init', '--quiet', '-b', 'main');
    git(top, 'add', '.');
    git(top, 'commit', '--quiet', '-m', 'terms');
    expect(await setLocalEditsAside(dir, new Set(), new Date(0), { env: ENV })).toBeUndefined();

    await writeFile(join(dir, 'glossaries/a.tsv'), 'a\tA\nlocal\tlokal\n');
    await rm(join(dir, 'glossaries/b.tsv'));
    git(dir, 'mv', 'glossaries/c.tsv', 'glossaries/renamed c.tsv');
    await writeFile(join(dir, 'glossaries/new.yaml'), 'kind: glossary\n');
    await writeFile(join(dir, 'glossaries/kept.tsv'), 'k\tK\npulled\tgezogen\n');
    await writeFile(join(dir, '.termsync.lock'), '{}');
    await writeFile(join(top, 'outside.txt'), 'changed outside the folder\n');

    const aside = await setLocalEditsAside(dir, new Set(['glossaries/kept.tsv']), new Date(0), { env: ENV });
    expect(aside?.files).toEqual(['glossaries/a.tsv', 'glossaries/b.tsv', 'glossaries/c.tsv', 'glossaries/new.yaml', 'glossaries/renamed c.tsv']);
    expect(aside?.stash).toMatch(/^[0-9a-f]{40}$/);
    expect(await readFile(join(dir, 'glossaries/a.tsv'), 'utf8')).toBe('a\tA\n');
    expect(await readFile(join(dir, 'glossaries/b.tsv'), 'utf8')).toBe('b\tB\n');
    expect(await readFile(join(dir, 'glossaries/c.tsv'), 'utf8')).toBe('c\tC\n');
    // Left alone: the kept file, the lock, and what lies outside the daemon's folder.
    expect(git(top, 'status', '--porcelain', '--untracked-files=all').split('\n').filter(Boolean).sort()).toEqual([' M outside.txt', ' M terms/glossaries/kept.tsv', '?? terms/.termsync.lock']);
    expect(git(top, 'stash', 'list')).toMatch(/^stash@\{0\}: On main: termsync: local edits set aside at 1970-01-01T00:00:00.000Z/);
    expect(git(top, 'stash', 'show', '--include-untracked', '--name-status', 'stash@{0}').split('\n').filter(Boolean).sort()).toEqual([
      'A\tterms/glossaries/new.yaml',
      'D\tterms/glossaries/b.tsv',
      'M\tterms/glossaries/a.tsv',
      'R100\tterms/glossaries/c.tsv\tterms/glossaries/renamed c.tsv',
    ]);
    // No upstream: git cannot tell how far ahead the checkout is.
    expect(await commitsNotUpstream(dir, { env: ENV })).toBeUndefined();
  });

  it('tells loopback addresses from the others', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1']) expect(isLoopback(host)).toBe(true);
    for (const host of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.5', 'example.com', '128.0.0.1']) expect(isLoopback(host)).toBe(false);
  });
});
