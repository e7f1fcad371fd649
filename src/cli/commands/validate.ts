import { Option, type Command } from 'commander';
import type { CommandContext, CommonOptions } from '../io.js';
import { addCommonOptions } from '../common-options.js';
import { LOAD_THREADS_HELP, withHelpFooter } from '../help-text.js';
import { VALIDATE_FORMATS } from '../validate-options.js';
import { runValidate } from './run-validate.js';

/** `termsync validate`: reads and checks the repository offline; exit 3 when there is an error. */
export function registerValidate(program: Command, ctx: CommandContext): Command {
  return addCommonOptions(withHelpFooter(program.command('validate'), { service: false, env: [LOAD_THREADS_HELP], exits: [0, 3] }).description('check the repository offline (never contacts the service)'))
    .addOption(new Option('--format <format>', 'output format').choices([...VALIDATE_FORMATS]).default('text'))
    .action((options: CommonOptions) => runValidate(options, ctx));
}
