import { Option, type Command } from 'commander';
import { InputError } from '../../lib/errors.js';
import { createLogger } from '../../lib/logger.js';
import type { LevelWithSilent } from 'pino';
import { BEHAVIOUR_FLAGS, startEmulator, type EmulatorBehaviour, type EmulatorOptions } from '../../emulator/index.js';
import type { CommandContext } from '../io.js';
import { withHelpFooter } from '../help-text.js';

interface EmulatorFlags {
  readonly host: string;
  readonly port: string;
  readonly keys?: string;
  readonly faults?: string;
  readonly rateLimit?: string;
  readonly seed?: string;
  readonly authScheme?: string;
  readonly behave?: string;
  readonly logLevel: string;
}

/** `--behave a,b`: behaviours of other servers of this API family; `vendor-mock` is all of them. */
function parseBehaviour(raw: string): EmulatorBehaviour {
  const behaviour: Record<string, boolean> = {};
  for (const name of raw.split(',').map((b) => b.trim()).filter((b) => b !== '')) {
    if (name === 'vendor-mock') for (const key of Object.values(BEHAVIOUR_FLAGS)) behaviour[key] = true;
    else {
      const key = BEHAVIOUR_FLAGS[name];
      if (key === undefined) throw new InputError('invalid_flag', `unknown behaviour "${name}" in --behave: expected ${[...Object.keys(BEHAVIOUR_FLAGS), 'vendor-mock'].join(', ')}`);
      behaviour[key] = true;
    }
  }
  return behaviour;
}

function parseInteger(flag: string, raw: string, min: number, max: number): number {
  if (!/^\d{1,10}$/.test(raw.trim()) || Number(raw) < min || Number(raw) > max) {
    throw new InputError('invalid_flag', `expected ${flag} to be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

/** Flags → EmulatorOptions, checked at the boundary. */
export function emulatorOptionsFromFlags(flags: EmulatorFlags): EmulatorOptions {
  const options: EmulatorOptions = {
    host: flags.host,
    port: parseInteger('--port', flags.port, 0, 65535),
  };
  if (flags.keys !== undefined) {
    const keys = flags.keys.split(',').map((k) => k.trim()).filter((k) => k !== '');
    if (keys.length === 0) throw new InputError('invalid_flag', 'expected --keys to list at least one key');
    options.keys = keys;
  }
  if (flags.faults !== undefined) options.faults = flags.faults;
  if (flags.rateLimit !== undefined) options.rateLimit = parseInteger('--rate-limit', flags.rateLimit, 1, 1_000_000);
  if (flags.seed !== undefined) options.seed = parseInteger('--seed', flags.seed, 0, 4294967295);
  if (flags.authScheme !== undefined) options.authScheme = flags.authScheme;
  if (flags.behave !== undefined) options.behaviour = parseBehaviour(flags.behave);
  return options;
}

/**
 * The key the banner's curl lines use. Without --keys any key will do, so a placeholder is shown.
 * With --keys, the keys are secrets of whoever started it (a terminal shared, a CI log): never
 * printed; the lines read the variable termsync reads too, which the user sets to one of them.
 */
function exampleKey(keys: readonly string[] | undefined): string {
  return keys === undefined || keys.length === 0 ? 'any-key' : '$TERMSYNC_API_KEY';
}

function usage(url: string, keys?: readonly string[], scheme = 'Service-Auth-Key'): string {
  const key = exampleKey(keys);
  return [
    '',
    'An in-memory implementation of the service API (data is lost when it stops). Try:',
    '',
    `  curl -H "Authorization: ${scheme} ${key}" ${url}/v3/glossaries`,
    `  curl -H "Authorization: ${scheme} ${key}" -H 'Content-Type: application/json' \\`,
    `       -d '{"name":"Demo","dictionaries":[{"source_lang":"en","target_lang":"de","entries":"hello\\tHallo"}]}' \\`,
    `       ${url}/v3/glossaries`,
    '',
    keys === undefined
      ? 'Without --keys any non-empty key is accepted, each key its own account.'
      : 'Only the keys given with --keys are accepted (not shown here): set TERMSYNC_API_KEY to one of them (one without =read to create).',
    'Controls (no key needed):',
    `  GET  ${url}/__emulator/requests     the request log`,
    `  POST ${url}/__emulator/reset        wipe all data and the log`,
    `  POST ${url}/__emulator/faults       {"spec":"429=0.2,latency=5-30"}`,
    `  POST ${url}/__emulator/inject       {"kind":429,"pathPrefix":"/v3/glossaries"}`,
    'Stop with Ctrl-C.',
    '',
  ].join('\n');
}

export function registerEmulator(program: Command, ctx: CommandContext): Command {
  return withHelpFooter(program.command('emulator'), { service: false, exits: [[0, 'stopped by SIGTERM/SIGINT (it runs until then)'], [3, 'invalid options, or the address cannot be used']] }).description('serve a faithful in-memory implementation of the service API')
    .addOption(
      new Option('--log-level <level>', 'log level (debug: one line per request)')
        .choices(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'])
        .default('warn'),
    )
    .addOption(new Option('--host <host>', 'address to listen on').default('127.0.0.1'))
    .addOption(new Option('--port <port>', 'port to listen on (0 = any free port)').default('8787'))
    .option('--keys <keys>', 'comma list of accepted keys, KEY or KEY=read (default: any non-empty key)')
    .option('--faults <spec>', 'fault rates, e.g. 429=0.2,529=0.05,reset=0.05,latency=5-30')
    .option('--rate-limit <n>', '429 once a key sends more than N requests per second')
    .option('--seed <n>', 'seed for ids and fault draws')
    .option('--auth-scheme <scheme>', 'the Authorization scheme accepted (default Service-Auth-Key; e.g. DeepL-Auth-Key)')
    .option(
      '--behave <list>',
      'comma list of ways other servers of this API family differ from the spec: delete-instruction (serve DELETE of one custom instruction), instruction-answer (adding an instruction answers with just it), fill-source-language (an omitted source_language gets the list language), reset-source-language (updating an instruction without source_language clears it), separate-stores (v2 and v3 glossaries listed apart); vendor-mock = all of them',
    )
    .action(async (flags: EmulatorFlags) => {
      const options = emulatorOptionsFromFlags(flags);
      const level = flags.logLevel as LevelWithSilent;
      const emulator = await startEmulator({ ...options, logger: createLogger({ level, name: 'termsync-emulator' }) });
      ctx.io.stdout(`listening on ${emulator.url}\n`);
      ctx.io.stdout(usage(emulator.url, options.keys, options.authScheme));
      const signal = ctx.io.signal;
      if (!signal.aborted) {
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      }
      await emulator.close();
      ctx.io.stdout('emulator stopped\n');
    });
}
