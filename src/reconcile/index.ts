export { openClient, type Env, type ServiceContext } from './open-client.js';
export { isSuccess, planOf, resultOf, type RunOutcome, type TargetFailure, type TargetOutcome, type TargetOutcomeKind } from './outcome.js';
export { failureOf, planTarget, reconcileTarget, withTargetClient, type ReconcileMode, type ReconcileObserver, type TargetRequest } from './reconcile-target.js';
export { loadDesired, type LoadedRepository } from './load-desired.js';
export {
  reconcile,
  reconcileDesired,
  refreshSelection,
  selectTargets,
  type ReconcileRequest,
  type RefreshRequest,
} from './run-reconcile.js';
export { verifyPassed, verifyTarget, type VerifyObserver, type VerifyOutcome, type VerifyRequest } from './verify-target.js';
export { pullTarget, type PullOutcome, type PullRequest } from './pull-target.js';
