import { declaredV2Names, fetchLive, type LiveReader } from '../live/fetch-live.js';
import type { Logger } from '../lib/logger.js';
import type { DesiredState } from '../model/desired.js';
import type { LiveState } from '../model/live.js';
import type { Plan } from '../model/plan.js';
import { createPlan, dictionariesToRead } from '../plan/index.js';
import { managedNamesOf } from './collect-ids.js';
import { executePlan, type ApplyWriter, type ExecutedPlan } from './execute-plan.js';

/** Reads the live state the plan needs (only the dictionaries it must compare) and makes the plan. */
export async function planTarget(client: LiveReader, desired: DesiredState, target: string): Promise<{ plan: Plan; live: LiveState }> {
  const live = await fetchLive(client, (glossaries) => dictionariesToRead(desired, glossaries), declaredV2Names(desired));
  return { plan: createPlan({ target, desired, live }), live };
}

/**
 * One reconcile of one target, the unit the CLI's `apply` and the daemon share: read live state,
 * plan, and execute the plan. A plan blocked by a guard throws (exit 4) before any write.
 */
export async function reconcileTarget(input: {
  readonly client: LiveReader & ApplyWriter;
  readonly desired: DesiredState;
  readonly target: string;
  readonly signal?: AbortSignal;
  readonly logger?: Logger;
  /** Called with the plan before anything is written (the CLI prints it). */
  readonly onPlan?: (plan: Plan) => void;
}): Promise<{ plan: Plan; live: LiveState; executed: ExecutedPlan }> {
  const { plan, live } = await planTarget(input.client, input.desired, input.target);
  input.onPlan?.(plan);
  const executed = await executePlan({
    plan,
    client: input.client,
    live,
    managed: managedNamesOf(input.desired),
    ...(input.signal === undefined ? {} : { signal: input.signal }),
    ...(input.logger === undefined ? {} : { logger: input.logger }),
  });
  return { plan, live, executed };
}
