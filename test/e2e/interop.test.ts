import { afterEach, describe, expect, it } from 'vitest';
import type { EmulatorBehaviour } from '../../src/emulator/index.js';
import { createWorld, type World } from './harness.js';

/*
 * Servers of this API family that differ from the spec (as the vendor's own mock server does),
 * each played by the emulator configured to behave that way, driven through the CLI.
 */

interface Ids {
  glossaries: Record<string, string>;
  style_rules: Record<string, string>;
}

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function open(behaviour: EmulatorBehaviour = {}, options: { authScheme?: string } = {}): Promise<World> {
  world = await createWorld('basic', { emulator: { behaviour, ...options } });
  return world;
}

async function apply(w: World, args: readonly string[] = []): Promise<{ writes: string[]; ids: Ids }> {
  const mark = w.mark();
  const run = await w.cli(['apply', '--ids-out', 'ids.json', ...args]);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return { writes: w.writesSince(mark), ids: JSON.parse(await w.read('ids.json')) as Ids };
}

async function expectConverged(w: World): Promise<void> {
  const mark = w.mark();
  const run = await w.cli(['plan', '--detailed-exitcode']);
  expect(run.stdout).toContain('No changes.');
  expect(run.code).toBe(0);
  expect(w.writesSince(mark)).toEqual([]);
}

/** The live list as the service holds it (through the API, with the world's key). */
async function liveList(w: World, id: string): Promise<{ custom_instructions: { id: string; label: string; prompt: string; source_language?: string }[] }> {
  const res = await fetch(`${w.emulator.url}/v3/style_rules/${id}`, { headers: { authorization: `Service-Auth-Key ${w.key}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as { custom_instructions: { id: string; label: string; prompt: string; source_language?: string }[] };
}

const STYLE = (instructions: string, prompt = 'Keep sentences short.'): string => `kind: style_rules
name: Marketing (German)
language: de
configured_rules:
  punctuation:
    apostrophe: use_curly_apostrophes
custom_instructions:
${instructions}  - label: Short sentences
    prompt: ${prompt}
    source_language: en
`;
const FORMAL = '  - label: Formal address\n    prompt: Address the reader formally.\n';
const SECOND_LIST = `kind: style_rules
name: Support (French)
language: fr
custom_instructions:
  - label: Polite
    prompt: Be polite.
  - label: Brief
    prompt: Be brief.
`;

const VENDOR_INSTRUCTIONS: EmulatorBehaviour = { fillSourceLanguage: true, instructionAnswer: true, resetSourceLanguage: true };

describe('custom instructions on a server that fills source_language, answers a POST with the instruction alone, and clears an omitted source_language on PUT', () => {
  it('an instruction declared without source_language converges (the service chose one), and stays converged', async () => {
    const w = await open(VENDOR_INSTRUCTIONS);
    const { ids } = await apply(w);
    const id = ids.style_rules['Marketing (German)'] ?? '';
    // The server filled in the list's language for the instruction that declares none.
    expect((await liveList(w, id)).custom_instructions.map((i) => [i.label, i.source_language])).toEqual([
      ['Formal address', 'de'],
      ['Short sentences', 'en'],
    ]);
    await expectConverged(w);
    expect((await apply(w)).writes).toEqual([]);
  });

  it('adding an instruction: the answer with just the instruction is accepted (exit 0), and it converges', async () => {
    const w = await open(VENDOR_INSTRUCTIONS);
    const { ids } = await apply(w);
    const id = ids.style_rules['Marketing (German)'] ?? '';
    await w.write('glossaries/marketing-style.yaml', STYLE(`${FORMAL}  - label: No jargon\n    prompt: Avoid jargon.\n`));
    const added = await apply(w);
    expect(added.writes).toEqual([`POST /v3/style_rules/${id}/custom_instructions`]);
    expect(added.ids.style_rules['Marketing (German)']).toBe(id);
    await expectConverged(w);
  });

  it('a changed prompt is one PUT that keeps the declared source_language on a server that clears omitted fields', async () => {
    const w = await open(VENDOR_INSTRUCTIONS);
    const { ids } = await apply(w);
    const id = ids.style_rules['Marketing (German)'] ?? '';
    await w.write('glossaries/marketing-style.yaml', STYLE(FORMAL, 'Keep sentences under 20 words.'));
    const { writes } = await apply(w);
    expect(writes).toEqual([expect.stringMatching(new RegExp(`^PUT /v3/style_rules/${id}/custom_instructions/[^/]+$`))]);
    expect((await liveList(w, id)).custom_instructions.find((i) => i.label === 'Short sentences')).toMatchObject({ prompt: 'Keep sentences under 20 words.', source_language: 'en' });
    await expectConverged(w);
  });
});

describe('removing a custom instruction (capabilities.delete_custom_instruction)', () => {
  const config = (setting?: string): string =>
    setting === undefined ? '' : `    capabilities:\n      delete_custom_instruction: ${setting}\n`;
  const setCapability = async (w: World, setting?: string): Promise<void> => {
    const text = await w.read('config/termsync.yaml');
    await w.write('config/termsync.yaml', `${text}${config(setting)}`);
  };

  it('auto, on a server with the route: one DELETE, and the list keeps its id', async () => {
    const w = await open({ deleteInstruction: true });
    const { ids } = await apply(w);
    const id = ids.style_rules['Marketing (German)'] ?? '';
    await w.write('glossaries/marketing-style.yaml', STYLE(''));
    const after = await apply(w);
    expect(after.writes).toEqual([expect.stringMatching(new RegExp(`^DELETE /v3/style_rules/${id}/custom_instructions/[^/]+$`))]);
    expect(after.ids.style_rules['Marketing (German)']).toBe(id);
    expect((await liveList(w, id)).custom_instructions.map((i) => i.label)).toEqual(['Short sentences']);
    await expectConverged(w);
  });

  it('auto, on a server without it: the route is tried once for the whole run, then each list is replaced', async () => {
    const w = await open();
    await w.write('glossaries/support-style.yaml', SECOND_LIST);
    const { ids } = await apply(w);
    const [marketing, support] = [ids.style_rules['Marketing (German)'] ?? '', ids.style_rules['Support (French)'] ?? ''];
    await w.write('glossaries/marketing-style.yaml', STYLE(''));
    await w.write('glossaries/support-style.yaml', SECOND_LIST.replace('  - label: Brief\n    prompt: Be brief.\n', ''));
    const mark = w.mark();
    const run = await w.cli(['apply', '--ids-out', 'ids.json']);
    expect(run.code).toBe(0);
    const writes = w.writesSince(mark);
    const tried = writes.filter((r) => r.includes('/custom_instructions/'));
    expect(tried).toHaveLength(1);
    expect(writes.filter((r) => !r.includes('/custom_instructions/')).sort()).toEqual(['DELETE /v3/style_rules/' + marketing, 'DELETE /v3/style_rules/' + support, 'POST /v3/style_rules', 'POST /v3/style_rules'].sort());
    // The first answer was the missing route (405), and apply says what it did instead.
    expect(w.emulator.requests().filter((r) => r.method === 'DELETE' && r.path.includes('/custom_instructions/')).map((r) => r.status)).toEqual([405]);
    expect(run.stdout).toContain('the service has no route to delete a custom instruction (HTTP 405): replaced the list instead');
    const newIds = (JSON.parse(await w.read('ids.json')) as Ids).style_rules;
    expect(newIds['Marketing (German)']).not.toBe(marketing);
    expect(newIds['Support (French)']).not.toBe(support);
    await expectConverged(w);
  });

  it('the plan says which of the two it will do, and why, in text, markdown and JSON', async () => {
    const w = await open();
    await apply(w);
    await w.write('glossaries/marketing-style.yaml', STYLE(''));
    const reason = 'instruction "Formal address" removed → DELETE it, or replace (create new, then delete old) if the service has no such route (capabilities.delete_custom_instruction: auto)';
    const text = await w.cli(['plan']);
    expect(text.stdout).toContain(reason);
    const markdown = await w.cli(['plan', '--format', 'markdown']);
    expect(markdown.stdout).toContain('removed → DELETE it, or replace (create new, then delete old) if the service has no such route');
    expect(markdown.stdout).toContain('delete custom instruction (where the service has no such route: replace the list) "Formal address"');
    const json = JSON.parse((await w.cli(['plan', '--format', 'json'])).stdout) as { changes: { reasons: string[] }[]; operations: { type: string; fallback?: { name: string } }[] };
    expect(json.changes[0]?.reasons).toContain(reason);
    expect(json.operations.map((o) => [o.type, o.fallback?.name])).toEqual([['style_rules.delete_instruction', 'Marketing (German)']]);

    await setCapability(w, 'no');
    const no = await w.cli(['plan', '--format', 'json']);
    const replaced = JSON.parse(no.stdout) as { changes: { action: string; reasons: string[] }[]; operations: { type: string }[] };
    expect(replaced.changes[0]?.action).toBe('replace');
    expect(replaced.changes[0]?.reasons).toEqual(['instruction "Formal address" removed → replace (create new, then delete old) (capabilities.delete_custom_instruction: no)']);
    expect(replaced.operations.map((o) => o.type)).toEqual(['style_rules.create', 'style_rules.delete']);
  });

  it('a saved plan carries the fallback: `apply plan.json` replaces the list where the route is missing', async () => {
    const w = await open();
    const { ids } = await apply(w);
    await w.write('glossaries/marketing-style.yaml', STYLE(''));
    expect((await w.cli(['plan', '--out', 'plan.json'])).code).toBe(0);
    const saved = await apply(w, ['plan.json']);
    const old = ids.style_rules['Marketing (German)'] ?? '';
    expect(saved.writes).toEqual([expect.stringMatching(/\/custom_instructions\//), 'POST /v3/style_rules', `DELETE /v3/style_rules/${old}`]);
    expect(saved.ids.style_rules['Marketing (German)']).not.toBe(old);
    await expectConverged(w);
  });

  it('no, on a server with the route: replaces the list without trying the route', async () => {
    const w = await open({ deleteInstruction: true });
    await setCapability(w, 'no');
    const { ids } = await apply(w);
    await w.write('glossaries/marketing-style.yaml', STYLE(''));
    expect((await apply(w)).writes).toEqual(['POST /v3/style_rules', `DELETE /v3/style_rules/${ids.style_rules['Marketing (German)'] ?? ''}`]);
    await expectConverged(w);
  });

  it('yes, on a server without the route: the apply fails (exit 6) naming the setting, and deletes nothing else', async () => {
    const w = await open();
    await setCapability(w, 'yes');
    const { ids } = await apply(w);
    await w.write('glossaries/marketing-style.yaml', STYLE(''));
    const mark = w.mark();
    const run = await w.cli(['apply']);
    expect(run.code).toBe(6);
    expect(run.stdout + run.stderr).toContain('the service has no route to delete a custom instruction (HTTP 405); set capabilities.delete_custom_instruction to auto or no for this target');
    expect(w.writesSince(mark)).toEqual([expect.stringMatching(/\/custom_instructions\//)]);
    expect((await liveList(w, ids.style_rules['Marketing (German)'] ?? '')).custom_instructions).toHaveLength(2);
  });
});

describe('auth_scheme', () => {
  it('a target whose service expects another scheme says so in the config; the default is the spec\'s', async () => {
    const w = await open({}, { authScheme: 'DeepL-Auth-Key' });
    const refused = await w.cli(['plan']);
    expect(refused.code).toBe(7);
    const text = await w.read('config/termsync.yaml');
    await w.write('config/termsync.yaml', `${text}    auth_scheme: DeepL-Auth-Key\n`);
    await apply(w);
    await expectConverged(w);
    // The key never reaches the output, whichever the scheme.
    const run = await w.cli(['plan', '--log-level', 'trace']);
    expect(run.stdout + run.stderr).not.toContain('DeepL-Auth-Key KEY');
  });

  it('an unknown scheme is a located config error (exit 3) before anything is sent', async () => {
    const w = await open();
    const text = await w.read('config/termsync.yaml');
    await w.write('config/termsync.yaml', `${text}    auth_scheme: Bearer\n`);
    const mark = w.mark();
    const run = await w.cli(['plan']);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/config\/termsync\.yaml:\d+:\d+/);
    expect(run.stderr).toContain('auth_scheme');
    expect(w.emulator.requests().slice(mark)).toEqual([]);
  });
});

// Migrating a v2 glossary to v3: where one store serves both, the v3 API already edits it (adopted
// as is); where the stores are separate, v3 cannot see it, so it is recreated there.
describe.each([
  ['one store serves v2 and v3 (the spec)', {}, []],
  ['v2 and v3 are separate stores', { separateStores: true }, ['POST /v3/glossaries', 'DELETE /v2/glossaries/<Legacy terms>']],
] as const)('glossaries when %s', (_, behaviour: EmulatorBehaviour, migration: readonly string[]) => {
  const normalise = (writes: readonly string[], ids: Ids): string[] =>
    writes.map((w) => Object.entries(ids.glossaries).reduce((text, [name, id]) => text.replaceAll(id, `<${name}>`), w));

  it('plans the same creates and v2 edit, and converges after a v2 → v3 migration', async () => {
    const w = await open(behaviour);
    const first = await apply(w);
    expect(first.writes.sort()).toEqual(['POST /v2/glossaries', 'POST /v3/glossaries', 'POST /v3/style_rules']);
    await expectConverged(w);

    const legacy = await w.read('glossaries/legacy.yaml');
    await w.write('glossaries/legacy.yaml', legacy.replace('sign out: cerrar sesión', 'sign out: salir'));
    const edit = await apply(w);
    expect(normalise(edit.writes, first.ids)).toEqual(['POST /v2/glossaries', 'DELETE /v2/glossaries/<Legacy terms>']);
    await expectConverged(w);

    await w.write('glossaries/legacy.yaml', legacy.replace('sign out: cerrar sesión', 'sign out: salir').replace('api: v2', 'api: v3'));
    const migrate = await apply(w);
    expect(normalise(migrate.writes, edit.ids)).toEqual(migration);
    await expectConverged(w);
    // Either way the v3 API now serves it, with the edited entries.
    const auth = { headers: { authorization: `Service-Auth-Key ${w.key}` } };
    const v3 = (await (await fetch(`${w.emulator.url}/v3/glossaries`, auth)).json()) as { glossaries: { name: string; glossary_id: string }[] };
    expect(v3.glossaries.map((g) => g.name).sort()).toEqual(['Legacy terms', 'Product terms']);
    const id = migrate.ids.glossaries['Legacy terms'] ?? '';
    const entries = (await (await fetch(`${w.emulator.url}/v3/glossaries/${id}/entries?source_lang=en&target_lang=es`, auth)).json()) as { dictionaries: { entries: string }[] };
    expect(entries.dictionaries[0]?.entries.split('\n').sort()).toEqual(['sign in\tiniciar sesión', 'sign out\tsalir']);
  });
});
