import type { ServiceClient } from '../api/index.js';
import { planTarget } from '../apply/reconcile-target.js';
import type { DesiredState, TargetConfig } from '../model/desired.js';
import type { LiveState } from '../model/live.js';
import type { Plan } from '../model/plan.js';
import { isTermsyncError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import type { CliIo } from './io.js';
import { mostSevere, openClient } from './load-target.js';

export function fetchAndPlan(client: ServiceClient, desired: DesiredState, target: TargetConfig): Promise<{ plan: Plan; live: LiveState }> {
  return planTarget(client, desired, target.name);
}

/**
 * Runs `work` for each target with its own client, closed afterwards. A target's failure is
 * printed and does not stop the others; the exit code is the most severe one.
 */
export async function forEachTarget(
  io: CliIo,
  desired: DesiredState,
  targets: readonly TargetConfig[],
  logger: Logger,
  work: (client: ServiceClient, target: TargetConfig) => Promise<number>,
): Promise<number> {
  let code = 0;
  for (const target of targets) {
    try {
      const client = openClient(io, desired, target, logger);
      try {
        code = mostSevere(code, await work(client, target));
      } finally {
        await client.close();
      }
    } catch (error) {
      if (!isTermsyncError(error)) throw error;
      const where = targets.length > 1 ? `target "${target.name}": ` : '';
      io.stderr(`Error: ${where}${error.message}\n`);
      code = mostSevere(code, error.exitCode);
    }
  }
  return code;
}

export function withNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}
