import { type Diagnostic, error, show } from '../lib/diagnostics.js';
import type { DesiredGlossary, DesiredStyleRules } from '../model/desired.js';
import { PackedEntries } from '../model/packed-entries.js';

/** Glossaries per account (spec, "Limits"); every target receives every glossary of the repository. */
export const MAX_GLOSSARIES = 1000;

/**
 * The service's glossary size limit. The spec gives only "10 MiB (10485760 bytes)", not how a
 * glossary is measured; this counts what is actually sent (api/tsv-entries.ts encodeEntries):
 * per dictionary, `source\ttarget` lines joined by LF, no final newline, in UTF-8 bytes, summed
 * over the dictionaries. The service emulator measures the same (s + t + 1 per line, + 1 between
 * lines). A repository file's own size does not matter (CRLF, quotes, padding are not uploaded).
 */
export const MAX_GLOSSARY_BYTES = 10 * 1024 * 1024;

function where(ref: { file: string; line: number }): string {
  return `${ref.file}:${ref.line}`;
}

/** Exact size as uploaded: each line is s + tab + t + LF, less the LF after a dictionary's last line. */
export function glossaryBytes(glossary: DesiredGlossary): number {
  let bytes = 0;
  for (const d of glossary.dictionaries) {
    if (d.entries instanceof PackedEntries) {
      bytes += d.entries.utf8Bytes();
      continue;
    }
    if (d.entries.size > 0) bytes -= 1;
    for (const [s, t] of d.entries) bytes += Buffer.byteLength(s, 'utf8') + Buffer.byteLength(t, 'utf8') + 2;
  }
  return bytes;
}

/** Cheap upper bound of glossaryBytes (a UTF-16 code unit is at most 3 UTF-8 bytes): most glossaries need no exact count. */
function mayExceedLimit(glossary: DesiredGlossary): boolean {
  let units = 0;
  for (const d of glossary.dictionaries) {
    if (d.entries instanceof PackedEntries) units += d.entries.textLength;
    else for (const [s, t] of d.entries) units += s.length + t.length + 2;
  }
  return units * 3 > MAX_GLOSSARY_BYTES;
}

/** Rules across resources: unique names per kind, v2/v3 name clashes, account limits. Pure. */
export function validateRepository(glossaries: readonly DesiredGlossary[], styleRules: readonly DesiredStyleRules[]): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const byName = new Map<string, DesiredGlossary>();
  for (const glossary of glossaries) {
    const first = byName.get(glossary.name);
    const at = glossary.origin;
    if (first === undefined) byName.set(glossary.name, glossary);
    else if (first.api === glossary.api) {
      diagnostics.push(error('resource/duplicate-name', `glossary ${show(glossary.name)} is declared twice (also in ${where(first.origin)}); the name is its identity`, at.file, at.line, at.column));
    } else {
      diagnostics.push(
        error('glossary/v2-v3-same-name', `a ${glossary.api} and a ${first.api} glossary are both named ${show(glossary.name)} (the other in ${where(first.origin)}); the service lists v2 glossaries among v3 ones, so names must differ`, at.file, at.line, at.column),
      );
    }
    const bytes = mayExceedLimit(glossary) ? glossaryBytes(glossary) : 0;
    if (bytes > MAX_GLOSSARY_BYTES) {
      diagnostics.push(error('glossary/too-large', `glossary ${show(glossary.name)} holds ${bytes} bytes of entries as uploaded (TSV); the service's limit is ${MAX_GLOSSARY_BYTES} bytes (10 MiB)`, at.file, at.line, at.column));
    }
  }
  if (glossaries.length > MAX_GLOSSARIES) {
    const at = glossaries[MAX_GLOSSARIES]?.origin;
    if (at) {
      diagnostics.push(
        error('glossary/too-many', `the repository declares ${glossaries.length} glossaries; an account holds at most ${MAX_GLOSSARIES}, so every target would reject the ones after this`, at.file, at.line, at.column),
      );
    }
  }
  const styleByName = new Map<string, DesiredStyleRules>();
  for (const list of styleRules) {
    const first = styleByName.get(list.name);
    if (first === undefined) styleByName.set(list.name, list);
    else {
      const at = list.origin;
      diagnostics.push(error('resource/duplicate-name', `style rule list ${show(list.name)} is declared twice (also in ${where(first.origin)}); the name is its identity`, at.file, at.line, at.column));
    }
  }
  return diagnostics;
}
