import type { TermChoice } from '../../model/entries.js';
import type { TermAt } from '../common/collect-concepts.js';

/* How a TBX term's usage status is read and which of a language's terms counts (see parse-tbx.ts). */

export type Usage = 'preferred' | 'admitted' | 'none' | 'refused';

/** Usage status values (see statusOf for the spellings) by what they mean for a term. */
const STATUS_VALUES: ReadonlyMap<string, Usage> = new Map([
  ['preferred', 'preferred'],
  ['standardized', 'preferred'],
  ['legal', 'preferred'],
  ['regulated', 'preferred'],
  ['admitted', 'admitted'],
  ['deprecated', 'refused'],
  ['superseded', 'refused'],
  ['notrecommended', 'refused'],
  ['obsolete', 'refused'],
  ['forbidden', 'refused'],
]);

/** How a status value is named in messages. */
const STATUS_WORDS: Readonly<Record<string, string>> = { notrecommended: 'not recommended' };

/**
 * A usage status value by its meaning, whatever its spelling: `preferredTerm-admn-sts` (TBX 2 and
 * TBX 3 Basic), `preferredTerm` (normativeAuthorization), `preferred` (TBX-Min), `notRecommended`,
 * `Not recommended`, `FORBIDDEN`: case, spaces, hyphens and underscores, a `Term` and an `-admn-sts`
 * ending do not matter. Undefined for a value that is none of them.
 */
export function statusOf(value: string): { usage: Usage; word: string } | undefined {
  let key = value.toLowerCase().replace(/[\s_-]+/g, '');
  if (key.endsWith('admnsts')) key = key.slice(0, -'admnsts'.length);
  if (key.endsWith('term')) key = key.slice(0, -'term'.length);
  const usage = STATUS_VALUES.get(key);
  return usage === undefined ? undefined : { usage, word: STATUS_WORDS[key] ?? key };
}

/**
 * Where a term's status is written: a field (`termNote`, `descrip`, `admin`) by its `type`, or an
 * element by its name; `standard` fields are the TBX data categories (an unknown value is an error),
 * the others fields that tools define themselves (an unknown value is only a warning).
 */
export const STATUS_FIELDS: ReadonlyMap<string, { standard: boolean }> = new Map([
  ['administrativestatus', { standard: true }],
  ['normativeauthorization', { standard: true }],
  ['termstatus', { standard: true }],
  ['usagestatus', { standard: false }],
  ['status', { standard: false }],
  ['usage', { standard: false }],
]);
export const FIELD_ELEMENTS: ReadonlySet<string> = new Set(['termNote', 'descrip', 'admin']);
export const STATUS_ELEMENTS: ReadonlySet<string> = new Set(['administrativeStatus', 'normativeAuthorization', 'termStatus']);

export function statusField(type: string): { standard: boolean } | undefined {
  return STATUS_FIELDS.get(type.toLowerCase().replace(/[\s_-]+/g, ''));
}

export interface Candidate extends TermAt {
  usage: Usage;
  /** The refusing status, for messages (`deprecated`, `forbidden`…). */
  word: string;
}

export const RANK: Readonly<Record<Usage, number>> = { preferred: 0, admitted: 1, none: 2, refused: 9 };

/** The term that counts among a language's terms (see TermChoice), or what refused them all. */
export function chooseTerm(candidates: readonly Candidate[], choice: TermChoice): { term?: TermAt; refused?: string } {
  let best: Candidate | undefined;
  for (const c of candidates) {
    if (c.usage === 'refused') continue;
    if (best === undefined || (choice === 'preferred' && RANK[c.usage] < RANK[best.usage])) best = c;
    if (choice === 'first') break;
  }
  if (best !== undefined) return { term: best };
  const words = [...new Set(candidates.map((c) => c.word))];
  return words.length === 0 ? {} : { refused: words.join(' or ') };
}
