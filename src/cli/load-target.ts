import { setMaxListeners } from 'node:events';
import { posix, resolve } from 'node:path';
import type { LevelWithSilent } from 'pino';
import { createClient, readApiKey, readBaseUrl, type ServiceClient } from '../api/index.js';
import { loadRepository } from '../config/index.js';
import { hasErrors, sortDiagnostics, type Diagnostic } from '../lib/diagnostics.js';
import { InputError } from '../lib/errors.js';
import { createLogger, type Logger } from '../lib/logger.js';
import type { DesiredState, TargetConfig } from '../model/desired.js';
import type { CliIo, CommonOptions } from './io.js';

/** Environment variable: how many attempts a request gets before it counts as failed (retries + 1). */
export const MAX_ATTEMPTS_ENV = 'TERMSYNC_MAX_ATTEMPTS';

export function repositoryDir(io: CliIo, options: Pick<CommonOptions, 'dir'>): string {
  return resolve(io.cwd, options.dir);
}

/** As `validate` prints it: the path joined to `--dir` as given, so terminals and editors can open it. */
export function formatDiagnostic(d: Diagnostic, dir: string): string {
  const base = dir.replace(/\\/g, '/');
  const file = base === '.' || base === './' || base === '' ? d.file : posix.join(base, d.file);
  const where = d.line > 0 ? `${file}:${d.line}:${d.column}` : file;
  return `${where}: ${d.severity}: [${d.code}] ${d.message}`;
}

/** Logs go to the CLI's stderr, never stdout (which carries plans and reports). */
export function createCliLogger(io: CliIo, level: string): Logger {
  return createLogger({ level: level as LevelWithSilent }, { write: (line: string) => io.stderr(line) });
}

/**
 * Reads and validates the repository. Problems are printed as `validate` prints them; errors stop
 * the command before anything is sent to the service (exit 3).
 */
/** `quiet`: codes of warnings not worth printing for this command (errors are always printed). */
export async function loadDesiredOrFail(
  io: CliIo,
  options: Pick<CommonOptions, 'dir' | 'config'>,
  quiet: readonly string[] = [],
): Promise<DesiredState> {
  const dir = repositoryDir(io, options);
  const loaded = await loadRepository(options.config === undefined ? { dir } : { dir, configPath: resolve(io.cwd, options.config) });
  const diagnostics = sortDiagnostics(loaded.diagnostics);
  for (const d of diagnostics) if (d.severity === 'error' || !quiet.includes(d.code)) io.stderr(`${formatDiagnostic(d, options.dir)}\n`);
  if (hasErrors(diagnostics) || loaded.desired === undefined) {
    const errors = diagnostics.filter((d) => d.severity === 'error').length;
    throw new InputError('invalid_repository', `the repository has ${errors} error${errors === 1 ? '' : 's'}; nothing was sent to the service`);
  }
  return loaded.desired;
}

export function selectTargets(desired: DesiredState, name: string | undefined): TargetConfig[] {
  const targets = desired.config.targets;
  if (name === undefined) return [...targets];
  const found = targets.find((t) => t.name === name);
  if (!found) {
    throw new InputError('unknown_target', `expected --target to be one of ${targets.map((t) => `"${t.name}"`).join(', ')}, got "${name}"`);
  }
  return [found];
}

function maxAttempts(io: CliIo): number | undefined {
  const raw = io.env[MAX_ATTEMPTS_ENV];
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 100) {
    throw new InputError('invalid_env', `expected ${MAX_ATTEMPTS_ENV} to be a whole number from 1 to 100, got "${raw}"`);
  }
  return value;
}

/** A client for one target: URL and key from the target's environment variables. */
export function openClient(io: CliIo, desired: DesiredState, target: TargetConfig, logger: Logger): ServiceClient {
  const baseUrl = readBaseUrl(io.env, target);
  const apiKey = readApiKey(io.env, target);
  const attempts = maxAttempts(io);
  // Every request in flight and every paced wait listens on the one signal: that is no leak, so
  // Node's warning at 10 listeners is lifted to what the configured concurrency can reach.
  setMaxListeners(Math.max(10, desired.config.rateLimit.concurrency * 4 + 10), io.signal);
  return createClient({
    baseUrl,
    apiKey,
    apiKeyEnv: target.apiKeyEnv,
    requestsPerSecond: desired.config.rateLimit.requestsPerSecond,
    concurrency: desired.config.rateLimit.concurrency,
    logger,
    signal: io.signal,
    ...(attempts === undefined ? {} : { retry: { maxAttempts: attempts } }),
  });
}

/** Several targets: the exit code is the most severe one (the highest code). */
export function mostSevere(a: number, b: number): number {
  return Math.max(a, b);
}
