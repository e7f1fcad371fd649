import type { CheckResult, VerifyCheck } from '../model/verify.js';

/** How terms are compared: NFC, case folded for the language (an inflected form that contains the term counts). */
function fold(text: string, lang: string): string {
  const nfc = text.normalize('NFC');
  try {
    return nfc.toLocaleLowerCase(lang);
  } catch {
    return nfc.toLowerCase();
  }
}

/** Judges one translation: every expected term present, no forbidden term present. */
export function checkTranslation(check: VerifyCheck, translation: string): CheckResult {
  const lang = check.dictionaryTarget;
  const text = fold(translation, lang);
  const missing = check.expect.filter((term) => !text.includes(fold(term.trim(), lang)));
  const forbidden = check.forbid.filter((term) => text.includes(fold(term.trim(), lang)));
  return { check, status: missing.length === 0 && forbidden.length === 0 ? 'pass' : 'fail', translation, missing, forbidden };
}

/** A check that could not be sent (its glossary or dictionary is not on the service): it fails. */
export function unsentCheck(check: VerifyCheck, problem: string): CheckResult {
  return { check, status: 'fail', missing: [], forbidden: [], problem };
}
