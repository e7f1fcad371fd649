import type { RunResult } from './daemon-metrics.js';
import type { Shard } from './shard.js';
import type { Trigger } from './triggers.js';

/** One target of the daemon as `/status` shows it: its run in progress, its last run, its retry. */
export interface TargetStateReport {
  readonly running: { readonly trigger: Trigger; readonly startedAt: string } | null;
  readonly last: { readonly trigger: Trigger; readonly at: string; readonly durationMs: number; readonly result: RunResult; readonly error?: string } | null;
  /** Failed runs in a row (their back-off doubles). */
  readonly failures: number;
  readonly nextRetryAt: string | null;
}

const SUCCEEDED: ReadonlySet<string> = new Set(['converged', 'changed']);

/**
 * The targets this daemon reconciles (those of its `--target` and its shard) and the state of
 * each: runs of different targets go side by side, so each has its own. What `/status` shows under
 * `shard` and `targets`, and what readiness is judged on.
 */
export class TargetStates {
  #shard: Shard | undefined;
  #owned: readonly string[] = [];
  /** Targets of the config, this replica's or not (undefined: the repository was not read yet). */
  #declared: number | undefined;
  readonly #running = new Map<string, { trigger: Trigger; startedAt: string }>();
  readonly #last = new Map<string, NonNullable<TargetStateReport['last']>>();
  #retry: (target: string) => { readonly at: number | undefined; readonly failures: number } = () => ({ at: undefined, failures: 0 });
  readonly #changed: () => void;

  constructor(changed: () => void, shard?: Shard) {
    this.#changed = changed;
    this.#shard = shard;
  }

  get shard(): Shard | undefined {
    return this.#shard;
  }
  /** Targets the config declares (all replicas together; undefined before the first load). */
  get declared(): number | undefined {
    return this.#declared;
  }
  get runningCount(): number {
    return this.#running.size;
  }
  /** The targets this daemon reconciles, in the config's order. */
  get owned(): readonly string[] {
    return this.#owned;
  }

  /** Where each target's back-off is read from: the target work queue owns it. */
  followRetries(retry: (target: string) => { readonly at: number | undefined; readonly failures: number }): void {
    this.#retry = retry;
  }

  /** The targets of the config as last loaded: those this daemon owns, among `declared`. Others are forgotten. */
  own(owned: readonly string[], declared: number): void {
    this.#owned = [...owned];
    this.#declared = declared;
    const keep = new Set(owned);
    for (const name of [...this.#last.keys()]) if (!keep.has(name)) this.#last.delete(name);
    this.#changed();
  }

  started(target: string, trigger: Trigger, startedAt: number): void {
    this.#running.set(target, { trigger, startedAt: new Date(startedAt).toISOString() });
    this.#changed();
  }

  finished(target: string, last: NonNullable<TargetStateReport['last']>): void {
    this.#last.set(target, last);
    this.#changed();
  }

  ended(target: string): void {
    this.#running.delete(target);
    this.#changed();
  }

  /** A run in progress (the first one, when several are). */
  firstRunning(): { readonly trigger: Trigger; readonly startedAt: string } | undefined {
    for (const running of this.#running.values()) return running;
    return undefined;
  }

  report(target: string): TargetStateReport {
    const retry = this.#retry(target);
    return {
      running: this.#running.get(target) ?? null,
      last: this.#last.get(target) ?? null,
      failures: retry.failures,
      nextRetryAt: retry.at === undefined ? null : new Date(retry.at).toISOString(),
    };
  }

  /**
   * Readiness by target, once the repository was read: ready when every target this daemon owns
   * last ended converged or changed (or pending, suspended), or is running now; a replica that owns
   * none is ready. Undefined while no target was handed out yet, and for a daemon of one target and
   * no shard (its runs are that target's: the daemon's run-level readiness says the same).
   */
  readiness(suspended: ReadonlySet<string> = new Set()): { ready: boolean; reason: string } | undefined {
    if (this.#declared === undefined) return undefined;
    if (this.#owned.length === 0) return { ready: true, reason: `this replica reconciles none of the ${this.#declared} targets (shard ${this.#shard?.index ?? 0}/${this.#shard?.count ?? 1})` };
    if (this.#owned.length === 1 && this.#shard === undefined) return undefined;
    const ok = (target: string, result: string): boolean => SUCCEEDED.has(result) || (result === 'pending' && suspended.has(target));
    const failing = this.#owned.filter((t) => !this.#running.has(t) && this.#last.get(t) !== undefined && !ok(t, this.#last.get(t)?.result ?? ''));
    if (failing.length > 0) {
      const first = this.#last.get(failing[0] ?? '');
      return { ready: false, reason: `the last reconcile of ${failing.length === 1 ? `target "${failing[0]}"` : `${failing.length} targets (first "${failing[0]}")`} ended ${first?.result ?? 'failed'}` };
    }
    if (this.#running.size > 0) return { ready: true, reason: 'a reconcile is running' };
    if (this.#owned.some((t) => this.#last.get(t) === undefined)) return { ready: false, reason: 'no reconcile has run yet' };
    return { ready: true, reason: 'the last reconcile of every target ended converged or changed' };
  }

  toJSON(): { shard: (Shard & { readonly owned: number; readonly declared: number | null }) | null; targets: Record<string, TargetStateReport> } {
    return {
      shard: this.#shard === undefined ? null : { ...this.#shard, owned: this.#owned.length, declared: this.#declared ?? null },
      targets: Object.fromEntries(this.#owned.map((t) => [t, this.report(t)])),
    };
  }
}
