import { realpathSync } from 'node:fs';
import { access, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { Diagnostic } from '../lib/diagnostics.js';
import { sortDiagnostics } from '../lib/diagnostics.js';
import type { DesiredDictionary, DesiredGlossary, DesiredState, DesiredStyleRules, ProjectConfig, SourceRef } from '../model/desired.js';
import { detectSecrets, detectSecretsInText, redactSecrets } from './detect-secrets.js';
import { error } from './diagnostic.js';
import { readEntries, type EntriesJob, type EntriesOutcome } from './read-entries.js';
import { parseYamlFile, positionAt, type YamlFile } from './parse-yaml.js';
import { findResourceFiles, readTextFile, relativePath } from './read-files.js';
import { declaredResourceFolders, validateConfig } from './validate-config.js';
import { validateRepository } from './validate-repository.js';
import { validateResource, type GlossaryDraft } from './validate-resource.js';

export interface LoadOptions {
  /** The repository root. */
  dir: string;
  /** The project config, relative to the working directory or absolute (default: config/termsync.yaml, then termsync.yaml). */
  configPath?: string;
}

export interface LoadResult {
  /** Absent only when the project config itself is unusable. Resources with errors are left out. */
  desired?: DesiredState;
  diagnostics: Diagnostic[];
  /** Repository-relative paths of every file read (config, resources, entries), sorted. */
  files?: string[];
}

/** Resource files loaded between two turns of the event loop. */
const YIELD_EVERY = 25;

const DEFAULT_CONFIG_PATHS = ['config/termsync.yaml', 'termsync.yaml'];

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}

/** Reads and parses a YAML file; secrets are checked on every YAML file, whatever its kind. */
function readYaml(absolute: string, file: string, diagnostics: Diagnostic[]): YamlFile | undefined {
  const read = readTextFile(absolute, file, 'yaml/invalid-utf8');
  if (read.diagnostic) diagnostics.push(read.diagnostic);
  if (read.text === undefined) return undefined;
  const { yaml, diagnostics: found } = parseYamlFile(read.text, file);
  diagnostics.push(...found);
  diagnostics.push(...(yaml ? detectSecrets(yaml) : detectSecretsInText(read.text, file)));
  return yaml;
}

interface Context {
  readonly root: string;
  readonly rootReal: string;
  readonly files: Set<string>;
  readonly dirCache: Map<string, string | null>;
}

/** Reads a resource file up to its draft; entries files are read afterwards, all together. */
function loadResource(ctx: Context, file: string, diagnostics: Diagnostic[]): GlossaryDraft | DesiredStyleRules | undefined {
  const absolute = path.join(ctx.root, file);
  ctx.files.add(file);
  try {
    const real = realpathSync.native(absolute);
    const rel = path.relative(ctx.rootReal, real);
    if (rel.startsWith('..') || path.isAbsolute(rel)) {
      diagnostics.push(error('resource/outside-repo', 'this resource file is a symbolic link that points outside the repository', file, 1, 1));
      return undefined;
    }
  } catch {
    diagnostics.push(error('file/unreadable', 'cannot read the file (broken symbolic link?)', file, 1, 1));
    return undefined;
  }
  const yaml = readYaml(absolute, file, diagnostics);
  if (yaml === undefined) return undefined;
  const { resource, diagnostics: found } = validateResource(yaml);
  diagnostics.push(...found);
  return resource;
}

/** Reads every entries file, letting the event loop run between batches. */
async function readAllEntries(ctx: Context, jobs: readonly EntriesJob[]): Promise<EntriesOutcome[]> {
  const outcomes: EntriesOutcome[] = [];
  for (const [i, job] of jobs.entries()) {
    if (i > 0 && i % (YIELD_EVERY * 2) === 0) await yieldToEventLoop();
    outcomes.push(readEntries(job, ctx.dirCache));
  }
  return outcomes;
}

async function loadEntries(ctx: Context, drafts: readonly GlossaryDraft[], diagnostics: Diagnostic[]): Promise<DesiredGlossary[]> {
  const jobs: EntriesJob[] = [];
  for (const draft of drafts) {
    for (const d of draft.dictionaries) {
      if (d.entriesFile !== undefined && d.entriesFileAt !== undefined) {
        jobs.push({ root: ctx.root, rootReal: ctx.rootReal, resourceFile: draft.origin.file, declared: d.entriesFile, at: d.entriesFileAt, pair: d });
      }
    }
  }
  const outcomes = await readAllEntries(ctx, jobs);
  let next = 0;
  return drafts.map((draft) => ({
    ...draft,
    dictionaries: draft.dictionaries.map((d): DesiredDictionary => {
      const base = { sourceLang: d.sourceLang, targetLang: d.targetLang, origin: d.origin };
      if (d.entriesFile === undefined || d.entriesFileAt === undefined) return { ...base, entries: d.entries ?? new Map<string, string>() };
      const outcome = outcomes[next++] as EntriesOutcome;
      diagnostics.push(...outcome.diagnostics);
      if (outcome.file !== undefined) ctx.files.add(outcome.file);
      return { ...base, entries: outcome.entries ?? new Map<string, string>(), ...(outcome.entries === undefined || outcome.file === undefined ? {} : { entriesFile: outcome.file }) };
    }),
  }));
}

/** Lets timers and sockets run between batches of resources (the daemon keeps answering /healthz). */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Reads the repository into one desired state. Never throws for bad repository content: every
 * problem is a diagnostic (sorted by file, line, column). I/O here; the checks are pure functions.
 */
export async function loadRepository(options: LoadOptions): Promise<LoadResult> {
  const root = path.resolve(options.dir);
  const diagnostics: Diagnostic[] = [];
  let rootReal: string;
  try {
    rootReal = await realpath(root);
  } catch {
    return { diagnostics: [error('repository/not-found', `the repository folder ${root} does not exist`, '.', 1, 1)], files: [] };
  }
  const files = new Set<string>();
  const ctx: Context = { root, rootReal, files, dirCache: new Map() };

  let configAbsolute: string | undefined;
  if (options.configPath !== undefined) configAbsolute = path.resolve(options.configPath);
  else {
    for (const candidate of DEFAULT_CONFIG_PATHS) {
      if (await exists(path.join(root, candidate))) {
        configAbsolute = path.join(root, candidate);
        break;
      }
    }
  }
  let config: ProjectConfig | undefined;
  let configYaml: YamlFile | undefined;
  const configFile = configAbsolute === undefined ? (DEFAULT_CONFIG_PATHS[0] as string) : relativePath(root, configAbsolute);
  if (configAbsolute === undefined || !(await exists(configAbsolute))) {
    diagnostics.push(error('config/not-found', `no project config: expected ${options.configPath === undefined ? 'config/termsync.yaml or termsync.yaml' : configFile} (see the contract for the format)`, configFile, 1, 1));
  } else {
    files.add(configFile);
    configYaml = readYaml(configAbsolute, configFile, diagnostics);
    if (configYaml) {
      const checked = validateConfig(configYaml);
      diagnostics.push(...checked.diagnostics);
      config = checked.config;
    }
  }

  const folders = config?.resources ?? declaredResourceFolders(configYaml?.value);
  const foldersAt: SourceRef = configYaml ? { file: configFile, ...positionAt(configYaml, ['resources']) } : { file: configFile, line: 1, column: 1 };
  const found = await findResourceFiles(root, folders, foldersAt, configFile);
  diagnostics.push(...found.diagnostics);
  const drafts: GlossaryDraft[] = [];
  const styleRules: DesiredStyleRules[] = [];
  for (const [i, file] of found.files.entries()) {
    if (i > 0 && i % YIELD_EVERY === 0) await yieldToEventLoop();
    const resource = loadResource(ctx, file, diagnostics);
    if (resource?.kind === 'glossary') drafts.push(resource);
    else if (resource?.kind === 'style_rules') styleRules.push(resource);
  }
  const glossaries = await loadEntries(ctx, drafts, diagnostics);
  diagnostics.push(...validateRepository(glossaries, styleRules));

  const result: LoadResult = { diagnostics: sortDiagnostics(diagnostics.map(redactSecrets)), files: [...files].sort() };
  if (config !== undefined) result.desired = { root, configFile, config, glossaries, styleRules };
  return result;
}
