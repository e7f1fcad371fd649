import { describe, expect, it } from 'vitest';
import type { Plan } from '../../src/model/index.js';
import { createPlan } from '../../src/plan/index.js';
import { renderPlanMarkdown } from '../../src/report/index.js';
import { desiredState, glossary, liveState } from '../plan/builders.js';
import { samplePlan } from './fixtures.js';

function terms(n: number, prefix = 't'): Record<string, string> {
  return Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i} source phrase`, `${prefix}${i} target phrase`]));
}

/** Table rows: lines of the one markdown table. */
function tableRows(md: string): string[] {
  return md.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| Action'));
}

/** Pipes that are cell borders (not escaped). */
function borders(row: string): number {
  return (row.match(/(?<!\\)\|/g) ?? []).length;
}

describe('renderPlanMarkdown', () => {
  const md = renderPlanMarkdown(samplePlan());
  const lines = md.split('\n');

  it('starts with the hidden marker, then the summary', () => {
    expect(lines[0]).toBe('<!-- termsync-plan target=default -->');
    expect(lines).toContain('**Plan: 2 to add, 2 to change, 2 to destroy.**');
  });

  it('warns when anything is deleted or replaced, and not otherwise', () => {
    const at = lines.indexOf('> [!WARNING]');
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toBe('> This plan deletes or replaces: replace glossary Alpha (its id changes), delete glossary termsync:gone.');
    const dropsDictionary = createPlan({
      target: 'd',
      desired: desiredState({ glossaries: [glossary('G', { 'en-de': { a: 'A' } })] }),
      live: liveState({ glossaries: [{ id: 'g', name: 'G', dicts: { 'en-de': { a: 'A' }, 'en-it': { a: 'B' } } }] }),
    });
    expect(renderPlanMarkdown(dropsDictionary)).toContain('> [!WARNING]\n> This plan deletes or replaces: delete dictionary en-it of glossary G.\n');
    const createOnly = createPlan({ target: 'd', desired: desiredState({ glossaries: [glossary('G', { 'en-de': { a: 'A' } })] }), live: liveState() });
    expect(renderPlanMarkdown(createOnly)).not.toContain('[!WARNING]');
  });

  it('has a table row per changed resource', () => {
    const rows = tableRows(md);
    expect(rows).toHaveLength(5);
    expect(rows[0]).toBe('| `-/+` replace | **Alpha** (glossary v2, id g-alpha) | en-de \\~1 entry (POST) | immutable v2 → replace (create new, then delete old) |');
    for (const row of rows) expect(borders(row)).toBe(5);
  });

  it('puts term diffs in collapsed diff blocks, a changed term as a -/+ pair', () => {
    const start = lines.indexOf('<details><summary>-/+ glossary Alpha · en-de ~1 entry (POST)</summary>');
    expect(start).toBeGreaterThan(0);
    expect(lines.slice(start + 1, start + 8)).toEqual(['', '```diff', '- a → A', '+ a → A2', '```', '', '</details>']);
  });

  it('lists not-managed resources and guard violations', () => {
    expect(lines[lines.indexOf('#### Not managed by this repository') + 2]).toBe('- glossary Manual (id g-manual)');
    expect(lines[lines.indexOf('#### Guard violations') + 2]).toMatch(/^- \*\*prevent_destroy\*\*: glossary "Alpha" declares prevent\\_destroy/);
    expect(lines).toContain('> [!CAUTION]');
  });

  it('escapes names and terms so they cannot break the table or inject HTML', () => {
    const name = 'a | b `code` <img src=x onerror=alert(1)> **bold**';
    const p = createPlan({
      target: 'default',
      desired: desiredState({ glossaries: [glossary(name, { 'en-de': { '<script>alert(1)</script>': '``` | x' } })] }),
      live: liveState(),
    });
    const out = renderPlanMarkdown(p);
    const [row] = tableRows(out);
    expect(borders(row ?? '')).toBe(5);
    expect(row).toContain('a \\| b \\`code\\` &lt;img src=x onerror=alert(1)&gt; \\*\\*bold\\*\\*');
    expect(out).not.toContain('<img');
    expect(out).toContain('<summary>+ glossary a | b `code` &lt;img src=x onerror=alert(1)&gt; **bold** · en-de +1 entry (POST)</summary>');
    // The term sits in a code block whose fence is longer than any backtick run inside it.
    expect(out).toContain('````diff\n+ <script>alert(1)</script> → ``` | x\n````');
  });

  it('says no changes when there are none', () => {
    const p = createPlan({ target: 'd', desired: desiredState(), live: liveState() });
    expect(renderPlanMarkdown(p)).toContain('**No changes. The service matches the repository.**');
  });
});

describe('renderPlanMarkdown size limit', () => {
  function hugePlan(): Plan {
    return createPlan({
      target: 'default',
      desired: desiredState({
        glossaries: [
          glossary('Big', { 'en-de': terms(4_000, 'd'), 'en-fr': terms(4_000, 'f') }),
          glossary('Small', { 'en-de': terms(3, 's') }),
        ],
      }),
      live: liveState({ glossaries: [{ id: 'b', name: 'Big', dicts: { 'en-de': terms(1_000, 'old') } }] }),
    });
  }

  it('never exceeds 65,000 characters: term lists are cut first, the summary and table stay', () => {
    const p = hugePlan();
    const out = renderPlanMarkdown(p);
    expect(out.length).toBeLessThanOrEqual(65_000);
    expect(out.length).toBeGreaterThan(50_000);
    expect(out).toContain('**Plan: 1 to add, 1 to change, 0 to destroy.**');
    expect(tableRows(out)).toHaveLength(2);
    expect(out).toContain('<details><summary>+ glossary Small · en-de +3 entries (POST)</summary>');
    const total = p.changes.flatMap((c) => c.dictionaries).reduce((n, d) => n + d.entryChanges.length, 0);
    expect(out).toMatch(new RegExp(`_\\d+ of ${total} term changes were cut to keep this comment short`));
    expect(out).toMatch(/… and \d+ more term changes/);
  });

  it('honours a smaller limit, dropping the term blocks and then the not-managed list', () => {
    const p = hugePlan();
    const withManaged: Plan = { ...p, notManaged: Array.from({ length: 500 }, (_, i) => ({ kind: 'glossary' as const, name: `manual ${i}`, id: `m${i}` })) };
    const out = renderPlanMarkdown(withManaged, { maxChars: 3_000 });
    expect(out.length).toBeLessThanOrEqual(3_000);
    expect(out).toContain('**Plan: 1 to add, 1 to change, 0 to destroy.**');
    expect(tableRows(out)).toHaveLength(2);
    expect(out).not.toContain('<details>');
    expect(out).toMatch(/- … and \d+ more/);
  });

  it('cuts table rows only when the table alone is too long, and says so', () => {
    const many = createPlan({
      target: 'default',
      desired: desiredState({ glossaries: Array.from({ length: 1_000 }, (_, i) => glossary(`Glossary number ${i}`, { 'en-de': { a: 'A' } })) }),
      live: liveState(),
    });
    const out = renderPlanMarkdown(many);
    expect(out.length).toBeLessThanOrEqual(65_000);
    expect(out).toContain('**Plan: 1000 to add, 0 to change, 0 to destroy.**');
    expect(tableRows(out).length).toBeGreaterThan(100);
    expect(out).toMatch(/_… and \d+ more resource changes; run `termsync plan` for all of them._/);
  });
});
