import { runCli } from '../../src/cli/main.js';

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI in-process, capturing its output. */
export async function runCliCaptured(
  argv: readonly string[],
  options: { env?: Record<string, string | undefined>; cwd?: string; signal?: AbortSignal } = {},
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
    signal: options.signal ?? new AbortController().signal,
  });
  return { code, stdout, stderr };
}
