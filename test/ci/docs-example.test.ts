import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { createWorld, PROJECT_ROOT, type World } from '../e2e/harness.js';

const run = promisify(execFile);
const DOC = join(PROJECT_ROOT, 'docs/ci.md');
const START = '<!-- example-plan:start -->\n';
const END = '<!-- example-plan:end -->';

/** The pull request of the example in docs/ci.md, made to the example repository of this project. */
async function examplePullRequest(world: World): Promise<void> {
  const edit = async (file: string, change: (text: string) => string): Promise<void> => {
    const before = await world.read(file);
    const after = change(before);
    expect(after, file).not.toBe(before);
    await world.write(file, after);
  };
  // One term changed, one term removed, one dictionary added, one v2 glossary replaced (a changed term).
  await edit('glossaries/entries/storefront-ui.en-de.tsv', (t) => t.replace('checkout\tKasse\n', 'checkout\tZur Kasse\n'));
  await edit('glossaries/entries/checkout-payments.en-nl.tsv', (t) => t.replace('order confirmation\torderbevestiging\n', ''));
  await edit('glossaries/product-catalogue.yaml', (t) => `${t}  - source_lang: en\n    target_lang: fr\n    entries:\n      hood: capuche\n      waterproof: imperméable\n`);
  await edit('glossaries/entries/support-macros.en-de.tsv', (t) => t.replace('parcel\tPaket\n', 'parcel\tPäckchen\n'));
}

/** Ids are drawn in the order the service receives the creates, which concurrency varies. */
function maskIds(markdown: string): string {
  return markdown.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>');
}

it('docs/ci.md shows the comment the real CLI renders for the example pull request', async () => {
  const world = await createWorld([join(PROJECT_ROOT, 'config'), join(PROJECT_ROOT, 'glossaries')]);
  try {
    const git = (...args: string[]): Promise<unknown> => run('git', ['-C', world.dir, '-c', 'user.name=t', '-c', 'user.email=t@termsync.invalid', ...args]);
    await git('init', '--quiet');
    await git('add', '--all');
    await git('commit', '--quiet', '--message', 'base');
    expect((await world.cli(['apply'])).code).toBe(0);
    await examplePullRequest(world);
    const plan = await world.cli(['plan', '--refresh', 'changed', '--base', 'HEAD', '--detailed-exitcode', '--format', 'markdown']);
    expect(plan.code, plan.stderr).toBe(2);

    const doc = await readFile(DOC, 'utf8');
    const start = doc.indexOf(START);
    const end = doc.indexOf(END);
    expect(start, 'docs/ci.md has the example markers').toBeGreaterThan(0);
    if (process.env['TERMSYNC_UPDATE_DOCS'] === '1') {
      await writeFile(DOC, `${doc.slice(0, start + START.length)}${plan.stdout}${doc.slice(end)}`);
      return;
    }
    // Rerun with TERMSYNC_UPDATE_DOCS=1 to write the current rendering into the document.
    expect(maskIds(doc.slice(start + START.length, end))).toBe(maskIds(plan.stdout));
  } finally {
    await world.close();
  }
}, 60_000);
