import { NOT_STARTED_INTERRUPTED, failureMayPass, type ApplyResult, type OperationOutcome } from '../model/index.js';
import { displayPhrase } from './format-plan.js';
import { toSnakeKeys } from './json-keys.js';
import { stableJson } from './stable-json.js';

const STATUS_SYMBOL: Readonly<Record<OperationOutcome['status'], string>> = { applied: '✓', failed: '✗', skipped: '-' };

function outcomeLine(o: OperationOutcome): string {
  const what = `${o.key} ${displayPhrase(o.request)}  ${o.resource.kind} "${displayPhrase(o.resource.name)}"`;
  if (o.status === 'applied') {
    return `  ${STATUS_SYMBOL.applied} ${what}${o.createdId === undefined ? '' : ` → id ${displayPhrase(o.createdId)}`}${o.note === undefined ? '' : ` (${displayPhrase(o.note)})`}`;
  }
  if (o.status === 'failed') {
    // The service error's message names its trace id already; others get it once, here.
    const trace = o.error?.traceId === undefined || o.error.message.includes(o.error.traceId) ? '' : ` (trace id ${displayPhrase(o.error.traceId)})`;
    const error = o.error === undefined ? 'failed' : `${displayPhrase(o.error.code)}: ${displayPhrase(o.error.message)}${trace}`;
    return `  ${STATUS_SYMBOL.failed} ${what}: ${error}`;
  }
  // Not started because of an interruption: the totals line says so once.
  const why = o.skippedBecause === NOT_STARTED_INTERRUPTED ? 'not started' : o.skippedBecause;
  return `  ${STATUS_SYMBOL.skipped} ${what}: skipped${why === undefined ? '' : ` (${displayPhrase(why)})`}`;
}

/**
 * The totals, and what to do next only when it can help: after an interruption, apply again
 * finishes the job; after failures that may pass (throttling, network, 5xx) it retries them; after
 * failures that come back the same (a 400, a refused key) it would not help, so it is not suggested.
 */
function totalsLine(result: ApplyResult): string {
  const duplicates = result.duplicatesDeleted === undefined ? '' : `; ${result.duplicatesDeleted} ${result.duplicatesDeleted === 1 ? 'duplicate' : 'duplicates'} of declared names deleted`;
  const totals = `${result.applied} applied, ${result.failed} failed, ${result.skipped} skipped${duplicates}.`;
  if (result.failed === 0 && result.skipped === 0) return `Apply complete: ${totals}`;
  const notStarted = result.outcomes.filter((o) => o.skippedBecause === NOT_STARTED_INTERRUPTED).length;
  if (result.interrupted === true || notStarted > 0) {
    return `Apply interrupted: ${totals.slice(0, -1)}${notStarted > 0 ? ` (${notStarted} not started)` : ''}. Run apply again to finish.`;
  }
  const mayPass = result.outcomes.some((o) => o.status === 'failed' && o.error !== undefined && failureMayPass(o.error.code));
  return `Apply incomplete: ${totals}${mayPass ? ' Run apply again to retry.' : ''}`;
}

/** One line per operation, then the totals. */
export function renderApplyResultText(result: ApplyResult): string {
  const lines: string[] = [];
  if (result.outcomes.length === 0) {
    lines.push(`Nothing to apply on target "${displayPhrase(result.target)}".`);
  } else {
    lines.push(`Applying to target "${displayPhrase(result.target)}":`);
    for (const o of result.outcomes) lines.push(outcomeLine(o));
    lines.push('');
  }
  lines.push(totalsLine(result));
  return `${lines.join('\n')}\n`;
}

export function renderApplyResultJson(result: ApplyResult): string {
  // `ids` is already the `--ids-out` shape (snake_case, keyed by resource names).
  return stableJson(toSnakeKeys(result, new Set(['ids'])));
}
