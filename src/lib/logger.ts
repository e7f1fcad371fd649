import { pino, type DestinationStream, type Logger, type LevelWithSilent } from 'pino';

export type { Logger } from 'pino';

/** Paths pino blanks out wherever they appear in a log object: the key never reaches a log line. */
export const REDACT_PATHS = [
  'apiKey',
  '*.apiKey',
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'req.headers.authorization',
  'headers.Authorization',
  '*.headers.Authorization',
];

export function createLogger(
  options: { level?: LevelWithSilent; name?: string } = {},
  destination?: DestinationStream,
): Logger {
  const opts = {
    level: options.level ?? 'info',
    name: options.name ?? 'termsync',
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: null,
  };
  // Logs go to stderr by default: stdout carries plans and reports.
  return pino(opts, destination ?? pino.destination(2));
}

export const silentLogger: Logger = pino({ level: 'silent' });
