import type { KeyRedactor } from '../lib/redact-keys.js';

/** Everything a command may touch of the outside world, injected so tests drive the CLI in-process. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** Aborted on SIGINT/SIGTERM: long-running commands (emulator, watch) stop and resolve. */
  readonly signal: AbortSignal;
  /** Subscribes to SIGHUP (the daemon reloads); returns the unsubscribe. Absent: no such signal. */
  readonly onHangup?: (listener: () => void) => () => void;
  /**
   * The keys this run read, taken out of `stdout` and `stderr` (runCli sets it and wraps them):
   * commands hand it to what reads a key and to the outputs that do not go through them.
   */
  readonly keys?: KeyRedactor;
  /** The path the process was started with (`process.argv[1]`), for hints that name the command to type (invocation.ts). */
  readonly script?: string;
}

export interface CommandContext {
  readonly io: CliIo;
  /** Commands report their outcome here; `runCli` turns it into the process exit code (plain validate: `runPlainValidate`). */
  setExitCode(code: number): void;
}

/** Options every command accepts (see the contract). */
export interface CommonOptions {
  readonly dir: string;
  readonly config?: string;
  readonly target?: string;
  readonly logLevel: string;
  readonly format?: string;
}
