import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createWorld, PROJECT_ROOT } from './harness.js';

describe('the example repository', () => {
  // Three CLI runs, each reading a workbook and a TBX file too: a busy machine needs more than 20 s.
  it('applies to an empty account with one POST per resource, and then plans no changes', async () => {
    const world = await createWorld([join(PROJECT_ROOT, 'config'), join(PROJECT_ROOT, 'glossaries')]);
    try {
      const validate = await world.cli(['validate']);
      expect(validate.code).toBe(0);
      // The README's `npm start` sample shows this first reconcile's summary: the same counts.
      const first = await world.cli(['plan']);
      expect(first.code).toBe(0);
      const summary = /^Plan: \d+ to add, \d+ to change, \d+ to destroy\.$/m.exec(first.stdout)?.[0];
      const readme = await readFile(join(PROJECT_ROOT, 'README.md'), 'utf8');
      const fiveMinutes = readme.slice(readme.indexOf('### Your first five minutes'), readme.indexOf('### Then: a real account'));
      expect(/INFO: reconcile changed: (Plan: .*)$/m.exec(fiveMinutes)?.[1]).toBe(summary);
      const apply = await world.cli(['apply', '--ids-out', 'ids.json']);
      expect(apply.stderr).toBe('');
      expect(apply.code).toBe(0);
      const writes = world.writesSince(0);
      expect(writes.length).toBeGreaterThan(0);
      // Creates only: one POST per declared resource, nothing else: 6 glossaries (one of them v2,
      // two fed by one multilingual file each, TBX and workbook) and 2 style rule lists.
      expect(writes.every((w) => /^POST \/v[23]\/(glossaries|style_rules)$/.test(w))).toBe(true);
      expect(writes.filter((w) => w === 'POST /v3/glossaries')).toHaveLength(5);
      expect(writes.filter((w) => w === 'POST /v2/glossaries')).toHaveLength(1);
      expect(writes.filter((w) => w === 'POST /v3/style_rules')).toHaveLength(2);
      const ids = JSON.parse(await world.read('ids.json')) as { glossaries: Record<string, string>; style_rules: Record<string, string> };
      expect(Object.keys(ids.glossaries).length + Object.keys(ids.style_rules).length).toBe(writes.length);
      const mark = world.mark();
      const plan = await world.cli(['plan', '--detailed-exitcode']);
      expect(plan.stdout).toContain('No changes.');
      expect(plan.code).toBe(0);
      expect(world.writesSince(mark)).toEqual([]);
    } finally {
      await world.close();
    }
  }, 60_000);

  it('converges on a server that behaves like the vendor mock (its auth scheme, filled source languages, separate v2/v3 stores, instruction answers)', async () => {
    const world = await createWorld([join(PROJECT_ROOT, 'config'), join(PROJECT_ROOT, 'glossaries')], {
      emulator: {
        authScheme: 'DeepL-Auth-Key',
        behaviour: { deleteInstruction: true, instructionAnswer: true, fillSourceLanguage: true, resetSourceLanguage: true, separateStores: true },
      },
    });
    try {
      const config = await world.read('config/termsync.yaml');
      await world.write('config/termsync.yaml', config.replace('    # auth_scheme: DeepL-Auth-Key', '    auth_scheme: DeepL-Auth-Key'));
      const apply = await world.cli(['apply']);
      expect(apply.stderr).toBe('');
      expect(apply.code).toBe(0);
      for (let run = 0; run < 2; run += 1) {
        const mark = world.mark();
        const plan = await world.cli(['plan', '--detailed-exitcode']);
        expect(plan.stdout).toContain('No changes.');
        expect(plan.code).toBe(0);
        expect((await world.cli(['apply'])).code).toBe(0);
        expect(world.writesSince(mark)).toEqual([]);
      }
    } finally {
      await world.close();
    }
  }, 60_000);

  it('proves its glossaries work: apply --verify passes, and a wrong term fails with the text, the translation and the missing term', async () => {
    const world = await createWorld([join(PROJECT_ROOT, 'config'), join(PROJECT_ROOT, 'glossaries')]);
    try {
      const apply = await world.cli(['apply', '--verify']);
      expect(apply.stderr).toBe('');
      expect(apply.code).toBe(0);
      expect(apply.stdout).toMatch(/Verify target "default": 4 translations, \d+ characters to send \(limit 5000 per run, verify.max_characters\)\./);
      expect(apply.stdout).toContain('PASS  Northwind Checkout and payments · test 1 · en → de  (glossaries/checkout-payments.yaml:11)');
      expect(apply.stdout).toContain('Verify passed: 4 passed, 0 failed');

      // A terminologist types the wrong German term for "down jacket".
      const csv = await world.read('glossaries/entries/product-catalogue.en-de.csv');
      await world.write('glossaries/entries/product-catalogue.en-de.csv', csv.replace('down jacket,Daunenjacke', 'down jacket,Daunenmantel'));
      const wrong = await world.cli(['apply', '--verify']);
      expect(wrong.code).toBe(8);
      expect(wrong.stdout).toContain('Apply complete: 1 applied, 0 failed, 0 skipped.');
      const report = wrong.stdout.slice(wrong.stdout.indexOf('FAIL'));
      expect(report.split('\n').slice(0, 4)).toEqual([
        'FAIL  Northwind Product catalogue · test 1 · en → de  (glossaries/product-catalogue.yaml:8)',
        '        text:        A waterproof, breathable down jacket lined with merino wool.',
        '        translation: A wasserdicht und atmungsaktiv Daunenmantel lined with Merinowolle.',
        '        missing:     "Daunenjacke" is expected in the translation but not there',
      ]);
      expect(wrong.stdout).toContain('Verify failed: 3 passed, 1 failed');
    } finally {
      await world.close();
    }
  }, 60_000);
});
