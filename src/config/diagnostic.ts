import type { Diagnostic } from '../lib/diagnostics.js';
import { displayJson } from '../lib/display.js';

export function error(code: string, message: string, file: string, line: number, column: number): Diagnostic {
  return { severity: 'error', code, message, file, line, column };
}

export function warning(code: string, message: string, file: string, line: number, column: number): Diagnostic {
  return { severity: 'warning', code, message, file, line, column };
}

/** Quotes a value for a message, shortened; values that may be secrets are never passed here. */
export function show(value: string, max = 60): string {
  const visible = value.length > max ? `${value.slice(0, max)}…` : value;
  return displayJson(JSON.stringify(visible));
}
