import { show } from '../../lib/diagnostics.js';
import type { Diagnostic } from '../../lib/diagnostics.js';
import { GLOSSARY_LANGUAGES } from '../../lib/languages.js';
import { TARGET_VARIANTS } from '../../lib/translation-targets.js';
import type { GlossaryTest, SourceRef } from '../../model/desired.js';
import type { YamlFile } from '../parse-yaml.js';
import type { GlossaryInput } from '../schemas.js';
import { checkLang } from './language-rules.js';
import { applyRules, ref, type Rule } from './rule.js';

type TestInput = GlossaryInput['tests'][number];

/** A test's target language as declared: a translation target, where no glossary dictionary applies to a variant the service does not list. */
export const TARGET_VARIANT: Rule<{ readonly raw: string; readonly at: SourceRef }> = {
  id: 'test/target-variant',
  severity: 'error',
  summary: "a test's target language variant that no glossary dictionary applies to",
  *check({ raw, at }) {
    const code = raw.trim().toLowerCase();
    if (Object.hasOwn(TARGET_VARIANTS, code)) return;
    const base = code.split(/[-_]/)[0] ?? '';
    if (base === code || !GLOSSARY_LANGUAGES.includes(base as (typeof GLOSSARY_LANGUAGES)[number])) return;
    yield { at, message: `no glossary dictionary applies to ${show(raw)} in translations; use the base code ${show(base)} or one of the variants ${Object.keys(TARGET_VARIANTS).join(', ')}` };
  },
};

/** One test of a glossary, its languages checked, with the glossary's dictionaries. */
export interface TestSubject {
  readonly yaml: YamlFile;
  readonly index: number;
  readonly test: TestInput;
  readonly sourceLang: string;
  /** The base of the target language (a variant's dictionary is its base's). */
  readonly targetBase: string;
  readonly pairs: ReadonlySet<string>;
  readonly pairList: string;
}

export const TEST_RULES: readonly Rule<TestSubject>[] = [
  {
    id: 'test/no-dictionary',
    severity: 'error',
    summary: 'a glossary test of a language pair the glossary has no dictionary for',
    *check({ yaml, index, sourceLang, targetBase, pairs, pairList }) {
      if (pairs.has(`${sourceLang}-${targetBase}`) || pairs.size === 0) return;
      yield { at: ref(yaml, ['tests', index, 'target_lang']), message: `the glossary has no dictionary ${sourceLang} → ${targetBase}, so this test cannot use it (its dictionaries: ${pairList})` };
    },
  },
  {
    id: 'test/blank-text',
    severity: 'error',
    summary: 'a glossary test whose `text` is only whitespace',
    *check({ yaml, index, test }) {
      if (test.text.trim() === '') yield { at: ref(yaml, ['tests', index, 'text']), message: 'the test `text` is only whitespace: there is nothing to translate' };
    },
  },
  {
    id: 'test/blank-term',
    severity: 'error',
    summary: 'an `expect` or `forbid` term that is only whitespace',
    *check({ yaml, index, test }) {
      for (const field of ['expect', 'forbid'] as const) {
        for (const [k, term] of test[field].entries()) {
          if (term.trim() === '') yield { at: ref(yaml, ['tests', index, field, k]), message: `\`${field}\` term ${k + 1} is only whitespace: it would be found in any translation` };
        }
      }
    },
  },
  {
    id: 'test/nothing-to-check',
    severity: 'error',
    summary: 'a glossary test with neither `expect` nor `forbid` terms',
    *check({ yaml, index, test }) {
      if (test.expect.length === 0 && test.forbid.length === 0) yield { at: ref(yaml, ['tests', index]), message: 'the test has neither `expect` nor `forbid` terms: it cannot fail' };
    },
  },
  {
    id: 'test/expect-and-forbid',
    severity: 'error',
    summary: 'a term both expected and forbidden by one test',
    *check({ yaml, index, test }) {
      const expected = new Set(test.expect.map((t) => t.trim().toLowerCase()));
      for (const [k, term] of test.forbid.entries()) {
        if (expected.has(term.trim().toLowerCase())) yield { at: ref(yaml, ['tests', index, 'forbid', k]), message: `${show(term)} is both expected and forbidden: the test can never pass` };
      }
    },
  },
];

/** A test's target language: a translation target (a listed variant) as it is, else checked as a glossary language. */
function testTarget(raw: string, at: SourceRef, diagnostics: Diagnostic[]): string {
  const code = raw.trim().toLowerCase();
  if (Object.hasOwn(TARGET_VARIANTS, code)) return code;
  if (applyRules([TARGET_VARIANT], { raw, at }, diagnostics) > 0) return code.split(/[-_]/)[0] ?? '';
  return checkLang(raw, 'glossary', at, diagnostics);
}

/** The `tests:` of a glossary: languages, a dictionary of the glossary for each, something to check. */
export function validateTests(yaml: YamlFile, input: GlossaryInput['tests'], dictionaries: readonly { readonly sourceLang: string; readonly targetLang: string }[], diagnostics: Diagnostic[]): GlossaryTest[] {
  const pairs = new Set(dictionaries.map((d) => `${d.sourceLang}-${d.targetLang}`));
  const pairList = dictionaries.map((d) => `${d.sourceLang} → ${d.targetLang}`).join(', ');
  return input.map((test, index): GlossaryTest => {
    const at = (field?: string): SourceRef => ref(yaml, field === undefined ? ['tests', index] : ['tests', index, field]);
    const sourceLang = checkLang(test.source_lang, 'glossary', at('source_lang'), diagnostics);
    const targetLang = testTarget(test.target_lang, at('target_lang'), diagnostics);
    applyRules(TEST_RULES, { yaml, index, test, sourceLang, targetBase: TARGET_VARIANTS[targetLang] ?? targetLang, pairs, pairList }, diagnostics);
    return { sourceLang, targetLang, text: test.text, expect: test.expect, forbid: test.forbid, origin: at() };
  });
}
