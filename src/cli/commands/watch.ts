import type { Command } from 'commander';
import { TermsyncError } from '../../lib/errors.js';
import type { CommandContext } from '../io.js';
import { addCommonOptions } from '../common-options.js';

// Placeholder: replaced by the issue that builds `watch`.
export function registerWatch(program: Command, _ctx: CommandContext): Command {
  return addCommonOptions(program.command('watch').description('watch (not built yet)')).action(() => {
    throw new TermsyncError('not_implemented', '`watch` is not built yet');
  });
}
