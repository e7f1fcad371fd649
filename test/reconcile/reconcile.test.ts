import { writeFileSync } from 'node:fs';
import { exitCodeOfError } from '../../src/cli/exit-code-of.js';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runExitCode } from '../../src/cli/exit-code-of.js';
import { silentLogger } from '../../src/lib/logger.js';
import { reconcile, type ReconcileRequest, type RunOutcome, type ServiceContext, type TargetOutcome } from '../../src/reconcile/index.js';
import { createWorld, type World } from '../e2e/harness.js';

let world: World;

function context(env: Record<string, string | undefined> = {}, signal = new AbortController().signal): ServiceContext {
  return { env: { TERMSYNC_BASE_URL: world.emulator.url, TERMSYNC_API_KEY: world.key, ...env }, signal, logger: silentLogger };
}

async function run(request: Partial<ReconcileRequest> = {}, ctx: ServiceContext = context()): Promise<RunOutcome> {
  return reconcile({ dir: world.dir, mode: 'apply', ...request }, ctx);
}

function only(outcome: RunOutcome): TargetOutcome {
  if (outcome.kind !== 'done') throw new Error(`expected a finished run, got ${outcome.kind}`);
  expect(outcome.targets).toHaveLength(1);
  return outcome.targets[0] as TargetOutcome;
}

/** A loopback port nobody listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const TSV = 'account\tKonto\nbilling\tAbrechnung\ncart\tWarenkorb\ncheckout\tKasse\ninvoice\tRechnung\n';

beforeEach(async () => {
  world = await createWorld('basic', { keys: ['e2e-key', 'READER=read'] });
});
afterEach(async () => {
  await world.close();
});

describe('reconcile: one outcome per target, as a value', () => {
  it('changed on the first apply, converged on the second, and a plan of a converged service is converged', async () => {
    const mark = world.mark();
    const first = only(await run());
    expect(first.kind).toBe('changed');
    // The fixture's three resources are created, one call each, as the service saw them.
    expect(world.writesSince(mark).sort()).toEqual(['POST /v2/glossaries', 'POST /v3/glossaries', 'POST /v3/style_rules']);
    expect(first.kind === 'changed' && { applied: first.result.applied, failed: first.result.failed, skipped: first.result.skipped }).toEqual({ applied: 3, failed: 0, skipped: 0 });
    const second = only(await run());
    expect(second.kind).toBe('converged');
    // An apply that had nothing to do still reports the ids of what the repository manages: those the service lists.
    const listed = async (api: 'v2' | 'v3'): Promise<{ glossary_id: string; name: string }[]> => {
      const res = await fetch(`${world.emulator.url}/${api}/glossaries`, { headers: { authorization: `Service-Auth-Key ${world.key}` } });
      return ((await res.json()) as { glossaries: { glossary_id: string; name: string }[] }).glossaries;
    };
    const live = Object.fromEntries([...(await listed('v3')), ...(await listed('v2'))].map((g) => [g.name, g.glossary_id]));
    expect(Object.keys(live).sort()).toEqual(['Legacy terms', 'Product terms']);
    expect(second.kind === 'converged' && second.result?.ids.glossaries).toEqual(live);
    expect(only(await run({ mode: 'plan' })).kind).toBe('converged');
  });

  it('pending in plan mode, with nothing written', async () => {
    const mark = world.mark();
    const outcome = only(await run({ mode: 'plan' }));
    expect(outcome.kind).toBe('pending');
    expect(world.writesSince(mark)).toEqual([]);
  });

  it('refuses a repository with any error before a single request, even though the loader could plan the rest', async () => {
    await run();
    // One broken resource file among valid ones: acting on the rest would prune it under prune: all.
    await world.write('config/termsync.yaml', (await world.read('config/termsync.yaml')).replace('prune: "off"', 'prune: all'));
    await world.write('glossaries/legacy.yaml', 'kind: glossary\nname: [unclosed\n');
    const before = world.emulator.requests().length;
    const outcome = await run();
    expect(outcome.kind).toBe('invalid');
    expect(outcome.kind === 'invalid' && outcome.diagnostics.some((d) => d.severity === 'error' && d.file === 'glossaries/legacy.yaml')).toBe(true);
    expect(world.emulator.requests().length).toBe(before);
  });

  it('blocked by a guard: nothing written', async () => {
    await run();
    await world.write('glossaries/product.en-de.tsv', 'account\tKonto\n');
    const mark = world.mark();
    const outcome = only(await run());
    expect(outcome.kind).toBe('blocked');
    expect(outcome.kind === 'blocked' && outcome.plan.guards[0]?.guard).toBe('max_removed_entries_percent');
    expect(world.writesSince(mark)).toEqual([]);
  });

  it('stale: a saved plan of a service that changed since is not applied', async () => {
    await run();
    await world.write('glossaries/product.en-de.tsv', `${TSV}order\tBestellung\n`);
    const planned = only(await run({ mode: 'plan' }));
    if (planned.kind !== 'pending') throw new Error(`expected pending, got ${planned.kind}`);
    await world.write('glossaries/product.en-de.tsv', `${TSV}order\tAuftrag\n`);
    await run();
    const mark = world.mark();
    const outcome = only(await run({ savedPlan: planned.plan }));
    expect(outcome.kind).toBe('stale');
    expect(outcome.kind === 'stale' && outcome.differences.length).toBeGreaterThan(0);
    expect(world.writesSince(mark)).toEqual([]);
  });

  it('partial: a write that keeps failing is listed, the rest applied', async () => {
    await run();
    await world.write('glossaries/product.en-de.tsv', `${TSV}order\tBestellung\n`);
    world.emulator.injectOnce({ method: 'PATCH', pathPrefix: '/v3/glossaries', kind: 500 });
    const outcome = only(await run({}, context({ TERMSYNC_MAX_ATTEMPTS: '1' })));
    expect(outcome.kind).toBe('partial');
    expect(outcome.kind === 'partial' && outcome.result.failed).toBe(1);
  });

  it('refused: a read-scoped key reads and plans, and its first write is refused', async () => {
    const outcome = only(await run({}, context({ TERMSYNC_API_KEY: 'READER' })));
    expect(outcome.kind).toBe('refused');
    expect(outcome.kind === 'refused' && outcome.refusal).toBe('403');
    expect(outcome.kind === 'refused' && outcome.result?.failed).toBe(1);
  });

  it('refused while reading: an unknown key', async () => {
    const outcome = only(await run({ mode: 'plan' }, context({ TERMSYNC_API_KEY: 'WRONG' })));
    expect(outcome.kind).toBe('refused');
    expect(outcome.kind === 'refused' && outcome.error?.message).toMatch(/401/);
  });

  it('unreachable: nobody listens at the URL', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const outcome = only(await run({ mode: 'plan' }, context({ TERMSYNC_BASE_URL: url, TERMSYNC_MAX_ATTEMPTS: '1' })));
    expect(outcome.kind).toBe('unreachable');
  });

  it('misconfigured: no key (credentials) or an invalid setting (environment), before any request', async () => {
    const before = world.emulator.requests().length;
    const noKey = only(await run({ mode: 'plan' }, context({ TERMSYNC_API_KEY: undefined })));
    expect(noKey).toMatchObject({ kind: 'misconfigured', problem: 'credentials' });
    const badAttempts = only(await run({ mode: 'plan' }, context({ TERMSYNC_MAX_ATTEMPTS: 'many' })));
    expect(badAttempts).toMatchObject({ kind: 'misconfigured', problem: 'environment' });
    expect(world.emulator.requests().length).toBe(before);
  });

  it('interrupted: a run whose signal is aborted starts no write', async () => {
    // Aborted once the repository is read: the target is interrupted before its first write.
    const controller = new AbortController();
    const mark = world.mark();
    const outcome = only(await reconcile({ dir: world.dir, mode: 'apply' }, context({}, controller.signal), { loaded: () => controller.abort(new Error('received SIGTERM')) }));
    expect(outcome.kind).toBe('interrupted');
    // Aborted before: the load itself stops, no target is reached, and the run ends with exit 130.
    const early = await run({}, context({}, AbortSignal.abort(new Error('received SIGTERM'))));
    expect(early).toMatchObject({ kind: 'rejected', error: { code: 'interrupted', message: 'interrupted while reading the repository (received SIGTERM): nothing was sent' } });
    expect(runExitCode(early)).toBe(130);
    expect(world.writesSince(mark)).toEqual([]);
  });

  it('rejected and locked: the run never reaches a target', async () => {
    const unknown = await run({ target: 'nope' });
    expect(unknown.kind).toBe('rejected');
    await world.write('.termsync.lock', JSON.stringify({ pid: process.pid, host: 'elsewhere', startedAt: '2026-01-01T00:00:00.000Z' }));
    const locked = await run();
    expect(locked.kind).toBe('locked');
  });
});

describe('reconcile: a refresh of the changed files only', () => {
  it('reads the entries of the changed dictionary alone, writes its one change, and says how many it did not re-read', async () => {
    await world.write('glossaries/other.yaml', 'kind: glossary\nname: Other terms\ndictionaries:\n  - source_lang: en\n    target_lang: it\n    entries:\n      cart: carrello\n');
    await run();
    await world.write('glossaries/product.en-de.tsv', TSV.replace('Kasse', 'Zur Kasse'));
    const mark = world.mark();
    const outcome = only(await run({ refresh: { kind: 'changed', files: ['glossaries/product.en-de.tsv'] } }));
    expect(outcome.kind).toBe('changed');
    const entryReads = world.emulator
      .requests()
      .slice(mark)
      .filter((r) => r.method === 'GET' && r.path.endsWith('/entries'));
    // Only the dictionary the changed file feeds (Product terms en-de) is re-read; its en-fr, Legacy
    // terms and Other terms are not.
    expect(entryReads.map((r) => r.query)).toEqual([expect.stringMatching(/source_lang=en&target_lang=de/)]);
    expect(world.writesSince(mark)).toHaveLength(1);
    expect(outcome.kind === 'changed' && outcome.plan.notRefreshed).toBe(2);
    // A changed resource file re-reads its whole glossary.
    const again = world.mark();
    expect(only(await run({ mode: 'plan', refresh: { kind: 'changed', files: ['glossaries/product.yaml'] } })).kind).toBe('converged');
    expect(world.emulator.requests().slice(again).filter((r) => r.path.endsWith('/entries'))).toHaveLength(2);
  });

  it('still reads a dictionary of an unchanged file whose listed entry count differs (drift that costs no request to see)', async () => {
    const first = only(await run());
    const productId = first.kind === 'changed' ? (first.result.ids.glossaries['Product terms'] ?? '') : '';
    // Drift made outside git: a term added to Product terms' en-fr dictionary through the API.
    const res = await fetch(`${world.emulator.url}/v3/glossaries/${productId}`, {
      method: 'PATCH',
      headers: { authorization: `Service-Auth-Key ${world.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ dictionaries: [{ source_lang: 'en', target_lang: 'fr', entries: 'order\tcommande', entries_format: 'tsv' }] }),
    });
    expect(res.status).toBe(200);
    const outcome = only(await run({ mode: 'plan', refresh: { kind: 'changed', files: ['glossaries/legacy.yaml'] } }));
    expect(outcome.kind).toBe('pending');
    const change = outcome.kind === 'pending' ? outcome.plan.changes.find((c) => c.address.name === 'Product terms') : undefined;
    expect(change?.dictionaries.map((d) => [d.sourceLang, d.targetLang, d.method])).toEqual([['en', 'fr', 'PUT']]);
  });
});

describe('an entries file changed while the run lasts', () => {
  it('never gives a plan for other content than the one checked: with the service still equal to what was read, no change; with a change to plan, an error (exit 3) and nothing written', async () => {
    const file = 'glossaries/product.en-de.tsv';
    // In the service's order (sorted by source), so that the answer is the file's text as checked.
    await world.write(file, TSV);
    await run();
    const read = await world.read(file);
    const changeAfterLoad = (text: string) => ({
      loaded: () => {
        // The repository was read and checked; no request has been sent yet.
        writeFileSync(path.join(world.dir, file), text);
      },
    });
    // Unchanged on the service: told equal to the file as checked, without reading it again (a plan
    // without entry hashes, as `plan` shows it).
    const unchanged = only(await reconcile({ dir: world.dir, mode: 'plan', entryHashes: false }, context(), changeAfterLoad(`${read}order\tBestellung\n`)));
    expect(unchanged.kind).toBe('converged');
    // The same with the entry hashes of a plan that may be saved (made from the answer).
    await world.write(file, read);
    const hashed = only(await reconcile({ dir: world.dir, mode: 'plan' }, context(), changeAfterLoad(`${read}order\tBestellung\n`)));
    expect(hashed.kind).toBe('converged');
    expect(Object.keys(hashed.kind === 'converged' ? (hashed.plan.fingerprints.glossaries.find((g) => g.name === 'Product terms')?.entryHashes ?? {}) : {})).toContain('en-de');
    // The file as checked differs from the service: its entries are needed, and the file is no longer that one.
    await world.write(file, `${TSV}order\tBestellung\n`);
    const mark = world.mark();
    const outcome = await reconcile({ dir: world.dir, mode: 'plan' }, context(), changeAfterLoad(`${TSV}order\tAuftrag\n`)).catch((error: unknown) => error);
    expect((outcome as { code?: string }).code).toBe('entries_file_changed');
    expect(exitCodeOfError(outcome)).toBe(3);
    expect(world.writesSince(mark)).toEqual([]);
    // Run again: the file as it is now.
    const again = only(await run({ mode: 'plan' }));
    expect(again.kind).toBe('pending');
    expect(again.kind === 'pending' && JSON.stringify(again.plan.changes)).toContain('Auftrag');
  });

  it('a file not in source order, on a service that answers in source order (as after termsync apply): unchanged, from the file read once more, which must be the one checked', async () => {
    const file = 'glossaries/product.en-de.tsv';
    const unsorted = 'invoice\tRechnung\ncart\tWarenkorb\naccount\tKonto\n';
    await world.write(file, unsorted);
    await run();
    expect(only(await run({ mode: 'plan' })).kind).toBe('converged');
    // The answer is not the file's text as read: the file is read again, so an edit after the load
    // is an error (exit 3) and nothing is written.
    const mark = world.mark();
    const outcome = await reconcile({ dir: world.dir, mode: 'plan' }, context(), {
      loaded: () => writeFileSync(path.join(world.dir, file), `${unsorted}zebra\tZebra\n`),
    }).catch((error: unknown) => error);
    expect((outcome as { code?: string }).code).toBe('entries_file_changed');
    expect(exitCodeOfError(outcome)).toBe(3);
    expect(world.writesSince(mark)).toEqual([]);
  });

  it('apply keeps the texts it checked: a file changed after the load is applied as it was checked, never an error after a write', async () => {
    const file = 'glossaries/product.en-de.tsv';
    await world.write(file, TSV);
    await run();
    await world.write(file, `${TSV}order\tBestellung\n`);
    const outcome = only(
      await reconcile({ dir: world.dir, mode: 'apply' }, context(), {
        loaded: () => writeFileSync(path.join(world.dir, file), `${TSV}order\tAuftrag\n`),
      }),
    );
    expect(outcome.kind).toBe('changed');
    // What was applied is the file as checked; the next run sees the later edit.
    const again = only(await run({ mode: 'plan' }));
    expect(again.kind).toBe('pending');
    const changes = again.kind === 'pending' ? JSON.stringify(again.plan.changes) : '';
    expect(changes).toContain('Auftrag');
    expect(changes).toContain('Bestellung');
  });
});

describe('threads reading the repository', () => {
  it('plan and apply read it on one thread unless TERMSYNC_LOAD_THREADS says 2; other commands decide per load; a bad value is refused', async () => {
    const { loadThreads } = await import('../../src/reconcile/load-desired.js');
    expect(loadThreads({}, true)).toBe(false);
    expect(loadThreads({ TERMSYNC_LOAD_THREADS: 'auto' }, true)).toBe(false);
    expect(loadThreads({ TERMSYNC_LOAD_THREADS: '2' }, true)).toBe(true);
    expect(loadThreads({ TERMSYNC_LOAD_THREADS: '1' }, true)).toBe(false);
    expect(loadThreads({}, false)).toBeUndefined();
    expect(loadThreads({ TERMSYNC_LOAD_THREADS: '2' }, false)).toBe(true);
    expect(() => loadThreads({ TERMSYNC_LOAD_THREADS: 'three' }, true)).toThrow(/TERMSYNC_LOAD_THREADS/);
    const outcome = await run({ mode: 'plan' }, context({ TERMSYNC_LOAD_THREADS: 'three' })).catch((error: unknown) => error);
    expect((outcome as { code?: string }).code).toBe('invalid_env');
  });
});
