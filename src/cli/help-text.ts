import type { Command } from 'commander';
import { DEFAULTS, LOAD_THREADS_ENV, MAX_ATTEMPTS_ENV } from '../lib/defaults.js';

/**
 * The end of each command's `--help`: the environment variables it reads and its exit codes (the
 * contract's table, per command), so a CI script's author needs nothing else open.
 */

const SERVICE_ENV: readonly (readonly [string, string])[] = [
  ['TERMSYNC_BASE_URL', "the service URL (default name; a target's `base_url_env` may name another)"],
  ['TERMSYNC_API_KEY', "the API key (default name; a target's `api_key_env` may name another)"],
  ['TERMSYNC_API_KEY_FILE', 'a file holding the API key, read instead of the variable'],
  [MAX_ATTEMPTS_ENV, `attempts per request for 5xx and network failures (default ${DEFAULTS.maxAttempts})`],
];

/** Every command that reads the repository (those that talk to the service, and validate). */
export const LOAD_THREADS_HELP = [LOAD_THREADS_ENV, 'threads reading the repository: 1 (one), 2 (a worker thread too), auto (default: a worker when the work is large and a CPU is free; one thread for plan and apply)'] as const;

const DEBUG_ENV = ['TERMSYNC_DEBUG', 'set: an internal error also prints its stack trace'] as const;

export const EXIT_MEANINGS: Readonly<Record<number, string>> = {
  0: 'success',
  1: 'a bug in termsync (the message says so)',
  2: 'changes present',
  3: 'invalid configuration, input or option: nothing was sent to the service',
  4: 'blocked by a safety guard: nothing was sent',
  5: 'the saved plan is stale, or another termsync run holds the lock',
  6: 'apply incomplete: some operations failed (the report lists applied, failed, skipped)',
  7: 'authentication, permission or destination error (key or URL missing or refused, service unreachable or unreadable)',
  8: 'a glossary test or sampled entry failed',
  130: 'interrupted (SIGINT/SIGTERM): what had not started was not started',
};

export interface HelpFacts {
  /** Reads the service's URL and key (and the retry setting). */
  readonly service: boolean;
  /** Other variables, with what they do. */
  readonly env?: readonly (readonly [string, string])[];
  /** Exit codes, each with the command's own meaning where it differs from the general one. */
  readonly exits: readonly (number | readonly [number, string])[];
}

function table(rows: readonly (readonly [string, string])[]): string[] {
  const width = Math.max(...rows.map(([name]) => name.length)) + 2;
  return rows.map(([name, text]) => `  ${name.padEnd(width)}${text}`);
}

export function helpFooter(facts: HelpFacts): string {
  const env = [...(facts.service ? [...SERVICE_ENV, LOAD_THREADS_HELP] : []), ...(facts.env ?? []), DEBUG_ENV];
  const exits = facts.exits.map((e): readonly [string, string] => (typeof e === 'number' ? [String(e), EXIT_MEANINGS[e] ?? ''] : [String(e[0]), e[1]]));
  return ['', 'Environment:', ...table(env), '', 'Exit codes:', ...table(exits), ''].join('\n');
}

/** Appends the footer to a command's help. */
export function withHelpFooter(command: Command, facts: HelpFacts): Command {
  return command.addHelpText('after', helpFooter(facts));
}
