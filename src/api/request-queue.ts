import { onAnswer, onNetworkFailure } from './handle-answer.js';
import { attempt, createQueueContext, retryAfterBackoff } from './queue-context.js';
import type { ApiCall, CallResult, OperationBudget, RequestQueue, RequestQueueOptions } from './queue-types.js';

export type { ApiCall, CallResult, ClientMetricsHooks, OperationBudget, RequestQueue, RequestQueueOptions, RetryOptions } from './queue-types.js';

/** Calls to glossary endpoints: the ones a 456 (glossary quota) cools down. */
function isGlossaryPath(path: string): boolean {
  return path.startsWith('/v3/glossaries') || path.startsWith('/v2/glossar');
}

/**
 * The client's one way to the service: every call waits for the gates (throttling, the glossary
 * cool-down), a slot and its turn in the pace (flow-control.ts), is sent (queue-context.ts), and
 * its answer decides what comes next (handle-answer.ts): the result, a retry after the waits it
 * asked for, or the error that says why not.
 */
export function createRequestQueue(options: RequestQueueOptions): RequestQueue {
  const closing = new AbortController();
  const ctx = createQueueContext(options, closing.signal);
  const { clock } = ctx;

  const call = async (request: ApiCall, op: OperationBudget): Promise<CallResult> => {
    const glossary = isGlossaryPath(request.path);
    for (;;) {
      const result = await attempt(ctx, request, op, glossary);
      const ms = clock.now() - result.sent.at; // the exchange itself, not the wait in the queue
      const next = 'network' in result ? await onNetworkFailure(ctx, request, op, result, ms) : await onAnswer(ctx, request, op, result, ms, glossary);
      if (next !== 'retry') return next;
    }
  };

  return {
    flow: ctx.flow,
    newOperation: () => ({ deadline: clock.now() + ctx.deadlineMs, failures: 0, attempts: 0, outcomeUnknown: false }),
    call,
    backOff: async (request, op, reason) => {
      await retryAfterBackoff(ctx, request, op, reason);
      return op.failures < ctx.maxAttempts;
    },
    onIdle: () => ctx.slots.onIdle(),
    close: () => closing.abort(),
  };
}
