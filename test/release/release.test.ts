/**
 * The release (.github/workflows/release.yml) as far as it can run without GitHub, npm credentials
 * or a container engine: its checks and release notes (scripts/release-notes.js, the very command
 * lines of the workflow), `npm publish` as the workflow runs it but with --dry-run, and what the
 * published package holds. The image's install step runs in test/deploy/container-install.test.ts;
 * action-validator checks the workflow in test/ci/examples.test.ts.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { releaseNotes, versionOfTag } from '../../scripts/release-notes.js';
import { VERSION } from '../../src/cli/main.js';
import { PROJECT_ROOT } from '../e2e/harness.js';

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function run(command: string, args: readonly string[], env: NodeJS.ProcessEnv = {}, cwd = PROJECT_ROOT): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, [...args], { cwd, env: { ...process.env, ...env }, maxBuffer: 32 * 1024 * 1024, timeout: 120_000 }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr }),
    );
  });
}

interface Step {
  readonly name?: string;
  readonly uses?: string;
  readonly run?: string;
  readonly with?: Record<string, unknown>;
  readonly env?: Record<string, string>;
}
interface Job {
  readonly needs?: string | string[];
  readonly steps: Step[];
}

const pkg = JSON.parse(await readFile(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string; license: string; repository: { url: string }; homepage: string; bugs: { url: string } };
const workflow = parseYaml(await readFile(join(PROJECT_ROOT, '.github/workflows/release.yml'), 'utf8')) as { on: { push: { tags: string[] } }; jobs: Record<string, Job> };
const changelog = await readFile(join(PROJECT_ROOT, 'CHANGELOG.md'), 'utf8');
const tag = `v${pkg.version}`;

function stepRunning(job: string, fragment: string): Step {
  const step = workflow.jobs[job]?.steps.find((s) => s.run?.includes(fragment) === true);
  if (step === undefined) throw new Error(`release.yml: job ${job} has no step running ${fragment}`);
  return step;
}

/** A step's command line as words (the workflow's run lines are single commands with double-quoted variables). */
function words(line: string, variables: Record<string, string>): string[] {
  return (line.trim().match(/"[^"]*"|\S+/g) ?? []).map((w) => w.replace(/^"(.*)"$/, '$1').replace(/\$(\w+)/g, (_, name: string) => variables[name] ?? `$${name}`));
}

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'termsync-release-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('the release workflow', () => {
  it('runs on a tag vX.Y.Z; npm and the image only after the checks, the GitHub release only after both', () => {
    expect(workflow.on.push.tags).toEqual(['v[0-9]+.[0-9]+.[0-9]+']);
    expect(workflow.jobs['npm']?.needs).toBe('verify');
    expect(workflow.jobs['image']?.needs).toBe('verify');
    expect(workflow.jobs['release']?.needs).toEqual(['npm', 'image']);
    expect(stepRunning('verify', '.ci/run').run).toBe('bash .ci/run');
  });

  it("checks the tag against package.json and CHANGELOG.md, and writes the release notes: the workflow's own command line", async () => {
    const step = stepRunning('verify', 'release-notes.js');
    const notes = join(scratch, 'notes.md');
    const argv = words(step.run ?? '', { GITHUB_REF_NAME: tag }).map((w) => (w === 'release-notes.md' ? notes : w));
    expect(argv.slice(0, 2)).toEqual(['node', 'scripts/release-notes.js']);
    const ok = await run(process.execPath, argv.slice(1));
    expect(ok, ok.stderr).toMatchObject({ code: 0, stderr: '' });
    const text = await readFile(notes, 'utf8');
    expect(text).toBe(releaseNotes(changelog, pkg.version));
    expect(text.startsWith('The first release.\n\n### Added\n')).toBe(true);
    expect(text).not.toContain(`## [${pkg.version}]`);
    expect(text).not.toContain('## [Unreleased]');
    // The release job makes the same notes the same way.
    expect(stepRunning('release', 'release-notes.js').run).toBe(step.run);

    // A tag of another version, or not a release tag at all: refused before anything is published.
    for (const [other, message] of [
      ['v9.9.9', `release-notes: the tag v9.9.9 is not the version of package.json (${pkg.version}): tag the commit that sets it\n`],
      ['v0.1', 'release-notes: expected a release tag vX.Y.Z, got "v0.1"\n'],
      [pkg.version, `release-notes: expected a release tag vX.Y.Z, got "${pkg.version}"\n`],
    ] as const) {
      const refused = await run(process.execPath, words(step.run ?? '', { GITHUB_REF_NAME: other }).slice(1).map((w) => (w === 'release-notes.md' ? notes : w)));
      expect(refused).toEqual({ code: 1, stdout: '', stderr: message });
    }
  });

  it('release notes: the section of the version, never an undated, empty or missing one', () => {
    const log = (body: string): string => `# Changelog\n\n## [Unreleased]\n\n- next\n\n${body}\n[1.2.0]: https://example.com/1.2.0\n[1.1.0]: https://example.com/1.1.0\n`;
    const two = log('## [1.2.0] - 2027-01-02\n\n### Fixed\n\n- a fix\n\n## [1.1.0] - 2026-12-01\n\n### Added\n\n- a thing\n');
    expect(releaseNotes(two, '1.2.0')).toBe('### Fixed\n\n- a fix\n');
    expect(releaseNotes(two, '1.1.0')).toBe('### Added\n\n- a thing\n');
    expect(() => releaseNotes(two, '1.3.0')).toThrow('CHANGELOG.md has no section "## [1.3.0] - YYYY-MM-DD": move the Unreleased entries under it');
    expect(() => releaseNotes(log('## [1.2.0]\n\n- undated\n'), '1.2.0')).toThrow('the heading of 1.2.0 must read "## [1.2.0] - YYYY-MM-DD"');
    expect(() => releaseNotes(log('## [1.2.0] - 2027-01-02\n\n'), '1.2.0')).toThrow('the section of 1.2.0 is empty');
    expect(() => releaseNotes('## [1.2.0] - 2027-01-02\n\n- x\n', '1.2.0')).toThrow('no link "[1.2.0]: …"');
    // 1.2.0 is not 1.2.00 or 11.2.0.
    expect(() => releaseNotes(log('## [11.2.0] - 2027-01-02\n\n- x\n'), '1.2.0')).toThrow('has no section');
    expect(versionOfTag('v10.20.30')).toBe('10.20.30');
    for (const bad of ['v1.2.3-rc.1', '1.2.3', 'release-1.2.3', 'v1.2']) expect(() => versionOfTag(bad)).toThrow('expected a release tag vX.Y.Z');
  });

  it('the version is one: package.json, the CLI (--version), the CHANGELOG section and its link', () => {
    expect(VERSION).toBe(pkg.version);
    expect(changelog).toMatch(new RegExp(`^## \\[${pkg.version.replace(/\./g, '\\.')}\\] - \\d{4}-\\d{2}-\\d{2}$`, 'm'));
    expect(changelog).toContain(`[${pkg.version}]: https://github.com/your-org/termsync/releases/tag/v${pkg.version}`);
    expect(changelog).toMatch(/^## \[Unreleased\]$/m);
  });

  it('npm publish as the workflow runs it, with --dry-run (no provenance here: it needs the CI identity): the package as packed', async () => {
    const step = stepRunning('npm', 'npm publish');
    const argv = words(step.run ?? '', {});
    expect(argv).toEqual(['npm', 'publish', '--provenance', '--access', 'public', '--ignore-scripts']);
    expect(workflow.jobs['npm']?.steps.find((s) => s.uses?.startsWith('actions/setup-node@') === true)?.with?.['registry-url']).toBe('https://registry.npmjs.org');
    const dry = await run('npm', [...argv.slice(1).filter((w) => w !== '--provenance'), '--dry-run', '--json'], { npm_config_loglevel: 'error' });
    expect(dry.code, dry.stderr).toBe(0);
    const report = JSON.parse(dry.stdout) as { name: string; version: string; files: { path: string }[]; size: number; entryCount: number } | Record<string, { name: string; version: string; files: { path: string }[] }>;
    // npm 10 prints the packed package, npm 11 keys it by name.
    const packed = ('files' in report ? report : report['termsync']) as { name: string; version: string; files: { path: string; size: number }[]; size: number };
    expect(packed).toMatchObject({ name: 'termsync', version: pkg.version });
    const files = packed.files.map((f) => f.path).sort();
    for (const wanted of ['LICENSE', 'CHANGELOG.md', 'README.md', 'package.json', 'bin/termsync.js', 'bin/package.json', 'dist/bundle/termsync.js', 'dist/bundle/plain-validate.cjs', 'dist/bundle/plain-validate-loader.cjs', 'dist/bundle/load-worker.js', 'schema/config.schema.json', 'schema/resource.schema.json']) {
      expect(files, wanted).toContain(wanted);
    }
    // Only what runs: the bundle and nothing compiled beside it, no build state, no code cache, no maps, no schema generator.
    expect(files.filter((f) => f.startsWith('dist/') && !f.startsWith('dist/bundle/'))).toEqual([]);
    expect(files.filter((f) => /\.(tsbuildinfo|cache|map|ts)$/.test(f) || f.startsWith('src/') || f.startsWith('test/') || f === 'schema/generate.js')).toEqual([]);
    // The tarball's target (bench/package-size.js): under 400 kB. The bundle grew past it once
    // (521 kB) with nothing saying so; the largest files name where to look.
    const largest = [...packed.files].sort((a, b) => b.size - a.size).slice(0, 5).map((f) => `${f.path} ${(f.size / 1000).toFixed(0)} kB`);
    expect(packed.size, `tarball ${(packed.size / 1000).toFixed(1)} kB; largest files: ${largest.join(', ')}`).toBeLessThan(400_000);
  });

  it('the image: amd64 and arm64 with an SBOM and provenance, signed keylessly by digest', () => {
    const build = workflow.jobs['image']?.steps.find((s) => s.uses?.startsWith('docker/build-push-action@') === true);
    expect(build?.with).toMatchObject({ platforms: 'linux/amd64,linux/arm64', push: true, sbom: true, provenance: 'mode=max' });
    const sign = stepRunning('image', 'cosign sign');
    expect(sign.env?.['DIGEST']).toBe('${{ steps.build.outputs.digest }}');
    expect(sign.run).toContain('cosign sign --yes "$image"');
    expect(sign.run).toContain('image="ghcr.io/${GITHUB_REPOSITORY,,}@${DIGEST}"');
  });
});

describe('the license and the package metadata', () => {
  it('LICENSE is the Apache License 2.0 as the Apache Software Foundation publishes it, as package.json says', async () => {
    const text = await readFile(join(PROJECT_ROOT, 'LICENSE'), 'utf8');
    // The sha256 of https://www.apache.org/licenses/LICENSE-2.0.txt.
    expect(createHash('sha256').update(text).digest('hex')).toBe('cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30');
    expect(text).toContain('Apache License\n                           Version 2.0, January 2004');
    expect(pkg.license).toBe('Apache-2.0');
  });

  it('repository, homepage and bugs name one repository (a placeholder organisation until it is published)', () => {
    expect(pkg.repository.url).toBe('git+https://github.com/your-org/termsync.git');
    expect(pkg.homepage).toBe('https://github.com/your-org/termsync#readme');
    expect(pkg.bugs.url).toBe('https://github.com/your-org/termsync/issues');
  });
});
