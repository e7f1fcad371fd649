import { Option, type Command } from 'commander';
import { LOG_LEVELS } from './validate-options.js';

/** Adds the options every command shares (see the contract). */
export function addCommonOptions(command: Command, logLevel = 'warn'): Command {
  return command
    .option('--dir <path>', 'the terminology repository', '.')
    .option('--config <path>', 'the project config (default: config/termsync.yaml or termsync.yaml)')
    .option('--target <name>', 'only this target (default: every target)')
    .addOption(
      new Option('--log-level <level>', 'log level')
        .choices([...LOG_LEVELS])
        .default(logLevel),
    );
}
