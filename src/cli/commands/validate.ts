import type { Command } from 'commander';
import { TermsyncError } from '../../lib/errors.js';
import type { CommandContext } from '../io.js';
import { addCommonOptions } from '../common-options.js';

// Placeholder: replaced by the issue that builds `validate`.
export function registerValidate(program: Command, _ctx: CommandContext): Command {
  return addCommonOptions(program.command('validate').description('validate (not built yet)')).action(() => {
    throw new TermsyncError('not_implemented', '`validate` is not built yet');
  });
}
