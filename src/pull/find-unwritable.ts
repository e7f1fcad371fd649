import { looksLikeSecret } from '../config/detect-secrets.js';
import { phraseProblem } from '../formats/common/collect-entries.js';
import { plainTextProblem } from '../config/rules/resource-rules.js';
import { displayText } from '../lib/display.js';
import type { Entries, LanguagePair } from '../model/entries.js';
import type { LiveInstruction } from '../model/live.js';

/**
 * What the service holds that the repository's files cannot: a phrase with a tab or a line break
 * inside, a control character (U+2028, U+0085, NUL …), an empty or over-long phrase, a value shaped
 * like a credential, a name or label that is not one line of plain text. `pull` and `import` look
 * for it with the validator's own rules (phraseProblem, plainTextProblem, looksLikeSecret) before
 * they write anything, and refuse: each value named where it is on the service, never written into
 * a repository that `validate` would then refuse.
 */

/** At most this many problems are named one by one; the rest are counted. */
export const MAX_UNWRITABLE_SHOWN = 100;

/** Where a value is on the service: `glossary "Shop" (id g1) on the service`. */
export interface ServiceResource {
  readonly kind: 'glossary' | 'style_rules';
  readonly name: string;
  readonly id: string;
}

/** A value as it is named in a message: quoted, clipped, with what a terminal would act on escaped (displayText). */
function named(value: string, max = 60): string {
  return `"${displayText(value.length > max ? `${value.slice(0, max)}…` : value)}"`;
}

function resourceName(r: ServiceResource): string {
  return `${r.kind === 'glossary' ? 'glossary' : 'style rule list'} ${named(r.name, 80)} (id ${named(r.id, 80)}) on the service`;
}

/** The problems of one dictionary's live entries (in the service's order), named by glossary, pair and entry. */
export function unwritableEntries(glossary: ServiceResource, pair: LanguagePair, entries: Entries): string[] {
  const problems: string[] = [];
  const where = `${resourceName(glossary)}, dictionary ${pair.sourceLang} → ${pair.targetLang}`;
  if (entries.size === 0) return [`${where}: holds no entries, and a dictionary of the repository may not be empty`];
  let n = 0;
  for (const [source, target] of entries) {
    n++;
    if (looksLikeSecret(source) || looksLikeSecret(target)) {
      problems.push(`${where}, entry ${n}: looks like a credential (not shown), which never belongs in a repository`);
      continue;
    }
    const problem = phraseProblem(source, 'source') ?? phraseProblem(target, 'target');
    if (problem !== undefined) problems.push(`${where}, entry ${n} (${named(source)}): ${problem.message} [${problem.code}]`);
  }
  return problems;
}

/** The problems of a live custom instruction written into a resource file: its label and prompt. */
export function unwritableInstruction(list: ServiceResource, instruction: LiveInstruction): string[] {
  const where = `${resourceName(list)}, custom instruction ${named(instruction.label)}`;
  const problems: string[] = [];
  if (looksLikeSecret(instruction.label) || looksLikeSecret(instruction.prompt)) problems.push(`${where}: looks like a credential (not shown), which never belongs in a repository`);
  for (const problem of [plainTextProblem(instruction.label, 'the label'), plainTextProblem(instruction.prompt, 'the prompt', true)]) {
    if (problem !== undefined) problems.push(`${where}: ${problem.message} [${problem.code}]`);
  }
  return problems;
}

/** The problems of a live resource's name written into a resource file (`import`). */
export function unwritableName(resource: ServiceResource): string[] {
  const problem = plainTextProblem(resource.name, 'its name');
  const credential = looksLikeSecret(resource.name) ? [`${resourceName(resource)}: its name looks like a credential, which never belongs in a repository`] : [];
  return [...credential, ...(problem === undefined ? [] : [`${resourceName(resource)}: ${problem.message} [${problem.code}]`])];
}

/**
 * The one-line summary of a refusal; the CLI prints the problems under it, one a line (see
 * unwritableLines), the daemon logs them with it.
 * `service`: values the service holds (named there); `files`: the files as they would be written
 * (located in them), which the validator would refuse.
 */
export function unwritableMessage(command: 'pull' | 'import', count: number, found: 'service' | 'files' = 'service'): string {
  const them = count === 1 ? 'it' : 'them';
  if (found === 'files') {
    return `${command} refused: the files it would write would not pass validate (${count === 1 ? 'a problem' : `${count} problems`}); nothing was written`;
  }
  return `${command} refused: the service holds ${count === 1 ? 'a value' : `${count} values`} the repository's files cannot hold (validate would refuse ${them}); correct ${them} on the service, or apply the repository over ${them}; nothing was written`;
}

/** The problems as lines to print under the summary: the first MAX_UNWRITABLE_SHOWN, then how many more. */
export function unwritableLines(problems: readonly string[]): string[] {
  const shown = problems.slice(0, MAX_UNWRITABLE_SHOWN).map((p) => `  ${displayText(p)}`);
  return problems.length > MAX_UNWRITABLE_SHOWN ? [...shown, `  … and ${problems.length - MAX_UNWRITABLE_SHOWN} more`] : shown;
}
