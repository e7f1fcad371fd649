import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWorld, type World } from './harness.js';

interface Ids {
  glossaries: Record<string, string>;
  style_rules: Record<string, string>;
}

let world: World;
let ids: Ids;

async function firstApply(w: World): Promise<Ids> {
  const run = await w.cli(['apply', '--ids-out', 'ids.json']);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(await w.read('ids.json')) as Ids;
}

/** A follow-up plan finds nothing to do, and plan itself never writes. */
async function expectConverged(w: World): Promise<void> {
  const mark = w.mark();
  const run = await w.cli(['plan', '--detailed-exitcode']);
  expect(run.stdout).toContain('No changes.');
  expect(run.code).toBe(0);
  expect(w.writesSince(mark)).toEqual([]);
}

/** Applies the repository and returns exactly the writes the emulator saw. */
async function applyWrites(w: World): Promise<string[]> {
  const mark = w.mark();
  const run = await w.cli(['apply']);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return w.writesSince(mark);
}

const PRODUCT_YAML = (extra = ''): string => `kind: glossary
name: Product terms
${extra}dictionaries:
  - source_lang: en
    target_lang: de
    entries_file: product.en-de.tsv
  - source_lang: en
    target_lang: fr
    entries:
      checkout: paiement
      cart: panier
      invoice: facture
`;

const STYLE_YAML = (o: { name?: string; renamedFrom?: string; instructions?: string } = {}): string => `kind: style_rules
name: ${o.name ?? 'Marketing (German)'}
${o.renamedFrom ? `renamed_from: ${o.renamedFrom}\n` : ''}language: de
configured_rules:
  punctuation:
    apostrophe: use_curly_apostrophes
custom_instructions:
${
  o.instructions ??
  `  - label: Formal address
    prompt: Address the reader formally.
  - label: Short sentences
    prompt: Keep sentences short.
    source_language: en
`
}`;

const TSV = 'account\tKonto\nbilling\tAbrechnung\ncart\tWarenkorb\ncheckout\tKasse\ninvoice\tRechnung\n';

beforeEach(async () => {
  world = await createWorld('basic');
  ids = await firstApply(world);
});
afterEach(async () => {
  await world.close();
});

describe('first apply', () => {
  it('creates each resource with one POST, writes the ids, and converges', async () => {
    const fresh = await createWorld('basic');
    try {
      const mark = fresh.mark();
      const mine = await firstApply(fresh);
      expect(fresh.writesSince(mark).sort()).toEqual(['POST /v2/glossaries', 'POST /v3/glossaries', 'POST /v3/style_rules']);
      // The ids file names every declared resource with the id the service gave it.
      const plan = await fresh.cli(['plan', '--format', 'json']);
      const fingerprints = (JSON.parse(plan.stdout) as { fingerprints: { glossaries: { id: string; name: string }[]; style_rules: { id: string; name: string }[] } })
        .fingerprints;
      expect(mine).toEqual({
        glossaries: Object.fromEntries(fingerprints.glossaries.map((g) => [g.name, g.id])),
        style_rules: Object.fromEntries(fingerprints.style_rules.map((s) => [s.name, s.id])),
      });
      expect(Object.keys(mine.glossaries).sort()).toEqual(['Legacy terms', 'Product terms']);
      expect(Object.keys(mine.style_rules)).toEqual(['Marketing (German)']);
      await expectConverged(fresh);
    } finally {
      await fresh.close();
    }
  });
});

describe('edits of each kind make exactly the expected writes', () => {
  const product = (): string => ids.glossaries['Product terms'] ?? '';
  const legacy = (): string => ids.glossaries['Legacy terms'] ?? '';
  const style = (): string => ids.style_rules['Marketing (German)'] ?? '';

  it('added terms → one PATCH carrying only those terms', async () => {
    await world.write('glossaries/product.en-de.tsv', `${TSV}order\tBestellung\nrefund\tErstattung\n`);
    const plan = await world.cli(['plan', '--format', 'json']);
    const ops = (JSON.parse(plan.stdout) as { operations: { type: string; dictionary?: { entries: string[][] } }[] }).operations;
    expect(ops.map((o) => o.type)).toEqual(['glossary.patch']);
    expect(ops[0]?.dictionary?.entries).toEqual([
      ['order', 'Bestellung'],
      ['refund', 'Erstattung'],
    ]);
    expect(await applyWrites(world)).toEqual([`PATCH /v3/glossaries/${product()}`]);
    await expectConverged(world);
  });

  it('a changed term → PATCH', async () => {
    await world.write('glossaries/product.en-de.tsv', TSV.replace('Kasse', 'Zur Kasse'));
    expect(await applyWrites(world)).toEqual([`PATCH /v3/glossaries/${product()}`]);
    await expectConverged(world);
  });

  it('a removed term → PUT of that dictionary', async () => {
    await world.write('glossaries/product.en-de.tsv', TSV.replace('billing\tAbrechnung\n', ''));
    expect(await applyWrites(world)).toEqual([`PUT /v3/glossaries/${product()}/dictionaries`]);
    await expectConverged(world);
  });

  it('a new dictionary → PUT', async () => {
    await world.write('glossaries/product.yaml', `${PRODUCT_YAML()}  - source_lang: en\n    target_lang: it\n    entries:\n      cart: carrello\n`);
    expect(await applyWrites(world)).toEqual([`PUT /v3/glossaries/${product()}/dictionaries`]);
    await expectConverged(world);
  });

  it('a dictionary dropped from the repo is blocked by the default guard: it loses 100% of its entries', async () => {
    await world.write('glossaries/product.yaml', PRODUCT_YAML().replace(/ {2}- source_lang: en\n {4}target_lang: fr\n[\s\S]*$/, ''));
    const mark = world.mark();
    const run = await world.cli(['apply']);
    expect(run.code).toBe(4);
    expect(run.stdout + run.stderr).toContain('max_removed_entries_percent');
    expect(run.stdout + run.stderr).toContain('en-fr is deleted and loses 3 of 3 entries');
    expect(world.writesSince(mark)).toEqual([]);
  });

  it('a dictionary dropped from the repo → DELETE of that dictionary (guard allows 100%)', async () => {
    const config = await world.read('config/termsync.yaml');
    await world.write('config/termsync.yaml', config.replace('max_removed_entries_percent: 50', 'max_removed_entries_percent: 100'));
    await world.write('glossaries/product.yaml', PRODUCT_YAML().replace(/ {2}- source_lang: en\n {4}target_lang: fr\n[\s\S]*$/, ''));
    expect(await applyWrites(world)).toEqual([`DELETE /v3/glossaries/${product()}/dictionaries?source_lang=en&target_lang=fr`]);
    await expectConverged(world);
  });

  it('a renamed glossary → one PATCH with the name, keeping the id', async () => {
    await world.write('glossaries/product.yaml', PRODUCT_YAML('renamed_from: Product terms\n').replace('name: Product terms', 'name: Product glossary'));
    const mark = world.mark();
    const run = await world.cli(['apply', '--ids-out', 'ids.json']);
    expect(run.code).toBe(0);
    expect(world.writesSince(mark)).toEqual([`PATCH /v3/glossaries/${product()}`]);
    expect((JSON.parse(await world.read('ids.json')) as Ids).glossaries['Product glossary']).toBe(product());
    await expectConverged(world);
  });

  it('a rename together with added terms → still one PATCH', async () => {
    await world.write('glossaries/product.yaml', PRODUCT_YAML('renamed_from: Product terms\n').replace('name: Product terms', 'name: Product glossary'));
    await world.write('glossaries/product.en-de.tsv', `${TSV}order\tBestellung\n`);
    expect(await applyWrites(world)).toEqual([`PATCH /v3/glossaries/${product()}`]);
    await expectConverged(world);
  });

  it('an edited v2 glossary → POST the new one, then DELETE the old one', async () => {
    await world.write('glossaries/legacy.yaml', (await world.read('glossaries/legacy.yaml')).replace('cerrar sesión', 'salir'));
    const mark = world.mark();
    const run = await world.cli(['apply', '--ids-out', 'ids.json']);
    expect(run.code).toBe(0);
    expect(world.writesSince(mark)).toEqual(['POST /v2/glossaries', `DELETE /v2/glossaries/${legacy()}`]);
    const newId = (JSON.parse(await world.read('ids.json')) as Ids).glossaries['Legacy terms'];
    expect(newId).toBeDefined();
    expect(newId).not.toBe(legacy());
    await expectConverged(world);
  });

  it('a renamed style rule list → PATCH', async () => {
    await world.write('glossaries/marketing-style.yaml', STYLE_YAML({ name: 'Marketing DE', renamedFrom: 'Marketing (German)' }));
    expect(await applyWrites(world)).toEqual([`PATCH /v3/style_rules/${style()}`]);
    await expectConverged(world);
  });

  it('changed configured rules → PUT configured_rules', async () => {
    await world.write('glossaries/marketing-style.yaml', STYLE_YAML().replace('  punctuation:', '  style_and_tone:\n    short_vs_long_words: use_short_words\n  punctuation:'));
    expect(await applyWrites(world)).toEqual([`PUT /v3/style_rules/${style()}/configured_rules`]);
    await expectConverged(world);
  });

  it('a new instruction → POST custom_instructions', async () => {
    await world.write('glossaries/marketing-style.yaml', `${STYLE_YAML()}  - label: No jargon\n    prompt: Avoid jargon.\n`);
    expect(await applyWrites(world)).toEqual([`POST /v3/style_rules/${style()}/custom_instructions`]);
    await expectConverged(world);
  });

  it('a changed prompt → PUT of that instruction', async () => {
    await world.write('glossaries/marketing-style.yaml', STYLE_YAML().replace('Keep sentences short.', 'Keep sentences under 20 words.'));
    const writes = await applyWrites(world);
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatch(new RegExp(`^PUT /v3/style_rules/${style()}/custom_instructions/[^/]+$`));
    await expectConverged(world);
  });

  it('a removed instruction, on a service without the route to delete one → DELETE tried once, then replace the list: POST the new one, DELETE the old one', async () => {
    await world.write('glossaries/marketing-style.yaml', STYLE_YAML({ instructions: '  - label: Formal address\n    prompt: Address the reader formally.\n' }));
    const plan = await world.cli(['plan']);
    expect(plan.stdout).toContain('instruction "Short sentences" removed → DELETE it, or replace (create new, then delete old) if the service has no such route');
    const writes = await applyWrites(world);
    expect(writes).toEqual([expect.stringMatching(new RegExp(`^DELETE /v3/style_rules/${style()}/custom_instructions/[^/]+$`)), 'POST /v3/style_rules', `DELETE /v3/style_rules/${style()}`]);
    await expectConverged(world);
  });
});

describe('safety', () => {
  it('a guard blocks plan and apply with exit 4 and zero writes', async () => {
    // 4 of 5 entries removed: more than max_removed_entries_percent (50).
    await world.write('glossaries/product.en-de.tsv', 'account\tKonto\n');
    const mark = world.mark();
    const plan = await world.cli(['plan']);
    expect(plan.code).toBe(4);
    expect(plan.stdout + plan.stderr).toMatch(/max_removed_entries_percent|removed/);
    const apply = await world.cli(['apply']);
    expect(apply.code).toBe(4);
    // The violation is listed once, with the plan; the error line only points at it.
    expect(apply.stdout).toContain('  ✗ max_removed_entries_percent: glossary "Product terms" en-de loses 4 of 5 entries');
    expect(apply.stderr).toBe('Error: apply refused: blocked by a safety guard (listed above)\n');
    // Without plan text (JSON output), the list goes to stderr.
    const json = await world.cli(['apply', '--format', 'json']);
    expect(json.code).toBe(4);
    expect(json.stderr.split('\n')).toEqual([
      'Guard violations (nothing will be applied):',
      expect.stringMatching(/^ {2}✗ max_removed_entries_percent: /),
      'Error: apply refused: blocked by a safety guard (listed above)',
      '',
    ]);
    expect(world.writesSince(mark)).toEqual([]);
  });

  it('an empty repository never deletes anything, even with prune: all', async () => {
    const config = await world.read('config/termsync.yaml');
    await world.write('config/termsync.yaml', config.replace('prune: "off"', 'prune: all'));
    for (const f of ['product.yaml', 'legacy.yaml', 'marketing-style.yaml']) await rm(join(world.dir, 'glossaries', f));
    const mark = world.mark();
    const apply = await world.cli(['apply']);
    expect(apply.code).toBe(4);
    expect(world.writesSince(mark)).toEqual([]);
  });

  it('a saved plan applies exactly; a stale one is refused with exit 5 and zero writes', async () => {
    await world.write('glossaries/product.en-de.tsv', `${TSV}order\tBestellung\n`);
    const saved = await world.cli(['plan', '--out', 'plan.json']);
    expect(saved.code).toBe(0);
    expect(await world.read('plan.json')).not.toContain(world.key);
    // Someone changes the service after the plan was made.
    await world.write('glossaries/marketing-style.yaml', STYLE_YAML().replace('  punctuation:', '  dates_and_times:\n    calendar_era: use_bc_and_ad\n  punctuation:'));
    expect((await world.cli(['apply'])).code).toBe(0);
    const mark = world.mark();
    const stale = await world.cli(['apply', 'plan.json']);
    expect(stale.code).toBe(5);
    expect(stale.stderr).toMatch(/Saved plan is stale/);
    expect(world.writesSince(mark)).toEqual([]);

    // A fresh saved plan applies exactly its operations.
    await world.write('glossaries/product.en-de.tsv', `${TSV}order\tBestellung\nzip\tPLZ\n`);
    expect((await world.cli(['plan', '--out', 'plan.json'])).code).toBe(0);
    const mark2 = world.mark();
    const fresh = await world.cli(['apply', 'plan.json']);
    expect(fresh.code).toBe(0);
    expect(world.writesSince(mark2)).toEqual([`PATCH /v3/glossaries/${ids.glossaries['Product terms'] ?? ''}`]);
    await expectConverged(world);
  });

  it('a lock held by a live process stops apply and plan --out with exit 5, before any request', async () => {
    const { hostname } = await import('node:os');
    const startedAt = '2026-01-01T10:00:00.000Z';
    await world.write('.termsync.lock', JSON.stringify({ pid: process.pid, host: hostname(), startedAt }));
    await world.write('glossaries/product.en-de.tsv', `${TSV}order\tBestellung\n`);
    const before = world.emulator.requests().length;
    const apply = await world.cli(['apply']);
    expect(apply.code).toBe(5);
    expect(apply.stderr).toContain(`pid ${process.pid}`);
    expect(apply.stderr).toContain(startedAt);
    expect((await world.cli(['plan', '--out', 'plan.json'])).code).toBe(5);
    expect(world.emulator.requests().length).toBe(before);
    // Plain plan reads only and takes no lock.
    expect((await world.cli(['plan', '--detailed-exitcode'])).code).toBe(2);
    // The lock of a dead process is taken over; the run releases it afterwards.
    await world.write('.termsync.lock', JSON.stringify({ pid: 4_194_305, host: hostname(), startedAt }));
    expect((await world.cli(['apply'])).code).toBe(0);
    await expect(readFile(join(world.dir, '.termsync.lock'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a partial failure exits 6, skips the delete of a failed replacement, and a rerun converges', async () => {
    await world.write('glossaries/legacy.yaml', (await world.read('glossaries/legacy.yaml')).replace('cerrar sesión', 'salir'));
    await world.write('glossaries/product.en-de.tsv', `${TSV}order\tBestellung\n`);
    world.emulator.injectOnce({ method: 'POST', pathPrefix: '/v2/glossaries', kind: 500 });
    const mark = world.mark();
    const run = await world.cli(['apply', '--format', 'json'], { TERMSYNC_MAX_ATTEMPTS: '1' });
    expect(run.code).toBe(6);
    const writes = world.writesSince(mark);
    expect(writes).toContain(`PATCH /v3/glossaries/${ids.glossaries['Product terms'] ?? ''}`);
    expect(writes.filter((w) => w.startsWith('DELETE'))).toEqual([]);
    const result = JSON.parse(run.stdout) as { applied: number; failed: number; skipped: number };
    expect({ applied: result.applied, failed: result.failed, skipped: result.skipped }).toEqual({ applied: 1, failed: 1, skipped: 1 });

    const mark2 = world.mark();
    const rerun = await world.cli(['apply']);
    expect(rerun.code).toBe(0);
    expect(world.writesSince(mark2)).toEqual(['POST /v2/glossaries', `DELETE /v2/glossaries/${ids.glossaries['Legacy terms'] ?? ''}`]);
    await expectConverged(world);
  });
});

describe('a read-scoped key', () => {
  it('apply sends exactly one write, then marks the rest not attempted (exit 7)', async () => {
    const readKey = 'ro-key-2b81d4';
    // Concurrency stays 4 (the fixture's): apply sends writes one at a time until one is accepted.
    const ro = await createWorld('basic', { keys: ['rw-key-51be20', `${readKey}=read`], key: readKey });
    try {
      await ro.write('glossaries/extra.yaml', 'kind: glossary\nname: Extra terms\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries:\n      cart: Warenkorb\n');
      const plan = await ro.cli(['plan']);
      expect(plan.stdout).toContain('Plan: 4 to add, 0 to change, 0 to destroy.');
      const mark = ro.mark();
      const apply = await ro.cli(['apply', '--format', 'json']);
      expect(apply.code).toBe(7);
      expect(ro.writesSince(mark)).toHaveLength(1);
      const result = JSON.parse(apply.stdout) as { failed: number; skipped: number; outcomes: { status: string; skipped_because?: string }[] };
      expect({ failed: result.failed, skipped: result.skipped }).toEqual({ failed: 1, skipped: 3 });
      for (const o of result.outcomes.filter((x) => x.status === 'skipped')) expect(o.skipped_because).toBe('not attempted: the key was refused (403)');
    } finally {
      await ro.close();
    }
  });

  it('can plan, but apply fails with a clear message and exit 7, and the key is never printed', async () => {
    const readKey = 'ro-key-7f3a9c';
    const ro = await createWorld('basic', { keys: ['rw-key-51be20', `${readKey}=read`], key: readKey });
    try {
      const plan = await ro.cli(['plan', '--detailed-exitcode']);
      expect(plan.code).toBe(2);
      expect(plan.stdout).toContain('3 to add');
      const apply = await ro.cli(['apply']);
      expect(apply.code).toBe(7);
      expect(apply.stderr).toMatch(/403|refused|permission/i);
      expect(apply.stderr).toMatch(/read-scoped/);
      for (const text of [plan.stdout, plan.stderr, apply.stdout, apply.stderr]) expect(text).not.toContain(readKey);
    } finally {
      await ro.close();
    }
  });
});

describe('import', () => {
  it('adopts every live resource the repo does not declare, and plan then shows no changes', async () => {
    for (const f of ['product.yaml', 'product.en-de.tsv', 'legacy.yaml', 'marketing-style.yaml']) await rm(join(world.dir, 'glossaries', f));
    // An unrelated file whose name the import would pick: never overwritten.
    await world.write('glossaries/product-terms.yaml', '# kept\nkind: style_rules\nname: Kept\nlanguage: en\n');
    const mark = world.mark();
    const run = await world.cli(['import']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(world.writesSince(mark)).toEqual([]);
    expect(await world.read('glossaries/product-terms.yaml')).toContain('# kept');
    expect(await world.read('glossaries/product-terms-2.en-de.tsv')).toContain('checkout\tKasse');
    const again = await world.cli(['plan', '--detailed-exitcode']);
    // The unrelated "Kept" list is new; everything imported matches the service.
    expect(again.stdout).toContain('1 to add, 0 to change, 0 to destroy');
    await rm(join(world.dir, 'glossaries', 'product-terms.yaml'));
    await expectConverged(world);
    // A second import finds nothing new.
    expect((await world.cli(['import'])).stdout).toContain('nothing to import');
  });

  it('into a repository without its resource folder: creates it, without a warning that it is missing', async () => {
    await rm(join(world.dir, 'glossaries'), { recursive: true });
    const run = await world.cli(['import']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(await world.read('glossaries/product-terms.en-de.tsv')).toContain('checkout\tKasse');
    await expectConverged(world);
  });
});
