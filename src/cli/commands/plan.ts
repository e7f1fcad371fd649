import type { Command } from 'commander';
import { TermsyncError } from '../../lib/errors.js';
import type { CommandContext } from '../io.js';
import { addCommonOptions } from '../common-options.js';

// Placeholder: replaced by the issue that builds `plan`.
export function registerPlan(program: Command, _ctx: CommandContext): Command {
  return addCommonOptions(program.command('plan').description('plan (not built yet)')).action(() => {
    throw new TermsyncError('not_implemented', '`plan` is not built yet');
  });
}
