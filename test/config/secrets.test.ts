import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runs } from '../helpers/properties.js';
import { loadRepository } from '../../src/config/index.js';
import fc from 'fast-check';
import { findSecrets, looksLikeSecret, mayHoldSecret, redactSecrets } from '../../src/config/detect-secrets.js';
import type { Diagnostic } from '../../src/lib/diagnostics.js';
import { workbookBytes } from '../fixtures/build-files.js';

// Made-up credentials of each shape (none of them was ever valid).
const SERVICE_KEY = '3f9a2c71-5b0e-4d8a-9c1f-7e2b6a4d0c95:fx';
const SK = 'sk-proj-Zq8Xw2Lm4Np6Rt8Vy0Bc3Df5';
const GHP = 'ghp_Aq1Bw2Ce3Dr4Ft5Gy6Hu7Ji8Ko9Lp0Zm1Xn2';
const AWS = 'AKIAIOSFODNN7EXAMPL3';
const ALL = [SERVICE_KEY, SK, GHP, AWS];

const CONFIG = 'version: 1\ntargets:\n  - name: default\n    base_url_env: TERMSYNC_BASE_URL\n    api_key_env: TERMSYNC_API_KEY\n';

const temps: string[] = [];
afterEach(async () => {
  await Promise.all(temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function load(files: Record<string, string | Buffer>, config = CONFIG) {
  const dir = await mkdtemp(path.join(tmpdir(), 'termsync-secrets-'));
  temps.push(dir);
  await writeFile(path.join(dir, 'termsync.yaml'), config);
  await mkdir(path.join(dir, 'glossaries'));
  for (const [name, content] of Object.entries(files)) await writeFile(path.join(dir, 'glossaries', name), content);
  return loadRepository({ dir, parallel: false });
}

function located(diagnostics: readonly Diagnostic[], code = 'config/api-key-in-repo'): string[] {
  return diagnostics.filter((d) => d.code === code).map((d) => `${d.file}:${d.cell ?? `${d.line}:${d.column}`}`);
}

function expectNoSecretIn(value: unknown): void {
  const text = JSON.stringify(value);
  for (const secret of ALL) {
    expect(text).not.toContain(secret);
    // Not even a recognisable part of one.
    expect(text).not.toContain(secret.slice(0, 16));
  }
}

describe('credential shapes', () => {
  it('finds the service key (UUID, optionally :fx), sk-…, GitHub tokens and AWS access key ids, anywhere in a text', () => {
    for (const secret of [...ALL, '3f9a2c71-5b0e-4d8a-9c1f-7e2b6a4d0c95', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz', 'ASIAY34FZKBOKMUTVV7A', 'Service-Auth-Key abcdefgh12345678']) {
      expect(looksLikeSecret(secret), secret).toBe(true);
      expect(findSecrets(`the key is ${secret} please keep it`), secret).toEqual([expect.objectContaining({ start: 11, end: 11 + secret.length })]);
    }
  });

  it('leaves ordinary terminology alone', () => {
    for (const text of ['sk-SK', 'task-force', 'risk-free checkout', 'ghp_short', 'AKIA', 'akiaiosfodnn7example', 'deadbeef-dead', 'x3f9a2c71-5b0e-4d8a-9c1f-7e2b6a4d0c95', 'BAKIAIOSFODNN7EXAMPLE', 'Service-Auth-Key']) {
      expect(findSecrets(text), text).toEqual([]);
    }
  });

  it('redacts every shape from a message', () => {
    const { message } = redactSecrets({ message: `a ${SK} b ${AWS} c` });
    expect(message).toBe('a [redacted] b [redacted] c');
  });
});

describe('the quick test before the scan', () => {
  // The candidates of findSecrets' scan, as it searches for them: wherever one starts, the quick test must say so.
  const CANDIDATE = /-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-|sk-|gh[pousr]_|github_pat_|A[KS]IA|[Ss][Ee][Rr][Vv][Ii][Cc][Ee]-[Aa][Uu][Tt][Hh]-[Kk][Ee][Yy]/g;
  const piece = fc.constantFrom(...ALL, '-', 'sk-', 'task-', '-sk-', 'gh', 'ghp_', 'gho_', 'github_', 'github_pat_', '_', 'AKIA', 'ASIA', 'A', 'IA', 'Service-Auth-Key ', 'service-auth-key', 'a1b2', '-a1b2-', 'c3d4-', '3f9a2c71', ' ', '\t', '\n', 'x', 'Größe');
  const text = fc.array(fc.oneof(piece, fc.string({ maxLength: 4 })), { maxLength: 12 }).map((parts) => parts.join(''));

  it('never rules out a text where a candidate starts, so findSecrets finds what the scan alone finds', () => {
    fc.assert(
      fc.property(text, (t) => {
        CANDIDATE.lastIndex = 0;
        const rejectedCandidate = (): boolean => {
          // A candidate `sk-` after a word character or a dash is refused by the scan itself.
          for (let m = CANDIDATE.exec(t); m !== null; m = CANDIDATE.exec(t)) {
            CANDIDATE.lastIndex = m.index + 1;
            if (!(m[0] === 'sk-' && /[0-9A-Za-z_-]/.test(t.charAt(m.index - 1)))) return false;
          }
          return true;
        };
        if (!mayHoldSecret(t)) {
          expect(rejectedCandidate()).toBe(true);
          expect(findSecrets(t)).toEqual([]);
        }
      }),
      { numRuns: runs(5000) },
    );
  });

  it('says the same of a short text (one expression) as of the text made long (searches)', () => {
    // Spaces after the text neither make nor break a candidate: both paths must agree.
    fc.assert(
      fc.property(text, (t) => {
        expect(mayHoldSecret(t)).toBe(mayHoldSecret(`${t}${' '.repeat(300)}`));
      }),
      { numRuns: runs(5000) },
    );
  });

  it('rules out ordinary terminology, and keeps every credential shape', () => {
    expect(mayHoldSecret('product term 12-345 (catalogue)\tProduktbegriff de 12-345 Größe\ntask-based risk-free desk_top\n')).toBe(false);
    for (const secret of [...ALL, 'Service-Auth-Key abcdefgh12', 'github_pat_11ABCDEFG0123456789abcdef']) expect(mayHoldSecret(`a ${secret} b`)).toBe(true);
  });
});

describe('credentials in the repository are errors, located, never echoed', () => {
  it('in cells of TSV and CSV entries files', async () => {
    const result = await load({
      'g.yaml': 'kind: glossary\nname: T\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries_file: a.tsv\n  - source_lang: en\n    target_lang: fr\n    entries_file: b.csv\n',
      'a.tsv': `cart\tWagen\n${GHP}\tx\nhood\t  ${AWS}  \n`,
      'b.csv': `cart,panier\n"token ""${SK}""",y\n`,
    });
    expect(located(result.diagnostics)).toEqual(['glossaries/a.tsv:2:1', 'glossaries/a.tsv:3:8', 'glossaries/b.csv:2:10']);
    expect(result.diagnostics.filter((d) => d.code === 'config/api-key-in-repo').every((d) => d.severity === 'error')).toBe(true);
    // The trimmed-whitespace warning of the AWS cell would quote the phrase: it is redacted.
    expect(result.diagnostics.find((d) => d.code === 'entries/whitespace-trimmed')?.message).toContain('[redacted]');
    expectNoSecretIn(result.diagnostics);
  });

  it('in a CSV with language columns, a TBX term and a workbook cell', async () => {
    const tbx = `<?xml version="1.0" encoding="UTF-8"?>\n<martif type="TBX-Basic" xml:lang="en"><text><body>\n<termEntry id="c1"><langSet xml:lang="en"><tig><term>cart</term></tig></langSet><langSet xml:lang="de"><tig><term>${SERVICE_KEY}</term></tig></langSet></termEntry>\n</body></text></martif>\n`;
    const result = await load({
      'cols.yaml': 'kind: glossary\nname: Columns\nentries_file: cols.csv\nlanguages: [en, de]\n',
      'cols.csv': `en,de\ncart,Wagen\nhood,${AWS}\n`,
      'tbx.yaml': 'kind: glossary\nname: Tbx\nentries_file: t.tbx\nlanguages: [en, de]\n',
      't.tbx': tbx,
      'book.yaml': 'kind: glossary\nname: Book\nentries_file: t.xlsx\nlanguages: [en, de]\n',
      't.xlsx': await workbookBytes({ Terms: [['en', 'de'], ['cart', 'Wagen'], [GHP, 'Haube']] }),
    });
    expect(located(result.diagnostics).sort()).toEqual(['glossaries/cols.csv:3:6', 'glossaries/t.tbx:3:109', 'glossaries/t.xlsx:Terms!A3']);
    expectNoSecretIn(result.diagnostics);
  });

  it('of a TBX file, in the terms only: notes, definitions, other fields, attributes and terms not taken are neither sent nor written, and not scanned', async () => {
    // Every place of a TBX file but a term taken holds a credential; the en-de dictionary is cart → Wagen.
    const tbx = `<?xml version="1.0" encoding="UTF-8"?>
<martif type="TBX-Basic" xml:lang="en"><martifHeader><fileDesc><sourceDesc><p>export key ${SERVICE_KEY}</p></sourceDesc></fileDesc></martifHeader><text><body>
<termEntry id="${AWS}"><descrip type="subjectField">${SK}</descrip><note>${GHP}</note>
<langSet xml:lang="en"><descrip type="definition">${AWS}</descrip><tig><term>cart</term><termNote type="partOfSpeech">${SK}</termNote><note>${SERVICE_KEY}</note></tig>
<tig><term>${GHP}</term></tig></langSet>
<langSet xml:lang="de"><tig><term>${SK}</term><termNote type="administrativeStatus">deprecatedTerm-admn-sts</termNote></tig>
<tig><term>Wagen</term><admin type="source">${AWS}</admin><transacGrp><transac type="transactionType">modification</transac><transacNote type="responsibility">${SERVICE_KEY}</transacNote></transacGrp></tig></langSet>
</termEntry>
</body></text></martif>
`;
    const result = await load({ 'tbx.yaml': 'kind: glossary\nname: Tbx\nentries_file: t.tbx\nlanguages: [en, de]\nterms: first\n', 't.tbx': tbx });
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const glossary = result.desired?.glossaries[0];
    expect(glossary?.dictionaries.map((d) => [d.sourceLang, d.targetLang, Object.fromEntries(d.entries)])).toEqual([['en', 'de', { cart: 'Wagen' }]]);
    expectNoSecretIn(result.desired);
    expectNoSecretIn(result.diagnostics);
  });

  it('in names, labels, prompts, inline entries and YAML comments (keys and values alike)', async () => {
    const result = await load({
      'g.yaml': `kind: glossary\nname: Shop ${SK}\n# deploy key: ${AWS}\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries:\n      ${GHP}: Wagen\n      hood: "\\x73k-proj-Zq8Xw2Lm4Np6Rt8Vy0Bc3Df5"\n`,
      's.yaml': `kind: style_rules\nname: House style\nlanguage: de\ncustom_instructions:\n  - label: ${SERVICE_KEY}\n    prompt: Use the key ${AWS} for everything\n`,
    });
    expect(located(result.diagnostics)).toEqual(['glossaries/g.yaml:2:12', 'glossaries/g.yaml:3:15', 'glossaries/g.yaml:8:7', 'glossaries/g.yaml:9:13', 'glossaries/s.yaml:5:12', 'glossaries/s.yaml:6:25']);
    expect(result.diagnostics.map((d) => d.message).join('\n')).toMatch(/looks like a secret API key \(`sk-…`\)/);
    expectNoSecretIn(result.diagnostics);
  });
});

describe('the variables a repository may name', () => {
  it('must start with TERMSYNC_: another secret of the job is never sent as the key, nor the key to another URL', async () => {
    const config = 'version: 1\ntargets:\n  - name: default\n    base_url_env: ATTACKER_URL\n    api_key_env: AWS_SECRET_ACCESS_KEY\n  - name: b\n    base_url_env: TERMSYNC_B_URL\n    api_key_env: GITHUB_TOKEN\n';
    const result = await load({}, config);
    expect(located(result.diagnostics, 'config/env-name-not-allowed')).toEqual(['termsync.yaml:4:19', 'termsync.yaml:5:18', 'termsync.yaml:8:18']);
    expect(result.diagnostics.filter((d) => d.severity === 'error').map((d) => d.code)).toEqual(['config/env-name-not-allowed', 'config/env-name-not-allowed', 'config/env-name-not-allowed']);
    expect(result.diagnostics[1]?.message).toMatch(/^`api_key_env` names AWS_SECRET_ACCESS_KEY: the variables a repository names for keys and URLs must start with TERMSYNC_/);
  });

  it('is reported even when the config has other problems, once per field', async () => {
    const result = await load({}, 'version: 1\nunknown: 1\ntargets:\n  - name: default\n    base_url_env: HOME\n    api_key_env: TERMSYNC_API_KEY\n');
    expect(result.diagnostics.map((d) => `${d.code} ${d.line}:${d.column}`)).toEqual(['schema/unknown-field 2:1', 'config/env-name-not-allowed 5:19']);
  });

  it('never names one variable for a URL and for a key', async () => {
    const config = 'version: 1\ntargets:\n  - name: default\n    base_url_env: TERMSYNC_BASE_URL\n    api_key_env: TERMSYNC_API_KEY\n  - name: b\n    base_url_env: TERMSYNC_API_KEY\n    api_key_env: TERMSYNC_B_KEY\n';
    const result = await load({}, config);
    expect(located(result.diagnostics, 'config/env-name-conflict')).toEqual(['termsync.yaml:7:19']);
  });
});
