import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWorld, type World } from './harness.js';

const run = promisify(execFile);

async function git(dir: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('git', ['-C', dir, '-c', 'user.name=termsync test', '-c', 'user.email=test@termsync.invalid', ...args]);
  return stdout;
}

function glossaryYaml(name: string, file: string): string {
  return `kind: glossary\nname: ${name}\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries_file: ${file}\n`;
}

let world: World;

/** Requests the emulator saw since `mark`, as `METHOD path?query`. */
function requestsSince(mark: number): string[] {
  return world.emulator
    .requests()
    .slice(mark)
    .map((r) => `${r.method} ${r.path}${r.query ? `?${r.query.replace(/^\?/, '')}` : ''}`);
}

const isEntriesRead = (r: string): boolean => r.startsWith('GET ') && r.includes('/entries');

/** Changes a dictionary on the service behind the repository's back (as a person in the web interface would). */
async function putOnService(glossaryId: string, entries: string): Promise<void> {
  const response = await fetch(`${world.emulator.url}/v3/glossaries/${glossaryId}/dictionaries`, {
    method: 'PUT',
    headers: { Authorization: `Service-Auth-Key ${world.key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ source_lang: 'en', target_lang: 'de', entries, entries_format: 'tsv' }),
  });
  expect(response.status).toBe(200);
}

beforeEach(async () => {
  // The basic repository plus two more glossaries, applied, and committed as the base.
  world = await createWorld('basic');
  await world.write('glossaries/shipping.yaml', glossaryYaml('Shipping', 'shipping.en-de.tsv'));
  await world.write('glossaries/shipping.en-de.tsv', 'parcel\tPaket\ncourier\tKurier\n');
  await world.write('glossaries/legal.yaml', glossaryYaml('Legal', 'legal.en-de.tsv'));
  await world.write('glossaries/legal.en-de.tsv', 'invoice\tRechnung\nwarranty\tGarantie\n');
  await git(world.dir, 'init', '--quiet');
  await git(world.dir, 'add', '--all');
  await git(world.dir, 'commit', '--quiet', '--message', 'base');
  const applied = await world.cli(['apply', '--ids-out', '../ids.json']);
  expect(applied.code, applied.stderr).toBe(0);
});

afterEach(async () => {
  await rm(join(world.dir, '..', 'ids.json'), { force: true });
  await world.close();
});

describe('plan --refresh changed --base REF', () => {
  it('reads the listings and the entries of the changed dictionary only, and says how many resources it did not re-read', async () => {
    await world.write('glossaries/shipping.en-de.tsv', 'parcel\tPäckchen\ncourier\tKurier\n');
    const mark = world.mark();
    const plan = await world.cli(['plan', '--refresh', 'changed', '--base', 'HEAD', '--detailed-exitcode', '--format', 'markdown']);
    expect(plan.code, plan.stderr).toBe(2);
    const requests = requestsSince(mark);
    expect(requests.filter((r) => !isEntriesRead(r))).toEqual(['GET /v3/glossaries', 'GET /v2/glossaries', 'GET /v3/style_rules?detailed=true&page=0&page_size=25']);
    expect(requests.filter(isEntriesRead)).toHaveLength(1);
    expect(requests.filter(isEntriesRead)[0]).toMatch(/^GET \/v3\/glossaries\/[^/]+\/entries\?source_lang=en&target_lang=de$/);
    expect(plan.stdout).toContain('**Plan: 0 to add, 1 to change, 0 to destroy.**');
    expect(plan.stdout).toContain('```diff\n- parcel → Paket\n+ parcel → Päckchen\n```');
    // Product terms, Legacy terms and Legal were not re-read.
    expect(plan.stdout).toContain('_3 unchanged resources were not re-read; the scheduled drift check covers them._');

    // The full plan reads every declared dictionary the service has.
    const full = world.mark();
    expect((await world.cli(['plan', '--detailed-exitcode'])).code).toBe(2);
    expect(requestsSince(full).filter(isEntriesRead)).toHaveLength(5);
  });

  it('plans new (untracked), deleted and renamed resources exactly: the listings are always read', async () => {
    await world.write('glossaries/returns.yaml', glossaryYaml('Returns', 'returns.en-de.tsv'));
    await world.write('glossaries/returns.en-de.tsv', 'refund\tErstattung\n');
    await git(world.dir, 'rm', '--quiet', 'glossaries/legal.yaml', 'glossaries/legal.en-de.tsv');
    await world.write('glossaries/shipping.yaml', glossaryYaml('Shipping and delivery', 'shipping.en-de.tsv').replace('dictionaries:', 'renamed_from: Shipping\ndictionaries:'));
    const config = await world.read('config/termsync.yaml');
    // Prune only what this test names, so that the deleted file's glossary is deleted.
    await world.write('config/termsync.yaml', config.replace('prune: "off"', 'prune: owned\nowned_names: "Legal"'));
    await git(world.dir, 'commit', '--quiet', '--all', '--message', 'prune Legal');
    const plan = await world.cli(['plan', '--refresh', 'changed', '--base', 'HEAD~1']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('+ glossary "Returns"');
    expect(plan.stdout).toContain('- glossary "Legal"');
    expect(plan.stdout).toMatch(/~ glossary "Shipping and delivery" \(v3, id [^)]+\)\n {6}# renamed from "Shipping"/);
  });

  it('re-reads everything when the project config changed', async () => {
    const config = await world.read('config/termsync.yaml');
    await world.write('config/termsync.yaml', config.replace('max_deletes: 10', 'max_deletes: 9'));
    const mark = world.mark();
    const plan = await world.cli(['plan', '--refresh', 'changed', '--base', 'HEAD', '--detailed-exitcode']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(requestsSince(mark).filter(isEntriesRead)).toHaveLength(5);
    expect(plan.stdout).not.toContain('not re-read');
  });

  it('a saved plan of changed files still goes stale when a dictionary it writes changed on the service', async () => {
    await world.write('glossaries/shipping.en-de.tsv', 'parcel\tPäckchen\ncourier\tKurier\n');
    const plan = await world.cli(['plan', '--refresh', 'changed', '--base', 'HEAD', '--out', '../plan.json']);
    expect(plan.code, plan.stderr).toBe(0);
    const ids = JSON.parse(await world.read('../ids.json')) as { glossaries: Record<string, string> };
    await putOnService(ids.glossaries['Shipping'] ?? '', 'parcel\tPaket\ncourier\tBote');
    const mark = world.mark();
    const apply = await world.cli(['apply', '../plan.json']);
    expect(apply.code).toBe(5);
    expect(apply.stderr).toMatch(/stale/i);
    expect(world.writesSince(mark)).toEqual([]);
    await rm(join(world.dir, '..', 'plan.json'), { force: true });
  });

  it('leaves drift in unchanged files to the full plan, which apply always is', async () => {
    const ids = JSON.parse(await world.read('../ids.json')) as { glossaries: Record<string, string> };
    // Same entry count, another translation: invisible in the listing.
    await putOnService(ids.glossaries['Legal'] ?? '', 'invoice\tFaktura\nwarranty\tGarantie');
    const changedOnly = await world.cli(['plan', '--refresh', 'changed', '--base', 'HEAD', '--detailed-exitcode']);
    expect(changedOnly.code, changedOnly.stderr).toBe(0);
    expect(changedOnly.stdout).toContain('not re-read; the scheduled drift check covers them');
    const mark = world.mark();
    const apply = await world.cli(['apply']);
    expect(apply.code, apply.stderr).toBe(0);
    expect(world.writesSince(mark)).toEqual([`PATCH /v3/glossaries/${ids.glossaries['Legal'] ?? ''}`]);
  });

  it('refuses, before any request, without --base, with an unknown base, --base without changed, or outside git', async () => {
    const mark = world.mark();
    const noBase = await world.cli(['plan', '--refresh', 'changed']);
    expect([noBase.code, noBase.stderr]).toEqual([3, "Error: --refresh changed needs --base REF, the commit to compare with (a pull request's base, e.g. origin/main)\n"]);
    const unknown = await world.cli(['plan', '--refresh', 'changed', '--base', 'no-such-branch']);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toMatch(/^Error: --base no-such-branch: no such commit in this checkout; fetch it first/);
    const option = await world.cli(['plan', '--refresh', 'changed', '--base', '--output=/tmp/x']);
    expect(option.code).toBe(3);
    expect((await world.cli(['plan', '--base', 'HEAD'])).code).toBe(3);
    await rm(join(world.dir, '.git'), { recursive: true, force: true });
    const outside = await world.cli(['plan', '--refresh', 'changed', '--base', 'HEAD']);
    expect(outside.code).toBe(3);
    expect(outside.stderr).toMatch(/needs a git checkout/);
    expect(requestsSince(mark)).toEqual([]);
  });
});
