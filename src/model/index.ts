export type * from './entries.js';
export type * from './desired.js';
export type * from './live.js';
export type * from './plan.js';
export type * from './apply-result.js';
export { PLAN_FORMAT_VERSION } from './plan.js';
export { NOT_STARTED_INTERRUPTED, failureMayPass } from './apply-result.js';
