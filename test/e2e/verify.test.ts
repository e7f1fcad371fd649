import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWorld, type World } from './harness.js';

let world: World;

const PRODUCT = (tests: string): string => `kind: glossary
name: Product terms
dictionaries:
  - source_lang: en
    target_lang: de
    entries_file: product.en-de.tsv
  - source_lang: en
    target_lang: fr
    entries:
      checkout: paiement
      cart: panier
      invoice: facture
${tests}`;

const TESTS = `tests:
  - source_lang: en
    target_lang: de
    text: "Add the invoice to your cart."
    expect: [Rechnung, Warenkorb]
  - source_lang: en
    target_lang: de
    text: "Open the Cart and pay at checkout."
    expect: [Warenkorb]
    forbid: [Kasse]
`;

function translateRequests(w: World, mark: number): string[] {
  return w.emulator
    .requests()
    .slice(mark)
    .filter((r) => r.path === '/v2/translate')
    .map((r) => `${r.method} ${r.path} ${r.status}`);
}

beforeEach(async () => {
  world = await createWorld('basic');
  await world.write('glossaries/product.yaml', PRODUCT(TESTS));
});

afterEach(async () => {
  await world.close();
});

describe('termsync verify', () => {
  it('translates each test with the live glossary: a pass, and a failure that names the missing and the forbidden term with the translation', async () => {
    expect((await world.cli(['apply'])).code).toBe(0);
    const mark = world.mark();
    const run = await world.cli(['verify']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(8);
    const lines = run.stdout.split('\n');
    // What it costs comes first, before any result.
    expect(lines[0]).toBe('Verify target "default": 2 translations, 63 characters to send (limit 5000 per run, verify.max_characters).');
    expect(lines.slice(1)).toEqual([
      'PASS  Product terms · test 1 · en → de  (glossaries/product.yaml:14)',
      'FAIL  Product terms · test 2 · en → de  (glossaries/product.yaml:18)',
      '        text:        Open the Cart and pay at checkout.',
      '        translation: Open the Cart and pay at Kasse.',
      '        missing:     "Warenkorb" is expected in the translation but not there',
      '        forbidden:   "Kasse" must not appear in the translation, but does',
      'Verify failed: 1 passed, 1 failed (2 checks, 63 characters sent to target "default").',
      '',
    ]);
    // Both texts of the pair in one request; nothing is written.
    expect(translateRequests(world, mark)).toEqual(['POST /v2/translate 200']);
    expect(world.writesSince(mark).filter((w) => !w.startsWith('POST /v2/translate'))).toEqual([]);
  });

  it('passes (exit 0) when every test passes, and reports as JSON', async () => {
    await world.write('glossaries/product.yaml', PRODUCT(TESTS.replace('Open the Cart', 'Open the cart').replace('forbid: [Kasse]', 'forbid: [Einkaufswagen]')));
    expect((await world.cli(['apply'])).code).toBe(0);
    const run = await world.cli(['verify', '--format', 'json']);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/^Verify target "default": 2 translations, 63 characters to send/);
    const report = JSON.parse(run.stdout) as { passed: number; failed: number; checks: { status: string; translation: string }[] };
    expect(report).toMatchObject({ passed: 2, failed: 0 });
    expect(report.checks.map((c) => c.translation)).toEqual(['Add the Rechnung to your Warenkorb.', 'Open the Warenkorb and pay at Kasse.']);
  });

  it('--sample finds an entry whose source can never match, with a seeded choice that repeats', async () => {
    await world.write('glossaries/product.yaml', PRODUCT(''));
    const tsv = await world.read('glossaries/product.en-de.tsv');
    // Nine words: the service applies glossary entries to terms, not sentences.
    await world.write('glossaries/product.en-de.tsv', `${tsv}returns are accepted within thirty days of the delivery\tRückgaben innerhalb von 30 Tagen\n`);
    expect((await world.cli(['apply'])).code).toBe(0);
    const all = await world.cli(['verify', '--sample', '100']);
    expect(all.code).toBe(8);
    expect(all.stdout).toContain('11 translations');
    expect(all.stdout).toContain('FAIL  Product terms · entry "returns are accepted within thirty days of the delivery" → "Rückgaben innerhalb von 30 Tagen" · en → de');
    expect(all.stdout).toContain('not applied: the source came back unchanged: the glossary never matched it (check its casing, spacing and length)');
    expect(all.stdout).toContain('Verify failed: 10 passed, 1 failed');
    // Two per dictionary, chosen by the seed: the same seed gives the same checks.
    const first = await world.cli(['verify', '--sample', '2', '--seed', '7']);
    const again = await world.cli(['verify', '--sample', '2', '--seed', '7']);
    expect(first.stdout).toContain('6 translations');
    expect(again.stdout).toBe(first.stdout);
  });

  it('counts the characters first and sends nothing when they exceed verify.max_characters (exit 4)', async () => {
    expect((await world.cli(['apply'])).code).toBe(0);
    const config = await world.read('config/termsync.yaml');
    await world.write('config/termsync.yaml', `${config}verify:\n  max_characters: 40\n`);
    const mark = world.mark();
    const run = await world.cli(['verify']);
    expect(run.code).toBe(4);
    expect(run.stdout).toBe('Verify target "default": 2 translations, 63 characters to send (limit 40 per run, verify.max_characters).\n');
    expect(run.stderr).toContain('Error: Verify refused for target "default": the checks would send 63 characters, more than the limit of 40 (verify.max_characters); nothing was sent.');
    expect(translateRequests(world, mark)).toEqual([]);
    // The option raises the limit for one run.
    expect((await world.cli(['verify', '--max-characters', '63'])).code).toBe(8);
  });

  it('apply --verify applies everything, then exits 8 on a failed test; a test of a glossary not on the service fails as such', async () => {
    const before = await world.cli(['verify']);
    expect(before.code).toBe(8);
    expect(before.stdout).toContain('not sent:    the glossary "Product terms" is not on the service: run apply first');
    const run = await world.cli(['apply', '--verify']);
    expect(run.code).toBe(8);
    expect(run.stdout).toContain('Apply complete: 3 applied, 0 failed, 0 skipped.');
    expect(run.stdout).toContain('"Warenkorb" is expected in the translation but not there');
    const plan = await world.cli(['plan', '--detailed-exitcode']);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('No changes.');
    // As JSON: stdout is one document holding both results (the cost line goes to stderr).
    const json = await world.cli(['apply', '--verify', '--format', 'json']);
    expect(json.code).toBe(8);
    const doc = JSON.parse(json.stdout) as { apply: { applied: number }; verify: { target: string; failed: number } };
    expect(Object.keys(doc)).toEqual(['apply', 'verify']);
    expect(doc.apply.applied).toBe(0);
    expect(doc.verify.target).toBe('default');
    expect(doc.verify.failed).toBeGreaterThan(0);
    expect(json.stderr).toContain('Verify target "default":');
  });
});
