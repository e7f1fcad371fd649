import type { DictionaryChange, EntryChange, Plan, ResourceChange } from '../model/index.js';
import { describeCalls, type CallDescription } from './describe-operation.js';
import { escapeHtml, escapeMarkdown, fenceFor } from './escape-markdown.js';
import {
  ACTION_SYMBOL,
  NO_CHANGES,
  callsText,
  destructiveChanges,
  dictionaryCounts,
  diffLines,
  entryCounts,
  kindLabel,
  notRefreshedLine,
  pairLabel,
  summaryLine,
  duplicateGroupText,
  duplicatesLine,
  uploadText,
} from './format-plan.js';

export interface PlanMarkdownOptions {
  /** Hard limit of the comment (GitHub allows 65,536). */
  readonly maxChars?: number;
}

const DEFAULT_MAX_CHARS = 65_000;
/** Rule lines and instructions shown in one table cell. */
const MAX_DETAILS_IN_CELL = 5;
/** Up to this many API calls are listed openly; more go in a collapsed block. */
const OPEN_CALLS = 10;

interface TermBlock {
  readonly title: string;
  /** The term changes, each shown as one or two diff lines (made only for those shown). */
  readonly changes: readonly EntryChange[];
}

/** Identifies the comment so a CI step can update it in place. */
export function planMarker(target: string): string {
  return `<!-- termsync-plan target=${encodeURIComponent(target)} -->`;
}

function resourceCell(change: ResourceChange): string {
  const facts = [change.address.kind === 'glossary' ? `glossary${change.api === undefined ? '' : ` ${change.api}`}` : 'style rules'];
  if (change.liveId !== undefined) facts.push(`id ${escapeMarkdown(change.liveId)}`);
  return `**${escapeMarkdown(change.address.name)}** (${facts.join(', ')})`;
}

function changesCell(change: ResourceChange): string {
  const parts = change.dictionaries.map((d) => escapeMarkdown(`${pairLabel(d)} ${entryCounts(d)} (${d.method})`));
  const details = change.details.slice(0, MAX_DETAILS_IN_CELL).map(escapeMarkdown);
  if (change.details.length > MAX_DETAILS_IN_CELL) details.push(`… and ${change.details.length - MAX_DETAILS_IN_CELL} more`);
  return [...parts, ...details].join('<br>') || '—';
}

function tableRow(change: ResourceChange): string {
  const action = `\`${ACTION_SYMBOL[change.action]}\` ${change.action}`;
  return `| ${action} | ${resourceCell(change)} | ${changesCell(change)} | ${change.reasons.map(escapeMarkdown).join('<br>')} |`;
}

function termBlocks(plan: Plan): TermBlock[] {
  const blocks: TermBlock[] = [];
  for (const change of plan.changes) {
    for (const d of change.dictionaries) {
      if (d.entryChanges.length === 0) continue;
      blocks.push({ title: blockTitle(change, d), changes: d.entryChanges });
    }
  }
  return blocks;
}

function blockTitle(change: ResourceChange, d: DictionaryChange): string {
  return `${ACTION_SYMBOL[change.action]} ${kindLabel(change)} ${escapeHtml(change.address.name)} · ${pairLabel(d)} ${entryCounts(d)} (${d.method})`;
}

function renderBlock(block: TermBlock, cap: number): { text: string; cut: number } {
  const shown = block.changes.slice(0, cap).flatMap(diffLines);
  const cut = block.changes.length - Math.min(cap, block.changes.length);
  const fence = fenceFor(shown);
  const parts = [`<details><summary>${block.title}</summary>`, '', `${fence}diff`, ...shown, fence];
  if (cut > 0) parts.push('', `… and ${cut} more term changes`);
  parts.push('', '</details>');
  return { text: parts.join('\n'), cut };
}

interface Limits {
  /** Term changes shown per dictionary; 0 leaves the term blocks out. */
  readonly terms: number;
  /** API calls listed. */
  readonly calls: number;
  readonly notManaged: number;
  readonly rows: number;
}

/** What is cut, in this order, when the comment is too long: the summary and banners always stay. */
const CUT_ORDER = ['terms', 'calls', 'notManaged', 'rows'] as const;

/**
 * A pull-request comment: marker, summary, warning banner, table of changes, the API calls in
 * order, term diffs in collapsed blocks, not-managed list and guard violations. Within `maxChars`,
 * term lists are cut first, then the call list, then the not-managed list, then table rows; every
 * cut is counted in the comment.
 */
export function renderPlanMarkdown(plan: Plan, options: PlanMarkdownOptions = {}): string {
  const maxChars = options.maxChars ?? DEFAULT_MAX_CHARS;
  const blocks = termBlocks(plan);
  const calls = describeCalls(plan);
  const totalTerms = blocks.reduce((sum, b) => sum + b.changes.length, 0);
  const render = (limits: Limits, budget?: number): string => assemble(plan, blocks, calls, totalTerms, limits, budget);
  // A render that outgrows the limit stops adding term blocks: too long already, whatever follows.
  const fits = (limits: Limits): boolean => render(limits, maxChars).length <= maxChars;
  let limits: Limits = {
    terms: Math.max(0, ...blocks.map((b) => b.changes.length)),
    calls: calls.length,
    notManaged: plan.notManaged.length,
    rows: plan.changes.length,
  };
  if (fits(limits)) return render(limits);
  // Each kind in turn: the largest number that fits with the kinds before it already at zero.
  for (const kind of CUT_ORDER) {
    const most = limits[kind];
    const n = largest(0, most, (k) => fits({ ...limits, [kind]: k }));
    limits = { ...limits, [kind]: n };
    if (fits(limits)) return render(limits);
  }
  // The fixed parts alone cannot exceed the limit unless it is absurdly small.
  return render(limits).slice(0, maxChars);
}

/** Largest n in [lo, hi] with ok(n), assuming ok is monotone (true then false); lo when none. */
function largest(lo: number, hi: number, ok: (n: number) => boolean): number {
  let best = lo;
  let a = lo;
  let b = hi;
  while (a <= b) {
    const mid = Math.floor((a + b) / 2);
    if (ok(mid)) {
      best = mid;
      a = mid + 1;
    } else {
      b = mid - 1;
    }
  }
  return best;
}

function callLine(call: CallDescription, position: number): string {
  const kind = call.resource.kind === 'glossary' ? 'glossary' : 'style rules';
  const quoted = call.quoted === undefined ? '' : ` "${escapeMarkdown(call.quoted)}"`;
  const after = call.after.length === 0 ? '' : ` (after ${call.after.join(', ')})`;
  return `${position}. \`${call.request}\` ${kind} **${escapeMarkdown(call.resource.name)}**: ${call.action}${quoted}${after}`;
}

function callSection(calls: readonly CallDescription[], shown: number): string[] {
  const lines = calls.slice(0, shown).map((c, i) => callLine(c, i + 1));
  if (shown < calls.length) lines.push('', `_… and ${calls.length - shown} more API calls; run \`termsync plan --format json\` for all of them._`);
  if (calls.length <= OPEN_CALLS) return ['', '#### API calls, in order', '', ...lines];
  return ['', `<details><summary>${calls.length} API calls, in order</summary>`, '', ...lines, '', '</details>'];
}

/**
 * The comment with these limits. `budget`: only whether it fits is asked, and once the text is longer
 * no further term block is rendered (a plan that creates a thousand glossaries holds millions of
 * term changes; each try of the cut would otherwise render them all).
 */
function assemble(plan: Plan, blocks: readonly TermBlock[], calls: readonly CallDescription[], totalTerms: number, limits: Limits, budget = Infinity): string {
  const s = plan.summary;
  const out: string[] = [planMarker(plan.target), `### termsync plan for target ${escapeMarkdown(plan.target)}`, ''];
  if (plan.changes.length === 0) {
    out.push(`**${NO_CHANGES}**`);
  } else {
    out.push(
      `**${summaryLine(s)}**`,
      '',
      `Dictionaries: ${dictionaryCounts(plan)} · entries +${s.entriesAdded} ~${s.entriesChanged} -${s.entriesRemoved} · API calls: ${callsText(s)} · ${uploadText(s)}`,
    );
    const duplicates = duplicatesLine(plan);
    if (duplicates !== undefined) out.push('', escapeMarkdown(duplicates));
  }
  const notRefreshed = notRefreshedLine(plan);
  if (notRefreshed !== undefined) out.push('', `_${notRefreshed}_`);
  if (plan.guards.length > 0) {
    out.push('', '> [!CAUTION]', `> Blocked by ${plan.guards.length === 1 ? 'a safety guard' : `${plan.guards.length} safety guards`}: nothing will be applied (see below).`);
  }
  const destructive = [
    // Consumers hold ids: a replaced resource keeps its name but not its id.
    ...destructiveChanges(plan.changes).map((c) => `${c.action} ${kindLabel(c)} ${escapeMarkdown(c.address.name)}${c.action === 'replace' ? ' (its id changes)' : ''}`),
    ...plan.changes
      .filter((c) => c.action === 'update')
      .flatMap((c) => c.dictionaries.filter((d) => d.action === 'delete').map((d) => `delete dictionary ${pairLabel(d)} of ${kindLabel(c)} ${escapeMarkdown(c.address.name)}`)),
  ];
  if (destructive.length > 0) {
    const listed = destructive.slice(0, 10);
    if (destructive.length > 10) listed.push(`and ${destructive.length - 10} more`);
    out.push('', '> [!WARNING]', `> This plan deletes or replaces: ${listed.join(', ')}.`);
  }
  if (plan.changes.length > 0) {
    out.push('', '| Action | Resource | Changes | Why |', '|---|---|---|---|');
    for (const change of plan.changes.slice(0, limits.rows)) out.push(tableRow(change));
    if (limits.rows < plan.changes.length) out.push('', `_… and ${plan.changes.length - limits.rows} more resource changes; run \`termsync plan\` for all of them._`);
  }
  if (calls.length > 0) {
    if (limits.calls > 0) out.push(...callSection(calls, limits.calls));
    else out.push('', `_The list of the ${calls.length} API calls was cut to keep this comment short; run \`termsync plan --format json\` for all of them._`);
  }
  if (limits.terms > 0 && blocks.length > 0) {
    let cut = 0;
    out.push('', '#### Term changes');
    let length = out.reduce((sum, line) => sum + line.length + 1, 0);
    for (const block of blocks) {
      if (length > budget) break;
      const rendered = renderBlock(block, limits.terms);
      cut += rendered.cut;
      out.push('', rendered.text);
      length += rendered.text.length + 2;
    }
    if (cut > 0) out.push('', `_${cut} of ${totalTerms} term changes were cut to keep this comment short; run \`termsync plan\` for all of them._`);
  } else if (totalTerms > 0) {
    out.push('', `_${totalTerms} term changes were cut to keep this comment short; run \`termsync plan\` for all of them._`);
  }
  if (plan.duplicates !== undefined && plan.duplicates.length > 0) {
    out.push('', '#### Duplicates', '');
    for (const g of plan.duplicates) out.push(`- ${duplicateGroupText(g, escapeMarkdown)}`);
  }
  if (plan.warnings !== undefined && plan.warnings.length > 0) {
    out.push('', '#### Warnings', '');
    for (const w of plan.warnings) out.push(`- ${w.resource.kind === 'glossary' ? 'glossary' : 'style rules'} **${escapeMarkdown(w.resource.name)}**: ${escapeMarkdown(w.message)}`);
  }
  if (plan.notManaged.length > 0) {
    out.push('', '#### Not managed by this repository', '');
    for (const r of plan.notManaged.slice(0, limits.notManaged)) out.push(`- ${r.kind === 'glossary' ? 'glossary' : 'style rules'} ${escapeMarkdown(r.name)} (id ${escapeMarkdown(r.id)})`);
    if (limits.notManaged < plan.notManaged.length) out.push(`- … and ${plan.notManaged.length - limits.notManaged} more`);
  }
  if (plan.guards.length > 0) {
    out.push('', '#### Guard violations', '');
    for (const g of plan.guards) out.push(`- **${g.guard}**: ${escapeMarkdown(g.message)}`);
  }
  return `${out.join('\n')}\n`;
}
