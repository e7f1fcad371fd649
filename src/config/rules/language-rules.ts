import { show } from '../../lib/diagnostics.js';
import { checkLanguage, languageList, type LanguageCheck } from '../../lib/languages.js';
import type { Diagnostic } from '../../lib/diagnostics.js';
import type { SourceRef } from '../../model/desired.js';
import { applyRules, type Problem, type Rule } from './rule.js';

/** A language code as declared, for a glossary (its dictionaries, tests) or a style rule list. */
export interface LanguageSubject {
  readonly raw: string;
  readonly allowed: 'glossary' | 'style_rules';
  readonly at: SourceRef;
}

/** The problems of one kind checkLanguage finds in a code. */
function* found<K extends LanguageCheck['kind']>(s: LanguageSubject, kind: K, message: (result: Extract<LanguageCheck, { kind: K }>) => string): Iterable<Problem> {
  for (const result of checkLanguage(s.raw, s.allowed)) if (result.kind === kind) yield { at: s.at, message: message(result as Extract<LanguageCheck, { kind: K }>) };
}

export const LANGUAGE_RULES: readonly Rule<LanguageSubject>[] = [
  {
    id: 'lang/not-lowercase',
    severity: 'warning',
    summary: 'a language code not written in lowercase',
    check: (s) => found(s, 'not-lowercase', (r) => `language code ${show(s.raw)} is written as ${show(r.code)} in canonical form`),
  },
  {
    id: 'lang/thai',
    severity: 'warning',
    summary: 'a glossary in Thai, which the service lists but may refuse',
    check: (s) =>
      found(s, 'thai', () => 'the service lists `th` among glossary languages but also says glossaries cannot be created in Thai: the service may reject this dictionary (the emulator of `termsync emulator` does)'),
  },
  {
    id: 'lang/region-variant',
    severity: 'error',
    summary: 'a regional or script variant (`de-DE`) where the base code is used',
    check: (s) =>
      found(
        s,
        'region-variant',
        (r) => `${show(s.raw)} is a regional or script variant; ${s.allowed === 'glossary' ? 'glossaries use' : 'style rules use'} the base code ${show(r.base)}${s.allowed === 'glossary' ? ', which applies to every variant' : ''}`,
      ),
  },
  {
    id: 'lang/unknown',
    severity: 'error',
    summary: 'a glossary language code the service does not know',
    check: (s) => (s.allowed !== 'glossary' ? [] : found(s, 'unknown', () => `unknown glossary language ${show(s.raw)}; expected one of: ${languageList('glossary')}`)),
  },
  {
    id: 'style/language',
    severity: 'error',
    summary: 'a style rule language the service does not know',
    check: (s) => (s.allowed !== 'style_rules' ? [] : found(s, 'unknown', () => `unknown style rule language ${show(s.raw)}; expected one of: ${languageList('style_rules')}`)),
  },
];

/** Checks a declared language code by LANGUAGE_RULES; returns the code to use (lowercase, a variant's base). */
export function checkLang(raw: string, allowed: 'glossary' | 'style_rules', at: SourceRef, diagnostics: Diagnostic[]): string {
  applyRules(LANGUAGE_RULES, { raw, allowed, at }, diagnostics);
  const variant = checkLanguage(raw, allowed).find((r) => r.kind === 'region-variant');
  return variant?.kind === 'region-variant' ? variant.base : raw.trim().toLowerCase();
}
