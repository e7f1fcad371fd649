/** What started a reconcile: the metrics' `trigger` label. */
export type Trigger = 'startup' | 'files' | 'schedule' | 'retry' | 'reload' | 'git' | 'webhook' | 'api';

/** What a trigger asks of the run it starts. */
export interface TriggerPolicy {
  /** Every managed dictionary is read and compared (drift repair), not only what changed files touch. */
  readonly full: boolean;
  /** With --git-pull: fetch and fast-forward before the run. */
  readonly fetch: boolean;
  /** Every repository file is parsed again (nothing of the last load reused). */
  readonly fresh: boolean;
}

/** One row per trigger: a new way to start a run (a webhook, an HTTP request) is one more row. */
export const TRIGGERS: Readonly<Record<Trigger, TriggerPolicy>> = {
  startup: { full: true, fetch: true, fresh: false },
  schedule: { full: true, fetch: true, fresh: false },
  retry: { full: true, fetch: false, fresh: false },
  // SIGHUP: a full reload.
  reload: { full: true, fetch: false, fresh: true },
  files: { full: false, fetch: false, fresh: false },
  git: { full: false, fetch: true, fresh: false },
  // A push to the watched branch (POST /hooks/github, /hooks/gitlab): with --git-pull, fetch at once
  // and reconcile what the new commits change, as a git tick does. Without --git-pull there is
  // nothing to fetch and no way to tell what changed: the daemon asks for a full run instead
  // (`webhookRequest`).
  webhook: { full: false, fetch: true, fresh: false },
  // POST /reconcile: what the schedule does, now.
  api: { full: true, fetch: true, fresh: false },
};

/** Triggers that only ask for a pull: with --git-pull, a run follows only when the pull brought commits (or a full request is folded in). */
export function pullOnly(request: RunRequest): boolean {
  return (request.trigger === 'git' || request.trigger === 'webhook') && !request.full;
}

/**
 * What the next run of a work-queue key has to cover: never a diff, only how much to read again.
 * Triggers that arrive before the run starts fold into one request (`mergeRequests`).
 */
export interface RunRequest {
  /** The label of the run: the first trigger, or the first full one when a full one came later. */
  readonly trigger: Trigger;
  readonly full: boolean;
  readonly fetch: boolean;
  readonly fresh: boolean;
  /** Repository-relative files that changed (a file-triggered run reads only what they touch). */
  readonly files: ReadonlySet<string>;
}

export function requestFor(trigger: Trigger, files: readonly string[] = []): RunRequest {
  return { trigger, ...TRIGGERS[trigger], files: new Set(files) };
}

/** A push webhook's request: a pull with --git-pull (`gitPull`), else a full run of the tree as it is. */
export function webhookRequest(gitPull: boolean): RunRequest {
  const request = requestFor('webhook');
  return gitPull ? request : { ...request, full: true };
}

/** Two requests for one key as one run that covers both. */
export function mergeRequests(queued: RunRequest, added: RunRequest): RunRequest {
  return {
    trigger: added.full && !queued.full ? added.trigger : queued.trigger,
    full: queued.full || added.full,
    fetch: queued.fetch || added.fetch,
    fresh: queued.fresh || added.fresh,
    files: added.files.size === 0 ? queued.files : new Set([...queued.files, ...added.files]),
  };
}
