import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { propertyTimeout, runs } from '../helpers/properties.js';
import { stringify } from 'yaml';
import { startEmulator } from '../../src/emulator/index.js';
import { runCliCaptured } from '../cli/run-cli.js';

/*
 * For random pairs of repository states A and B: apply A to a fresh account, then B. Applying B
 * makes exactly as many writes as there are differing items (the minimum), and a follow-up plan
 * is empty. The expected count is worked out here from A and B alone, not from the planner.
 */

type Entries = Record<string, string>;
type Pair = 'en-de' | 'en-fr' | 'de-en';
interface V3 {
  readonly api: 'v3';
  readonly dictionaries: Partial<Record<Pair, Entries>>;
}
interface V2 {
  readonly api: 'v2';
  readonly pair: Pair;
  readonly entries: Entries;
}
interface Instruction {
  readonly prompt: string;
  readonly sourceLanguage?: string;
}
interface Style {
  readonly language: string;
  readonly rules: Record<string, Record<string, string>>;
  readonly instructions: Record<string, Instruction>;
}
interface State {
  readonly glossaries: Record<string, V3 | V2 | undefined>;
  readonly styles: Record<string, Style | undefined>;
}

const PAIRS: Pair[] = ['en-de', 'en-fr', 'de-en'];
const entriesArb = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd', 'e'), fc.constantFrom('x', 'y', 'z'), { minKeys: 1, maxKeys: 4 });
const v3Arb: fc.Arbitrary<V3> = fc
  .dictionary(fc.constantFrom(...PAIRS), entriesArb, { minKeys: 1, maxKeys: 3 })
  .map((dictionaries) => ({ api: 'v3', dictionaries }));
const v2Arb: fc.Arbitrary<V2> = fc.record({ api: fc.constant('v2' as const), pair: fc.constantFrom(...PAIRS), entries: entriesArb });
const RULES = [
  ['punctuation', 'apostrophe', 'use_curly_apostrophes'],
  ['dates_and_times', 'calendar_era', 'use_bc_and_ad'],
  ['style_and_tone', 'short_vs_long_words', 'use_short_words'],
] as const;
const styleArb: fc.Arbitrary<Style> = fc.record({
  language: fc.constantFrom('de', 'en'),
  rules: fc.subarray([...RULES]).map((picked) => {
    const rules: Record<string, Record<string, string>> = {};
    for (const [category, rule, option] of picked) rules[category] = { ...rules[category], [rule]: option };
    return rules;
  }),
  instructions: fc.dictionary(
    fc.constantFrom('Tone', 'Terms', 'Length'),
    fc
      .tuple(fc.constantFrom('Be formal.', 'Be brief.'), fc.boolean())
      .map(([prompt, withSource]): Instruction => (withSource ? { prompt, sourceLanguage: 'en' } : { prompt })),
    { maxKeys: 3 },
  ),
});
const stateArb: fc.Arbitrary<State> = fc.record({
  glossaries: fc.record({ 'Glossary one': fc.option(v3Arb, { nil: undefined }), 'Glossary two': fc.option(v3Arb, { nil: undefined }), Legacy: fc.option(v2Arb, { nil: undefined }) }),
  styles: fc.record({ 'Style one': fc.option(styleArb, { nil: undefined }), 'Style two': fc.option(styleArb, { nil: undefined }) }),
});

const same = (a: unknown, b: unknown): boolean => JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([k, v]) => [k, sortKeys(v)]),
    );
  }
  return value;
}

/** The minimum number of writes that takes the service from A to B (prune off: nothing undeclared is deleted). */
function expectedWrites(a: State, b: State): number {
  let writes = 0;
  for (const [name, want] of Object.entries(b.glossaries)) {
    const have = a.glossaries[name];
    if (want === undefined) continue;
    if (have === undefined) writes += 1;
    else if (want.api === 'v2' && have.api === 'v2') writes += same(want, have) ? 0 : 2;
    else if (want.api === 'v3' && have.api === 'v3') {
      for (const pair of PAIRS) {
        const w = want.dictionaries[pair];
        const h = have.dictionaries[pair];
        if (w === undefined && h === undefined) continue;
        if (w === undefined || h === undefined || !same(w, h)) writes += 1;
      }
    }
  }
  for (const [name, want] of Object.entries(b.styles)) {
    const have = a.styles[name];
    if (want === undefined) continue;
    if (have === undefined) {
      writes += 1;
      continue;
    }
    // A source language counts only when declared; a removed instruction is one DELETE (the
    // emulator serves that route here, and the target's capability is the default, auto).
    const removed = Object.keys(have.instructions).filter((label) => want.instructions[label] === undefined).length;
    const sourceChanged = Object.entries(want.instructions).some(
      ([label, i]) => have.instructions[label] !== undefined && i.sourceLanguage !== undefined && have.instructions[label].sourceLanguage !== i.sourceLanguage,
    );
    if (want.language !== have.language || sourceChanged) {
      writes += 2;
      continue;
    }
    writes += removed;
    if (!same(want.rules, have.rules)) writes += 1;
    for (const [label, i] of Object.entries(want.instructions)) {
      const h = have.instructions[label];
      if (h === undefined || h.prompt !== i.prompt) writes += 1;
    }
  }
  return writes;
}

const CONFIG = `version: 1
resources: [glossaries]
prune: "off"
guards: { max_deletes: 100, max_removed_entries_percent: 100, allow_empty: false }
rate_limit: { requests_per_second: 1000, concurrency: 4 }
targets:
  - { name: default, base_url_env: TERMSYNC_BASE_URL, api_key_env: TERMSYNC_API_KEY }
`;

async function writeState(dir: string, state: State): Promise<void> {
  await rm(join(dir, 'glossaries'), { recursive: true, force: true });
  await mkdir(join(dir, 'glossaries'), { recursive: true });
  let n = 0;
  for (const [name, g] of Object.entries(state.glossaries)) {
    if (g === undefined) continue;
    const dictionaries =
      g.api === 'v2'
        ? [{ pair: g.pair, entries: g.entries }]
        : Object.entries(g.dictionaries).map(([pair, entries]) => ({ pair, entries }));
    const resource = {
      kind: 'glossary',
      name,
      api: g.api,
      dictionaries: dictionaries.map(({ pair, entries }) => ({ source_lang: pair.slice(0, 2), target_lang: pair.slice(3), entries })),
    };
    await writeFile(join(dir, 'glossaries', `r${(n += 1)}.yaml`), stringify(resource));
  }
  for (const [name, s] of Object.entries(state.styles)) {
    if (s === undefined) continue;
    const resource = {
      kind: 'style_rules',
      name,
      language: s.language,
      configured_rules: s.rules,
      custom_instructions: Object.entries(s.instructions).map(([label, i]) =>
        i.sourceLanguage === undefined ? { label, prompt: i.prompt } : { label, prompt: i.prompt, source_language: i.sourceLanguage },
      ),
    };
    await writeFile(join(dir, 'glossaries', `r${(n += 1)}.yaml`), stringify(resource));
  }
}

let emulator: Awaited<ReturnType<typeof startEmulator>>;
let root: string;
beforeAll(async () => {
  emulator = await startEmulator({ port: 0, seed: 7, behaviour: { deleteInstruction: true } });
  root = await mkdtemp(join(tmpdir(), 'termsync-prop-'));
});
afterAll(async () => {
  await emulator.close();
  await rm(root, { recursive: true, force: true });
});

describe('apply converges with the minimum number of writes', () => {
  it('for random repository states A → B', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(stateArb, stateArb, async (a, b) => {
        run += 1;
        // Each key is its own account on the emulator: every run starts from an empty service.
        const dir = join(root, `run-${run}`);
        await mkdir(join(dir, 'config'), { recursive: true });
        await writeFile(join(dir, 'config', 'termsync.yaml'), CONFIG);
        const cli = (argv: string[]): ReturnType<typeof runCliCaptured> =>
          runCliCaptured([...argv, '--dir', dir], { cwd: dir, env: { TERMSYNC_BASE_URL: emulator.url, TERMSYNC_API_KEY: `key-${run}` } });
        const writes = (from: number): number =>
          emulator
            .requests()
            .slice(from)
            .filter((r) => r.method !== 'GET').length;

        await writeState(dir, a);
        const first = await cli(['apply']);
        expect(first.stderr).toBe('');
        expect(first.code).toBe(0);

        await writeState(dir, b);
        const mark = emulator.requests().length;
        const second = await cli(['apply']);
        expect(second.stderr).toBe('');
        expect(second.code).toBe(0);
        expect(writes(mark)).toBe(expectedWrites(a, b));

        const follow = await cli(['plan', '--detailed-exitcode']);
        expect(follow.code).toBe(0);
      }),
      { numRuns: runs(15), seed: 20261122 },
    );
    // 15 runs of several CLI commands each: ~8 s alone, much more while the rest of the suite runs.
  }, propertyTimeout(60_000));
});
