import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KeyRedactor } from '../../src/lib/redact-keys.js';
import { escapeMarkdown } from '../../src/report/index.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runCliCaptured } from './run-cli.js';

const open: { emulator?: RunningEmulator; dir?: string }[] = [];
afterEach(async () => {
  for (const o of open.splice(0)) {
    await o.emulator?.close();
    if (o.dir !== undefined) await rm(o.dir, { recursive: true, force: true });
  }
});

describe('the key is taken out of what a run shows, never out of its data', () => {
  it('each written form of a key: as it is, lowercased, JSON-escaped, and in an encoding an output adds', () => {
    const keys = new KeyRedactor();
    expect(keys.redact('Shop terms')).toBe('Shop terms');
    keys.add('Shop');
    // A short key's lowercase form is an ordinary word; a long one's is the key, lowercased (a language code).
    expect(keys.redact('Shop terms, shop floor, SHOP')).toBe('[redacted] terms, shop floor, SHOP');
    keys.add('AbCdEf12-3456-7890:fx');
    expect(keys.redact('AbCdEf12-3456-7890:fx or abcdef12-3456-7890:fx')).toBe('[redacted] or [redacted]');
    keys.add('sk_"live"\\x');
    expect(keys.redact(JSON.stringify({ name: 'a sk_"live"\\x b' }))).toBe('{"name":"a [redacted] b"}');
    // Markdown escapes `_` and `\\`: not found in that form until the output says it writes markdown.
    expect(keys.redact(`| ${escapeMarkdown('a sk_"live"\\x b')} |`)).toBe('| a sk\\_"live"\\\\x b |');
    keys.addEncoding(escapeMarkdown);
    expect(keys.redact(`| ${escapeMarkdown('a sk_"live"\\x b')} |`)).toBe('| a [redacted] b |');
  });

  it('key "Shop" and a glossary "Shop terms": three applies make one glossary, the plan is empty, pull writes the real terms', async () => {
    const emulator = await startEmulator({ port: 0, keys: ['Shop'] });
    const dir = await mkdtemp(join(tmpdir(), 'termsync-key-in-data-'));
    open.push({ emulator, dir });
    await mkdir(join(dir, 'glossaries'));
    await writeFile(join(dir, 'termsync.yaml'), 'version: 1\ntargets:\n  - name: default\n');
    await writeFile(join(dir, 'glossaries', 'shop.yaml'), 'kind: glossary\nname: Shop terms\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries_file: shop.tsv\n');
    await writeFile(join(dir, 'glossaries', 'shop.tsv'), 'Shop\tLaden\nshopping cart\tWarenkorb\n');
    const env = { TERMSYNC_BASE_URL: emulator.url, TERMSYNC_API_KEY: 'Shop' };
    const cli = (...argv: string[]) => runCliCaptured([...argv, '--dir', dir], { cwd: dir, env });
    const shown: string[] = [];
    for (let i = 0; i < 3; i++) {
      const apply = await cli('apply');
      expect(apply.code).toBe(0);
      shown.push(apply.stdout, apply.stderr);
    }
    const listing = (await (await fetch(`${emulator.url}/v3/glossaries`, { headers: { authorization: 'Service-Auth-Key Shop' } })).json()) as { glossaries: { glossary_id: string; name: string }[] };
    expect(listing.glossaries.map((g) => g.name)).toEqual(['Shop terms']);
    const plan = await cli('plan', '--detailed-exitcode');
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('No changes.');

    // An edit on the service: pull writes it as it is; what the run prints says [redacted].
    const id = listing.glossaries[0]?.glossary_id ?? '';
    const put = await fetch(`${emulator.url}/v3/glossaries/${id}/dictionaries`, {
      method: 'PUT',
      headers: { authorization: 'Service-Auth-Key Shop', 'content-type': 'application/json' },
      body: JSON.stringify({ source_lang: 'en', target_lang: 'de', entries: 'Shop\tLaden\nshopping cart\tWarenkorb\nShop window\tSchaufenster', entries_format: 'tsv' }),
    });
    expect(put.ok).toBe(true);
    const markdown = await cli('plan', '--format', 'markdown');
    const json = await cli('plan', '--format', 'json', '--out', join(dir, 'saved.json'));
    const pull = await cli('pull');
    expect(pull.code).toBe(0);
    shown.push(markdown.stdout, markdown.stderr, json.stdout, json.stderr, pull.stdout, pull.stderr);
    expect(await readFile(join(dir, 'glossaries', 'shop.tsv'), 'utf8')).toBe('Shop\tLaden\nshopping cart\tWarenkorb\nShop window\tSchaufenster\n');
    // The saved plan is data for `apply FILE`: the names as they are.
    expect(await readFile(join(dir, 'saved.json'), 'utf8')).toContain('"Shop terms"');
    expect(pull.stdout).toContain('[redacted] terms');
    expect(markdown.stdout).toContain('[redacted] terms');
    for (const text of shown) expect(text).not.toContain('Shop');
    expect((await cli('plan', '--detailed-exitcode')).code).toBe(0);
  });
});
