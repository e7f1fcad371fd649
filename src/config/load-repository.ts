import { access, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { appendDiagnostics, type Diagnostic, error, hasErrors } from '../lib/diagnostics.js';
import { sortDiagnostics } from '../lib/diagnostics.js';
import type { DesiredGlossary, DesiredState, DesiredStyleRules, ProjectConfig, SourceRef } from '../model/desired.js';
import { LOAD_THREADS_ENV } from '../lib/defaults.js';
import { InputError } from '../lib/errors.js';
import { redactSecrets } from './detect-secrets.js';
import { readYaml, withEntries } from './load-resources.js';
import { FileReuse, type LoadMemo } from './load-memo.js';
import { loadInterrupted, loadResources, type LoadResourcesOptions } from './parallel-load.js';
import { positionAt, type YamlFile } from './parse-yaml.js';
import { findResourceFiles, relativePath } from './read-files.js';
import { declaredResourceFolders, validateConfig } from './validate-config.js';
import { validateRepository } from './validate-repository.js';

export interface LoadOptions {
  /** The repository root. */
  dir: string;
  /** The project config, relative to the working directory or absolute (default: config/termsync.yaml, then termsync.yaml). */
  configPath?: string;
  /** Load resource files in a worker thread too: by default, when there are many and more than one CPU. */
  parallel?: boolean;
  /** Where `TERMSYNC_LOAD_THREADS` is read when `parallel` is not given (default: the process's environment). */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * SIGINT/SIGTERM: when aborted, the load stops between two files (the worker thread is
   * terminated) and throws a TermsyncError `interrupted` (exit 130).
   */
  signal?: AbortSignal;
  /**
   * Keep of an entries file whose entries are its very text only what tells a live dictionary
   * equal to it, and read it again when the text is needed (see config/read-entries.ts
   * deferredEntries): for `plan`, which writes nothing and compares each dictionary once. Entries
   * files must then not change while the run lasts (a changed one is an error when it is read again).
   */
  deferEntries?: boolean;
  /**
   * Keep what each file gave for the next load of the same repository (`LoadResult.memo`), and
   * reuse what `previous` kept for every file whose bytes are those it had then (see load-memo.ts):
   * the daemon, which reads the repository again after each change. The result is exactly the
   * one a load without it gives.
   */
  remember?: boolean;
  /** The memo of the previous load of this repository (implies `remember`). */
  previous?: LoadMemo;
  /**
   * With `previous`: repository-relative files the caller vouches unchanged since the load that made
   * `previous` began (the daemon: files its watcher reported no change of). Their kept results are
   * taken without reading them (see load-memo.ts); any other file is read as without it.
   */
  vouched?: (file: string) => boolean;
  /**
   * Between two batches of files (default: one turn of the event loop, so that timers and sockets
   * run), and after each batch (see LoadResourcesOptions): tests hold the main thread until the
   * worker thread has answered, which in a small repository it never would in time.
   */
  yieldToEventLoop?: () => Promise<void>;
  onBatch?: LoadResourcesOptions['onBatch'];
}

export interface LoadResult {
  /** Absent only when the project config itself is unusable. Resources with errors are left out. */
  desired?: DesiredState;
  diagnostics: Diagnostic[];
  /** Repository-relative paths of every file read (config, resources, entries), sorted. */
  files?: string[];
  /** With `remember` or `previous`: what the next load may reuse (absent when no file was reached). */
  memo?: LoadMemo;
}

const DEFAULT_CONFIG_PATHS = ['config/termsync.yaml', 'termsync.yaml'];

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}

function isInside(root: string, absolute: string): boolean {
  const rel = path.relative(root, absolute);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** True for a path inside the repository whose real location (through symbolic links) is not. */
async function linksOutside(root: string, rootReal: string, absolute: string): Promise<boolean> {
  if (!isInside(root, absolute)) return false;
  const real = await realpath(absolute).catch(() => undefined);
  return real !== undefined && !isInside(rootReal, real);
}

/**
 * `TERMSYNC_LOAD_THREADS`: `1` → one thread, `2` → a worker thread too, unset or `auto` → decided
 * per load (undefined). Anything else is refused before anything is read.
 */
export function parallelFromEnv(env: Readonly<Record<string, string | undefined>>): boolean | undefined {
  const raw = env[LOAD_THREADS_ENV]?.trim();
  if (raw === undefined || raw === '' || raw === 'auto') return undefined;
  if (raw === '1') return false;
  if (raw === '2') return true;
  throw new InputError('invalid_env', `expected ${LOAD_THREADS_ENV} to be 1 (read the repository on one thread), 2 (with a worker thread) or auto, got "${raw}"`);
}

/** The load's checkpoints: an aborted signal ends it (the checks below are written once, here). */
function stopIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted === true) throw loadInterrupted(signal);
}

/** Lets timers and sockets run between batches of resources (the daemon keeps answering /healthz). */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * The project config of the repository at `root`: found (`configPath`, else the default paths),
 * read and validated; its problems are added to `diagnostics` and the file read to `files`.
 */
async function readProjectConfig(
  root: string,
  rootReal: string,
  configPath: string | undefined,
  diagnostics: Diagnostic[],
  files: Set<string>,
): Promise<{ config?: ProjectConfig; configYaml?: YamlFile; configFile: string }> {
  let configAbsolute: string | undefined;
  if (configPath !== undefined) configAbsolute = path.resolve(configPath);
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
    // A --config path is named absolute: relative to the repository (the diagnostic's file) it
    // would read as `../../x.yaml` next to a prefix relative to the working directory.
    const message =
      configAbsolute === undefined || configPath === undefined
        ? 'no project config: expected config/termsync.yaml or termsync.yaml (`termsync init` writes one; see the contract for the format)'
        : `no project config: the \`--config\` file ${configAbsolute} does not exist`;
    diagnostics.push(error('config/not-found', message, configFile, 1, 1));
  } else if (await linksOutside(root, rootReal, configAbsolute)) {
    // As for resource and entries files: a file of the repository is never read from elsewhere
    // through a symbolic link (a `--config` path outside the repository is the caller's choice).
    diagnostics.push(error('config/outside-repo', 'the project config is a symbolic link that points outside the repository: it is not read', configFile, 1, 1));
  } else {
    files.add(configFile);
    configYaml = readYaml(configAbsolute, configFile, diagnostics);
    if (configYaml) {
      const checked = await validateConfig(configYaml);
      appendDiagnostics(diagnostics, checked.diagnostics);
      config = checked.config;
    }
  }
  return { ...(config === undefined ? {} : { config }), ...(configYaml === undefined ? {} : { configYaml }), configFile };
}

/**
 * The project config alone, valid, without reading any resource or entries file (what the targets
 * are, before a load of the whole repository); undefined when the repository folder or its config
 * cannot be used.
 */
export async function loadProjectConfig(dir: string, configPath?: string): Promise<ProjectConfig | undefined> {
  const root = path.resolve(dir);
  let rootReal: string;
  try {
    rootReal = await realpath(root);
  } catch {
    return undefined;
  }
  const diagnostics: Diagnostic[] = [];
  const { config } = await readProjectConfig(root, rootReal, configPath, diagnostics, new Set());
  return hasErrors(diagnostics) ? undefined : config;
}

/**
 * Reads the repository into one desired state. Never throws for bad repository content: every
 * problem is a diagnostic (sorted by file, line, column). I/O here; the checks are pure functions.
 */
export async function loadRepository(options: LoadOptions): Promise<LoadResult> {
  stopIfAborted(options.signal);
  const parallel = options.parallel ?? parallelFromEnv(options.env ?? process.env);
  const root = path.resolve(options.dir);
  const diagnostics: Diagnostic[] = [];
  let rootReal: string;
  try {
    rootReal = await realpath(root);
  } catch {
    return { diagnostics: [error('repository/not-found', `the repository folder ${root} does not exist`, '.', 1, 1)], files: [] };
  }
  // A file given as the repository would otherwise read as "no project config" plus a missing resource folder.
  if ((await stat(rootReal).catch(() => undefined))?.isDirectory() === false) {
    return { diagnostics: [error('repository/not-a-folder', `\`--dir\` ${root} is not a folder: give the folder of the repository`, '.', 1, 1)], files: [] };
  }
  const files = new Set<string>();
  const { config, configYaml, configFile } = await readProjectConfig(root, rootReal, options.configPath, diagnostics, files);

  const folders = config?.resources ?? declaredResourceFolders(configYaml?.value);
  const foldersAt: SourceRef = configYaml ? { file: configFile, ...positionAt(configYaml, ['resources']) } : { file: configFile, line: 1, column: 1 };
  const found = await findResourceFiles(root, folders, foldersAt, configFile);
  appendDiagnostics(diagnostics, found.diagnostics);
  stopIfAborted(options.signal);
  const glossaries: DesiredGlossary[] = [];
  const styleRules: DesiredStyleRules[] = [];
  const repo = { root, rootReal };
  const reuse = options.remember === true || options.previous !== undefined ? new FileReuse(repo, options.deferEntries === true, options.previous, options.vouched) : undefined;
  for (const outcome of await loadResources(repo, found.files, new Map(), {
    yieldToEventLoop: options.yieldToEventLoop ?? yieldToEventLoop,
    ...(options.onBatch === undefined ? {} : { onBatch: options.onBatch }),
    ...(parallel === undefined ? {} : { parallel }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.deferEntries === true ? { deferEntries: true } : {}),
    ...(reuse === undefined ? {} : { reuse }),
  })) {
    files.add(outcome.file);
    appendDiagnostics(diagnostics, outcome.diagnostics);
    if (outcome.resource?.kind === 'glossary') glossaries.push(withEntries(outcome.resource, outcome.entries, diagnostics, files));
    else if (outcome.resource?.kind === 'style_rules') styleRules.push(outcome.resource);
  }
  stopIfAborted(options.signal);
  appendDiagnostics(diagnostics, validateRepository(glossaries, styleRules));

  const result: LoadResult = { diagnostics: sortDiagnostics(diagnostics.map(redactSecrets)), files: [...files].sort() };
  if (config !== undefined) result.desired = { root, configFile, config, glossaries, styleRules };
  if (reuse !== undefined) result.memo = reuse.finish();
  return result;
}
