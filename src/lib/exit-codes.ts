/** Exit codes, everywhere (see the contract). Only the CLI turns them into a process exit code. */
export const ExitCode = {
  ok: 0,
  internal: 1,
  changesPresent: 2,
  invalidInput: 3,
  guardBlocked: 4,
  staleOrLocked: 5,
  applyIncomplete: 6,
  authOrDestination: 7,
  /** `verify` (or `apply --verify`): a glossary test or sampled entry failed. */
  verifyFailed: 8,
  /** A run stopped by SIGINT/SIGTERM (128 + SIGINT, as shells report it); the daemon exits 0 instead. */
  interrupted: 130,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
