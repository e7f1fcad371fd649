/** Types of scripts/release-notes.js, for the tests that run its checks. */

/** `v1.2.3` → `1.2.3`; throws for anything that is not a release tag vX.Y.Z. */
export function versionOfTag(tag: string): string;

/** The CHANGELOG section of `version` without its heading; throws when it is missing, undated, empty or has no link. */
export function releaseNotes(changelog: string, version: string): string;
