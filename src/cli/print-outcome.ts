import { posix, resolve } from 'node:path';
import type { LevelWithSilent } from 'pino';
import type { Diagnostic } from '../lib/diagnostics.js';
import { diagnosticPlace, sortDiagnostics } from '../lib/diagnostics.js';
import { createLogger, type Logger } from '../lib/logger.js';
import type { RunOutcome, ServiceContext, TargetOutcome } from '../reconcile/index.js';
import { renderApplyResultJson, renderApplyResultText } from '../report/index.js';
import { displayText } from '../lib/display.js';
import type { CliIo, CommonOptions } from './io.js';
import { errorLine } from './report-error.js';

export function repositoryDir(io: CliIo, options: Pick<CommonOptions, 'dir'>): string {
  return resolve(io.cwd, options.dir);
}

export function configPathOf(io: CliIo, options: Pick<CommonOptions, 'config'>): { configPath?: string } {
  return options.config === undefined ? {} : { configPath: resolve(io.cwd, options.config) };
}

/** As `validate` prints it: the path joined to `--dir` as given, so terminals and editors can open it. */
export function formatDiagnostic(d: Diagnostic, dir: string): string {
  const base = dir.replace(/\\/g, '/');
  const file = base === '.' || base === './' || base === '' ? d.file : posix.join(base, d.file);
  const where = d.line > 0 || d.cell !== undefined ? `${file}:${diagnosticPlace(d)}` : file;
  return `${displayText(where)}: ${d.severity}: [${d.code}] ${displayText(d.message)}`;
}

/** Errors always; warnings unless their code is in `quiet` (not worth printing for this command). */
export function printDiagnostics(io: CliIo, diagnostics: readonly Diagnostic[], dir: string, quiet: readonly string[] = []): void {
  for (const d of sortDiagnostics(diagnostics)) if (d.severity === 'error' || !quiet.includes(d.code)) io.stderr(`${formatDiagnostic(d, dir)}\n`);
}

/** pino's level numbers, as a human log line names them. */
const LEVEL_NAMES: Readonly<Record<number, string>> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warning', 50: 'error', 60: 'fatal' };

/**
 * One pino record as a person reads it, among the command's other human lines: `warning: cannot
 * reach … retrying 2 more times…`. The message is complete on its own; debug and trace lines add
 * their fields (what a developer asked for).
 */
export function humanLogLine(line: string): string {
  const { level, time: _time, msg, ...fields } = JSON.parse(line) as { level: number; time?: number; msg?: string } & Record<string, unknown>;
  const name = LEVEL_NAMES[level] ?? `level ${level}`;
  const extra = level < 30 && Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : '';
  return `${name}: ${displayText(msg ?? '')}${extra}\n`;
}

/**
 * Logs go to the CLI's stderr, never stdout (which carries plans and reports): as human lines
 * beside a human output, as JSON lines when the command's output is JSON (`--format json`).
 */
export function createCliLogger(io: CliIo, level: string, format: 'human' | 'json' = 'human'): Logger {
  return createLogger({ level: level as LevelWithSilent }, { write: (line: string) => io.stderr(format === 'json' ? line : humanLogLine(line)) });
}

/** The log format that goes with a command's `--format`: JSON beside JSON, human otherwise. */
export function logFormatFor(outputFormat: string | undefined): 'human' | 'json' {
  return outputFormat === 'json' ? 'json' : 'human';
}

/**
 * SIGINT/SIGTERM (`io.signal`) stops a run: nothing new is sent, reads in flight are dropped, and a
 * write in flight is answered first, so that the result says what the service did (within the
 * exchange's time limit). A second signal ends the process at once (bin/termsync.js).
 */
const WRITES_IN_FLIGHT_FINISH = new AbortController().signal;

export function serviceContext(io: CliIo, logger: Logger): ServiceContext {
  return { env: io.env, signal: WRITES_IN_FLIGHT_FINISH, stop: io.signal, logger, ...(io.keys === undefined ? {} : { keys: io.keys }) };
}

/** JSON documents collected from several targets, printed as one document at the end. */
export type JsonParts = string[];

/**
 * One JSON value for what several targets produced: the one document of a single target, or an
 * array of them (stdout carries exactly one JSON document, whatever the number of targets).
 */
export function jsonValueOf(parts: JsonParts): unknown {
  const values = parts.map((part): unknown => JSON.parse(part));
  return values.length === 1 ? values[0] : values;
}

export function withNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Why a run never reached a target, as one line for stderr; nothing for a run that did. */
export function runProblem(run: RunOutcome): string | undefined {
  switch (run.kind) {
    case 'invalid': {
      const errors = run.diagnostics.filter((d) => d.severity === 'error').length;
      return `Error: the repository has ${plural(errors, 'error')}; nothing was sent to the service\n`;
    }
    case 'rejected':
    case 'locked':
      return errorLine(run.error.message);
    case 'done':
      return undefined;
  }
}

/**
 * What a finished target prints: an apply's result (stdout) and, on stderr, why it did not succeed.
 * `multi`: several targets run, so messages name theirs.
 */
export function printTargetOutcome(
  io: CliIo,
  outcome: TargetOutcome,
  options: { readonly multi: boolean; readonly format?: 'text' | 'json'; readonly json?: JsonParts },
): void {
  const where = options.multi ? `target "${outcome.target}": ` : '';
  if ('result' in outcome && outcome.result !== undefined) {
    if (options.format !== 'json') io.stdout(withNewline(renderApplyResultText(outcome.result)));
    else if (options.json !== undefined) options.json.push(renderApplyResultJson(outcome.result));
    else io.stdout(withNewline(renderApplyResultJson(outcome.result)));
  }
  switch (outcome.kind) {
    case 'refused':
      if (outcome.error !== undefined) io.stderr(errorLine(`${where}${outcome.error.message}`));
      else if (outcome.refusal === 'unreachable') {
        io.stderr(`Error: the service of target "${displayText(outcome.target)}" could not be reached while applying (see the failed operations above). Run apply again once it is reachable.\n`);
      } else {
        io.stderr(
          `Error: the service refused the writes for target "${displayText(outcome.target)}" (see the failed operations above): the key may read but not write (a read-scoped key?), or it was rejected. Use a key with write access.\n`,
        );
      }
      return;
    case 'unreachable':
    case 'misconfigured':
      io.stderr(errorLine(`${where}${outcome.error.message}`));
      return;
    case 'stale':
      io.stderr(errorLine(`${where}Saved plan is stale: the service changed since the plan was made (${outcome.differences.join('; ')}). Run plan again.`));
      return;
    case 'interrupted':
      // An apply's result says it was interrupted, and what was not started; otherwise say it here.
      if (outcome.result === undefined) io.stderr(errorLine(`${where}interrupted before anything was written to the service`));
      return;
    case 'blocked':
    case 'converged':
    case 'pending':
    case 'changed':
    case 'partial':
      return;
  }
}
