import { realpathSync } from 'node:fs';
import path from 'node:path';
import { appendDiagnostics, type Diagnostic, error } from '../lib/diagnostics.js';
import type { EntriesFileOptions } from '../formats/entries-format.js';
import { formatOfFile } from '../formats/registry.js';
import type { DesiredDictionary, DesiredGlossary, DesiredStyleRules, MultilingualSource } from '../model/desired.js';
import type { LanguagePair } from '../model/entries.js';
import { PackedEntries } from '../model/packed-entries.js';
import { detectSecrets, detectSecretsInText } from './detect-secrets.js';
import { parseYamlFile, type YamlFile } from './parse-yaml.js';
import type { EntriesJob, EntriesOutcome } from './read-entries.js';
import { fileDigest, readTextFile, unreadDigest, type Digested, type Known } from './read-files.js';
import { validateResource, type GlossaryDraft } from './validate-resource.js';

/** Where the repository is. */
export interface RepositoryRoot {
  readonly root: string;
  readonly rootReal: string;
}

/** One resource file as loaded: its draft (when usable) and the outcome of each of its entries files. */
export interface ResourceOutcome {
  readonly file: string;
  readonly diagnostics: Diagnostic[];
  readonly resource?: GlossaryDraft | DesiredStyleRules;
  /** One per dictionary with an `entries_file`, in order (see withEntries). */
  readonly entries: EntriesOutcome[];
}

/**
 * The largest YAML file read (resources and the project config), checked before it is read: a
 * bound on the memory and time of parsing (measured: 300,000 inline entries, 9.5 MiB, take a few
 * seconds of CPU; see bench/hostile-repo.js). A 10 MiB glossary (the service's limit) fits with inline entries
 * of average length; larger ones belong in entries files, which are read much faster.
 */
export const MAX_YAML_FILE_BYTES = 10 * 1024 * 1024;

const YAML_LIMIT = {
  maxBytes: MAX_YAML_FILE_BYTES,
  code: 'yaml/too-large',
  message: (size: number) =>
    `the file is ${size} bytes, so it is not read: a YAML file may be at most ${MAX_YAML_FILE_BYTES} bytes (10 MiB); move large inline \`entries\` into an \`entries_file\` (TSV), or split the file`,
};

/** Reads and parses a YAML file; secrets are checked on every YAML file, whatever its kind. */
export function readYaml(absolute: string, file: string, diagnostics: Diagnostic[]): YamlFile | undefined {
  const read = readTextFile(absolute, file, 'yaml/invalid-utf8', YAML_LIMIT);
  if (read.diagnostic) diagnostics.push(read.diagnostic);
  if (read.text === undefined) return undefined;
  return parseYaml(read.text, file, diagnostics);
}

/** Parses the text of a YAML file (its credentials checked too, as every YAML file's). */
export function parseYaml(text: string, file: string, diagnostics: Diagnostic[]): YamlFile | undefined {
  const { yaml, diagnostics: found } = parseYamlFile(text, file);
  appendDiagnostics(diagnostics, found);
  appendDiagnostics(diagnostics, yaml ? detectSecrets(yaml, text) : detectSecretsInText(text, file));
  return yaml;
}

/** The result of loadResource: the draft (when usable), or only that the file's digest was the one known. */
type Loaded = { readonly resource?: GlossaryDraft | DesiredStyleRules } & Digested;

function loadResource(repo: RepositoryRoot, file: string, diagnostics: Diagnostic[], known: Known | undefined): Loaded {
  // Vouched unchanged since its result was kept: not read at all (see load-memo.ts).
  const unread = unreadDigest(known);
  if (unread !== undefined) return { digest: unread, unchanged: true };
  const absolute = path.join(repo.root, file);
  try {
    const real = realpathSync.native(absolute);
    const rel = path.relative(repo.rootReal, real);
    if (rel.startsWith('..') || path.isAbsolute(rel)) {
      diagnostics.push(error('resource/outside-repo', 'this resource file is a symbolic link that points outside the repository', file, 1, 1));
      return {};
    }
  } catch {
    diagnostics.push(error('file/unreadable', 'cannot read the file (broken symbolic link?)', file, 1, 1));
    return {};
  }
  const read = readTextFile(absolute, file, 'yaml/invalid-utf8', YAML_LIMIT);
  if (read.diagnostic) diagnostics.push(read.diagnostic);
  if (read.text === undefined) return {};
  // Asked to remember (see load-memo.ts): the digest of the text parsed, and no parse at all when it is the one known.
  const digest = known === undefined ? undefined : fileDigest(file, read.text);
  if (digest !== undefined && digest === known) return { digest, unchanged: true };
  const yaml = parseYaml(read.text, file, diagnostics);
  if (yaml === undefined) return digest === undefined ? {} : { digest };
  const { resource, diagnostics: found } = validateResource(yaml);
  appendDiagnostics(diagnostics, found);
  return { ...(resource === undefined ? {} : { resource }), ...(digest === undefined ? {} : { digest }) };
}

/** A resource file read up to its draft, with the entries files it names (read separately, in batches). */
export interface LoadedResource {
  readonly file: string;
  readonly diagnostics: Diagnostic[];
  readonly resource?: GlossaryDraft | DesiredStyleRules;
  readonly jobs: readonly EntriesJob[];
}

/**
 * `known`: given (a digest, or null for none) when the load remembers its files (see load-memo.ts):
 * the result then carries the digest of the file read, and a file whose digest is `known` is not
 * parsed at all (`unchanged`, no draft: the previous result stands); one vouched unchanged
 * (`{ unread }`) is not even read.
 */
export function loadResourceFile(repo: RepositoryRoot, file: string, known?: Known): LoadedResource & Digested {
  const diagnostics: Diagnostic[] = [];
  const { resource, digest, unchanged } = loadResource(repo, file, diagnostics, known);
  if (unchanged === true) return { file, diagnostics, jobs: [], digest: digest as string, unchanged };
  const jobs: EntriesJob[] = [];
  if (resource?.kind === 'glossary') {
    const where = { root: repo.root, rootReal: repo.rootReal, resourceFile: file };
    for (const d of resource.dictionaries) {
      if (d.entriesFile !== undefined && d.entriesFileAt !== undefined) {
        const pair = { sourceLang: d.sourceLang, targetLang: d.targetLang };
        jobs.push({ ...where, declared: d.entriesFile, at: d.entriesFileAt, pairs: [pair], glossaryLevel: false, languages: [d.sourceLang, d.targetLang], options: d.options ?? { terms: 'preferred' } });
      }
    }
    // The glossary-level file comes last: withEntries takes the outcomes in this order.
    const source = resource.source;
    if (source !== undefined) {
      const pairs = resource.dictionaries.filter((d) => d.fromSource === true).map((d) => ({ sourceLang: d.sourceLang, targetLang: d.targetLang }));
      jobs.push({ ...where, declared: source.entriesFile, at: source.at, pairs, glossaryLevel: true, languages: source.languages, options: source.options });
    }
  }
  return { file, diagnostics, jobs, ...(resource === undefined ? {} : { resource }), ...(digest === undefined ? {} : { digest }) };
}

/**
 * A resource as sent by the worker thread: a structured clone gives every object Object.prototype,
 * but configured rules are prototype-less (see readConfiguredRules in validate-resource.ts), and
 * drops the class of inline entries (model/packed-entries.ts), which are revived here.
 */
export function withNullPrototypes(loaded: LoadedResource): LoadedResource {
  if (loaded.resource?.kind === 'glossary') {
    const dictionaries = loaded.resource.dictionaries.map((d) => (d.entries === undefined ? d : { ...d, entries: PackedEntries.fromWire(d.entries) }));
    return { ...loaded, resource: { ...loaded.resource, dictionaries } };
  }
  if (loaded.resource?.kind !== 'style_rules') return loaded;
  const rules = Object.create(null) as Record<string, Record<string, string>>;
  for (const [category, options] of Object.entries(loaded.resource.configuredRules)) rules[category] = Object.assign(Object.create(null) as Record<string, string>, options);
  return { ...loaded, resource: { ...loaded.resource, configuredRules: rules } };
}

/** How a multilingual file was read (for pull, which writes it back alike). */
function multilingualSource(languages: readonly string[], pairs: readonly LanguagePair[], options: EntriesFileOptions): MultilingualSource {
  const { terms, sheet, headerRow, delimiter, encoding } = options;
  return {
    languages,
    pairs,
    terms,
    ...(sheet === undefined ? {} : { sheet }),
    ...(headerRow === undefined ? {} : { headerRow }),
    ...(delimiter === undefined ? {} : { delimiter }),
    ...(encoding === undefined ? {} : { encoding }),
  };
}

/** The glossary with its entries; `files` receives the entries files read. */
export function withEntries(draft: GlossaryDraft, outcomes: readonly EntriesOutcome[], diagnostics: Diagnostic[], files: Set<string>): DesiredGlossary {
  let next = 0;
  const { source: _, ...glossary } = draft;
  const shared = draft.source === undefined ? undefined : outcomes[outcomes.length - 1];
  if (shared !== undefined) {
    appendDiagnostics(diagnostics, shared.diagnostics);
    if (shared.file !== undefined) files.add(shared.file);
  }
  let derived = 0;
  const derivedPairs = draft.dictionaries.filter((d) => d.fromSource === true).map((d) => ({ sourceLang: d.sourceLang, targetLang: d.targetLang }));
  const sharedSource = draft.source === undefined ? undefined : multilingualSource(draft.source.languages, derivedPairs, draft.source.options);
  return {
    ...glossary,
    dictionaries: draft.dictionaries.map((d): DesiredDictionary => {
      const base = { sourceLang: d.sourceLang, targetLang: d.targetLang, origin: d.origin };
      if (d.fromSource === true) {
        const entries = shared?.dictionaries?.[derived++];
        return {
          ...base,
          entries: entries ?? PackedEntries.EMPTY,
          ...(entries === undefined || shared?.file === undefined ? {} : { entriesFile: shared.file, shared: true as const, ...(sharedSource === undefined ? {} : { multilingual: sharedSource }) }),
        };
      }
      if (d.entriesFile === undefined || d.entriesFileAt === undefined) return { ...base, entries: d.entries ?? PackedEntries.EMPTY };
      const outcome = outcomes[next++] as EntriesOutcome;
      appendDiagnostics(diagnostics, outcome.diagnostics);
      if (outcome.file !== undefined) files.add(outcome.file);
      const { delimiter, encoding } = d.options ?? {};
      const textDialect = delimiter === undefined && encoding === undefined ? {} : { textDialect: { ...(delimiter === undefined ? {} : { delimiter }), ...(encoding === undefined ? {} : { encoding }) } };
      // A TBX file or a workbook named by one dictionary is read as concepts of its pair's two languages.
      const pair = { sourceLang: d.sourceLang, targetLang: d.targetLang };
      const concepts = outcome.file !== undefined && formatOfFile(outcome.file)?.readEntries === undefined ? { multilingual: multilingualSource([d.sourceLang, d.targetLang], [pair], d.options ?? { terms: 'preferred' }) } : {};
      return { ...base, entries: outcome.entries ?? PackedEntries.EMPTY, ...(outcome.entries === undefined || outcome.file === undefined ? {} : { entriesFile: outcome.file, ...textDialect, ...concepts }) };
    }),
  };
}
