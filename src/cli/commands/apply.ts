import type { Command } from 'commander';
import { TermsyncError } from '../../lib/errors.js';
import type { CommandContext } from '../io.js';
import { addCommonOptions } from '../common-options.js';

// Placeholder: replaced by the issue that builds `apply`.
export function registerApply(program: Command, _ctx: CommandContext): Command {
  return addCommonOptions(program.command('apply').description('apply (not built yet)')).action(() => {
    throw new TermsyncError('not_implemented', '`apply` is not built yet');
  });
}
