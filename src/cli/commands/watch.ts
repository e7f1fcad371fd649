import path from 'node:path';
import { hostname } from 'node:os';
import { Writable } from 'node:stream';
import { Option, type Command } from 'commander';
import { validate as validateCron } from 'node-cron';
import { InputError } from '../../lib/errors.js';
import { readSecretFile } from '../../lib/read-secret-file.js';
import type { LevelWithSilent } from 'pino';
import { pino } from 'pino';
import { DEFAULTS } from '../../lib/defaults.js';
import { REDACT_PATHS, type Logger } from '../../lib/logger.js';
import { loadProjectConfig } from '../../config/index.js';
import { parseInterval } from '../../daemon/parse-interval.js';
import { secretFile } from '../../daemon/hook-routes.js';
import { parseListen } from '../../daemon/serve-endpoints.js';
import { resolveShard } from '../../daemon/shard.js';
import { beginFirstLoad, type FirstLoad } from '../../daemon/first-load.js';
import type { Daemon, DaemonOptions } from '../../daemon/start-daemon.js';
import { addCommonOptions } from '../common-options.js';
import type { CliIo, CommandContext, CommonOptions } from '../io.js';
import { configPathOf, repositoryDir } from '../print-outcome.js';
import { withHelpFooter } from '../help-text.js';
import { VERSION } from '../version.js';

interface WatchOptions extends CommonOptions {
  readonly listen: string;
  readonly gitPull?: string;
  readonly schedule?: string;
  readonly onDrift: 'apply' | 'report' | 'pull';
  readonly verify: boolean;
  readonly logFormat: 'json' | 'pretty';
  readonly emulator: 'auto' | 'never';
  readonly poll?: boolean;
  readonly suspend?: boolean;
  readonly webhookSecretFile?: string;
  readonly reconcileTokenFile?: string;
  readonly webhookBranch?: string;
  readonly uiTokenFile?: string;
  readonly shard?: string;
  readonly shards?: string;
  readonly parallelTargets?: string;
}

/** Characters a dashboard token has at least: one a person could guess protects nothing. */
const MIN_TOKEN_LENGTH = 16;

/** The most a token file may hold: a token is a line, not a file to stream (/dev/zero is refused). */
const MAX_TOKEN_FILE_BYTES = 4096;

/**
 * The dashboard's token from `--ui-token-file`: the file's text without its line ending, never shown.
 * Read as every secret file is (a regular file, bounded, never blocking: lib/read-secret-file).
 */
function readUiToken(io: CliIo, file: string): string {
  const text = readSecretFile(path.resolve(io.cwd, file), MAX_TOKEN_FILE_BYTES, 'token', (why) => new InputError('invalid_ui_token', `cannot read --ui-token-file ${file} (${why})`));
  const token = text.replace(/\r?\n$/, '');
  if (token.length < MIN_TOKEN_LENGTH || /\s/.test(token)) {
    throw new InputError('invalid_ui_token', `expected --ui-token-file ${file} to hold one token of at least ${MIN_TOKEN_LENGTH} characters without spaces (e.g. \`openssl rand -hex 32\`), got ${token.length} characters${/\s/.test(token) ? ' with spaces or line breaks' : ''}`);
  }
  return token;
}

/**
 * A reader of the dashboard's token, read once here so that a missing or unusable file stops the
 * start (exit 3), and again at each dashboard request, as the webhook secret is: a rotated token
 * needs no restart. Every token read is taken out of anything termsync writes, like a key.
 */
function uiTokenReader(io: CliIo, file: string): () => string {
  const read = (): string => {
    const token = readUiToken(io, file);
    io.keys?.add(token);
    return token;
  };
  read();
  return read;
}

/** The variables that name the secret files when the options do not (for a Kubernetes Secret mounted as a file). */
export const WEBHOOK_SECRET_FILE_ENV = 'TERMSYNC_WEBHOOK_SECRET_FILE';
export const RECONCILE_TOKEN_FILE_ENV = 'TERMSYNC_RECONCILE_TOKEN_FILE';

/**
 * The secrets of the webhooks and of POST /reconcile, each read once here so that a missing, empty
 * or unusable file stops the start (exit 3), and again at each request (a rotated secret needs no
 * restart). Neither set: those endpoints are off.
 */
function hookSecrets(io: CliIo, options: WatchOptions): { webhookSecret?: () => string; reconcileToken?: () => string; branch?: string } {
  const named = (option: string | undefined, variable: string): string | undefined => {
    const file = option ?? io.env[variable];
    return file === undefined || file.trim() === '' ? undefined : file.trim();
  };
  const webhookFile = named(options.webhookSecretFile, WEBHOOK_SECRET_FILE_ENV);
  const tokenFile = named(options.reconcileTokenFile, RECONCILE_TOKEN_FILE_ENV);
  const webhookSecret = webhookFile === undefined ? undefined : secretFile(webhookFile, `--webhook-secret-file (${WEBHOOK_SECRET_FILE_ENV})`);
  const reconcileToken = tokenFile === undefined ? undefined : secretFile(tokenFile, `--reconcile-token-file (${RECONCILE_TOKEN_FILE_ENV})`);
  webhookSecret?.();
  reconcileToken?.();
  if (options.webhookBranch !== undefined && webhookSecret === undefined) {
    throw new InputError('invalid_option', `--webhook-branch needs --webhook-secret-file (or ${WEBHOOK_SECRET_FILE_ENV}): without a secret the webhooks are off`);
  }
  return {
    ...(webhookSecret === undefined ? {} : { webhookSecret }),
    ...(reconcileToken === undefined ? {} : { reconcileToken }),
    ...(options.webhookBranch === undefined ? {} : { branch: options.webhookBranch }),
  };
}

/** What the daemon serves, for the start-up line. */
function servedPaths(hooks: ReturnType<typeof hookSecrets>): string {
  const paths = ['/healthz', '/readyz', '/metrics', '/status', ...(hooks.webhookSecret === undefined ? [] : ['/hooks/github', '/hooks/gitlab']), ...(hooks.reconcileToken === undefined ? [] : ['/reconcile'])];
  return `${paths.slice(0, -1).join(', ')} and ${paths.at(-1) ?? ''}`;
}

/** `--parallel-targets`: a whole number from 1 to 256. */
function parseParallelTargets(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = /^\s*\d{1,3}\s*$/.test(text) ? Number(text) : NaN;
  if (!(value >= 1 && value <= 256)) throw new InputError('invalid_option', `expected --parallel-targets to be a whole number from 1 to 256, got "${text}"`);
  return value;
}

async function createDaemonLogger(io: CliIo, level: string, format: 'json' | 'pretty'): Promise<Logger> {
  const options = { level: level as LevelWithSilent, name: 'termsync', base: null, redact: { paths: REDACT_PATHS, censor: '[redacted]' } };
  const write = (line: string): void => io.stderr(line);
  if (format === 'json') return pino(options, { write });
  const { default: pretty } = await import('pino-pretty');
  const destination = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      write(chunk.toString());
      done();
    },
  });
  return pino(options, pretty({ destination, translateTime: 'SYS:HH:MM:ss', ignore: 'name' }));
}

/**
 * With nothing configured (`--emulator auto` and none of the targets' URL and key variables set),
 * the emulator runs in this process and the daemon talks to it: `npm start` works on a fresh clone.
 */
async function withEmulatorIfUnconfigured(
  io: CliIo,
  options: WatchOptions,
): Promise<{ env: Readonly<Record<string, string | undefined>>; close: () => Promise<void> }> {
  const none = { env: io.env, close: () => Promise.resolve() };
  if (options.emulator !== 'auto') return none;
  // The config alone tells the targets' variables: the daemon loads the repository itself, once.
  const config = await loadProjectConfig(repositoryDir(io, options), configPathOf(io, options).configPath);
  const targets = config?.targets ?? [{ name: 'default', baseUrlEnv: 'TERMSYNC_BASE_URL', apiKeyEnv: 'TERMSYNC_API_KEY' }];
  const names = targets.flatMap((t) => [t.baseUrlEnv, t.apiKeyEnv]);
  if (names.some((n) => (io.env[n] ?? '').trim() !== '') || (io.env['TERMSYNC_API_KEY_FILE'] ?? '').trim() !== '') return none;
  const { startEmulator } = await import('../../emulator/index.js');
  const emulator = await startEmulator({ host: '127.0.0.1', port: 0 });
  io.stderr(
    `No ${names.join('/')} set: started the built-in service emulator on ${emulator.url} (in memory; its data is gone when termsync stops). Set them to use a real account.\n`,
  );
  const env: Record<string, string | undefined> = { ...io.env };
  for (const t of targets) {
    env[t.baseUrlEnv] = emulator.url;
    env[t.apiKeyEnv] = 'local-emulator-key';
  }
  return { env, close: () => emulator.close() };
}

/**
 * Starts the daemon with its first load, begun before (first-load.ts): the daemon's modules are
 * imported while that load runs. A daemon that does not start (the listen address taken…) stops it.
 */
async function startDaemonWith(first: FirstLoad | undefined, options: DaemonOptions): Promise<Daemon> {
  try {
    const { startDaemon } = await import('../../daemon/start-daemon.js');
    return await startDaemon({ ...options, ...(first === undefined ? {} : { firstLoad: first }) });
  } catch (error) {
    first?.cancel();
    throw error;
  }
}

async function runWatch(ctx: CommandContext, options: WatchOptions): Promise<void> {
  const { io } = ctx;
  const listen = parseListen(options.listen);
  const gitPullMs = options.gitPull === undefined ? undefined : parseInterval(options.gitPull, '--git-pull');
  if (options.schedule !== undefined && !validateCron(options.schedule)) {
    throw new InputError('invalid_schedule', `expected --schedule to be a cron expression of 5 or 6 fields (e.g. "*/15 * * * *"), got "${options.schedule}"`);
  }
  const hooks = hookSecrets(io, options);
  const uiToken = options.uiTokenFile === undefined ? undefined : uiTokenReader(io, options.uiTokenFile);
  const parallelTargets = parseParallelTargets(options.parallelTargets);
  const shard = resolveShard({ ...(options.shard === undefined ? {} : { shard: options.shard }), ...(options.shards === undefined ? {} : { shards: options.shards }), env: io.env, hostname: hostname() });
  const logger = await createDaemonLogger(io, options.logLevel, options.logFormat);
  if (shard !== undefined) logger.info({ shard: `${shard.index}/${shard.count}` }, 'reconciling the targets rendezvous hashing assigns to this replica');
  const local = await withEmulatorIfUnconfigured(io, options);
  // The first load begins now, and the rest of the daemon is imported while it runs (first-load.ts).
  const first = gitPullMs === undefined ? beginFirstLoad(repositoryDir(io, options), configPathOf(io, options).configPath) : undefined;
  try {
    const daemon = await startDaemonWith(first, {
      dir: repositoryDir(io, options),
      ...configPathOf(io, options),
      env: local.env,
      ...(options.target === undefined ? {} : { target: options.target }),
      ...(shard === undefined ? {} : { shard }),
      ...(parallelTargets === undefined ? {} : { parallelTargets }),
      logger,
      listen,
      onDrift: options.onDrift,
      ...(options.suspend === true ? { suspend: true } : {}),
      hooks,
      version: VERSION,
      verify: options.verify,
      ...(gitPullMs === undefined ? {} : { gitPullMs }),
      ...(options.schedule === undefined ? {} : { schedule: options.schedule }),
      ...(options.poll === true ? { usePolling: true } : {}),
      ...(io.keys === undefined ? {} : { keys: io.keys }),
      ...(uiToken === undefined ? {} : { uiToken }),
    });
    io.stderr(`termsync watch: serving the dashboard, ${servedPaths(hooks)} on ${daemon.url ?? listen.host} (open ${daemon.url ?? listen.host}/ in a browser)\n`);
    if (options.suspend === true) io.stderr('termsync watch: suspended (--suspend): differences are planned and reported on /status and /metrics, nothing is written\n');
    const unsubscribe = io.onHangup?.(() => {
      logger.info('SIGHUP: reloading the repository and the config');
      daemon.trigger('reload');
    });
    if (!io.signal.aborted) await new Promise<void>((resolve) => io.signal.addEventListener('abort', () => resolve(), { once: true }));
    logger.info('stopping: no new work; letting the running operation finish');
    unsubscribe?.();
    await daemon.stop();
    logger.info('stopped');
  } finally {
    await local.close();
  }
}

export function registerWatch(program: Command, ctx: CommandContext): Command {
  return addCommonOptions(
    withHelpFooter(program.command('watch'), { service: true, env: [['GIT_*', "git's own variables (GIT_CONFIG_COUNT …) reach the git that --git-pull runs"], [WEBHOOK_SECRET_FILE_ENV, 'the file of --webhook-secret-file'], [RECONCILE_TOKEN_FILE_ENV, 'the file of --reconcile-token-file'], ['TERMSYNC_SHARD', 'INDEX/COUNT: as --shard'], ['TERMSYNC_SHARDS', 'COUNT: as --shards (the index from TERMSYNC_POD_NAME or the host name)']], exits: [[0, 'stopped by SIGTERM/SIGINT (it runs until then)'], [3, 'invalid options, a secret file that cannot be read, or the listen address cannot be used']] })
      .description('the daemon: reconcile on start, when files change, on the schedule and on a push webhook; serve a dashboard (/), /healthz, /readyz, /metrics, /status'),
    'info',
  )
    .option('--listen <host:port>', 'where the endpoints listen (0.0.0.0:9464 in a container)', DEFAULTS.listen)
    .option('--git-pull <interval>', 'fetch and fast-forward the checkout every interval (30s, 5m, 1h) and before each scheduled run')
    .option('--schedule <cron>', "full reconcile schedule, overriding the config's `schedule` (5 or 6 cron fields)")
    .addOption(
      new Option(
        '--on-drift <action>',
        'what a full reconcile does with differences: apply them, only report them, or pull the service edits into the files (with --git-pull: pushed to a branch termsync/drift-<date>)',
      )
        .choices(['apply', 'report', 'pull'])
        .default('apply'),
    )
    .option('--no-verify', "do not run the glossaries' tests after a reconcile that changed them")
    .addOption(new Option('--log-format <format>', 'JSON lines for machines, or pretty for people').choices(['json', 'pretty']).default('json'))
    .addOption(
      new Option('--emulator <when>', 'auto: with no service URL and key set, run the built-in emulator in this process').choices(['auto', 'never']).default('never'),
    )
    .option('--poll', 'poll files instead of waiting for change events (network or container mounts without events)')
    .option('--ui-token-file <file>', 'the dashboard (/) and its assets need this token: Authorization: Bearer TOKEN, or a browser asks for it as a password')
    .option('--suspend', "write nothing to any target: plan and report the differences only (as the config's `suspend: true`)")
    .option('--webhook-secret-file <path>', `turns on POST /hooks/github (X-Hub-Signature-256) and /hooks/gitlab (X-Gitlab-Token) with the secret in this file (or ${WEBHOOK_SECRET_FILE_ENV}): a push to the watched branch reconciles at once`)
    .option('--webhook-branch <name>', "the branch whose pushes start a run (default: the checkout's upstream branch; needed when the checkout is not on a branch, as with git-sync)")
    .option('--reconcile-token-file <path>', `turns on POST /reconcile with Authorization: Bearer and the token in this file (or ${RECONCILE_TOKEN_FILE_ENV})`)
    .option('--parallel-targets <n>', "targets reconciled at once, each with its own client, rate limit and back-off (overrides the config's parallel_targets; default 8)")
    .option('--shard <index/count>', 'reconcile only the targets rendezvous hashing assigns to replica INDEX (from 0) of COUNT, e.g. 2/5 (env TERMSYNC_SHARD)')
    .option('--shards <count>', "like --shard, the index taken from the pod name's ordinal (TERMSYNC_POD_NAME, else the host name: termsync-2 is 2) (env TERMSYNC_SHARDS)")
    .action(async (options: WatchOptions) => {
      await runWatch(ctx, options);
      ctx.setExitCode(0);
    });
}
