import path from 'node:path';
import { loadRepository } from '../../config/index.js';
import { diagnosticPlace, type Diagnostic } from '../../lib/diagnostics.js';
import { displayJson, displayText } from '../../lib/display.js';
import { ExitCode } from '../../lib/exit-codes.js';
import type { CommandContext, CommonOptions } from '../io.js';

/*
 * What `termsync validate` does once its options are read, by commander (validate.ts) or, for a
 * command line of validate's own options only, without it (validate-options.ts): no library of
 * the command line is loaded for the run CI jobs make most.
 */

type Format = 'text' | 'json' | 'github';

/** The repository-relative path joined to `--dir` as the user gave it, so terminals and editors can open it. */
function displayPath(dir: string, file: string): string {
  const base = dir.replace(/\\/g, '/');
  return base === '.' || base === './' || base === '' ? file : path.posix.join(base, file);
}

/** Line and column of a diagnostic; a whole-file problem (no position) points at 1:1 so every line keeps the `file:line:col:` shape. */
function position(d: Diagnostic): { line: number; column: number } {
  return d.line > 0 ? { line: d.line, column: Math.max(d.column, 1) } : { line: 1, column: 1 };
}

function textLine(d: Diagnostic, file: string): string {
  return `${displayText(file)}:${diagnosticPlace(d)}: ${d.severity}: [${d.code}] ${displayText(d.message)}\n`;
}

// Workflow command escaping (data and properties differ: properties also escape `:` and `,`), of
// text already through displayText: no control character is left, line breaks included, so no
// value can end the command's line or start another one.
function escapeData(text: string): string {
  return displayText(text).replace(/%/g, '%25');
}
function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

function githubLine(d: Diagnostic, file: string): string {
  const props = [`file=${escapeProperty(file)}`];
  // A workbook has no lines to annotate: the annotation is on the file, the cell leads the message.
  if (d.cell === undefined) {
    const { line, column } = position(d);
    props.push(`line=${line}`, `col=${column}`);
  }
  props.push(`title=${escapeProperty(d.code)}`);
  const message = d.cell === undefined ? d.message : `${d.cell}: ${d.message}`;
  return `::${d.severity} ${props.join(',')}::${escapeData(message)}\n`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export function summaryLine(errors: number, warnings: number, files: number): string {
  const where = `in ${plural(files, 'file')}.`;
  if (errors === 0 && warnings === 0) return `No problems ${where}\n`;
  return `${plural(errors, 'error')}, ${plural(warnings, 'warning')} ${where}\n`;
}

/** `termsync validate` with its options read: checks the repository offline; exit 3 when there is an error. */
export async function runValidate(options: CommonOptions, ctx: CommandContext): Promise<void> {
  const format = (options.format ?? 'text') as Format;
  const dir = path.resolve(ctx.io.cwd, options.dir);
  const result = await loadRepository({
    dir,
    env: ctx.io.env,
    ...(options.config === undefined ? {} : { configPath: path.resolve(ctx.io.cwd, options.config) }),
    signal: ctx.io.signal,
  });
  const shown = result.diagnostics.map((d) => ({ ...d, file: displayPath(options.dir, d.file) }));
  const errors = shown.filter((d) => d.severity === 'error').length;
  const warnings = shown.length - errors;
  const fileCount = result.files?.length ?? 0;
  if (format === 'json') {
    ctx.io.stdout(`${displayJson(JSON.stringify({ diagnostics: shown, errors, warnings, files: fileCount }, null, 2))}\n`);
  } else {
    for (const d of shown) ctx.io.stdout(format === 'github' ? githubLine(d, d.file) : textLine(d, d.file));
    ctx.io.stdout(summaryLine(errors, warnings, fileCount));
  }
  ctx.setExitCode(errors > 0 ? ExitCode.invalidInput : ExitCode.ok);
}
