export { createPlan, type PlanInput } from './create-plan.js';
export { dictionariesToRead, selectRefresh, type RefreshScope, type RefreshSelection } from './dictionaries-to-read.js';
export { fingerprintLive, compareFingerprints, hashEntries } from './fingerprint-live.js';
export { diffEntries } from './diff-entries.js';
export { toEntryList } from '../lib/entries-tsv.js';
export { matchGlossaries, matchStyleRules, type KeepIds, type Match, type Matching } from './match-live.js';
export { entriesToTsv, entriesTsvBytes } from '../lib/entries-tsv.js';
export { methodOf, requestLineOf, requestOf, uploadBytesOf, type WriteMethod } from '../lib/operation-request.js';
