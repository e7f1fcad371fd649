import { realpathSync } from 'node:fs';
import { access, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { Diagnostic } from '../lib/diagnostics.js';
import { sortDiagnostics } from '../lib/diagnostics.js';
import type { DesiredDictionary, DesiredGlossary, DesiredState, DesiredStyleRules, ProjectConfig, SourceRef } from '../model/desired.js';
import { detectSecrets } from './detect-secrets.js';
import { error } from './diagnostic.js';
import { parseEntries } from './parse-entries.js';
import { parseYamlFile, positionAt, type YamlFile } from './parse-yaml.js';
import { findResourceFiles, readEntriesFile, readTextFile, relativePath } from './read-files.js';
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
  if (yaml) diagnostics.push(...detectSecrets(yaml));
  return yaml;
}

interface Context {
  readonly root: string;
  readonly rootReal: string;
  readonly files: Set<string>;
  readonly dirCache: Map<string, string | null>;
}

function loadDictionaries(ctx: Context, draft: GlossaryDraft, diagnostics: Diagnostic[]): DesiredDictionary[] {
  return draft.dictionaries.map((d): DesiredDictionary => {
    const base = { sourceLang: d.sourceLang, targetLang: d.targetLang, origin: d.origin };
    if (d.entriesFile === undefined || d.entriesFileAt === undefined) return { ...base, entries: d.entries ?? new Map<string, string>() };
    const read = readEntriesFile(ctx.root, ctx.rootReal, draft.origin.file, d.entriesFile, d.entriesFileAt, ctx.dirCache);
    diagnostics.push(...read.diagnostics);
    if (read.file !== undefined) ctx.files.add(read.file);
    if (read.text === undefined || read.format === undefined || read.file === undefined) return { ...base, entries: new Map<string, string>() };
    const parsed = parseEntries(read.text, read.format, d, read.file);
    diagnostics.push(...parsed.diagnostics);
    return { ...base, entries: parsed.entries, entriesFile: read.file };
  });
}

function loadResource(ctx: Context, file: string, diagnostics: Diagnostic[]): DesiredGlossary | DesiredStyleRules | undefined {
  const absolute = path.join(ctx.root, file);
  ctx.files.add(file);
  try {
    const real = realpathSync(absolute);
    const rel = path.relative(ctx.rootReal, real);
    if (rel.startsWith('..') || path.isAbsolute(rel)) {
      diagnostics.push(error('resource/outside-repo', 'this resource file is a symbolic link that points outside the repository', file, 0, 0));
      return undefined;
    }
  } catch {
    diagnostics.push(error('file/unreadable', 'cannot read the file (broken symbolic link?)', file, 0, 0));
    return undefined;
  }
  const yaml = readYaml(absolute, file, diagnostics);
  if (yaml === undefined) return undefined;
  const { resource, diagnostics: found } = validateResource(yaml);
  diagnostics.push(...found);
  if (resource === undefined || resource.kind === 'style_rules') return resource;
  return { ...resource, dictionaries: loadDictionaries(ctx, resource, diagnostics) };
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
    return { diagnostics: [error('repository/not-found', `the repository folder ${root} does not exist`, '.', 0, 0)], files: [] };
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
    diagnostics.push(error('config/not-found', `no project config: expected ${options.configPath === undefined ? 'config/termsync.yaml or termsync.yaml' : configFile} (see the contract for the format)`, configFile, 0, 0));
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
  const foldersAt: SourceRef = configYaml ? { file: configFile, ...positionAt(configYaml, ['resources']) } : { file: configFile, line: 0, column: 0 };
  const found = await findResourceFiles(root, folders, foldersAt, configFile);
  diagnostics.push(...found.diagnostics);
  const resources: (DesiredGlossary | DesiredStyleRules | undefined)[] = [];
  for (const [i, file] of found.files.entries()) {
    if (i > 0 && i % YIELD_EVERY === 0) await yieldToEventLoop();
    resources.push(loadResource(ctx, file, diagnostics));
  }

  const glossaries: DesiredGlossary[] = [];
  const styleRules: DesiredStyleRules[] = [];
  for (const resource of resources) {
    if (resource?.kind === 'glossary') glossaries.push(resource);
    else if (resource?.kind === 'style_rules') styleRules.push(resource);
  }
  diagnostics.push(...validateRepository(glossaries, styleRules));

  const result: LoadResult = { diagnostics: sortDiagnostics(diagnostics), files: [...files].sort() };
  if (config !== undefined) result.desired = { root, configFile, config, glossaries, styleRules };
  return result;
}
