import type { Command } from 'commander';
import { TermsyncError } from '../../lib/errors.js';
import type { CommandContext } from '../io.js';
import { addCommonOptions } from '../common-options.js';

// Placeholder: replaced by the issue that builds `import`.
export function registerImport(program: Command, _ctx: CommandContext): Command {
  return addCommonOptions(program.command('import').description('import (not built yet)')).action(() => {
    throw new TermsyncError('not_implemented', '`import` is not built yet');
  });
}
