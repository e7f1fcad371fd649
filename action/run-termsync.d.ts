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

/** What a saved plan says, as the action's outputs: "true"/"false", or "" when there is no plan file. */
export interface PlanFacts {
  readonly hasChanges: '' | 'true' | 'false';
  readonly hasDestroy: '' | 'true' | 'false';
}

export function readPlanFacts(planJson: string): PlanFacts;

/** The pull-request label for those facts ("" when no plan was made). */
export function labelFor(facts: PlanFacts): '' | 'glossary:no-changes' | 'glossary:changes' | 'glossary:destroy';

/** The line of termsync's stderr that says why it failed (a located problem, an `Error:` line, an error-level log message), clipped; "" when there is none. */
export function firstErrorLine(stderr: string): string;

/** The pull-request comment of a plan that could not be made. */
export function failureComment(marker: string, target: string, command: string, code: number, stderr?: string): string;
