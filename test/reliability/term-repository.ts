// Seeded terminology repositories in versions: each version of the same seed changes entries of
// v3 glossaries (edits in place), the entries of every v2 glossary (replacements: v2 is
// immutable), the instructions of style lists (a removed instruction replaces the list), adds
// glossaries and drops some (prune: owned). Names declared in every version stay the same, so a
// watcher can tell whether one of them was ever missing.
import { seeded, type RepoFiles } from './harness.js';

export interface RepoShape {
  /** v3 glossaries of two dictionaries (en-de, en-fr). */
  readonly v3: number;
  /** v2 glossaries (one dictionary, en-de). */
  readonly v2: number;
  readonly styleLists: number;
  /** Entries per dictionary. */
  readonly entries: number;
  /** `prune` of the project config. */
  readonly prune?: 'off' | 'owned';
  readonly requestsPerSecond?: number;
}

export const OWNED_PREFIX = 'rel ';

export function configYaml(shape: Pick<RepoShape, 'prune' | 'requestsPerSecond'>): string {
  const prune = shape.prune ?? 'owned';
  return [
    'version: 1',
    `prune: "${prune}"`,
    ...(prune === 'owned' ? [`owned_names: "${OWNED_PREFIX}*"`] : []),
    'guards:',
    '  max_deletes: 50',
    '  max_removed_entries_percent: 100',
    'rate_limit:',
    `  requests_per_second: ${shape.requestsPerSecond ?? 50}`,
    '  concurrency: 4',
    'targets:',
    '  - name: default',
    '    base_url_env: TERMSYNC_BASE_URL',
    '    api_key_env: TERMSYNC_API_KEY',
    '',
  ].join('\n');
}

function tsv(rows: readonly (readonly [string, string])[]): string {
  return `${rows.map(([s, t]) => `${s}\t${t}`).join('\n')}\n`;
}

/** The names every version declares (a watcher checks that one of each is always usable). */
export function stableNames(shape: RepoShape): { glossaries: string[]; styleLists: string[] } {
  return {
    glossaries: [
      ...Array.from({ length: shape.v3 }, (_, i) => `${OWNED_PREFIX}v3 ${i}`).filter((_, i) => i % 10 !== 9),
      ...Array.from({ length: shape.v2 }, (_, i) => `${OWNED_PREFIX}v2 ${i}`),
    ],
    styleLists: Array.from({ length: shape.styleLists }, (_, i) => `${OWNED_PREFIX}style ${i}`),
  };
}

/**
 * The repository of `version` (0, 1, 2 …) for `seed`. Between two versions: about a fifth of the
 * entries of each v3 dictionary change, every v2 glossary changes (replace), about half the style
 * lists lose an instruction (replace) and the others change a prompt (edit), every tenth v3 glossary
 * comes and goes, and each version adds two glossaries of its own.
 */
export function termRepository(seed: number, version: number, shape: RepoShape): RepoFiles {
  const random = seeded(seed * 7919 + version * 104729 + 1);
  const files: RepoFiles = { 'config/termsync.yaml': configYaml(shape) };
  for (let i = 0; i < shape.v3; i++) {
    // Every tenth glossary exists only in even versions: odd versions delete it, even ones make it again.
    if (i % 10 === 9 && version % 2 === 1) continue;
    const dicts = (['de', 'fr'] as const).map((lang) => {
      const rows = Array.from({ length: shape.entries }, (_, j) => [`term ${i}-${j}`, `${lang} Begriff ${i}-${j}${random() < 0.2 ? ` v${version}` : ''}`] as const);
      files[`glossaries/v3-${i}/en-${lang}.tsv`] = tsv(rows);
      return `  - source_lang: en\n    target_lang: ${lang}\n    entries_file: en-${lang}.tsv\n`;
    });
    files[`glossaries/v3-${i}/glossary.yaml`] = `kind: glossary\nname: ${OWNED_PREFIX}v3 ${i}\ndictionaries:\n${dicts.join('')}`;
  }
  for (let i = 0; i < shape.v2; i++) {
    const rows = Array.from({ length: shape.entries }, (_, j) => [`legacy ${i}-${j}`, `Altbegriff ${i}-${j} v${version}`] as const);
    files[`glossaries/v2-${i}.tsv`] = tsv(rows);
    files[`glossaries/v2-${i}.yaml`] = `kind: glossary\nname: ${OWNED_PREFIX}v2 ${i}\napi: v2\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries_file: v2-${i}.tsv\n`;
  }
  for (let i = 0; i < shape.styleLists; i++) {
    // Half the lists carry an instruction of this version only (the next version removes it: a replace).
    const ownLabel = random() < 0.5 || version === 0;
    const instructions = [
      { label: 'Formal address', prompt: `Address the reader formally (list ${i}, version ${version}).` },
      { label: 'Numbers', prompt: 'Write numbers below ten as words.' },
      ...(ownLabel ? [{ label: `Version ${version}`, prompt: `Instruction of version ${version}.` }] : []),
    ];
    files[`glossaries/style-${i}.yaml`] = [
      'kind: style_rules',
      `name: ${OWNED_PREFIX}style ${i}`,
      'language: de',
      'configured_rules:',
      '  punctuation:',
      '    apostrophe: use_curly_apostrophes',
      'custom_instructions:',
      ...instructions.flatMap((x) => [`  - label: ${x.label}`, `    prompt: "${x.prompt}"`]),
      '',
    ].join('\n');
  }
  for (let k = 0; k < 2; k++) {
    files[`glossaries/new-${version}-${k}.yaml`] = `kind: glossary\nname: ${OWNED_PREFIX}new ${version}-${k}\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries:\n      "version ${version}": "Version ${version}"\n`;
  }
  return files;
}
