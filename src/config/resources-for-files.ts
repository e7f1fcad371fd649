import path from 'node:path';
import { pairKey } from '../lib/canonical.js';
import type { DesiredResource, DesiredState } from '../model/desired.js';

function normalise(root: string, file: string): string {
  const rel = path.isAbsolute(file) ? path.relative(root, file) : file;
  return path.posix.normalize(rel.split(path.sep).join('/').replace(/\\/g, '/'));
}

/**
 * The resources a set of changed files affects: a resource file maps to its resource, an entries
 * file to the glossary that uses it. A changed project config affects every resource. Paths may be
 * repository-relative or absolute. Files that map to nothing (new or deleted resource files) are
 * for the caller to handle with a full reload.
 */
export function resourcesForFiles(desired: DesiredState, changedFiles: readonly string[]): DesiredResource[] {
  const changed = new Set(changedFiles.map((f) => normalise(desired.root, f)));
  const all: DesiredResource[] = [...desired.glossaries, ...desired.styleRules];
  if (changed.has(desired.configFile)) return all;
  return all.filter(
    (resource) =>
      changed.has(resource.origin.file) ||
      (resource.kind === 'glossary' && resource.dictionaries.some((d) => (d.entriesFile !== undefined && changed.has(d.entriesFile)) || changed.has(d.origin.file))),
  );
}

/**
 * The parts of the declared glossaries a set of changed files touches, for a plan that re-reads only
 * those: a changed resource file re-reads its whole glossary (`'all'`), a changed entries file only
 * the dictionaries it feeds (their language pairs, `en-de`). Undefined when the project config
 * changed: everything is re-read.
 */
export function refreshForFiles(desired: DesiredState, changedFiles: readonly string[]): Map<string, 'all' | Set<string>> | undefined {
  const changed = new Set(changedFiles.map((f) => normalise(desired.root, f)));
  if (changed.has(desired.configFile)) return undefined;
  const out = new Map<string, 'all' | Set<string>>();
  for (const glossary of desired.glossaries) {
    if (changed.has(glossary.origin.file)) {
      out.set(glossary.name, 'all');
      continue;
    }
    const pairs = glossary.dictionaries.filter((d) => d.entriesFile !== undefined && changed.has(d.entriesFile)).map((d) => pairKey(d));
    if (pairs.length > 0) out.set(glossary.name, new Set(pairs));
  }
  return out;
}
