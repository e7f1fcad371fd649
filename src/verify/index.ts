export { characterCount, createChecks, type CheckOptions } from './create-checks.js';
export { checkTranslation, unsentCheck } from './check-translation.js';
export { sampleEntries } from './sample-entries.js';
