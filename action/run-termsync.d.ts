/** Types of the action's main step (run-termsync.js), for the tests that check its command lines. */
export interface ActionInputs {
  readonly command: string;
  readonly directory?: string;
  readonly target?: string;
  readonly args?: string;
  /** Where the plan files go (the runner's temporary folder). */
  readonly work: string;
  readonly idsFile?: string;
}

/** The termsync command lines the action runs: one for validate and plan, two (plan, apply) for apply. */
export function commandLines(inputs: ActionInputs): string[][];
