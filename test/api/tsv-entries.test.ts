import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runs } from '../helpers/properties.js';
import { encodeEntries } from '../../src/api/tsv-entries.js';
import { entriesBody, entriesTsvBytes } from '../../src/lib/entries-tsv.js';
import type { EntryList } from '../../src/model/entries.js';

// fc.string draws printable ASCII: the tabs and line breaks the refusal is about come from the constants.
const phrase = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('Größe', '日本', '😀', '\ud800', 'a b', '\t', 'a\tb', '\n', 'a\nb', '\r', '\r\n', 'x\r'));

describe('the upload body of a dictionary', () => {
  it('is the entries as TSV lines joined by LF, its bytes counted as the plan shows them', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(phrase.filter((p) => !/[\t\r\n]/.test(p)), phrase.filter((p) => !/[\t\r\n]/.test(p))), { maxLength: 6 }), (list) => {
        const body = encodeEntries(list).entries;
        expect(body).toBe(list.map(([s, t]) => `${s}\t${t}`).join('\n'));
        // The plan's figure is the figure uploaded.
        expect(entriesTsvBytes(list)).toBe(list.reduce((n, [s, t]) => n + Buffer.byteLength(s) + Buffer.byteLength(t) + 2, list.length > 0 ? -1 : 0));
      }),
    );
  });

  it('is built once per list, whoever asks first', () => {
    const list: EntryList = [['a', 'b']];
    expect(encodeEntries(list).entries).toBe(entriesBody(list));
    expect(entriesBody(list)).toBe(entriesBody(list));
  });

  it('refuses a phrase holding a tab or a line break, naming the entry and side', () => {
    const reached = { refused: 0, kept: 0 };
    fc.assert(
      fc.property(fc.array(fc.tuple(phrase, phrase), { maxLength: 5 }), (list) => {
        const bad = list.find(([s, t]) => /[\t\r\n]/.test(s) || /[\t\r\n]/.test(t));
        reached[bad === undefined ? 'kept' : 'refused']++;
        if (bad === undefined) expect(() => encodeEntries(list)).not.toThrow();
        else expect(() => encodeEntries(list)).toThrow(/phrase of the entry .* contains a tab or line break/);
      }),
    );
    // Both sides of the property are reached (before, no phrase drawn held a tab or a line break).
    expect(reached.refused).toBeGreaterThan(runs(10));
    expect(reached.kept).toBeGreaterThan(runs(10));
    expect(() => encodeEntries([['ok', 'fine'], ['two', 'lines\nhere']])).toThrow('the target phrase of the entry "two" contains a tab or line break');
    expect(() => encodeEntries([['carriage\rreturn', 'x']])).toThrow('the source phrase');
  });
});
