import { describe, expect, it } from 'vitest';
import { escapeText, html, trustedHtml } from '../../../src/daemon/dashboard/html.js';
import { renderPlanHtml } from '../../../src/daemon/dashboard/render-plan-html.js';
import type { Plan } from '../../../src/model/index.js';
import { renderPlanMarkdown } from '../../../src/report/index.js';

const HOSTILE = ['<img src=x onerror=alert(1)>', '</script><script>alert(2)</script>', 'bidi \u202egnp.exe', '" onmouseover="alert(3)', "' autofocus onfocus='alert(4)"];

describe("the dashboard's markup", () => {
  it('escapes every interpolated string, in text and in attributes; bidirectional controls are shown as escapes', () => {
    for (const text of HOSTILE) {
      const out = html`<p title="${text}">${text}</p>`.text;
      expect(out).not.toMatch(/<img|<script|<\/script|" onmouseover|' autofocus/);
      expect(out).not.toContain('\u202e');
    }
    expect(escapeText('bidi \u202egnp.exe')).toBe('bidi \\u202egnp.exe');
    expect(escapeText('a & b < c > d " e \' f')).toBe('a &amp; b &lt; c &gt; d &quot; e &#39; f');
    expect(escapeText('line\nbreak')).toBe('line\\nbreak');
  });

  it('keeps markup made here as it is, joins lists, and leaves out nothing values', () => {
    const inner = html`<b>${'<i>'}</b>`;
    expect(html`<p>${inner}${[1, ' & ', trustedHtml('<br>')]}${undefined}${null}${false}</p>`.text).toBe('<p><b>&lt;i&gt;</b>1 &amp; <br></p>');
  });
});

function hostilePlan(): Plan {
  const name = HOSTILE[0] ?? '';
  return {
    formatVersion: '1.0',
    target: 'default',
    operations: [{ key: 'op-1', dependsOn: [], resource: { kind: 'glossary', name }, type: 'glossary.patch', glossaryId: 'g-1', dictionary: { sourceLang: 'en', targetLang: 'de', entries: [[HOSTILE[1] ?? '', 'x']] } }],
    changes: [
      {
        address: { kind: 'glossary', name },
        action: 'update',
        api: 'v3',
        reasons: [HOSTILE[3] ?? ''],
        liveId: 'g-1',
        dictionaries: [
          {
            sourceLang: 'en',
            targetLang: 'de',
            action: 'update',
            method: 'PATCH',
            added: 1,
            changed: 1,
            removed: 0,
            entriesBefore: 1,
            entriesAfter: 2,
            entryChanges: [
              { source: HOSTILE[1] ?? '', after: HOSTILE[0] ?? '' },
              { source: 'gift card', before: 'Gutschein', after: `Geschenkkarte ${HOSTILE[2] ?? ''}` },
            ],
          },
        ],
        details: [HOSTILE[4] ?? ''],
        operations: ['op-1'],
      },
    ],
    summary: { add: 0, change: 1, destroy: 0, entriesAdded: 1, entriesChanged: 1, entriesRemoved: 0, dictionaries: 1, calls: { POST: 0, PUT: 0, PATCH: 1, DELETE: 0 }, uploadBytes: 10 },
    notManaged: [{ kind: 'glossary', name: 'Other [link](http://example.com) ![i](http://example.com/i.png) www.example.com', id: 'x' }],
    guards: [],
    fingerprints: { glossaries: [], styleRules: [] },
  } as unknown as Plan;
}

describe('a plan on its page (the pull-request comment, through a markdown parser)', () => {
  it('shows the summary, the calls and the term diff, and nothing of a hostile name or term becomes markup, a link or an image', () => {
    const out = renderPlanHtml(renderPlanMarkdown(hostilePlan())).text;
    expect(out).toContain('Plan: 0 to add, 1 to change, 0 to destroy.');
    expect(out).toContain('<details open><summary>');
    expect(out).toMatch(/<span class="diff-del">- gift card → Gutschein<\/span>/);
    expect(out).toMatch(/<span class="diff-add">\+ gift card → Geschenkkarte bidi \\u202egnp\.exe<\/span>/);
    expect(out).not.toMatch(/<img|<script|<\/script|<a[\s>]|<iframe/);
    expect(out).not.toContain('\u202e');
    expect(out).not.toContain('onerror=alert(1)>');
  });

  it('shows raw HTML that is not one of the comment’s own tags as text', () => {
    const out = renderPlanHtml('<div onclick="alert(1)">x</div>\n\n<details open onclick=alert(1)><summary>t</summary>\n\ntext <iframe src=/x></iframe>\n\n</details>\n').text;
    expect(out).not.toMatch(/<div|<iframe|<details open onclick/);
    expect(out).toContain('&lt;div onclick=&quot;alert(1)&quot;&gt;');
  });
});
