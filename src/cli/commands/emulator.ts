import type { Command } from 'commander';
import { TermsyncError } from '../../lib/errors.js';
import type { CommandContext } from '../io.js';
import { addCommonOptions } from '../common-options.js';

// Placeholder: replaced by the issue that builds `emulator`.
export function registerEmulator(program: Command, _ctx: CommandContext): Command {
  return addCommonOptions(program.command('emulator').description('emulator (not built yet)')).action(() => {
    throw new TermsyncError('not_implemented', '`emulator` is not built yet');
  });
}
