/*
 * How the fast-check properties run (set up for every test file by test/setup/properties.ts):
 *
 * - the gate (CI=true, as .ci/run sets it): every property with one fixed seed, so that a run is
 *   repeatable and its outcome never a roll of the dice;
 * - exploring (`npm run test:explore`, TERMSYNC_PROPERTY_RUNS=N): a random seed for each property
 *   and N times its runs, to find what the fixed seed does not reach; fast-check prints the seed
 *   and path of a failure, and TERMSYNC_PROPERTY_SEED=seed runs that seed again;
 * - anywhere else (npm test on a developer's machine): a random seed, the usual runs.
 *
 * A counterexample found by exploring is fixed at its root and then pinned in the property's
 * `examples`, which every run checks whatever its seed.
 */

/** The seed of every property under CI=true. */
export const PROPERTY_SEED = 20_261_128;

export interface PropertySettings {
  /** The seed of every property; undefined: a random one for each. */
  readonly seed: number | undefined;
  /** What every property's number of runs is multiplied by. */
  readonly factor: number;
}

function positiveInteger(name: string, value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < (name === 'TERMSYNC_PROPERTY_SEED' ? -(2 ** 31) : 1)) throw new Error(`${name} must be an integer${name === 'TERMSYNC_PROPERTY_SEED' ? '' : ' of at least 1'}, not ${JSON.stringify(value)}`);
  return n;
}

/** The settings the environment asks for (see above). */
export function propertySettings(env: NodeJS.ProcessEnv): PropertySettings {
  const factor = positiveInteger('TERMSYNC_PROPERTY_RUNS', env['TERMSYNC_PROPERTY_RUNS']);
  const seed = positiveInteger('TERMSYNC_PROPERTY_SEED', env['TERMSYNC_PROPERTY_SEED']);
  if (seed !== undefined) return { seed, factor: factor ?? 1 };
  if (factor !== undefined) return { seed: undefined, factor };
  return { seed: env['CI'] === 'true' ? PROPERTY_SEED : undefined, factor: 1 };
}

export const PROPERTIES: PropertySettings = propertySettings(process.env);

/** fast-check's default number of runs, for a property that names none. */
export const DEFAULT_RUNS = 100;

/** The number of runs of a property that asks for `n`: n, or N times n when exploring. */
export function runs(n: number): number {
  return n * PROPERTIES.factor;
}

/** The timeout of a test that runs a property for `ms`: ms, or N times ms when exploring (N times the runs). */
export function propertyTimeout(ms: number): number {
  return ms * PROPERTIES.factor;
}
