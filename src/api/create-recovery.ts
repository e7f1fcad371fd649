import { ServiceError } from './errors.js';
import type { ServiceCalls, ServiceRequest } from './service-calls.js';
import { requestTarget, type HttpAnswer } from './send-request.js';

/**
 * Names the client has seen in a listing or a create answer, with their ids: after a lost create
 * answer, a resource of that name whose id is *not* in here is the one our create made.
 */
export class SeenIds {
  private readonly byName = new Map<string, Set<string>>();
  listed = false;
  /** The one listing concurrent first creates wait for. */
  listing: Promise<void> | undefined;
  add(name: string, id: string): void {
    let ids = this.byName.get(name);
    if (!ids) this.byName.set(name, (ids = new Set()));
    ids.add(id);
  }
  has(name: string, id: string): boolean {
    return this.byName.get(name)?.has(id) ?? false;
  }
  /** Remembers a listing: every name and id in it. */
  remember(items: readonly { name: string; id: string }[]): void {
    this.listed = true;
    for (const item of items) this.add(item.name, item.id);
  }
}

/**
 * Lists once before the first create. Without it, a resource of the same name that already existed
 * (a v2 recreate is create-first) could be mistaken for ours after a lost answer.
 */
export async function ensureListed(seen: SeenIds, list: () => Promise<readonly { name: string; id: string }[]>): Promise<void> {
  if (seen.listed) return;
  seen.listing ??= list().then(
    (items) => seen.remember(items),
    (error: unknown) => {
      seen.listing = undefined;
      throw error;
    },
  );
  await seen.listing;
}

/** The newest of the candidates (ISO times compare as strings); ties broken by id for determinism. */
function newest<T extends { id: string; creationTime: string }>(items: readonly T[]): T | undefined {
  return [...items].sort((a, b) => (a.creationTime === b.creationTime ? (a.id < b.id ? 1 : -1) : a.creationTime < b.creationTime ? 1 : -1))[0];
}

/**
 * The resource a lost create made, if it landed: the newest of `name` in a fresh listing that the
 * client had not seen before (see SeenIds). `adopt` is told of it and of how many there were.
 */
export async function findCreated<T extends { id: string; name: string; creationTime: string }>(
  seen: SeenIds,
  name: string,
  list: () => Promise<readonly T[]>,
  adopt?: (found: T, candidates: number) => void,
): Promise<T | undefined> {
  const candidates = (await list()).filter((item) => item.name === name && !seen.has(item.name, item.id));
  const found = newest(candidates);
  if (found !== undefined) adopt?.(found, candidates.length);
  return found;
}

/**
 * A POST that creates a resource. Never resent blindly: when its answer is lost (network error
 * after sending, or a 5xx after which the write may have landed) the resource is looked up by
 * name first and adopted if it is there.
 */
export async function createOnce<T>(calls: ServiceCalls, request: ServiceRequest, parse: (answer: HttpAnswer) => T, lookup: () => Promise<T | undefined>): Promise<T> {
  const { queue } = calls;
  const op = queue.newOperation();
  for (;;) {
    const result = await queue.call({ ...request, idempotent: false }, op);
    if (result.kind === 'answer') return parse(result.answer);
    calls.logger.debug({ method: request.method, route: request.route }, 'create answer lost: looking the resource up by name before resending');
    let found: T | undefined;
    try {
      found = await lookup();
    } catch (error) {
      // The look-up was not sent (the run was stopped): the create itself was, and may have landed.
      if (error instanceof ServiceError && error.code === 'aborted') {
        throw new ServiceError('aborted', { method: request.method, path: requestTarget(request), attempts: op.attempts }, 'interrupted after its answer was lost, before it could be looked up: the create may have landed');
      }
      throw error;
    }
    if (found !== undefined) return found;
    // It did not land: send it again, after the same back-off as any other failed attempt.
    const reason = result.failure === undefined ? 'create_not_landed' : `http_${result.failure.status}`;
    if (!(await queue.backOff({ ...request, idempotent: false }, op, reason))) {
      const path = requestTarget(request);
      // The last attempt was answered (a 5xx): report the service's answer, not a network problem.
      if (result.failure !== undefined) {
        const { status } = result.failure;
        throw new ServiceError(`http_${status}`, { ...result.failure, method: request.method, path, attempts: op.attempts }, `HTTP ${status} after ${op.attempts} attempts; the create did not land`);
      }
      throw new ServiceError('network', { method: request.method, path, attempts: op.attempts }, 'the create never answered and did not land');
    }
  }
}
