// Round trips of pull's writers of multilingual files (TBX, workbooks, CSV/TSV with language
// columns): a repository holding the file is loaded, the service's edits are written with the
// format's concepts writer, and the written repository is loaded again.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { diffArrays } from 'diff';
import { loadRepository } from '../../src/config/index.js';
import type { ConceptsRewritten } from '../../src/formats/entries-format.js';
import { formatOfFile } from '../../src/formats/registry.js';

const CONFIG = 'version: 1\ntargets:\n  - name: default\n    base_url_env: TERMSYNC_BASE_URL\n    api_key_env: TERMSYNC_API_KEY\n';

export type Dictionaries = Record<string, Record<string, string>>;

const temps: string[] = [];
export async function removeTemps(): Promise<void> {
  await Promise.all(temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/** Loads a repository of one glossary (`resource` is its YAML, `file` its entries file under glossaries/): its dictionaries and errors. */
export async function loadGlossary(resource: string, file: string, bytes: Buffer) {
  const dir = await mkdtemp(path.join(tmpdir(), 'termsync-concepts-'));
  temps.push(dir);
  await writeFile(path.join(dir, 'termsync.yaml'), CONFIG);
  await mkdir(path.join(dir, 'glossaries'));
  await writeFile(path.join(dir, 'glossaries', 'g.yaml'), resource);
  await writeFile(path.join(dir, 'glossaries', file), bytes);
  const result = await loadRepository({ dir, parallel: false });
  const glossary = result.desired?.glossaries[0];
  const dictionaries: Dictionaries = Object.fromEntries((glossary?.dictionaries ?? []).map((d) => [`${d.sourceLang}-${d.targetLang}`, Object.fromEntries(d.entries)]));
  const errors = result.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.code} ${d.message}`);
  return { glossary, dictionaries, errors };
}

/** The file rewritten by its format's concepts writer to hold `live` (pair → entries; pairs left out keep the file's). */
export async function pullInto(resource: string, file: string, bytes: Buffer, live: Dictionaries, tbxRemoved: 'remove' | 'deprecate' = 'remove'): Promise<ConceptsRewritten> {
  const { glossary } = await loadGlossary(resource, file, bytes);
  const declared = glossary?.dictionaries.filter((d) => d.multilingual !== undefined) ?? [];
  const source = declared[0]?.multilingual;
  if (source === undefined) throw new Error('no multilingual dictionary');
  const dictionaries = declared.map((d) => {
    const key = `${d.sourceLang}-${d.targetLang}`;
    return { pair: { sourceLang: d.sourceLang, targetLang: d.targetLang }, live: live[key] === undefined ? d.entries : new Map(Object.entries(live[key])) };
  });
  const writer = await formatOfFile(file)?.conceptsWriter?.load();
  if (writer === undefined) throw new Error(`no concepts writer for ${file}`);
  return writer.rewrite(bytes, { file: `glossaries/${file}`, source, dictionaries, tbxRemoved });
}

/** The lines that differ between two texts: each hunk's removed and added lines. */
export function changedHunks(before: string, after: string): { removed: string[]; added: string[] }[] {
  const hunks: { removed: string[]; added: string[] }[] = [];
  let open: { removed: string[]; added: string[] } | undefined;
  for (const part of diffArrays(before.split('\n'), after.split('\n'))) {
    if (!part.added && !part.removed) {
      open = undefined;
      continue;
    }
    if (open === undefined) {
      open = { removed: [], added: [] };
      hunks.push(open);
    }
    (part.added ? open.added : open.removed).push(...part.value);
  }
  return hunks;
}
