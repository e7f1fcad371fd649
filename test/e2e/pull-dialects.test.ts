// pull writes back into the files spreadsheets save: a CSV with a declared `;`, a TSV with a header
// line of the pair's codes, an entry that would read as a header once it comes first; a file in
// another encoding than UTF-8 is left as it is, and said so.
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWorld, type World } from './harness.js';

let world: World;

const CONFIG = 'version: 1\nresources: [glossaries]\nrate_limit:\n  requests_per_second: 1000\n  concurrency: 4\ntargets:\n  - name: default\n    base_url_env: TERMSYNC_BASE_URL\n    api_key_env: TERMSYNC_API_KEY\n';

const SHOP = `kind: glossary
name: Shop
dictionaries:
  - source_lang: en
    target_lang: de
    entries_file: shop.en-de.csv
    delimiter: ";"
  - source_lang: en
    target_lang: it
    entries_file: shop.en-it.tsv
  - source_lang: en
    target_lang: fr
    entries_file: shop.en-fr.tsv
    encoding: windows-1252
`;

beforeEach(async () => {
  world = await createWorld([]);
  await mkdir(join(world.dir, 'config'));
  await mkdir(join(world.dir, 'glossaries'));
  await world.write('config/termsync.yaml', CONFIG);
  await world.write('glossaries/shop.yaml', SHOP);
  // `source;target` is an entry here: it is not the first record.
  await world.write('glossaries/shop.en-de.csv', 'cart;Warenkorb\r\nsource;target\r\n"size; fit";Passform\r\n');
  await world.write('glossaries/shop.en-it.tsv', 'en\tit\ncart\tcarrello\n');
  await world.write('glossaries/shop.en-fr.tsv', 'cart\tpanier\n');
  const apply = await world.cli(['apply', '--ids-out', 'ids.json']);
  expect(apply.code).toBe(0);
});

afterEach(async () => {
  await world.close();
});

async function editOnService(sourceLang: string, targetLang: string, tsv: string): Promise<void> {
  const id = (JSON.parse(await world.read('ids.json')) as { glossaries: Record<string, string> }).glossaries['Shop'] ?? '';
  const res = await fetch(`${world.emulator.url}/v3/glossaries/${id}/dictionaries`, {
    method: 'PUT',
    headers: { authorization: `Service-Auth-Key ${world.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ source_lang: sourceLang, target_lang: targetLang, entries: tsv, entries_format: 'tsv' }),
  });
  expect(res.status).toBeLessThan(300);
}

describe('pull into spreadsheet dialects', () => {
  it('keeps a declared `;`, a header line, and puts a header before an entry that comes first and reads as one; the next plan shows no changes', async () => {
    await editOnService('en', 'de', 'source\ttarget\nsize; fit\tPassform\ngift card\tGeschenkkarte');
    await editOnService('en', 'it', 'cart\tcarrello\nen\tit');
    const pull = await world.cli(['pull']);
    expect(pull.code).toBe(0);
    expect(await world.read('glossaries/shop.en-de.csv')).toBe('source;target\r\nsource;target\r\n"size; fit";Passform\r\ngift card;Geschenkkarte\r\n');
    expect(await world.read('glossaries/shop.en-it.tsv')).toBe('en\tit\ncart\tcarrello\nen\tit\n');
    const plan = await world.cli(['plan', '--detailed-exitcode']);
    expect(plan.stdout).toContain('No changes.');
    expect(plan.code).toBe(0);
  });

  it('leaves a file in another encoding than UTF-8 as it is, and says so', async () => {
    await editOnService('en', 'fr', 'cart\tpanier\ncheckout\tpaiement');
    const before = await readFile(join(world.dir, 'glossaries', 'shop.en-fr.tsv'));
    const pull = await world.cli(['pull']);
    expect(pull.stdout).toContain('pull writes entries files in UTF-8 only: glossaries/shop.en-fr.tsv (`encoding: windows-1252`, en-fr) left as it is; save it as UTF-8 and remove `encoding` to pull into it');
    expect(await readFile(join(world.dir, 'glossaries', 'shop.en-fr.tsv'))).toEqual(before);
  });
});
