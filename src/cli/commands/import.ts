import { readdir, rm, writeFile } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { Option, type Command } from 'commander';
import { InputError } from '../../lib/errors.js';
import { ExitCode } from '../../lib/exit-codes.js';
import { fetchLive } from '../../live/fetch-live.js';
import { loadDesired, selectTargets, withTargetClient } from '../../reconcile/index.js';
import { addCommonOptions } from '../common-options.js';
import { createImportFiles, dictionariesOfSelection, selectUndeclared, type ImportFormat } from '../create-import-files.js';
import { createWorkbook } from '../create-workbook.js';
import { exitCodeOf } from '../exit-code-of.js';
import type { CommandContext, CommonOptions } from '../io.js';
import { checkOutputFolder, makeFolders } from '../output-files.js';
import { configPathOf, createCliLogger, printDiagnostics, printTargetOutcome, repositoryDir, runProblem, serviceContext } from '../print-outcome.js';
import { withHelpFooter } from '../help-text.js';
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
 * Writes every file or none: a failure removes what this run wrote (and the folder, if it made it).
 * `wx`: never overwrite a file, even one created since the folder was listed.
 */
export async function writeImportFiles(outDir: string, files: ReturnType<typeof createImportFiles>, shown: string, root = outDir): Promise<void> {
  if (files.length === 0) return;
  let made: string | undefined;
  const written: string[] = [];
  try {
    made = await makeFolders(outDir);
    for (const file of files) {
      const path = join(outDir, file.name);
      // Every resource file starts with the line that tells editors where its schema is.
      const content =
        typeof file.content !== 'string' ? await createWorkbook(file.content) : file.name.endsWith('.yaml') ? `${schemaModeline(await schemaReference(path, root, 'resource'))}\n${file.content}` : file.content;
      await writeFile(path, content, { flag: 'wx' });
      written.push(path);
    }
  } catch (error) {
    for (const path of written) await rm(path, { force: true }).catch(() => undefined);
    if (made !== undefined) await rm(made, { recursive: true, force: true }).catch(() => undefined);
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (typeof code !== 'string') throw error;
    throw new InputError('import_write_failed', `cannot write the imported files into ${shown} (${code}); nothing was written`);
  }
}

async function runImport(ctx: CommandContext, options: ImportOptions): Promise<number> {
  const { io } = ctx;
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
  if (!resourceFolders.some((f) => relOut === f.replace(/\/+$/, '') || relOut.startsWith(`${f.replace(/\/+$/, '')}/`))) {
    io.stderr(`warning: ${relOut} is not under a folder the config lists in \`resources\` (${resourceFolders.join(', ')}); plan will not read the imported files\n`);
  }
  // The folder is checked before anything is sent (it may not exist yet: it is created).
  await checkOutputFolder(outDir, options.outDir === undefined ? 'import into' : '--out-dir', io.cwd);
  const targets = selectTargets(desired, options.target);
  const logger = createCliLogger(io, options.logLevel);
  let code: number = ExitCode.ok;
  for (const target of targets) {
    const done = await withTargetClient(serviceContext(io, logger), desired, target, async (client) => {
      const live = await fetchLive(client, (glossaries) => dictionariesOfSelection(selectUndeclared(desired, { glossaries, styleRules: [] })));
      const selection = selectUndeclared(desired, live);
      for (const name of selection.duplicates) {
        io.stderr(`warning: target "${target.name}" has several resources named "${name}"; only the oldest was imported\n`);
      }
      const format = (options.format ?? 'tsv') as ImportFormat;
      const files = createImportFiles(selection, live.entries, await existingNames(outDir), format, (name) => {
        io.stderr(`warning: glossary "${name}" has dictionaries from several source languages, which one ${format === 'tbx' ? 'TBX file' : 'workbook'} cannot hold exactly (it is read back as pairs from one language): written as TSV files\n`);
      });
      await writeImportFiles(outDir, files, relOut, root);
      const count = selection.glossaries.length + selection.styleRules.length;
      io.stdout(
        count === 0
          ? `Target "${target.name}": nothing to import; the repository declares every live resource.\n`
          : `Target "${target.name}": imported ${selection.glossaries.length} glossar${selection.glossaries.length === 1 ? 'y' : 'ies'} and ${selection.styleRules.length} style rule list${selection.styleRules.length === 1 ? '' : 's'} into ${relOut} (${files.length} files).\n`,
      );
      return undefined;
    });
    if (done !== undefined) {
      printTargetOutcome(io, done, { multi: targets.length > 1 });
      code = Math.max(code, exitCodeOf(done));
    }
  }
  return code;
}

export function registerImport(program: Command, ctx: CommandContext): Command {
  return addCommonOptions(withHelpFooter(program.command('import'), { service: true, exits: [0, 3, 7, 130] }).description('write resource and entry files for the live resources the repository does not declare yet'))
    .option('--out-dir <path>', 'folder for the new files, relative to the repository (default: the first `resources` folder)')
    .addOption(new Option('--format <format>', 'how entries are written: a TSV file per dictionary, or one TBX file or workbook per glossary').choices(['tsv', 'tbx', 'xlsx']).default('tsv'))
    .action(async (options: ImportOptions) => {
      ctx.setExitCode(await runImport(ctx, options));
    });
}
