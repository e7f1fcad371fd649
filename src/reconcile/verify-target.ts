import type { ServiceClient } from '../api/index.js';
import { canonicalLang } from '../lib/canonical.js';
import { DEFAULTS } from '../lib/defaults.js';
import { declaredV2Names, mergeGlossaryListings } from '../live/fetch-live.js';
import type { DesiredState, TargetConfig } from '../model/desired.js';
import type { LiveGlossary } from '../model/live.js';
import type { CheckResult, VerifyBudget, VerifyCheck } from '../model/verify.js';
import { matchGlossaries } from '../plan/index.js';
import { characterCount, checkTranslation, createChecks, unsentCheck } from '../verify/index.js';
import type { ServiceContext } from './open-client.js';
import type { TargetFailure } from './outcome.js';
import { withTargetClient } from './reconcile-target.js';

/**
 * What a verify run did on one target: a value, never an exit code (the CLI picks it, the daemon
 * turns it into status and metrics).
 */
export type VerifyOutcome =
  /** Every check was sent and judged (`results`, in the order of the checks; some may have failed). */
  | { readonly kind: 'verified'; readonly target: string; readonly budget: VerifyBudget; readonly results: readonly CheckResult[] }
  /** The checks would cost more characters than `verify.max_characters`: nothing was sent. */
  | { readonly kind: 'over_cap'; readonly target: string; readonly budget: VerifyBudget }
  /** Nothing to check: no tests declared and no sample asked for. */
  | { readonly kind: 'no_checks'; readonly target: string }
  | TargetFailure;

export interface VerifyRequest {
  readonly desired: DesiredState;
  readonly target: TargetConfig;
  /** Overrides of the config's `verify:` settings (the CLI's options). */
  readonly sample?: number;
  readonly seed?: number;
  readonly maxCharacters?: number;
  /** Only the glossaries of these names (the daemon: those a run changed). */
  readonly glossaries?: ReadonlySet<string>;
}

export interface VerifyObserver {
  /** What will be sent, before anything is (or why nothing will be: over the cap). */
  counted?(target: string, budget: VerifyBudget): void;
}

/** Texts per translate request and their JSON size: well below the service's request limits. */
const MAX_TEXTS_PER_REQUEST = 50;
const MAX_REQUEST_CHARACTERS = 30_000;

/** Whether every result passed. */
export function verifyPassed(outcome: VerifyOutcome): boolean {
  return outcome.kind === 'no_checks' || (outcome.kind === 'verified' && outcome.results.every((r) => r.status === 'pass'));
}

function hasPair(glossary: LiveGlossary, sourceLang: string, targetLang: string): boolean {
  return glossary.dictionaries.some((d) => canonicalLang(d.sourceLang) === sourceLang && canonicalLang(d.targetLang) === targetLang);
}

interface Batch {
  readonly glossaryId: string;
  readonly sourceLang: string;
  readonly targetLang: string;
  readonly indexes: number[];
  characters: number;
}

/** Groups the checks to send by glossary and language pair, in requests of bounded size. */
function batchesOf(sendable: readonly { readonly index: number; readonly check: VerifyCheck; readonly glossaryId: string }[]): Batch[] {
  const open = new Map<string, Batch>();
  const batches: Batch[] = [];
  for (const { index, check, glossaryId } of sendable) {
    const key = `${glossaryId}\0${check.sourceLang}\0${check.targetLang}`;
    let batch = open.get(key);
    const size = characterCount(check.text);
    if (batch === undefined || batch.indexes.length >= MAX_TEXTS_PER_REQUEST || batch.characters + size > MAX_REQUEST_CHARACTERS) {
      batch = { glossaryId, sourceLang: check.sourceLang, targetLang: check.targetLang, indexes: [], characters: 0 };
      open.set(key, batch);
      batches.push(batch);
    }
    batch.indexes.push(index);
    batch.characters += size;
  }
  return batches;
}

/**
 * Glossary smoke tests through the translation endpoint: the declared tests (and, with a sample,
 * entries translated alone) are translated with each glossary's live id and judged. The characters
 * are counted first: a run that would send more than the cap sends nothing (a terminologist paying
 * for characters gets all the checks asked for, or none and a clear reason, never a partial run).
 */
export async function verifyTarget(request: VerifyRequest, ctx: ServiceContext, observer: VerifyObserver = {}): Promise<VerifyOutcome> {
  const { desired, target } = request;
  const settings = desired.config.verify;
  const checks = createChecks(desired.glossaries, {
    sample: request.sample ?? settings?.sample ?? DEFAULTS.verifySample,
    seed: request.seed ?? settings?.seed ?? DEFAULTS.verifySeed,
    ...(request.glossaries === undefined ? {} : { glossaries: request.glossaries }),
  });
  if (checks.length === 0) return { kind: 'no_checks', target: target.name };
  const maxCharacters = request.maxCharacters ?? settings?.maxCharacters ?? DEFAULTS.verifyMaxCharacters;
  const stop = ctx.stop ?? ctx.signal;
  if (stop.aborted) return { kind: 'interrupted', target: target.name };
  return withTargetClient(ctx, desired, target, async (client: ServiceClient): Promise<VerifyOutcome> => {
    const [v3, v2] = await Promise.all([client.listGlossaries(), client.listGlossariesV2()]);
    const live = mergeGlossaryListings(v3, v2, declaredV2Names(desired));
    const current = new Map<string, LiveGlossary>();
    for (const match of matchGlossaries(desired.glossaries, live).matches) if (match.current !== undefined) current.set(match.desired.name, match.current);

    const results: (CheckResult | undefined)[] = checks.map(() => undefined);
    const sendable: { index: number; check: VerifyCheck; glossaryId: string }[] = [];
    checks.forEach((check, index) => {
      const glossary = current.get(check.glossary);
      if (glossary === undefined) {
        results[index] = unsentCheck(check, `the glossary "${check.glossary}" is not on the service: run apply first`);
      } else if (!hasPair(glossary, check.sourceLang, check.dictionaryTarget)) {
        results[index] = unsentCheck(check, `the glossary on the service (id ${glossary.id}) has no dictionary ${check.sourceLang} → ${check.dictionaryTarget}: run apply first`);
      } else sendable.push({ index, check, glossaryId: glossary.id });
    });
    const budget: VerifyBudget = { checks: sendable.length, characters: sendable.reduce((n, s) => n + characterCount(s.check.text), 0), maxCharacters };
    observer.counted?.(target.name, budget);
    if (budget.characters > maxCharacters) return { kind: 'over_cap', target: target.name, budget };
    if (stop.aborted) return { kind: 'interrupted', target: target.name };

    await Promise.all(
      batchesOf(sendable).map(async (batch) => {
        const translations = await client.translate({
          texts: batch.indexes.map((i) => (checks[i] as VerifyCheck).text),
          sourceLang: batch.sourceLang,
          targetLang: batch.targetLang,
          glossaryId: batch.glossaryId,
        });
        batch.indexes.forEach((i, k) => {
          results[i] = checkTranslation(checks[i] as VerifyCheck, translations[k] ?? '');
        });
      }),
    );
    return { kind: 'verified', target: target.name, budget, results: results.filter((r): r is CheckResult => r !== undefined) };
  });
}
