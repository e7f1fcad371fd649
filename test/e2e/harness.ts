import { execFileSync } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { runCliCaptured, type CliRun } from '../cli/run-cli.js';

export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');

export type Emulator = Awaited<ReturnType<typeof startEmulator>>;
export type LoggedRequest = ReturnType<Emulator['requests']>[number];

/** A temporary copy of a fixture repository, an emulator, and the CLI pointed at both. */
export interface World {
  readonly dir: string;
  readonly emulator: Emulator;
  readonly key: string;
  /** Runs the CLI in the repository with the target's URL and key in the environment. */
  cli(argv: readonly string[], env?: Record<string, string | undefined>): Promise<CliRun>;
  /** Writes (any method but GET) the emulator logged since `mark()`, as `METHOD path`. */
  writesSince(mark: number): string[];
  mark(): number;
  write(path: string, content: string): Promise<void>;
  read(path: string): Promise<string>;
  close(): Promise<void>;
}

/** The project root: the example repository lives in its `config/` and `glossaries/`. */
export const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** `fixture`: a folder under `fixtures/`, or a list of absolute folders copied into the repository root. */
export async function createWorld(
  fixture: string | readonly string[],
  options: { keys?: string[]; key?: string; emulator?: Omit<Parameters<typeof startEmulator>[0], 'port' | 'keys'> } = {},
): Promise<World> {
  const dir = await mkdtemp(join(tmpdir(), 'termsync-e2e-'));
  if (typeof fixture === 'string') await cp(join(FIXTURES, fixture), dir, { recursive: true });
  else for (const folder of fixture) await cp(folder, join(dir, basename(folder)), { recursive: true });
  const emulator = await startEmulator({ ...options.emulator, port: 0, keys: options.keys ?? ['e2e-key'] });
  // Not a word termsync's own messages use (TERMSYNC_API_KEY): the outputs take the key out wherever it appears.
  const key = options.key ?? 'e2e-key';
  const describe = (r: LoggedRequest): string => `${r.method} ${r.path}${r.query ? `?${r.query.replace(/^\?/, '')}` : ''}`;
  return {
    dir,
    emulator,
    key,
    cli: (argv, env = {}) =>
      runCliCaptured([...argv, '--dir', dir], {
        cwd: dir,
        env: { TERMSYNC_BASE_URL: emulator.url, TERMSYNC_API_KEY: key, ...env },
      }),
    mark: () => emulator.requests().length,
    writesSince: (mark) =>
      emulator
        .requests()
        .slice(mark)
        .filter((r) => r.method !== 'GET')
        .map(describe),
    write: (path, content) => writeFile(join(dir, path), content),
    read: (path) => readFile(join(dir, path), 'utf8'),
    close: async () => {
      await emulator.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** What the emulator holds, read through the service API: glossary name → pair → entries. */
export async function heldByService(world: World): Promise<Record<string, Record<string, Record<string, string>>>> {
  const get = async (path: string): Promise<unknown> => {
    const response = await fetch(`${world.emulator.url}${path}`, { headers: { Authorization: `Service-Auth-Key ${world.key}` } });
    expect(response.status).toBe(200);
    return response.json();
  };
  const list = (await get('/v3/glossaries')) as { glossaries: { glossary_id: string; name: string; dictionaries: { source_lang: string; target_lang: string }[] }[] };
  const held: Record<string, Record<string, Record<string, string>>> = {};
  for (const g of list.glossaries) {
    held[g.name] = {};
    for (const d of g.dictionaries) {
      const body = (await get(`/v3/glossaries/${g.glossary_id}/entries?source_lang=${d.source_lang}&target_lang=${d.target_lang}`)) as { dictionaries: { entries: string }[] };
      const lines = (body.dictionaries[0]?.entries ?? '').split('\n').filter((line) => line !== '');
      (held[g.name] as Record<string, Record<string, string>>)[`${d.source_lang}-${d.target_lang}`] = Object.fromEntries(lines.map((line) => line.split('\t') as [string, string]));
    }
  }
  return held;
}

/** Runs git in a repository (with an author and committer of its own). */
export function gitIn(dir: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' },
  });
}

/** The changed lines of `git diff` for one file of a repository: `-old` and `+new`, nothing else. */
export function changedLinesIn(dir: string, file: string): string[] {
  return gitIn(dir, 'diff', '--no-color', '--unified=0', '--', file)
    .split('\n')
    .filter((l) => /^[+-]/.test(l) && !/^(\+\+\+|---) /.test(l));
}
