import { describe, expect, it } from 'vitest';
import type { Plan } from '../../src/model/index.js';
import { createPlan } from '../../src/plan/index.js';
import { renderPlanMarkdown } from '../../src/report/index.js';
import { desiredState, glossary, liveState, styleRules } from '../plan/builders.js';

/**
 * The pull-request comment as reviewers see it, one file per case under `__snapshots__/markdown/`
 * (open them on the code host to see them rendered). A change to the renderer shows up as a diff of
 * these files; `vitest -u` accepts it.
 */
const snapshot = (name: string): string => `./__snapshots__/markdown/${name}.md`;

function terms(n: number, prefix: string, target = 'target'): Record<string, string> {
  return Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix} ${String(i).padStart(5, '0')}`, `${target} ${i}`]));
}

function tableRows(md: string): string[] {
  return md.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| Action'));
}

describe('markdown comment snapshots', () => {
  it('no changes', async () => {
    const plan = createPlan({
      target: 'default',
      desired: desiredState({ glossaries: [glossary('Product terms', { 'en-de': { cart: 'Warenkorb' } })] }),
      live: liveState({ glossaries: [{ id: 'g-1', name: 'Product terms', dicts: { 'en-de': { cart: 'Warenkorb' } } }] }),
    });
    const md = renderPlanMarkdown(plan);
    expect(md).toContain('**No changes. The service matches the repository.**');
    expect(md).not.toContain('[!WARNING]');
    await expect(md).toMatchFileSnapshot(snapshot('no-changes'));
  });

  it('additions only: no banner, every call listed', async () => {
    const plan = createPlan({
      target: 'default',
      desired: desiredState({
        glossaries: [
          glossary('Product terms', { 'en-de': { cart: 'Warenkorb', checkout: 'Kasse', wishlist: 'Wunschliste' } }),
          glossary('Legal', { 'en-fr': { invoice: 'facture' } }),
        ],
        styleRules: [styleRules('Marketing (German)', { instructions: [{ label: 'Formal address', prompt: 'Address the reader formally.' }] })],
      }),
      live: liveState({ glossaries: [{ id: 'g-1', name: 'Product terms', dicts: { 'en-de': { cart: 'Warenkorb' } } }] }),
    });
    const md = renderPlanMarkdown(plan);
    expect(md).toContain('**Plan: 2 to add, 1 to change, 0 to destroy.**');
    expect(md).not.toContain('[!WARNING]');
    expect(md).toContain('1. `POST /v3/glossaries` glossary **Legal**: create glossary with en-fr (1 entry)');
    await expect(md).toMatchFileSnapshot(snapshot('additions-only'));
  });

  it('a deletion: the banner names what goes', async () => {
    const plan = createPlan({
      target: 'default',
      desired: desiredState(
        { glossaries: [glossary('Northwind Product terms', { 'en-de': { cart: 'Warenkorb' } })] },
        { prune: 'owned', ownedNames: 'Northwind *' },
      ),
      live: liveState({
        glossaries: [
          { id: 'g-1', name: 'Northwind Product terms', dicts: { 'en-de': { cart: 'Warenkorb' }, 'en-it': { cart: 'carrello' } } },
          { id: 'g-2', name: 'Northwind Old campaign', dicts: { 'en-de': { sale: 'Schlussverkauf', deal: 'Angebot' } } },
          { id: 'g-3', name: 'Hand-made glossary', dicts: {} },
        ],
      }),
    });
    const md = renderPlanMarkdown(plan);
    expect(md).toContain(
      '> [!WARNING]\n> This plan deletes or replaces: delete glossary Northwind Old campaign, delete dictionary en-it of glossary Northwind Product terms.\n',
    );
    expect(md).toContain('`DELETE /v3/glossaries/g-2` glossary **Northwind Old campaign**: delete v3 glossary');
    await expect(md).toMatchFileSnapshot(snapshot('deletion'));
  });

  it('a v2 replacement: create the new glossary first, then delete the old one', async () => {
    const plan = createPlan({
      target: 'default',
      desired: desiredState({ glossaries: [glossary('Support macros', { 'en-de': { parcel: 'Paket', refund: 'Erstattung' } }, { api: 'v2' })] }),
      live: liveState({ glossaries: [{ id: 'v2-old', name: 'Support macros', api: 'v2', dicts: { 'en-de': { parcel: 'Paket', refund: 'Rückerstattung' } } }] }),
    });
    const md = renderPlanMarkdown(plan);
    expect(md).toContain('> This plan deletes or replaces: replace glossary Support macros (its id changes).');
    expect(md).toContain('1. `POST /v2/glossaries` glossary **Support macros**: create v2 glossary with en-de (2 entries)');
    expect(md).toContain('2. `DELETE /v2/glossaries/v2-old` glossary **Support macros**: delete v2 glossary (after 1)');
    await expect(md).toMatchFileSnapshot(snapshot('v2-replacement'));
  });

  it('50,000 changed terms: under 65,000 characters, summary and table intact, the cut counted', async () => {
    const before = terms(50_000, 'term', 'old');
    const after = terms(50_000, 'term', 'new');
    const plan: Plan = createPlan({
      target: 'default',
      desired: desiredState({ glossaries: [glossary('Catalogue', { 'en-de': after }), glossary('Small', { 'en-fr': { a: 'b' } })] }),
      live: liveState({ glossaries: [{ id: 'g-cat', name: 'Catalogue', dicts: { 'en-de': before } }] }),
    });
    const md = renderPlanMarkdown(plan);
    expect(md.length).toBeLessThanOrEqual(65_000);
    expect(md).toContain('**Plan: 1 to add, 1 to change, 0 to destroy.**');
    expect(md).toContain('entries +1 ~50000 -0');
    expect(tableRows(md)).toEqual([
      '| `~` update | **Catalogue** (glossary v3, id g-cat) | en-de \\~50000 entries (PATCH) | en-de: entries added or changed only → PATCH |',
      '| `+` create | **Small** (glossary v3) | en-fr +1 entry (POST) | not on the service → create |',
    ]);
    const shownInBlock = Number(/… and (\d+) more term changes/.exec(md)?.[1]);
    const cut = /_(\d+) of 50001 term changes were cut to keep this comment short/.exec(md);
    expect(cut).not.toBeNull();
    // The count is exact: the diff lines shown plus the cut make up every term change.
    const diffPairs = md.split('\n').filter((l) => l.startsWith('+ term ')).length;
    expect(diffPairs + Number(cut?.[1])).toBe(50_000);
    expect(shownInBlock).toBe(Number(cut?.[1]));
    await expect(md).toMatchFileSnapshot(snapshot('50000-terms'));
  });

  it('names and terms with @mentions, #references and HTML: no ping, no link, no markup', async () => {
    const name = '@product-team <b>Terms</b> for #123 & GH-7 !45';
    const plan = createPlan({
      target: 'default',
      desired: desiredState(
        {
          glossaries: [glossary(name, { 'en-de': { '@here please review #9': '<img src=x onerror=alert(1)> @everyone' } })],
          styleRules: [styleRules('Style for @octocat', { instructions: [{ label: 'Ping @admins in #42', prompt: 'Be formal.' }] })],
        },
        { prune: 'off' },
      ),
      live: liveState({ styleRules: [{ id: 's-1', name: 'Style for @octocat', version: 1 }] }),
    });
    const md = renderPlanMarkdown(plan);
    // Outside code, no `@` is followed by a name and no `#`/`!`/`GH-` by a number.
    const outsideCode = md.replace(/^(`{3,})diff\n[\s\S]*?\n\1$/gm, '').replace(/`[^`\n]*`/g, '');
    expect(outsideCode).not.toMatch(/<(?!!--|br>|details>|\/details>|summary>|\/summary>)/);
    // As the code host reads the text: entities decoded.
    const text = outsideCode.replace(/&#8203;/g, '\u200b').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
    expect(text).not.toMatch(/@[\w-]/);
    expect(text).not.toMatch(/(#|!|&|GH-)\d/i);
    expect(md).toContain('**@&#8203;product-team &lt;b&gt;Terms&lt;/b&gt; for #&#8203;123 &amp; GH-&#8203;7 !&#8203;45**');
    // Terms sit in a diff block, where neither platform links or renders anything.
    expect(md).toContain('+ @here please review #9 → <img src=x onerror=alert(1)> @everyone');
    await expect(md).toMatchFileSnapshot(snapshot('mentions-and-html'));
  });
});
