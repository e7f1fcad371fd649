import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeLongString, parseJsonWithLongStrings } from '../../src/api/json-long-strings.js';
import { EntriesText } from '../../src/api/tsv-entries.js';
import { visitTsvEntries } from '../../src/lib/entries-tsv.js';

const where = { method: 'GET', path: '/v3/glossaries/g/entries' };

function pairsOf(text: EntriesText): [string, string][] {
  const out: [string, string][] = [];
  text.visit((s, t) => out.push([s, t]) > 0);
  return out;
}

/** The entries as reading the decoded string gives them. */
function reference(tsv: string): [string, string][] {
  const out: [string, string][] = [];
  visitTsvEntries(tsv, (s, t) => out.push([s, t]) > 0);
  return out;
}

/** The EntriesText the client makes of a long string: in place when it holds only \t and \n escapes. */
function textOf(cut: ReturnType<typeof parseJsonWithLongStrings>, entries: string): EntriesText {
  expect(cut).toBeDefined();
  const long = cut?.long.get(entries);
  expect(long).toBeDefined();
  if (long === undefined) throw new Error('no long string');
  return long.tsvOnly ? new EntriesText(long.text.slice(long.start, long.end), where, true) : new EntriesText(decodeLongString(long), where);
}

// Phrases with what JSON escapes (quotes, backslashes, control characters), non-ASCII and the separators' letters.
// A backslash before a quote and at the end of a phrase: in JSON, runs of backslashes before a quote that is escaped or not.
const phrase = fc.constantFrom('a', 'tn', 'Größe', 'say "hi"', 'back\\slash', '\\t', 'n\\n', 'x\u0001y', 'caf\u00e9', '\u{1f600}', 'é\u2028', ' t ', '\\"q', 'ends\\');
const line = fc.oneof(fc.tuple(phrase, phrase).map(([s, t]) => `${s}\t${t}`), fc.constant(''), fc.constant('a\tb\tc'));

describe('parseJsonWithLongStrings', () => {
  it('reads the entries of an answer as JSON.parse and the TSV reading do, whatever the escapes and the other fields', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 12 }), fc.boolean(), phrase, (lines, crlf, name) => {
        // Long enough to be cut out (4096 characters).
        let tsv = lines.join(crlf ? '\r\n' : '\n');
        while (tsv.length < 4096) tsv += `\nfill ${tsv.length}\tFüllung`;
        const answer = { dictionaries: [{ source_lang: 'en', target_lang: 'de', entries: tsv, entries_format: 'tsv', name }], note: name };
        for (const json of [JSON.stringify(answer), JSON.stringify(answer, null, 2)]) {
          const cut = parseJsonWithLongStrings(json);
          const value = cut?.value as typeof answer;
          expect(value.note).toBe(name);
          expect(value.dictionaries[0]?.source_lang).toBe('en');
          const entries = value.dictionaries[0]?.entries ?? '';
          expect(pairsOf(textOf(cut, entries))).toEqual(reference(tsv));
        }
      }),
    );
  });

  it('reads in place only what holds no other escape than tab and line feed', () => {
    const plain = `{"dictionaries":[{"entries":"${'a\\tb\\n'.repeat(1000)}"}]}`;
    expect([...(parseJsonWithLongStrings(plain)?.long.values() ?? [])].map((l) => l.tsvOnly)).toEqual([true]);
    const quoted = `{"dictionaries":[{"entries":"${'a\\"\\tb\\n'.repeat(1000)}"}]}`;
    expect([...(parseJsonWithLongStrings(quoted)?.long.values() ?? [])].map((l) => l.tsvOnly)).toEqual([false]);
  });

  it('leaves answers without a long string, and texts that are not JSON, to JSON.parse', () => {
    expect(parseJsonWithLongStrings('{"dictionaries":[{"entries":"a\\tb"}]}')).toBeUndefined();
    expect(parseJsonWithLongStrings(`{"entries":"${'x'.repeat(5000)}`)).toBeUndefined();
    expect(parseJsonWithLongStrings(`{"entries":"${'x'.repeat(5000)}",}`)).toBeUndefined();
    expect(parseJsonWithLongStrings(`<html>"${'x'.repeat(5000)}"</html>`)).toBeUndefined();
  });

  it('leaves a long string JSON.parse refuses (raw control character, \\x, a bad \\u), in any field, to JSON.parse, which refuses the answer', () => {
    const entries = 'a\\tb\\n'.repeat(1000);
    for (const bad of [`${entries}a\tb`, `${entries}\\x41`, `${entries}\\u12G4`]) {
      for (const json of [`{"entries":"${bad}"}`, `{"entries":"${entries}","note":"${bad}"}`]) {
        expect(parseJsonWithLongStrings(json)).toBeUndefined();
        expect(() => JSON.parse(json) as unknown).toThrow(SyntaxError);
      }
    }
    // Escapes JSON.parse accepts stay cut out (not read in place).
    const fine = parseJsonWithLongStrings(`{"entries":"${entries}\\u0041\\"\\\\"}`);
    expect([...(fine?.long.values() ?? [])].map((l) => [l.tsvOnly, decodeLongString(l).endsWith('A"\\')])).toEqual([[false, true]]);
  });
});
