import { readdir } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { Option, type Command } from 'commander';
import { displayText } from '../../lib/display.js';
import { InputError, isTermsyncError } from '../../lib/errors.js';
import { ExitCode } from '../../lib/exit-codes.js';
import { fetchLive } from '../../live/fetch-live.js';
import { loadDesired, selectTargets, withTargetClient } from '../../reconcile/index.js';
import { addCommonOptions } from '../common-options.js';
import { writtenTextErrors } from '../../config/check-written-text.js';
import { unwritableLines, unwritableMessage } from '../../pull/index.js';
import { createImportFiles, dictionariesOfSelection, selectUndeclared, unwritableSelection, type ImportFile, type ImportFormat } from '../create-import-files.js';
import { exitCodeOf } from '../exit-code-of.js';
import { formatNamed, IMPORT_FORMATS } from '../../formats/registry.js';
import type { CommandContext, CommonOptions } from '../io.js';
import { resolveInside, writeInside } from '../../lib/write-inside.js';
import { checkOutputFolder } from '../output-files.js';
import { configPathOf, createCliLogger, printDiagnostics, printTargetOutcome, repositoryDir, runProblem, serviceContext } from '../print-outcome.js';
import { withHelpFooter } from '../help-text.js';
import { errorLine } from '../report-error.js';
import { schemaModeline, schemaReference } from '../schema-line.js';

interface ImportOptions extends CommonOptions {
  readonly outDir?: string;
}

async function existingNames(dir: string): Promise<Set<string>> {
  try {
    return new Set(await readdir(dir));
  } catch {
    return new Set();
  }
}

/**
 * Writes every file or none, inside the repository (writeInside): a failure removes what this run
 * wrote (and the folders it made). `create`: never over a file, even one created since the folder
 * was listed.
 */
export async function writeImportFiles(root: string, outDir: string, files: ReturnType<typeof createImportFiles>, shown: string): Promise<void> {
  if (files.length === 0) return;
  const contents = [];
  for (const file of files) {
    const path = join(outDir, file.name);
    // Every resource file starts with the line that tells editors where its schema is.
    const content =
      typeof file.content !== 'string' ? await file.content.bytes() : file.name.endsWith('.yaml') ? `${schemaModeline(await schemaReference(path, root, 'resource'))}\n${file.content}` : file.content;
    contents.push({ path, content, mode: 'create' as const });
  }
  try {
    await writeInside(root, contents, { shown: (path) => relative(root, path).split(sep).join('/') });
  } catch (error) {
    if (isTermsyncError(error)) throw error;
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (typeof code !== 'string') throw error;
    throw new InputError('import_write_failed', `cannot write the imported files into ${shown} (${code}); nothing was written`);
  }
}

/** The folder import writes into must be in the repository, as written and where its links lead: import writes nothing anywhere else. */
async function checkInsideRepository(root: string, outDir: string, given: string | undefined): Promise<void> {
  const rel = relative(root, outDir);
  const shown = rel.split(sep).join('/');
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    throw new InputError('import_outside_repository', `--out-dir ${given ?? shown} is outside the repository: import writes only into the repository; nothing was sent to the service`);
  }
  try {
    await resolveInside(root, outDir, `into ${shown}${given === undefined ? '' : ' (--out-dir)'}`);
  } catch (error) {
    if (!isTermsyncError(error)) throw error;
    throw new InputError('import_outside_repository', `${error.message.replace(/; nothing was written$/, '')}: import writes only into the repository; nothing was sent to the service`);
  }
}

/** The errors validate would report in the text files import is about to write (resource files, TSV entries files), located in them. */
function invalidFiles(relOut: string, files: readonly ImportFile[]): string[] {
  return files.flatMap((f) => {
    if (typeof f.content !== 'string') return [];
    const file = relOut === '' ? f.name : `${relOut}/${f.name}`;
    return writtenTextErrors(file, f.content, f.pair === undefined ? [] : [{ pair: f.pair }]).map((d) => `${d.file}:${d.line}:${d.column}: [${d.code}] ${d.message}`);
  });
}

async function runImport(ctx: CommandContext, options: ImportOptions): Promise<number> {
  const { io } = ctx;
  /** Says why nothing is written for a target (the summary, then each problem on its line): exit 3. */
  const refuse = (summary: string, problems: readonly string[]): number => {
    io.stderr(`${errorLine(summary)}${unwritableLines(problems).map((l) => `${l}\n`).join('')}`);
    return ExitCode.invalidInput;
  };
  const root = repositoryDir(io, options);
  const { desired, diagnostics } = await loadDesired(root, configPathOf(io, options).configPath, io.signal);
  // A missing resource folder is normal here: import creates it.
  printDiagnostics(io, diagnostics, options.dir, ['config/resource-folder-missing']);
  if (desired === undefined) {
    io.stderr(runProblem({ kind: 'invalid', diagnostics }) ?? '');
    return ExitCode.invalidInput;
  }
  const resourceFolders = desired.config.resources;
  const outDir = resolve(root, options.outDir ?? resourceFolders[0] ?? 'glossaries');
  const relOut = relative(root, outDir).split(sep).join('/');
  // The folder is checked before anything is sent (it may not exist yet: it is created).
  await checkInsideRepository(root, outDir, options.outDir);
  if (!resourceFolders.some((f) => relOut === f.replace(/\/+$/, '') || relOut.startsWith(`${f.replace(/\/+$/, '')}/`))) {
    io.stderr(`warning: ${displayText(relOut)} is not under a folder the config lists in \`resources\` (${displayText(resourceFolders.join(', '))}); plan will not read the imported files\n`);
  }
  await checkOutputFolder(outDir, options.outDir === undefined ? 'import into' : '--out-dir', io.cwd);
  const targets = selectTargets(desired, options.target);
  const logger = createCliLogger(io, options.logLevel);
  let code: number = ExitCode.ok;
  for (const target of targets) {
    const done = await withTargetClient(serviceContext(io, logger), desired, target, async (client): Promise<number | undefined> => {
      const live = await fetchLive(client, (glossaries) => dictionariesOfSelection(selectUndeclared(desired, { glossaries, styleRules: [] })));
      const selection = selectUndeclared(desired, live);
      for (const name of selection.duplicates) {
        io.stderr(`warning: target "${displayText(target.name)}" has several resources named "${displayText(name)}"; only the oldest was imported\n`);
      }
      // What the files cannot hold is refused before anything is written, each named on the service.
      const unwritable = unwritableSelection(selection, live.entries);
      if (unwritable.length > 0) return refuse(unwritableMessage('import', unwritable.length), unwritable);
      const format = (options.format ?? IMPORT_FORMATS[0]?.name) as ImportFormat;
      const files = createImportFiles(selection, live.entries, await existingNames(outDir), format, (name) => {
        io.stderr(`warning: glossary "${displayText(name)}" has dictionaries from several source languages, which one ${formatNamed(format)?.import?.noun ?? format} cannot hold exactly (it is read back as pairs from one language): written as ${perDictionaryNoun()}s\n`);
      });
      const invalid = invalidFiles(relOut, files);
      if (invalid.length > 0) return refuse(unwritableMessage('import', invalid.length, 'files'), invalid);
      await writeImportFiles(root, outDir, files, relOut);
      const count = selection.glossaries.length + selection.styleRules.length;
      io.stdout(
        count === 0
          ? `Target "${displayText(target.name)}": nothing to import; the repository declares every live resource.\n`
          : `Target "${displayText(target.name)}": imported ${selection.glossaries.length} glossar${selection.glossaries.length === 1 ? 'y' : 'ies'} and ${selection.styleRules.length} style rule list${selection.styleRules.length === 1 ? '' : 's'} into ${displayText(relOut)} (${files.length} files).\n`,
      );
      return undefined;
    });
    if (typeof done === 'number') code = Math.max(code, done);
    else if (done !== undefined) {
      printTargetOutcome(io, done, { multi: targets.length > 1 });
      code = Math.max(code, exitCodeOf(done));
    }
  }
  return code;
}

/** What a file per dictionary is called (`TSV file`): what a glossary no multilingual file can hold is written as. */
function perDictionaryNoun(): string {
  return IMPORT_FORMATS.find((f) => f.import?.kind === 'dictionary')?.import?.noun ?? 'file';
}

/** `a TSV file per dictionary, or one TBX file or workbook per glossary`: the import formats, from the registry. */
function importFormatsHelp(): string {
  const nouns = (kind: 'dictionary' | 'glossary'): string => IMPORT_FORMATS.flatMap((f) => (f.import?.kind === kind ? [f.import.noun] : [])).join(' or ');
  return `a ${nouns('dictionary')} per dictionary, or one ${nouns('glossary')} per glossary`;
}

export function registerImport(program: Command, ctx: CommandContext): Command {
  return addCommonOptions(withHelpFooter(program.command('import'), { service: true, exits: [0, 3, 7, 130] }).description('write resource and entry files for the live resources the repository does not declare yet'))
    .option('--out-dir <path>', 'folder for the new files, inside the repository and relative to it (default: the first `resources` folder)')
    .addOption(new Option('--format <format>', `how entries are written: ${importFormatsHelp()}`).choices(IMPORT_FORMATS.map((f) => f.name)).default(IMPORT_FORMATS[0]?.name))
    .action(async (options: ImportOptions) => {
      ctx.setExitCode(await runImport(ctx, options));
    });
}
