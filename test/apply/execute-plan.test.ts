import { describe, expect, it } from 'vitest';
import { executePlan, type ApplyWriter } from '../../src/apply/execute-plan.js';
import { ServiceError } from '../../src/api/errors.js';
import { AuthError, TermsyncError } from '../../src/lib/errors.js';
import { ExitCode } from '../../src/lib/exit-codes.js';
import { exitCodeOfError } from '../../src/cli/exit-code-of.js';
import type { LiveState } from '../../src/model/live.js';
import type { Operation, Plan } from '../../src/model/plan.js';

const emptyLive: LiveState = { glossaries: [], styleRules: [], entries: new Map() };

function planOf(operations: Operation[], guards: Plan['guards'] = []): Plan {
  return {
    format_version: '1.0',
    target: 'default',
    changes: [],
    operations,
    guards,
    notManaged: [],
    fingerprints: { glossaries: [], styleRules: [] },
    summary: {
      add: 0,
      change: 0,
      destroy: 0,
      dictionaries: 0,
      entriesAdded: 0,
      entriesChanged: 0,
      entriesRemoved: 0,
      calls: { POST: 0, PUT: 0, PATCH: 0, DELETE: 0 },
      uploadBytes: 0,
    },
  };
}

/**
 * A fake client recording calls; `fail` names calls (by `method:arg`) that throw. `answered` keeps
 * the id each call answered with, by call: what a test expects the result to report comes from
 * here, never from the result itself.
 */
function fakeClient(fail: Record<string, Error> = {}): { client: ApplyWriter; calls: string[]; answered: Map<string, string> } {
  const calls: string[] = [];
  const answered = new Map<string, string>();
  let next = 0;
  const call = async (name: string): Promise<{ id: string }> => {
    calls.push(name);
    await Promise.resolve();
    const error = fail[name];
    if (error) throw error;
    next += 1;
    answered.set(name, `new-${next}`);
    return { id: `new-${next}` };
  };
  const client: ApplyWriter = {
    createGlossary: (name) => call(`createGlossary:${name}`),
    createGlossaryV2: (name) => call(`createGlossaryV2:${name}`),
    putDictionary: (id) => call(`putDictionary:${id}`),
    patchGlossary: (id) => call(`patchGlossary:${id}`),
    deleteGlossary: (id) => call(`deleteGlossary:${id}`),
    deleteGlossaryV2: (id) => call(`deleteGlossaryV2:${id}`),
    deleteDictionary: (id) => call(`deleteDictionary:${id}`),
    createStyleRules: (input) => call(`createStyleRules:${input.name}`),
    renameStyleRules: (id) => call(`renameStyleRules:${id}`),
    putConfiguredRules: (id) => call(`putConfiguredRules:${id}`),
    createInstruction: (id) => call(`createInstruction:${id}`),
    updateInstruction: (id) => call(`updateInstruction:${id}`),
    deleteStyleRules: (id) => call(`deleteStyleRules:${id}`),
    deleteInstruction: (id, instructionId) => call(`deleteInstruction:${id}/${instructionId}`),
    getStyleRules: async (id) => {
      await call(`getStyleRules:${id}`);
      return { customInstructions: [{ id: 'i-kept' }] };
    },
  };
  return { client, calls, answered };
}

const dict = { sourceLang: 'en', targetLang: 'de', entries: [['a', 'b']] as const };
const v2Replace: Operation[] = [
  { key: 'op-1', dependsOn: [], resource: { kind: 'glossary', name: 'Legacy' }, type: 'glossary_v2.create', name: 'Legacy', dictionary: dict },
  { key: 'op-2', dependsOn: ['op-1'], resource: { kind: 'glossary', name: 'Legacy' }, type: 'glossary.delete', glossaryId: 'old-v2', api: 'v2' },
];
const unrelated: Operation = {
  key: 'op-3',
  dependsOn: [],
  resource: { kind: 'glossary', name: 'Product' },
  type: 'glossary.put_dictionary',
  glossaryId: 'g-1',
  dictionary: dict,
};
const live: LiveState = {
  glossaries: [
    { id: 'old-v2', name: 'Legacy', api: 'v2', dictionaries: [], creationTime: '2026-01-01T00:00:00.000Z' },
    { id: 'g-1', name: 'Product', api: 'v3', dictionaries: [], creationTime: '2026-01-01T00:00:00.000Z' },
  ],
  styleRules: [],
  entries: new Map(),
};
const managed = { glossaries: [{ name: 'Legacy' }, { name: 'Product' }], styleRules: [] };

describe('executePlan', () => {
  it('runs a replacement create-first, then the delete, and maps names to the new ids', async () => {
    const { client, calls } = fakeClient();
    const { result, refusal } = await executePlan({ plan: planOf([...v2Replace, unrelated]), client, live, managed });
    expect(refusal).toBeUndefined();
    expect(result.failed + result.skipped).toBe(0);
    expect(calls.indexOf('createGlossaryV2:Legacy')).toBeLessThan(calls.indexOf('deleteGlossaryV2:old-v2'));
    expect(calls).toHaveLength(3);
    expect(result.applied).toBe(3);
    // The new glossary's id is the one the create answered with (the fake's first answer).
    expect(result.ids.glossaries).toEqual({ Legacy: 'new-1', Product: 'g-1' });
    expect(result.outcomes[0]?.createdId).toBe('new-1');
    expect(result.outcomes.map((o) => o.request)).toEqual(['POST /v2/glossaries', 'DELETE /v2/glossaries/old-v2', 'PUT /v3/glossaries/g-1/dictionaries']);
  });

  it('skips a delete whose replacement failed, and still runs unrelated operations', async () => {
    const failure = new TermsyncError('http_500', 'POST /v2/glossaries: 500');
    const { client, calls } = fakeClient({ 'createGlossaryV2:Legacy': failure });
    const { result, refusal } = await executePlan({ plan: planOf([...v2Replace, unrelated]), client, live, managed });
    expect(refusal).toBeUndefined();
    expect(result.failed + result.skipped).toBeGreaterThan(0);
    expect(calls).not.toContain('deleteGlossaryV2:old-v2');
    expect(calls).toContain('putDictionary:g-1');
    expect(result.outcomes.map((o) => o.status)).toEqual(['failed', 'skipped', 'applied']);
    expect(result.outcomes[0]?.error).toEqual({ code: 'http_500', message: 'POST /v2/glossaries: 500' });
    expect(result.outcomes[1]?.skippedBecause).toMatch(/op-1 .*failed/);
    expect({ applied: result.applied, failed: result.failed, skipped: result.skipped }).toEqual({ applied: 1, failed: 1, skipped: 1 });
    // The old glossary was not deleted: it is still the one consumers hold.
    expect(result.ids.glossaries['Legacy']).toBe('old-v2');
  });

  it('refuses a plan with guard violations without a single call (exit 4)', async () => {
    const { client, calls } = fakeClient();
    const plan = planOf([unrelated], [{ guard: 'max_deletes', message: 'the plan deletes 3 resources, more than max_deletes (1)' }]);
    const error = await executePlan({ plan, client, live, managed }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TermsyncError);
    expect(exitCodeOfError(error)).toBe(ExitCode.guardBlocked);
    expect((error as TermsyncError).message).toBe('apply refused: blocked by a safety guard (listed above)');
    expect(calls).toEqual([]);
  });

  it('stops starting operations once the service refuses the key (exit 7)', async () => {
    const refused = new AuthError('http_403', 'POST /v2/glossaries: 403 forbidden');
    const { client, calls } = fakeClient({ 'createGlossaryV2:Legacy': refused });
    const later: Operation = { ...unrelated, key: 'op-4', dependsOn: ['op-3'] };
    const { result, refusal } = await executePlan({ plan: planOf([...v2Replace, unrelated, later]), client, live, managed });
    expect(refusal).toBe('http_403');
    // Until a write is accepted, writes go one at a time: the refused one is the only one sent.
    expect(calls).toEqual(['createGlossaryV2:Legacy']);
    expect(result.outcomes.map((o) => o.status)).toEqual(['failed', 'skipped', 'skipped', 'skipped']);
    expect(result.outcomes.find((o) => o.key === 'op-3')?.skippedBecause).toBe('not attempted: the key was refused (http_403)');
    expect(result.outcomes.find((o) => o.key === 'op-4')?.skippedBecause).toMatch(/op-3 .*was skipped/);
  });

  it('starts nothing once the signal is aborted', async () => {
    const { client, calls } = fakeClient();
    const controller = new AbortController();
    controller.abort();
    const { result, refusal } = await executePlan({ plan: planOf([unrelated]), client, live: emptyLive, managed, signal: controller.signal });
    expect(calls).toEqual([]);
    expect(result.skipped).toBe(1);
    expect(refusal).toBeUndefined();
  });

  it('rejects a plan whose dependencies are unknown or circular before any call (exit 3)', async () => {
    const { client, calls } = fakeClient();
    const unknown: Operation = { ...unrelated, dependsOn: ['op-9'] };
    expect(exitCodeOfError(await executePlan({ plan: planOf([unknown]), client, live, managed }).catch((e: unknown) => e))).toBe(ExitCode.invalidInput);
    const a: Operation = { ...unrelated, key: 'op-1', dependsOn: ['op-2'] };
    const b: Operation = { ...unrelated, key: 'op-2', dependsOn: ['op-1'] };
    await expect(executePlan({ plan: planOf([a, b]), client, live, managed })).rejects.toThrow(/cycle/);
    expect(calls).toEqual([]);
  });

  it('runs independent operations in parallel once the first write is accepted', async () => {
    let inFlight = 0;
    let peak = 0;
    const { client } = fakeClient();
    const slow: ApplyWriter = {
      ...client,
      putDictionary: async () => {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        await new Promise((r) => setImmediate(r));
        inFlight -= 1;
        return {};
      },
    };
    // The first write goes alone (it tells whether the key may write at all), the other three together.
    const ops = [1, 2, 3, 4].map((i): Operation => ({ ...unrelated, key: `op-${i}` }));
    await executePlan({ plan: planOf(ops), client: slow, live, managed });
    expect(peak).toBe(3);
  });
});

describe('executePlan: deleting one custom instruction (capabilities.delete_custom_instruction)', () => {
  const fallback = { name: 'M', language: 'de', configuredRules: {}, customInstructions: [{ label: 'Kept', prompt: 'K.' }] };
  const remove = (key: string, styleId: string, instructionId: string, dependsOn: string[] = [], withFallback = true): Operation => ({
    key,
    dependsOn,
    resource: { kind: 'style_rules', name: styleId === 's1' ? 'M' : 'N' },
    type: 'style_rules.delete_instruction',
    styleId,
    instructionId,
    label: instructionId,
    ...(withFallback ? { fallback: { ...fallback, name: styleId === 's1' ? 'M' : 'N' } } : {}),
  });
  const styleLive: LiveState = {
    glossaries: [],
    styleRules: ['s1', 's2'].map((id) => ({ id, name: id === 's1' ? 'M' : 'N', language: 'de', version: 1, configuredRules: {}, customInstructions: [], creationTime: '2026-01-01T00:00:00.000Z', updatedTime: '2026-01-01T00:00:00.000Z' })),
    entries: new Map(),
  };
  const styleManaged = { glossaries: [], styleRules: [{ name: 'M' }, { name: 'N' }] };
  const httpError = (status: number): ServiceError => new ServiceError(`http_${status}`, { method: 'DELETE', path: '/x', status }, `HTTP ${status}`);

  /** A client whose instruction DELETE answers `status` (or 204) and whose lists hold `present`. */
  function instructionClient(status: number | undefined, present: readonly string[]): { client: ApplyWriter; calls: string[]; answered: Map<string, string> } {
    const { client, calls, answered } = fakeClient();
    return {
      calls,
      answered,
      client: {
        ...client,
        deleteInstruction: async (id, instructionId) => {
          calls.push(`deleteInstruction:${id}/${instructionId}`);
          await Promise.resolve();
          if (status !== undefined) throw httpError(status);
        },
        getStyleRules: async (id) => {
          calls.push(`getStyleRules:${id}`);
          await Promise.resolve();
          return { customInstructions: present.map((i) => ({ id: i })) };
        },
      },
    };
  }

  it('where the route exists: one DELETE, nothing else', async () => {
    const { client, calls } = instructionClient(undefined, []);
    const { result } = await executePlan({ plan: planOf([remove('op-1', 's1', 'i1')]), client, live: styleLive, managed: styleManaged });
    expect(calls).toEqual(['deleteInstruction:s1/i1']);
    expect(result.outcomes[0]).toMatchObject({ status: 'applied', request: 'DELETE /v3/style_rules/s1/custom_instructions/i1' });
    expect(result.ids.style_rules).toEqual({ M: 's1', N: 's2' });
  });

  it('a 404 after which the list no longer holds the instruction: done, and the route is not taken for missing', async () => {
    const { client, calls } = instructionClient(404, []);
    const { result } = await executePlan({ plan: planOf([remove('op-1', 's1', 'i1'), remove('op-2', 's2', 'i2')]), client, live: styleLive, managed: styleManaged });
    expect(result.outcomes.map((o) => [o.status, o.note])).toEqual([
      ['applied', 'the instruction was already gone'],
      ['applied', 'the instruction was already gone'],
    ]);
    expect(calls.filter((c) => c.startsWith('deleteInstruction'))).toHaveLength(2);
    expect(calls.some((c) => c.startsWith('createStyleRules') || c.startsWith('deleteStyleRules'))).toBe(false);
  });

  it.each([404, 405, 501])('%i with the instruction still there: the list is replaced, the answer remembered for the other lists and the next instruction', async (status) => {
    const { client, calls, answered } = instructionClient(status, ['i1', 'i2', 'i3']);
    const plan = planOf([remove('op-1', 's1', 'i1'), remove('op-2', 's1', 'i3', ['op-1']), remove('op-3', 's2', 'i2')]);
    const { result } = await executePlan({ plan, client, live: styleLive, managed: styleManaged });
    // The route is tried once in the run; each list is replaced once.
    expect(calls.filter((c) => c.startsWith('deleteInstruction'))).toEqual(['deleteInstruction:s1/i1']);
    expect(calls.filter((c) => c.startsWith('createStyleRules')).sort()).toEqual(['createStyleRules:M', 'createStyleRules:N']);
    expect(calls.filter((c) => c.startsWith('deleteStyleRules')).sort()).toEqual(['deleteStyleRules:s1', 'deleteStyleRules:s2']);
    expect(calls.indexOf('createStyleRules:M')).toBeLessThan(calls.indexOf('deleteStyleRules:s1'));
    const [first, second, third] = result.outcomes;
    // The replacements' ids are those the creates answered with.
    const newM = answered.get('createStyleRules:M');
    const newN = answered.get('createStyleRules:N');
    expect(newM).toMatch(/^new-\d+$/);
    expect(newN).toMatch(/^new-\d+$/);
    expect(newM).not.toBe(newN);
    expect(first?.note).toMatch(new RegExp(`^the service has no route to delete a custom instruction \\(HTTP ${status}\\): replaced the list instead, deleting the old one \\(s1\\)$`));
    expect(first?.createdId).toBe(newM);
    expect(second).toMatchObject({ status: 'applied', note: `done by the replace of the list (now ${newM ?? ''})` });
    expect(third?.createdId).toBe(newN);
    expect(result.ids.style_rules).toEqual({ M: newM, N: newN });
  });

  it('without a fallback (capability yes): a missing route fails the operation (exit 6) and names the setting', async () => {
    const { client, calls } = instructionClient(405, ['i1']);
    const { result } = await executePlan({ plan: planOf([remove('op-1', 's1', 'i1', [], false)]), client, live: styleLive, managed: styleManaged });
    expect(result.outcomes[0]?.status).toBe('failed');
    expect(result.outcomes[0]?.error).toEqual({
      code: 'route_missing',
      message: 'the service has no route to delete a custom instruction (HTTP 405); set capabilities.delete_custom_instruction to auto or no for this target',
    });
    expect(calls.some((c) => c.startsWith('createStyleRules'))).toBe(false);
  });

  it('other failures (400, 500) are failures as usual: no re-read, no fallback', async () => {
    for (const status of [400, 500]) {
      const { client, calls } = instructionClient(status, ['i1']);
      const { result } = await executePlan({ plan: planOf([remove('op-1', 's1', 'i1')]), client, live: styleLive, managed: styleManaged });
      expect(result.outcomes[0]?.error?.code).toBe(`http_${status}`);
      expect(calls).toEqual(['deleteInstruction:s1/i1']);
    }
  });
});
