import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createClient, type ServiceClient } from '../../src/api/index.js';
import { runCliCaptured } from '../cli/run-cli.js';
import { createWorld, type World } from './harness.js';

/**
 * Two runners on different machines (two CI jobs, CI and the daemon) share no lock file, so both
 * may create the same declared resource. With `prune: off` (this repository) the duplicates used to
 * stay and the next plan said "No changes"; now every plan shows them and apply keeps one.
 */

interface Ids {
  glossaries: Record<string, string>;
  style_rules: Record<string, string>;
}

let world: World;
let client: ServiceClient;
beforeEach(async () => {
  world = await createWorld('basic');
  client = createClient({ baseUrl: world.emulator.url, apiKey: world.key, requestsPerSecond: 1000 });
});
afterEach(async () => {
  await client.close();
  await world.close();
});

/** Live ids by declared name, oldest first. */
async function liveIds(): Promise<Record<string, string[]>> {
  const all = [...(await client.listGlossaries()), ...(await client.listGlossariesV2()), ...(await client.listStyleRules())];
  const byName: Record<string, { id: string; creationTime: string }[]> = {};
  for (const r of all) {
    const list = (byName[r.name] ??= []);
    if (!list.some((x) => x.id === r.id)) list.push({ id: r.id, creationTime: r.creationTime });
  }
  return Object.fromEntries(Object.entries(byName).map(([name, rs]) => [name, rs.sort((a, b) => a.creationTime.localeCompare(b.creationTime) || a.id.localeCompare(b.id)).map((r) => r.id)]));
}

/** What a second runner that saw an empty service would have created: one more of each resource. */
async function secondRunnerCreates(): Promise<{ product: string; legacy: string; style: string }> {
  const product = await client.createGlossary('Product terms', [{ sourceLang: 'en', targetLang: 'fr', entries: [['cart', 'panier']] }]);
  const legacy = await client.createGlossaryV2('Legacy terms', { sourceLang: 'en', targetLang: 'es', entries: [['sign in', 'iniciar sesión']] });
  const style = await client.createStyleRules({ name: 'Marketing (German)', language: 'de', configuredRules: {}, customInstructions: [] });
  return { product: product.id, legacy: legacy.id, style: style.id };
}

describe('duplicates left by concurrent runners', () => {
  it('plan shows them (text, markdown, JSON); apply keeps the oldest, deletes the rest; then no changes', async () => {
    const first = await world.cli(['apply', '--ids-out', 'ids.json']);
    expect(first.code).toBe(0);
    const ids = JSON.parse(await world.read('ids.json')) as Ids;
    const extra = await secondRunnerCreates();

    const plan = await world.cli(['plan', '--detailed-exitcode']);
    expect(plan.code).toBe(2);
    expect(plan.stdout).not.toContain('No changes');
    expect(plan.stdout).toContain('Plan: 0 to add, 0 to change, 3 to destroy.');
    expect(plan.stdout).toContain('Duplicates: 6 live resources share 3 declared names; one of each name is kept, 3 are deleted (counted by max_deletes).');
    expect(plan.stdout).toMatch(new RegExp(`glossary "Product terms": keeps id ${ids.glossaries['Product terms'] ?? '-'} \\(v3, created [^)]+\\), the oldest; deletes id ${extra.product} \\(v3, created [^)]+\\)`));
    expect(plan.stdout).toContain(`- glossary "Product terms" (v3, id ${extra.product})`);
    const markdown = await world.cli(['plan', '--format', 'markdown']);
    expect(markdown.stdout).toContain('#### Duplicates');
    const json = JSON.parse((await world.cli(['plan', '--format', 'json'])).stdout) as { duplicates: { name: string; keep: { id: string }; remove: { id: string }[] }[] };
    expect(json.duplicates.map((d) => [d.name, d.keep.id, d.remove.map((r) => r.id)])).toEqual([
      ['Legacy terms', ids.glossaries['Legacy terms'], [extra.legacy]],
      ['Product terms', ids.glossaries['Product terms'], [extra.product]],
      ['Marketing (German)', ids.style_rules['Marketing (German)'], [extra.style]],
    ]);

    // Over max_deletes: nothing is written (exit 4).
    const config = await world.read('config/termsync.yaml');
    await world.write('config/termsync.yaml', config.replace('max_deletes: 10', 'max_deletes: 2'));
    const mark = world.mark();
    expect((await world.cli(['apply'])).code).toBe(4);
    expect(world.writesSince(mark)).toEqual([]);
    await world.write('config/termsync.yaml', config);

    const apply = await world.cli(['apply']);
    expect(apply.code).toBe(0);
    expect(apply.stdout).toContain('Apply complete: 3 applied, 0 failed, 0 skipped; 3 duplicates of declared names deleted.');
    expect(await liveIds()).toEqual({
      'Legacy terms': [ids.glossaries['Legacy terms']],
      'Product terms': [ids.glossaries['Product terms']],
      'Marketing (German)': [ids.style_rules['Marketing (German)']],
    });
    const after = await world.cli(['plan', '--detailed-exitcode']);
    expect(after.stdout).toContain('No changes.');
    expect(after.code).toBe(0);
  });

  it('apply --ids-out keeps the one the last ids file names, and plan --ids shows the same choice', async () => {
    expect((await world.cli(['apply'])).code).toBe(0);
    const extra = await secondRunnerCreates();
    // The second runner's ids file is the one consumers were given.
    await world.write('ids.json', JSON.stringify({ glossaries: { 'Product terms': extra.product }, style_rules: { 'Marketing (German)': extra.style } }));
    const plan = await world.cli(['plan', '--ids', 'ids.json']);
    expect(plan.stdout).toMatch(new RegExp(`glossary "Product terms": keeps id ${extra.product} \\([^)]+\\), named by the ids file`));
    expect(plan.stdout).toMatch(new RegExp(`style_rules "Marketing \\(German\\)": keeps id ${extra.style} \\([^)]+\\), named by the ids file`));

    const apply = await world.cli(['apply', '--ids-out', 'ids.json']);
    expect(apply.code).toBe(0);
    const live = await liveIds();
    expect(live['Product terms']).toEqual([extra.product]);
    expect(live['Marketing (German)']).toEqual([extra.style]);
    const ids = JSON.parse(await world.read('ids.json')) as Ids;
    expect(ids.glossaries['Product terms']).toBe(extra.product);
    expect(ids.style_rules['Marketing (German)']).toBe(extra.style);
    expect((await world.cli(['plan', '--detailed-exitcode', '--ids', 'ids.json'])).code).toBe(0);
  });

  it('a broken or missing ids file is an input error (exit 3) before any request', async () => {
    await world.write('ids.json', '{"glossaries": {"Product terms": 42}}');
    for (const argv of [['plan', '--ids', 'ids.json'], ['apply', '--ids-out', 'ids.json'], ['plan', '--ids', 'missing.json']]) {
      const run = await world.cli(argv);
      expect(run.code, argv.join(' ')).toBe(3);
      expect(run.stderr).toMatch(/ids\.json: not an ids file as `apply --ids-out` writes it: glossaries\.Product terms: |cannot read the ids file .*missing\.json: ENOENT/);
    }
    expect(world.mark()).toBe(0);
  });

  it('two clones applying at once: whatever the race left, the next apply leaves one of each name', async () => {
    const clone = await mkdtemp(join(tmpdir(), 'termsync-clone-'));
    try {
      await cp(world.dir, clone, { recursive: true });
      const env = { TERMSYNC_BASE_URL: world.emulator.url, TERMSYNC_API_KEY: world.key };
      const runs = await Promise.all([world.cli(['apply']), runCliCaptured(['apply', '--dir', clone], { cwd: clone, env })]);
      expect(runs.map((r) => r.code)).toEqual([0, 0]);
      expect((await world.cli(['apply'])).code).toBe(0);
      const live = await liveIds();
      expect(Object.values(live).map((ids) => ids.length)).toEqual([1, 1, 1]);
      expect((await world.cli(['plan', '--detailed-exitcode'])).code).toBe(0);
    } finally {
      await rm(clone, { recursive: true, force: true });
    }
  });
});
