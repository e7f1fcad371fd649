import type { DictionaryChange, Plan, ResourceChange } from '../model/index.js';
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
  uploadText,
} from './format-plan.js';

export interface PlanMarkdownOptions {
  /** Hard limit of the comment (GitHub allows 65,536). */
  readonly maxChars?: number;
}

const DEFAULT_MAX_CHARS = 65_000;
/** Rule lines and instructions shown in one table cell. */
const MAX_DETAILS_IN_CELL = 5;

interface TermBlock {
  readonly title: string;
  /** Diff lines, one or two per term change. */
  readonly lines: readonly string[][];
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
      blocks.push({ title: blockTitle(change, d), lines: d.entryChanges.map(diffLines) });
    }
  }
  return blocks;
}

function blockTitle(change: ResourceChange, d: DictionaryChange): string {
  return `${ACTION_SYMBOL[change.action]} ${kindLabel(change)} ${escapeHtml(change.address.name)} · ${pairLabel(d)} ${entryCounts(d)} (${d.method})`;
}

function renderBlock(block: TermBlock, cap: number): { text: string; cut: number } {
  const shown = block.lines.slice(0, cap).flat();
  const cut = block.lines.length - Math.min(cap, block.lines.length);
  const fence = fenceFor(shown);
  const parts = [`<details><summary>${block.title}</summary>`, '', `${fence}diff`, ...shown, fence];
  if (cut > 0) parts.push('', `… and ${cut} more term changes`);
  parts.push('', '</details>');
  return { text: parts.join('\n'), cut };
}

interface Limits {
  /** Term changes shown per dictionary; 0 leaves the term blocks out. */
  readonly terms: number;
  readonly notManaged: number;
  readonly rows: number;
}

/**
 * A pull-request comment: marker, summary, warning banner, table of changes, term diffs in
 * collapsed blocks, not-managed list and guard violations. Within `maxChars`, term lists are cut
 * first, then the not-managed list; the summary and the table stay.
 */
export function renderPlanMarkdown(plan: Plan, options: PlanMarkdownOptions = {}): string {
  const maxChars = options.maxChars ?? DEFAULT_MAX_CHARS;
  const blocks = termBlocks(plan);
  const totalTerms = blocks.reduce((sum, b) => sum + b.lines.length, 0);
  const render = (limits: Limits): string => assemble(plan, blocks, totalTerms, limits);
  const mostTerms = Math.max(0, ...blocks.map((b) => b.lines.length));
  const full: Limits = { terms: mostTerms, notManaged: plan.notManaged.length, rows: plan.changes.length };
  let out = render(full);
  if (out.length <= maxChars) return out;

  // Largest number of terms per dictionary that fits, then (if even none fit) fewer other items.
  const fits = (limits: Limits): boolean => render(limits).length <= maxChars;
  const terms = largest(0, mostTerms, (n) => fits({ ...full, terms: n }));
  if (terms > 0 || fits({ ...full, terms: 0 })) return render({ ...full, terms });
  const notManaged = largest(0, plan.notManaged.length, (n) => fits({ ...full, terms: 0, notManaged: n }));
  if (fits({ ...full, terms: 0, notManaged })) return render({ ...full, terms: 0, notManaged });
  const rows = largest(0, plan.changes.length, (n) => fits({ terms: 0, notManaged: 0, rows: n }));
  out = render({ terms: 0, notManaged: 0, rows });
  // The fixed parts alone cannot exceed the limit unless it is absurdly small.
  return out.length <= maxChars ? out : out.slice(0, maxChars);
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

function assemble(plan: Plan, blocks: readonly TermBlock[], totalTerms: number, limits: Limits): string {
  const s = plan.summary;
  const out: string[] = [planMarker(plan.target), `### termsync plan for ${escapeMarkdown(plan.target)}`, ''];
  if (plan.changes.length === 0) {
    out.push(`**${NO_CHANGES}**`);
  } else {
    out.push(
      `**${summaryLine(s)}**`,
      '',
      `Dictionaries: ${dictionaryCounts(plan)} · entries +${s.entriesAdded} ~${s.entriesChanged} -${s.entriesRemoved} · API calls: ${callsText(s)} · ${uploadText(s)}`,
    );
  }
  const notRefreshed = notRefreshedLine(plan);
  if (notRefreshed !== undefined) out.push('', `_${notRefreshed}_`);
  if (plan.guards.length > 0) {
    out.push('', '> [!CAUTION]', `> Blocked by ${plan.guards.length === 1 ? 'a safety guard' : `${plan.guards.length} safety guards`}: nothing will be applied (see below).`);
  }
  const destructive = [
    ...destructiveChanges(plan.changes).map((c) => `${c.action} ${kindLabel(c)} ${escapeMarkdown(c.address.name)}`),
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
  if (limits.terms > 0 && blocks.length > 0) {
    let cut = 0;
    out.push('', '#### Term changes');
    for (const block of blocks) {
      const rendered = renderBlock(block, limits.terms);
      cut += rendered.cut;
      out.push('', rendered.text);
    }
    if (cut > 0) out.push('', `_${cut} of ${totalTerms} term changes were cut to keep this comment short; run \`termsync plan\` for all of them._`);
  } else if (totalTerms > 0) {
    out.push('', `_${totalTerms} term changes were cut to keep this comment short; run \`termsync plan\` for all of them._`);
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
