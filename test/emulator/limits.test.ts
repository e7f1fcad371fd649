/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call -- answers are untyped JSON read off the wire */
import { describe, expect, it } from 'vitest';
import { call, createV3, errorBody, start } from './helpers.js';

const LIMIT = 10 * 1024 * 1024;

/** TSV entries of exactly `bytes` UTF-8 bytes (as the service counts a glossary: TSV lines joined by newlines). */
function tsvOfSize(bytes: number, prefix = 'k'): string {
  const lines: string[] = [];
  let size = 0;
  const target = 't'.repeat(1000);
  for (let i = 0; ; i++) {
    const source = `${prefix}${String(i).padStart(6, '0')}`;
    const sep = lines.length > 0 ? 1 : 0;
    const full = sep + source.length + 1 + target.length;
    if (size + full + sep + source.length + 2 > bytes) {
      // Last line takes exactly what is left (its target may be short).
      const rest = bytes - size - sep - source.length - 1;
      lines.push(`${source}\t${'t'.repeat(rest)}`);
      size += sep + source.length + 1 + rest;
      break;
    }
    lines.push(`${source}\t${target}`);
    size += full;
  }
  const text = lines.join('\n');
  if (Buffer.byteLength(text) !== bytes) throw new Error(`built ${Buffer.byteLength(text)} bytes, wanted ${bytes}`);
  return text;
}

describe('limits at the boundary and one past it', () => {
  it('glossary size: exactly 10 MiB is created (201), one byte more → 413', async () => {
    const emu = await start();
    const atLimit = await createV3(emu, 'Big', [{ source_lang: 'en', target_lang: 'de', entries: tsvOfSize(LIMIT) }]);
    expect(atLimit.status).toBe(201);
    expect(atLimit.json.dictionaries[0].entry_count).toBeGreaterThan(10_000);
    const over = await createV3(emu, 'Bigger', [{ source_lang: 'en', target_lang: 'de', entries: tsvOfSize(LIMIT + 1) }]);
    expect(over.status).toBe(413);
    expect(errorBody(over).message).toMatch(/10485761 bytes exceeds the limit of 10485760/);
    expect((await call(emu, 'GET', '/v3/glossaries')).json.glossaries).toHaveLength(1);
    const entries = await call(emu, 'GET', `/v3/glossaries/${atLimit.json.glossary_id}/entries?source_lang=en&target_lang=de`);
    expect(Buffer.byteLength(entries.json.dictionaries[0].entries as string)).toBe(LIMIT);
  });

  it('the limit counts the whole glossary: PUT or PATCH that would exceed it → 413 and nothing changes', async () => {
    const emu = await start();
    const half = LIMIT / 2;
    const g = await createV3(emu, 'Two halves', [
      { source_lang: 'en', target_lang: 'de', entries: tsvOfSize(half) },
      { source_lang: 'en', target_lang: 'fr', entries: tsvOfSize(half) },
    ]);
    expect(g.status).toBe(201);
    const id = g.json.glossary_id as string;
    const put = await call(emu, 'PUT', `/v3/glossaries/${id}/dictionaries`, { json: { source_lang: 'en', target_lang: 'fr', entries: tsvOfSize(half + 1) } });
    expect(put.status).toBe(413);
    const patch = await call(emu, 'PATCH', `/v3/glossaries/${id}`, { json: { dictionaries: [{ source_lang: 'en', target_lang: 'it', entries: 'a\tb' }] } });
    expect(patch.status).toBe(413);
    const meta = await call(emu, 'GET', `/v3/glossaries/${id}`);
    expect(meta.json.dictionaries.map((d: { target_lang: string }) => d.target_lang)).toEqual(['de', 'fr']);
    // Replacing a dictionary by one of the same size stays within the limit.
    const same = await call(emu, 'PUT', `/v3/glossaries/${id}/dictionaries`, { json: { source_lang: 'en', target_lang: 'fr', entries: tsvOfSize(half, 'z') } });
    expect(same.status).toBe(200);
  });

  it('v2 create obeys the same size limit', async () => {
    const emu = await start();
    const over = await call(emu, 'POST', '/v2/glossaries', { json: { name: 'x', source_lang: 'en', target_lang: 'de', entries: tsvOfSize(LIMIT + 1) } });
    expect(over.status).toBe(413);
  });

  it('glossary name: 1024 UTF-8 bytes pass, 1025 → 400 (bytes, not characters)', async () => {
    const emu = await start();
    const dict = [{ source_lang: 'en', target_lang: 'de', entries: 'a\tb' }];
    expect((await createV3(emu, 'n'.repeat(1024), dict)).status).toBe(201);
    expect((await createV3(emu, 'ü'.repeat(512), dict)).status).toBe(201);
    const over = await createV3(emu, `${'ü'.repeat(512)}x`, dict);
    expect(over.status).toBe(400);
    expect(errorBody(over).message).toMatch(/1025 UTF-8 bytes; the limit is 1024/);
    const v2 = await call(emu, 'POST', '/v2/glossaries', { json: { name: 'n'.repeat(1025), source_lang: 'en', target_lang: 'de', entries: 'a\tb' } });
    expect(v2.status).toBe(400);
  });

  it('phrase length over HTTP: 1024 bytes pass, 1025 → 400 with detail', async () => {
    const emu = await start();
    expect((await createV3(emu, 'ok', [{ source_lang: 'en', target_lang: 'de', entries: `${'s'.repeat(1024)}\t${'t'.repeat(1024)}` }])).status).toBe(201);
    const over = await createV3(emu, 'over', [{ source_lang: 'en', target_lang: 'de', entries: `a\tb\ns\t${'t'.repeat(1025)}` }]);
    expect(over.status).toBe(400);
    expect(errorBody(over)).toEqual({
      message: 'Invalid glossary entries provided',
      detail: 'Entry with the index 1 (starting at position 4) has a target phrase of 1025 UTF-8 bytes; the limit is 1024',
    });
  });

  it('1000 glossaries per account (v2 and v3 together): the 1001st → 400; other accounts unaffected', async () => {
    const emu = await start();
    const dict = [{ source_lang: 'en', target_lang: 'de', entries: 'a\tb' }];
    for (let batch = 0; batch < 20; batch++) {
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          batch % 2 === 0
            ? createV3(emu, `G${batch}-${i}`, dict)
            : call(emu, 'POST', '/v2/glossaries', { json: { name: `G${batch}-${i}`, source_lang: 'en', target_lang: 'de', entries: 'a\tb' } }),
        ),
      );
      expect(answers.every((a) => a.status === 201)).toBe(true);
    }
    const v3 = await createV3(emu, 'one too many', dict);
    expect(v3.status).toBe(400);
    expect(errorBody(v3).message).toMatch(/1000 glossaries/);
    const v2 = await call(emu, 'POST', '/v2/glossaries', { json: { name: 'x', source_lang: 'en', target_lang: 'de', entries: 'a\tb' } });
    expect(v2.status).toBe(400);
    expect((await createV3(emu, 'elsewhere', dict, 'another-key')).status).toBe(201);
    const first = (await call(emu, 'GET', '/v3/glossaries')).json.glossaries[0].glossary_id as string;
    expect((await call(emu, 'DELETE', `/v3/glossaries/${first}`)).status).toBe(204);
    expect((await createV3(emu, 'room again', dict)).status).toBe(201);
    // 1,000 creations over HTTP: seconds on a quiet machine, more on a busy one.
  }, 60_000);
});
