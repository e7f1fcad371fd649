import type { ApplyResult, OperationOutcome } from '../model/index.js';
import { displayPhrase } from './format-plan.js';
import { toSnakeKeys } from './json-keys.js';
import { stableJson } from './stable-json.js';

const STATUS_SYMBOL: Readonly<Record<OperationOutcome['status'], string>> = { applied: '✓', failed: '✗', skipped: '-' };

function outcomeLine(o: OperationOutcome): string {
  const what = `${o.key} ${o.request}  ${o.resource.kind} "${displayPhrase(o.resource.name)}"`;
  if (o.status === 'applied') {
    return `  ${STATUS_SYMBOL.applied} ${what}${o.createdId === undefined ? '' : ` → id ${o.createdId}`}${o.note === undefined ? '' : ` (${displayPhrase(o.note)})`}`;
  }
  if (o.status === 'failed') {
    const error = o.error === undefined ? 'failed' : `${o.error.code}: ${displayPhrase(o.error.message)}${o.error.traceId === undefined ? '' : ` (trace ${o.error.traceId})`}`;
    return `  ${STATUS_SYMBOL.failed} ${what}: ${error}`;
  }
  return `  ${STATUS_SYMBOL.skipped} ${what}: skipped${o.skippedBecause === undefined ? '' : ` (${displayPhrase(o.skippedBecause)})`}`;
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
  const totals = `${result.applied} applied, ${result.failed} failed, ${result.skipped} skipped.`;
  lines.push(result.failed > 0 || result.skipped > 0 ? `Apply incomplete: ${totals} Run apply again to retry.` : `Apply complete: ${totals}`);
  return `${lines.join('\n')}\n`;
}

export function renderApplyResultJson(result: ApplyResult): string {
  // `ids` is already the `--ids-out` shape (snake_case, keyed by resource names).
  return stableJson(toSnakeKeys(result, new Set(['ids'])));
}
