// The reliability suite's harness: every termsync run is a real process (`bin/termsync.js`), every
// output it makes is kept under one folder per check, and at the end of each check that folder is
// searched for the API key. Seeded randomness only: the same seed builds the same repositories and
// chooses the same kill points and fault draws.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { lstat, mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import { runCli } from '../../src/cli/main.js';

export const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = join(PROJECT_ROOT, 'bin', 'termsync.js');

/**
 * The key every run of the suite is given: the service's own key shape (`<uuid>:fx`), distinctive
 * enough that any appearance in an output is a leak, never a coincidence.
 */
export const SECRET_KEY = '5ec2e7a1-0b5e-4c3d-9e8f-7a6b5c4d3e2f:fx';
/** Pieces of the key searched too: a leak that cut or encoded the key is still a leak. */
export const SECRET_NEEDLES: readonly string[] = [
  SECRET_KEY,
  '5ec2e7a1-0b5e-4c3d',
  '9e8f-7a6b5c4d3e2f',
  Buffer.from(SECRET_KEY).toString('base64').slice(0, 24),
  Buffer.from(SECRET_KEY).toString('hex').slice(0, 32),
  encodeURIComponent(SECRET_KEY),
];

declare module 'vitest' {
  export interface ProvidedContext {
    reliabilityOut: string;
  }
}

/** mulberry32: a small seeded generator, so every random choice of the suite repeats. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

export interface RunResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
  /** The process's peak resident set (VmHWM), in KiB, as last read from /proc while it ran. */
  readonly peakRssKiB: number;
  readonly label: string;
  /** CPU time of the run, in ms (in-process runs only: this process's time during the run). */
  readonly cpuMs?: number;
}

export interface RunOptions {
  /** Working directory (the repository); `--dir .` is the caller's business. */
  readonly cwd: string;
  /** Added to the suite's minimal environment (PATH, HOME inside the check's folder). */
  readonly env?: Record<string, string>;
  /** Killed with SIGKILL after this long (the run then fails its check by its own assertions). */
  readonly timeoutMs?: number;
  /** Sample /proc/<pid>/status for the peak resident set. */
  readonly watchMemory?: boolean;
  /** Called once the process is spawned (for kill points and concurrent starts). */
  readonly onSpawn?: (child: ChildProcess) => void;
}

/** Peak resident set of a running process, from /proc (Linux); 0 when unreadable. */
function peakRss(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /VmHWM:\s+(\d+) kB/.exec(status);
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

export interface Area {
  /** This check's folder: repositories, outputs and the log live under it. */
  readonly dir: string;
  readonly name: string;
  /** Prints what the check tried, and keeps it in the check's log (which is searched too). */
  tried(line: string): void;
  /** Adds to one of the counts the run ends with. */
  count(name: CountName, n: number): void;
  /** Runs `termsync ARGV` as a process; stdout and stderr are kept as files of the check. */
  run(argv: readonly string[], options: RunOptions): Promise<RunResult>;
  /**
   * Runs the CLI in this process (`runCli`, as `bin/termsync.js` does, without the cost of starting
   * Node): for the many short runs of a check. Outputs are kept alike.
   */
  runInProcess(argv: readonly string[], options: Pick<RunOptions, 'cwd' | 'env'>): Promise<RunResult>;
  /** A new folder under the check's folder. */
  folder(name: string): Promise<string>;
  /** Searches every file under the check's folder for the key: places searched, and the hits. */
  searchForKey(): Promise<{ places: number; hits: string[] }>;
}

export type CountName = 'faults injected' | 'kill points' | 'bad inputs' | 'hostile behaviours' | 'places searched for the key' | 'key found';

/** The suite's output folder (made by the reporter, handed over by vitest's `provide`). */
function suiteOut(): string {
  try {
    const provided = inject('reliabilityOut');
    if (provided) return provided;
  } catch {
    // run outside the reliability config: fall through
  }
  const dir = join(tmpdir(), `termsync-reliability-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

function addCount(out: string, area: string, name: CountName, n: number): void {
  const file = join(out, 'counts', `${area}.json`);
  mkdirSync(dirname(file), { recursive: true });
  let counts: Record<string, number> = {};
  try {
    counts = JSON.parse(readFileSync(file, 'utf8')) as Record<string, number>;
  } catch {
    // first count of this check
  }
  counts[name] = (counts[name] ?? 0) + n;
  writeFileSync(file, JSON.stringify(counts));
}

/** Every regular file under `dir` (symbolic links are not followed: a repository may hold hostile ones). */
export async function filesUnder(dir: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (folder: string): Promise<void> => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile()) found.push(path);
    }
  };
  await walk(dir);
  return found;
}

export function createArea(name: string): Area {
  const out = suiteOut();
  const dir = join(out, 'checks', name);
  mkdirSync(join(dir, 'outputs'), { recursive: true });
  mkdirSync(join(dir, 'home'), { recursive: true });
  const logFile = join(dir, 'tried.log');
  let runs = 0;
  return {
    dir,
    name,
    tried(line) {
      appendFileSync(logFile, `${line}\n`);
      console.log(`[${name}] ${line}`);
    },
    count(countName, n) {
      addCount(out, name, countName, n);
    },
    async folder(sub) {
      const path = join(dir, sub);
      await mkdir(path, { recursive: true });
      return path;
    },
    run(argv, options) {
      runs += 1;
      const label = `${String(runs).padStart(4, '0')}-${argv[0] ?? 'none'}`;
      const env: Record<string, string> = {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: join(dir, 'home'),
        TMPDIR: join(dir, 'home'),
        ...options.env,
      };
      const started = performance.now();
      const child = spawn(process.execPath, [BIN, ...argv], { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
      options.onSpawn?.(child);
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (t: string) => (stdout += t));
      child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
      let peak = 0;
      const sampler = options.watchMemory && child.pid !== undefined ? setInterval(() => (peak = Math.max(peak, peakRss(child.pid as number))), 25) : undefined;
      const timer = options.timeoutMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
      return new Promise((resolve, reject) => {
        child.on('error', reject);
        child.on('close', (code, signal) => {
          if (sampler) clearInterval(sampler);
          if (timer) clearTimeout(timer);
          const base = join(dir, 'outputs', label);
          writeFileSync(`${base}.cmd`, `${argv.join(' ')}\n(cwd ${relative(dir, options.cwd) || '.'}; exit ${code ?? signal})\n`);
          writeFileSync(`${base}.stdout`, stdout);
          writeFileSync(`${base}.stderr`, stderr);
          resolve({ code, signal, stdout, stderr, ms: performance.now() - started, peakRssKiB: peak, label });
        });
      });
    },
    async runInProcess(argv, options) {
      runs += 1;
      const label = `${String(runs).padStart(4, '0')}-${argv[0] ?? 'none'}-in-process`;
      let stdout = '';
      let stderr = '';
      const started = performance.now();
      const cpu = process.cpuUsage();
      const code = await runCli(argv, {
        stdout: (t) => (stdout += t),
        stderr: (t) => (stderr += t),
        env: { HOME: join(dir, 'home'), ...options.env },
        cwd: options.cwd,
        signal: new AbortController().signal,
      });
      const used = process.cpuUsage(cpu);
      const base = join(dir, 'outputs', label);
      writeFileSync(`${base}.cmd`, `${argv.join(' ')}\n(cwd ${relative(dir, options.cwd) || '.'}; exit ${code}; in process)\n`);
      writeFileSync(`${base}.stdout`, stdout);
      writeFileSync(`${base}.stderr`, stderr);
      return { code, signal: null, stdout, stderr, ms: performance.now() - started, peakRssKiB: 0, label, cpuMs: (used.user + used.system) / 1000 };
    },
    async searchForKey() {
      const files = await filesUnder(dir);
      const hits: string[] = [];
      for (const file of files) {
        const text = (await readFile(file)).toString('latin1');
        for (const needle of SECRET_NEEDLES) if (text.includes(needle)) hits.push(`${relative(dir, file)} holds "${needle.slice(0, 6)}…"`);
      }
      addCount(out, name, 'places searched for the key', files.length);
      addCount(out, name, 'key found', hits.length);
      return { places: files.length, hits };
    },
  };
}

/** Writes a repository: path → content; `{ symlink }` makes a symbolic link, `{ fifo }` a named pipe. */
export type RepoFiles = Record<string, string | Buffer | { symlink: string } | { fifo: true }>;

export async function writeRepo(dir: string, files: RepoFiles): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    const full = join(dir, path);
    await mkdir(dirname(full), { recursive: true });
    if (typeof content === 'string' || Buffer.isBuffer(content)) await writeFile(full, content);
    else if ('symlink' in content) await symlink(content.symlink, full);
    else execFileSync('mkfifo', [full]);
  }
}

export async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

/** A stack trace as Node prints one (`    at fn (file:line:col)`), or an internal error's name or code. */
export function looksLikeStackTrace(text: string): boolean {
  // (An error code in a JSON log line, such as "UND_ERR_SOCKET", is not one: Node prints `[ERR_…]`.)
  return /^\s+at .+(\(.*:\d+:\d+\)|:\d+:\d+)$/m.test(text) || /\b(TypeError|ReferenceError|RangeError|SyntaxError): /.test(text) || /Unhandled|\[ERR_[A-Z_]+\]/.test(text);
}

/** A port free on loopback now (for a daemon's --listen). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The environment a run needs to reach `url` with the suite's key. */
export function serviceEnv(url: string, extra: Record<string, string> = {}): Record<string, string> {
  return { TERMSYNC_BASE_URL: url, TERMSYNC_API_KEY: SECRET_KEY, ...extra };
}

/** Runs `tasks` with at most `limit` at once, in order of start. */
export async function inParallel<T>(limit: number, tasks: readonly (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = new Array<T>(tasks.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await (tasks[i] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

export interface LiveGlossary {
  readonly glossary_id: string;
  readonly name: string;
  readonly dictionaries: readonly { source_lang: string; target_lang: string; entry_count: number }[];
}
export interface LiveStyleList {
  readonly style_id: string;
  readonly name: string;
  readonly custom_instructions?: readonly { label: string }[];
}

/** What the service holds now, read straight from it (not through termsync). */
export async function liveState(url: string, key = SECRET_KEY): Promise<{ glossaries: LiveGlossary[]; styleLists: LiveStyleList[] }> {
  const headers = { Authorization: `Service-Auth-Key ${key}` };
  const read = async <T>(path: string): Promise<T> => {
    const response = await fetch(`${url}${path}`, { headers });
    if (!response.ok) throw new Error(`GET ${path}: ${response.status}`);
    return (await response.json()) as T;
  };
  const { glossaries } = await read<{ glossaries: LiveGlossary[] }>('/v3/glossaries');
  const styleLists: LiveStyleList[] = [];
  for (let page = 0; ; page++) {
    const { style_rules } = await read<{ style_rules: LiveStyleList[] }>(`/v3/style_rules?detailed=true&page=${page}&page_size=25`);
    styleLists.push(...style_rules);
    if (style_rules.length < 25) break;
  }
  return { glossaries, styleLists };
}

/** Names held more than once on the service. */
export function duplicateNames(live: { glossaries: readonly { name: string }[]; styleLists: readonly { name: string }[] }): string[] {
  const twice = (names: readonly string[]): string[] => names.filter((n, i) => names.indexOf(n) !== i);
  return [...twice(live.glossaries.map((g) => `glossary "${g.name}"`)), ...twice(live.styleLists.map((s) => `style list "${s.name}"`))];
}

/** Replaces the repository's declared content (config and resources), leaving anything else (the lock) alone. */
export async function rewriteRepo(dir: string, files: RepoFiles): Promise<void> {
  await rm(join(dir, 'glossaries'), { recursive: true, force: true });
  await rm(join(dir, 'config'), { recursive: true, force: true });
  await writeRepo(dir, files);
}

/** Lines of stderr that are not log lines: human ones (`warning: …`, beside text output) or JSON ones (beside `--format json`). */
export function nonLogLines(stderr: string): string[] {
  return stderr.split('\n').filter((line) => {
    if (line.trim() === '') return false;
    if (/^(trace|debug|info|warning|error|fatal): /.test(line)) return false;
    try {
      return typeof JSON.parse(line) !== 'object';
    } catch {
      return true;
    }
  });
}
