import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { changedLinesIn, createWorld, gitIn, type World } from './harness.js';

let world: World;

const CONFIG = `version: 1
resources: [glossaries]
rate_limit:
  requests_per_second: 1000
  concurrency: 4
targets:
  - name: default
    base_url_env: TERMSYNC_BASE_URL
    api_key_env: TERMSYNC_API_KEY
`;

const SHOP = `# Shop terms: reviewed by the terminology team.
kind: glossary
name: Shop terms
dictionaries:
  # German lives in a TSV file.
  - source_lang: en
    target_lang: de
    entries_file: entries/shop.en-de.tsv
  - source_lang: en
    target_lang: it   # exported from the catalogue spreadsheet
    entries_file: entries/shop.en-it.csv
  - source_lang: en
    target_lang: fr
    entries:
      checkout: paiement   # not "caisse"
      cart: panier
      invoice: facture
      wishlist: liste d'envies
`;

const TSV = 'cart\tWarenkorb\ncheckout\tKasse\n\ninvoice\tRechnung\nwishlist\tWunschliste\n';
const CSV = 'source,target,source_lang,target_lang\r\ncart,carrello,en,it\r\n"checkout","cassa","en","it"\r\n"gift card, digital",carta regalo digitale,en,it\r\ninvoice,fattura,en,it\r\n';

const git = (...args: string[]): string => gitIn(world.dir, ...args);
const changedLines = (file: string): string[] => changedLinesIn(world.dir, file);

async function service(method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${world.emulator.url}${path}`, {
    method,
    headers: { authorization: `Service-Auth-Key ${world.key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(res.status, `${method} ${path}`).toBeLessThan(300);
  return res.status === 204 ? undefined : res.json();
}

/** Replaces a dictionary on the service, as a terminologist's edit in the web editor does. */
async function editOnService(id: string, sourceLang: string, targetLang: string, tsv: string): Promise<void> {
  await service('PUT', `/v3/glossaries/${id}/dictionaries`, { source_lang: sourceLang, target_lang: targetLang, entries: tsv, entries_format: 'tsv' });
}

beforeEach(async () => {
  world = await createWorld([]);
  await mkdir(join(world.dir, 'config'));
  await mkdir(join(world.dir, 'glossaries', 'entries'), { recursive: true });
  await world.write('config/termsync.yaml', CONFIG);
  await world.write('glossaries/shop.yaml', SHOP);
  await world.write('glossaries/entries/shop.en-de.tsv', TSV);
  await world.write('glossaries/entries/shop.en-it.csv', CSV);
  await world.write('.gitignore', '.termsync.lock\nids.json\n');
  git('init', '--quiet');
  git('add', '.');
  git('commit', '--quiet', '-m', 'terms');
});

afterEach(async () => {
  await world.close();
});

async function applyAndEdit(): Promise<string> {
  const apply = await world.cli(['apply', '--ids-out', 'ids.json']);
  expect(apply.code).toBe(0);
  const id = (JSON.parse(await world.read('ids.json')) as { glossaries: Record<string, string> }).glossaries['Shop terms'] ?? '';
  // In each dictionary: one term changed, one added, one removed.
  await editOnService(id, 'en', 'de', 'cart\tWarenkorb\ncheckout\tZur Kasse\ninvoice\tRechnung\nloyalty points\tTreuepunkte');
  await editOnService(id, 'en', 'it', 'cart\tcarrello\ncheckout\tcassa\ngift card, digital\t"buono" regalo digitale\nloyalty points\tpunti fedeltà');
  await editOnService(id, 'en', 'fr', 'checkout\tpaiement\ncart\tpanier d\'achat\ninvoice\tfacture\nloyalty points\tpoints de fidélité');
  return id;
}

describe('termsync pull', () => {
  it('pull --check exits 2 with a drift report naming the terms, and writes nothing', async () => {
    await applyAndEdit();
    const check = await world.cli(['pull', '--check']);
    expect(check.stderr).not.toMatch(/error|Error/);
    expect(check.code).toBe(2);
    expect(check.stdout).toContain('Drift on target "default": the service holds edits the repository lacks.');
    expect(check.stdout).toContain('    ~ en → de (glossaries/entries/shop.en-de.tsv): 1 changed, 1 added, 1 removed on the service');
    expect(check.stdout).toContain('        ~ "checkout": "Kasse" → "Zur Kasse"');
    expect(check.stdout).toContain('        + "loyalty points": "Treuepunkte"');
    expect(check.stdout).toContain('        - "wishlist": "Wunschliste"');
    expect(check.stdout).toContain('        ~ "gift card, digital": "carta regalo digitale" → ""buono" regalo digitale"');
    expect(check.stdout).toContain('    ~ en → fr (inline entries): 1 changed, 1 added, 1 removed on the service');
    expect(check.stdout).toContain('Drift: 9 term changes in 1 glossary.');
    expect(git('status', '--porcelain')).toBe('');
  });

  it('writes a changed, an added and a removed term back into a TSV, a CSV and inline YAML with a minimal diff; comments survive; the next plan shows no changes', async () => {
    await applyAndEdit();
    const pull = await world.cli(['pull']);
    expect(pull.stderr).not.toMatch(/error|Error|Warning/);
    expect(pull.code).toBe(0);
    expect(pull.stdout).toContain('Wrote 3 files:');
    expect(pull.stdout).toContain('Pull complete');

    expect(changedLines('glossaries/entries/shop.en-de.tsv')).toEqual(['-checkout\tKasse', '+checkout\tZur Kasse', '-wishlist\tWunschliste', '+loyalty points\tTreuepunkte']);
    // CRLF, the header row, the quoting of each record and the language columns are kept.
    expect(changedLines('glossaries/entries/shop.en-it.csv')).toEqual([
      '-"gift card, digital",carta regalo digitale,en,it\r',
      '-invoice,fattura,en,it\r',
      '+"gift card, digital","""buono"" regalo digitale",en,it\r',
      '+loyalty points,punti fedeltà,en,it\r',
    ]);
    expect(changedLines('glossaries/shop.yaml')).toEqual(['-      cart: panier', "+      cart: panier d'achat", "-      wishlist: liste d'envies", '+      loyalty points: points de fidélité']);
    const yaml = await world.read('glossaries/shop.yaml');
    for (const comment of ['# Shop terms: reviewed by the terminology team.', '# German lives in a TSV file.', '# exported from the catalogue spreadsheet', '# not "caisse"']) expect(yaml).toContain(comment);
    // The blank line of the TSV file is still there.
    expect(await world.read('glossaries/entries/shop.en-de.tsv')).toBe('cart\tWarenkorb\ncheckout\tZur Kasse\n\ninvoice\tRechnung\nloyalty points\tTreuepunkte\n');

    const mark = world.mark();
    const plan = await world.cli(['plan', '--detailed-exitcode']);
    expect(plan.stdout).toContain('No changes.');
    expect(plan.code).toBe(0);
    expect((await world.cli(['pull', '--check'])).code).toBe(0);
    expect(world.writesSince(mark)).toEqual([]);
  });

  it('adds a dictionary only the service has as a new entries file, drops one it no longer has, and leaves resources only on the service to import', async () => {
    const id = await applyAndEdit();
    await editOnService(id, 'en', 'es', 'cart\tcarrito\ncheckout\tfinalizar compra');
    await service('DELETE', `/v3/glossaries/${id}/dictionaries?source_lang=en&target_lang=fr`);
    await service('POST', '/v3/glossaries', { name: 'Made in the web editor', dictionaries: [{ source_lang: 'en', target_lang: 'de', entries: 'a\tb', entries_format: 'tsv' }] });
    const pull = await world.cli(['pull']);
    expect(pull.code).toBe(0);
    expect(pull.stdout).toContain('    + en → es: only on the service (2 entries)');
    expect(pull.stdout).toContain('    - en → fr: no longer on the service (the repository has 4 entries)');
    expect(pull.stdout).toContain('  glossary "Made in the web editor": only on the service: `termsync import` writes its files');
    expect(await world.read('glossaries/entries/shop.en-es.tsv')).toBe('cart\tcarrito\ncheckout\tfinalizar compra\n');
    const yaml = await world.read('glossaries/shop.yaml');
    expect(yaml).not.toContain('target_lang: fr');
    expect(yaml).toContain('  - source_lang: en\n    target_lang: es\n    entries_file: entries/shop.en-es.tsv\n');
    const plan = await world.cli(['plan', '--detailed-exitcode']);
    expect(plan.stdout).toContain('No changes.');
    expect(plan.code).toBe(0);
  });
});
