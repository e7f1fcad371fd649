/**
 * The Dockerfile, checked without a Docker engine: dockerfile-utils (the linter behind the
 * Dockerfile language server) finds what `docker build` would refuse or ignore, and the
 * assertions below pin what the image promises: two stages, production install by the tested
 * script, a non-root numeric user, the CLI as ENTRYPOINT and `watch` as CMD, a HEALTHCHECK on
 * /healthz, and a build context that holds only what the build copies.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Copy } from 'dockerfile-ast';
import { validate } from 'dockerfile-utils';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT, execForm, instructionsOf, onlyInstruction, readDockerfile, words, type Stage } from './read-dockerfile.js';

const dockerfile = readDockerfile();
const stage = (name: string): Stage => {
  const found = dockerfile.stages.find((s) => s.name === name);
  if (found === undefined) throw new Error(`no stage named ${name}`);
  return found;
};

describe('Dockerfile', () => {
  it('passes the linter with no error and no warning', () => {
    const problems = validate(dockerfile.text).map((d) => `line ${d.range.start.line + 1}: ${typeof d.message === 'string' ? d.message : d.message.value}`);
    expect(problems).toEqual([]);
  });

  it('the linter does find problems (it is not silent)', () => {
    const broken = dockerfile.text.replace('--interval=30s', '--intervall=30s').replace('EXPOSE 9464', 'EXPOSE nine');
    expect(validate(broken).map((d) => d.message).sort()).toEqual(['Invalid containerPort: nine', 'Unknown flag: intervall']);
  });

  it('builds in one stage and runs from a second one on the same current Node LTS slim image', () => {
    expect(dockerfile.stages.map((s) => s.name)).toEqual(['build', 'runtime']);
    const [build, runtime] = dockerfile.stages;
    expect(build?.image).toBe(runtime?.image);
    // A Node LTS line (even major), the slim Debian variant; the package supports Node >= 20.19.
    expect(build?.image).toMatch(/^node:(2[2-9]|[3-9]\d)-[a-z]+-slim$/);
    expect(Number(/^node:(\d+)/.exec(build?.image ?? '')?.[1]) % 2).toBe(0);
  });

  it('installs in the build stage with npm ci, the build and the tested install script', () => {
    const runs = instructionsOf(stage('build'), 'RUN').map((r) => words(r).join(' '));
    expect(runs[0]).toMatch(/^npm ci\b/);
    expect(runs.some((r) => /\bnpm run build\b/.test(r))).toBe(true);
    expect(runs.some((r) => /\bdeploy\/container\/install-runtime\.sh \/opt\/termsync$/.test(r))).toBe(true);
    // Nothing of the build stage but the install reaches the runtime.
    const fromBuild = (instructionsOf(stage('runtime'), 'COPY') as Copy[]).filter((c) => c.getFromFlag() !== null);
    expect(fromBuild.map((c) => `--from=${c.getFromFlag()?.getValue() ?? ''} ${words(c).join(' ')}`)).toEqual(['--from=build /opt/termsync /opt/termsync']);
  });

  it('runs as a numeric non-root user, with git, the CLI as entry point and `watch` on every interface as the default command', () => {
    const runtime = stage('runtime');
    const user = words(onlyInstruction(runtime, 'USER'))[0] ?? '';
    expect(user).toMatch(/^[1-9]\d*:[1-9]\d*$/);
    const setup = instructionsOf(runtime, 'RUN').map((r) => words(r).join(' ')).join(' && ');
    expect(setup).toMatch(/apt-get install -y --no-install-recommends [^&]*\bgit\b/);
    expect(setup).toMatch(/\bca-certificates\b/);
    expect(setup).toContain(`useradd --uid ${user.split(':')[0]} --gid termsync`);
    expect(setup).toContain(`groupadd --gid ${user.split(':')[1]} termsync`);
    expect(setup).toContain('rm -rf /var/lib/apt/lists/*');
    // A repository mounted at /repo belongs to another uid: git must be told to trust it.
    expect(setup).toContain('git config --system --add safe.directory /repo');
    expect(execForm(onlyInstruction(runtime, 'ENTRYPOINT'))).toEqual(['/usr/bin/tini', '--', 'termsync']);
    expect(execForm(onlyInstruction(runtime, 'CMD'))).toEqual(['watch', '--dir', '/repo', '--listen', '0.0.0.0:9464']);
    expect(words(onlyInstruction(runtime, 'WORKDIR'))).toEqual(['/repo']);
    expect(words(onlyInstruction(runtime, 'EXPOSE'))).toEqual(['9464']);
    expect(instructionsOf(runtime, 'LABEL').map((l) => l.getArgumentsContent()).join(' ')).toContain('org.opencontainers.image.licenses="Apache-2.0"');
  });

  it('checks /healthz with Node itself (slim images have no curl)', () => {
    const healthcheck = onlyInstruction(stage('runtime'), 'HEALTHCHECK');
    const [file, flag, code] = execForm(healthcheck);
    expect([file, flag]).toEqual(['node', '-e']);
    expect(code).toContain("fetch('http://127.0.0.1:9464/healthz')");
  });

  it('sends only what the build copies as the build context (.dockerignore allows, everything else is out)', async () => {
    const ignore = (await readFile(join(PROJECT_ROOT, '.dockerignore'), 'utf8'))
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'));
    expect(ignore[0]).toBe('*');
    const allowed = new Set(ignore.slice(1).map((l) => l.replace(/^!/, '').replace(/\/$/, '')));
    const sources = instructionsOf(stage('build'), 'COPY').flatMap((c) => words(c).slice(0, -1).map((w) => w.replace(/\/$/, '')));
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) expect(allowed.has(source), `${source} is copied but not in .dockerignore's allow list`).toBe(true);
    for (const kept of allowed) expect(sources, `${kept} is allowed into the context but never copied`).toContain(kept);
    expect([...allowed].some((a) => /^(\.git|node_modules|dist|test|bench)$/.test(a))).toBe(false);
  });
});
