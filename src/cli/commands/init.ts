import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { LOCK_FILE } from '../../apply/lock.js';
import { DEFAULTS } from '../../lib/defaults.js';
import { InputError, isTermsyncError } from '../../lib/errors.js';
import { ExitCode } from '../../lib/exit-codes.js';
import type { CommandContext } from '../io.js';
import { writeInside, type FileToWrite } from '../../lib/write-inside.js';
import { shownPath } from '../output-files.js';
import { withHelpFooter } from '../help-text.js';
import { schemaModeline, schemaReference } from '../schema-line.js';
import { invocationOf, quoted } from '../invocation.js';
import type { SchemaName } from '../../config/index.js';

interface InitOptions {
  readonly dir: string;
}

/** The variables the written config names (the defaults of `base_url_env` and `api_key_env`). */
const URL_ENV = 'TERMSYNC_BASE_URL';
const KEY_ENV = 'TERMSYNC_API_KEY';

export const INIT_CONFIG = `# termsync project config. The format: docs/contract.md, "The terminology repository".
version: 1

# Folders scanned for resource files (*.yaml, one glossary or style rule list each).
# \`termsync import\` writes what the account already has into the first one.
resources: [glossaries]

# Live resources this repository does not declare:
#   "off"   left alone (plan lists them as not managed)
#   owned   deleted when their name matches owned_names
#   all     deleted
prune: "off"
# owned_names: "termsync:*"

guards:
  max_deletes: 10                   # a plan deleting more resources than this fails (exit 4)
  max_removed_entries_percent: 50   # a dictionary losing more than this share of its entries fails (exit 4)
  allow_empty: false                # a repository declaring nothing never deletes anything

rate_limit:
  requests_per_second: ${DEFAULTS.requestsPerSecond}
  # concurrency: ${DEFAULTS.concurrency}                  # requests in flight at once; left out, it follows the rate:
                                    # ceil(requests_per_second × 0.4) between 4 and 16

# termsync watch: a full reconcile on this cron schedule, which reads every dictionary and so
# finds (and repairs, or with --on-drift reports or pulls) edits made on the service. Without it
# the daemon runs only when a file changes, and says so when it starts.
# schedule: "*/15 * * * *"
# suspend: false                    # termsync watch: true = plan and report, write nothing (every target)
# parallel_targets: 8               # termsync watch: targets reconciled at once (1 to 256)

# ui:                               # termsync watch's dashboard (open its --listen address in a browser)
#   show_terms: true                # show terms in diffs; default: true on a loopback --listen, false otherwise
#   keep_runs: 50                   # runs kept in memory, each with its plan

# pull:
#   tbx_removed: remove             # a TBX term removed on the service: remove its tig/ntig, or deprecate it

# verify:                           # what \`termsync verify\` may spend of the account's character quota
#   max_characters: ${DEFAULTS.verifyMaxCharacters}            # per run and target; a run that would send more sends nothing (exit 4)
#   sample: ${DEFAULTS.verifySample}                       # entries per dictionary also translated alone (--sample); 0: only the tests
#   seed: ${DEFAULTS.verifySeed}                         # the sample's seed: same seed and entries, same sample

targets:                            # one per account or regional data centre
  - name: default
    base_url_env: ${URL_ENV}   # the service URL comes from this environment variable,
    api_key_env: ${KEY_ENV}     # the API key from this one: never write the key in the repository
    # auth_scheme: Service-Auth-Key   # or DeepL-Auth-Key for the vendor's own service and its mock
    # suspend: false                  # termsync watch: true = plan and report this target, write nothing
    # rate_limit:                     # this target's own rate, in place of the one above (its own account's quota)
    #   requests_per_second: ${DEFAULTS.requestsPerSecond}
    #   concurrency: ${DEFAULTS.concurrency}                # left out, it follows this target's rate
    # capabilities:
    #   delete_custom_instruction: auto   # auto | yes | no: remove one custom instruction in place
    #                                     # (auto: tried; where the route is missing, the list is replaced)
`;

export const INIT_GLOSSARY = `# An example glossary. It is not managed while it lives in examples/: the config's \`resources\`
# lists only glossaries/. Move both files into glossaries/ and \`termsync plan\` shows it as
# "to add"; \`termsync apply\` creates it.
kind: glossary
name: Example glossary              # its identity on the service: unique among the repository's glossaries
dictionaries:
  - source_lang: en
    target_lang: de
    entries_file: example-glossary.en-de.tsv   # a source and a target phrase per line, tab-separated
  - source_lang: en
    target_lang: fr
    entries:                        # or inline, for a few entries
      gift card: carte cadeau
      checkout: paiement
tests:                              # optional smoke tests for \`termsync verify\` (not sent as entries)
  - source_lang: en
    target_lang: de
    text: "Add the gift card to your shopping cart."
    expect: [Geschenkkarte, Warenkorb]
`;

export const INIT_ENTRIES = 'gift card\tGeschenkkarte\nshopping cart\tWarenkorb\ncheckout\tKasse\n';

/** What `init` keeps out of git: the lock of a running apply, saved plans and ids files. */
export const INIT_GITIGNORE = ['# termsync: the lock of a running apply or plan --out, saved plans, ids files', LOCK_FILE, 'plan.json', 'ids.json'];

interface NewFile {
  readonly path: string;
  readonly content: string;
  readonly what: string;
  /** A YAML file's schema: its first line tells editors where it is (schema-line.ts). */
  readonly schema?: SchemaName;
}

const FILES: readonly NewFile[] = [
  { path: 'config/termsync.yaml', content: INIT_CONFIG, what: 'the project config (commented)', schema: 'config' },
  { path: 'examples/example-glossary.yaml', content: INIT_GLOSSARY, what: 'an example glossary (not managed until moved into glossaries/)', schema: 'resource' },
  { path: 'examples/example-glossary.en-de.tsv', content: INIT_ENTRIES, what: 'its entries' },
];

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** The lines of `.gitignore` still missing (all of them when there is none). */
async function missingIgnoreLines(path: string): Promise<string[]> {
  let text = '';
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return INIT_GITIGNORE;
  }
  const present = new Set(text.split(/\r?\n/).map((l) => l.trim()));
  const missing = INIT_GITIGNORE.slice(1).filter((l) => !present.has(l) && !present.has(`/${l}`));
  return missing.length === 0 ? [] : [INIT_GITIGNORE[0] as string, ...missing];
}

function errnoOf(error: unknown): string {
  return (error as NodeJS.ErrnoException | undefined)?.code ?? String(error);
}

async function runInit(ctx: CommandContext, options: InitOptions): Promise<number> {
  const { io } = ctx;
  const root = resolve(io.cwd, options.dir);
  const shownRoot = shownPath(root, io.cwd);
  const termsync = invocationOf(io.script, io.cwd, io.env);
  const taken = [];
  for (const file of [...FILES.map((f) => f.path), 'termsync.yaml']) if (await exists(join(root, file))) taken.push(file);
  if (taken.length > 0) {
    throw new InputError(
      'init_would_overwrite',
      `init writes nothing over existing files: ${taken.map((f) => join(shownRoot, f)).join(', ')} ${taken.length === 1 ? 'exists' : 'exist'} (a termsync repository is already there? \`${termsync} validate${options.dir === '.' ? '' : ` --dir ${quoted(options.dir)}`}\` checks it); nothing was written`,
    );
  }
  const ignorePath = join(root, '.gitignore');
  const ignoreLines = await missingIgnoreLines(ignorePath);
  const writes: FileToWrite[] = [];
  for (const file of FILES) {
    // A YAML file starts with the line that tells editors where its schema is.
    const content = file.schema === undefined ? file.content : `${schemaModeline(await schemaReference(join(root, file.path), root, file.schema))}\n${file.content}`;
    writes.push({ path: file.path, content, mode: 'create' });
  }
  if (ignoreLines.length > 0) {
    const before = (await exists(ignorePath)) ? await readFile(ignorePath, 'utf8') : '';
    const separator = before === '' || before.endsWith('\n') ? '' : '\n';
    writes.push({ path: '.gitignore', content: `${before}${separator}${before === '' ? '' : '\n'}${ignoreLines.join('\n')}\n`, mode: 'replace' });
  }
  try {
    // Every file or none, inside the folder (a link there cannot carry a write out of it); `create`:
    // never over a file, even one made since the check.
    await writeInside(root, writes, { folders: ['glossaries'] });
  } catch (error) {
    if (isTermsyncError(error)) throw error;
    throw new InputError('init_write_failed', `init could not write into ${shownRoot} (${errnoOf(error)}); nothing was written`);
  }
  const dirOption = options.dir === '.' ? '' : ` --dir ${quoted(options.dir)}`;
  const width = Math.max(...FILES.map((f) => f.path.length), '.gitignore'.length) + 2;
  const commands = [`${termsync} import${dirOption}`, `${termsync} plan${dirOption}`];
  const pad = Math.max(...commands.map((c) => c.length)) + 2;
  const lines = [
    `Wrote a termsync repository in ${shownRoot}:`,
    ...FILES.map((f) => `  ${f.path.padEnd(width)}${f.what}`),
    `  ${'.gitignore'.padEnd(width)}${ignoreLines.length === 0 ? 'already keeps the lock, plan and ids files out of git' : 'keeps the lock, plan and ids files out of git'}`,
    `  ${'glossaries/'.padEnd(width)}where your glossaries and style rule lists go`,
    '',
    'Next:',
    `  export ${URL_ENV}=https://… ${KEY_ENV}=…   # the service URL and your API key`,
    `  ${(commands[0] as string).padEnd(pad)}# writes the glossaries and style rules the account already has into glossaries/`,
    `  ${(commands[1] as string).padEnd(pad)}# "No changes." right after the import`,
    '',
  ];
  io.stdout(lines.join('\n'));
  return ExitCode.ok;
}

export function registerInit(program: Command, ctx: CommandContext): Command {
  return withHelpFooter(program.command('init'), { service: false, exits: [0, [3, 'a file it would write exists, or the folder cannot be written: nothing was written']] })
    .description('start a terminology repository: a commented config, an example glossary, .gitignore lines')
    .option('--dir <path>', 'the folder to start the repository in (created if missing)', '.')
    .action(async (options: InitOptions) => {
      ctx.setExitCode(await runInit(ctx, options));
    });
}
