import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../e2e/harness.js';
import { runCliCaptured } from './run-cli.js';

const COMMANDS = ['init', 'validate', 'plan', 'apply', 'import', 'verify', 'pull', 'watch', 'emulator'];
const SERVICE = new Set(['plan', 'apply', 'import', 'verify', 'pull', 'watch']);

/** The exit codes the contract's command table gives each command. */
async function contractExitCodes(): Promise<Map<string, number[]>> {
  const text = await readFile(join(PROJECT_ROOT, 'docs', 'contract.md'), 'utf8');
  const codes = new Map<string, number[]>();
  for (const line of text.split('\n')) {
    const match = /^\| `(\w+)(?: \[FILE\])?(?: [^`]*)?` \|.*\| ([^|]+) \|$/.exec(line);
    if (match?.[1] === undefined || match[2] === undefined || codes.has(match[1])) continue;
    codes.set(match[1], [...match[2].replace(/\([^)]*\)/g, '').matchAll(/\b\d+\b/g)].map((m) => Number(m[0])));
  }
  return codes;
}

function section(help: string, title: string): string {
  const start = help.indexOf(`\n${title}:\n`);
  if (start < 0) return '';
  const rest = help.slice(start + title.length + 3);
  const end = rest.indexOf('\n\n');
  return end < 0 ? rest : rest.slice(0, end);
}

describe('--help of every command', () => {
  it.each(COMMANDS)('%s: the environment variables it reads and the exit codes of the contract', async (command) => {
    const run = await runCliCaptured([command, '--help']);
    expect(run.code).toBe(0);
    const env = section(run.stdout, 'Environment');
    const exits = section(run.stdout, 'Exit codes');
    expect(env).toContain('TERMSYNC_DEBUG');
    for (const name of ['TERMSYNC_BASE_URL', 'TERMSYNC_API_KEY', 'TERMSYNC_API_KEY_FILE', 'TERMSYNC_MAX_ATTEMPTS']) {
      if (SERVICE.has(command)) expect(env).toContain(name);
      else expect(env).not.toContain(name);
    }
    const listed = [...exits.matchAll(/^ {2}(\d+) /gm)].map((m) => Number(m[1]));
    const contract = (await contractExitCodes()).get(command);
    expect(contract, `the contract's command table has a row for ${command}`).toBeDefined();
    for (const code of contract ?? []) expect(listed).toContain(code);
    expect(listed).not.toContain(1);
  });

  it.each(COMMANDS.filter((c) => c !== 'apply'))('%s: no exit code speaks of a saved plan (only apply takes one)', async (command) => {
    const run = await runCliCaptured([command, '--help']);
    expect(section(run.stdout, 'Exit codes')).not.toMatch(/saved plan|stale/);
  });

  it('pull: exit 5 is the lock another run holds', async () => {
    const run = await runCliCaptured(['pull', '--help']);
    expect(section(run.stdout, 'Exit codes')).toContain('\n  5    another termsync run holds the lock (.termsync.lock): nothing was written\n');
  });

  it('emulator: only the options the emulator uses', async () => {
    const run = await runCliCaptured(['emulator', '--help']);
    const options = [...run.stdout.matchAll(/^ {2}(?:-\w, )?(--[\w-]+)/gm)].map((m) => m[1]);
    expect(options.sort()).toEqual(['--auth-scheme', '--behave', '--faults', '--help', '--host', '--keys', '--log-level', '--port', '--rate-limit', '--seed']);
  });
});
