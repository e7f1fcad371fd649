/**
 * The supply-chain and least-privilege rules every workflow and action of this repository follows
 * (action.yml, examples/github/*, .github/workflows/*), and the GitLab example's counterparts:
 * third-party actions pinned by commit SHA with the release in a comment, no permission unless a
 * job asks for it, checkouts that keep no token, a time limit on every job, Node 24, Dependabot
 * keeping the pins current.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml, parseDocument } from 'yaml';
import { PROJECT_ROOT } from '../e2e/harness.js';

type Yaml = Record<string, unknown>;

interface Step {
  readonly uses?: string;
  readonly with?: Record<string, unknown>;
  readonly env?: Record<string, string>;
  readonly run?: string;
  readonly id?: string;
}

interface Job {
  readonly permissions?: Record<string, string> | string;
  readonly 'timeout-minutes'?: number;
  readonly steps: Step[];
}

const WORKFLOWS = [
  ...(await readdir(join(PROJECT_ROOT, 'examples/github'))).map((f) => `examples/github/${f}`),
  ...(await readdir(join(PROJECT_ROOT, '.github/workflows'))).map((f) => `.github/workflows/${f}`),
];
const FILES = ['action.yml', ...WORKFLOWS];
const pkg = JSON.parse(await readFile(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string };

async function text(file: string): Promise<string> {
  return readFile(join(PROJECT_ROOT, file), 'utf8');
}

async function yaml(file: string): Promise<Yaml> {
  return parseYaml(await text(file)) as Yaml;
}

/** Every step of a workflow's jobs or of the composite action. */
async function stepsOf(file: string): Promise<Step[]> {
  const doc = await yaml(file);
  if (file === 'action.yml') return (doc['runs'] as { steps: Step[] }).steps;
  return Object.values(doc['jobs'] as Record<string, Job>).flatMap((job) => job.steps);
}

/**
 * Releases of the third-party actions these files use, and their commits: each SHA checked against
 * the release tag in two independent public sources. A pin of a release listed here must be its
 * commit; a newer release (a Dependabot update) need not be listed, but must then be pinned alike in
 * every file (the next test), so that an update of one file brings the others along.
 */
const PINS: Record<string, { sha: string; version: string }> = {
  'actions/checkout': { sha: '08c6903cd8c0fde910a37f88322edcfb5dd907a8', version: 'v5.0.0' },
  'actions/setup-node': { sha: 'a0853c24544627f65ddf259abe73b1d18a591444', version: 'v5.0.0' },
  'actions/upload-artifact': { sha: 'ea165f8d65b6e75b540449e92b4886f43607fa02', version: 'v4.6.2' },
  'peter-evans/find-comment': { sha: '3eae4d37986fb5a8592848f6a574fdf654e61f9e', version: 'v3.1.0' },
  'peter-evans/create-or-update-comment': { sha: '71345be0265236311c031f5c7866368bd1eff043', version: 'v4.0.0' },
  'docker/setup-qemu-action': { sha: '29109295f81e9208d7d86ff1c6c12d2833863392', version: 'v3.6.0' },
  'docker/setup-buildx-action': { sha: 'e468171a9de216ec08956ac3ada2f0791b6bd435', version: 'v3.11.1' },
  'docker/login-action': { sha: '184bdaa0721073962dff0199f1fb9940f07167d1', version: 'v3.5.0' },
  'docker/metadata-action': { sha: 'c1e51972afc2121e065aed6d45c65596fe445f3f', version: 'v5.8.0' },
  'docker/build-push-action': { sha: '263435318d21b8e681c14492fe198d362a7d2c83', version: 'v6.18.0' },
  'sigstore/cosign-installer': { sha: 'd7543c93d881b35a8faa02e8e3605f69b7a1ce62', version: 'v3.10.0' },
};

/** `uses:` lines as written (with their comment): `name@ref # comment`. */
function usesLines(source: string): { action: string; ref: string; comment: string }[] {
  return [...source.matchAll(/^\s*(?:-\s+)?uses:\s*([^\s@#]+)@(\S+)[ \t]*(?:#[ \t]*(.*))?$/gm)].map((m) => ({ action: m[1] ?? '', ref: m[2] ?? '', comment: (m[3] ?? '').trim() }));
}

describe('pinned actions', () => {
  it.each(FILES)('%s: every third-party action is pinned by the full commit SHA of a release, the release in a comment', async (file) => {
    const source = await text(file);
    const uses = usesLines(source);
    expect(uses.length, 'uses: lines found').toBeGreaterThan(0);
    // Every `uses:` of the file is seen by the pattern (none hides in another form).
    expect(uses.length).toBe((source.match(/^\s*(?:-\s+)?uses:/gm) ?? []).length);
    for (const { action, ref, comment } of uses) {
      if (action === 'your-org/termsync') {
        // The examples use termsync's own action at the release of this checkout (see the next test).
        expect(ref, `${file}: ${action}`).toBe(`v${pkg.version}`);
        continue;
      }
      expect(ref, `${file}: ${action} is pinned by a full commit SHA`).toMatch(/^[0-9a-f]{40}$/);
      expect(comment, `${file}: ${action} names its release`).toMatch(/^v\d+\.\d+\.\d+$/);
      const pin = PINS[action];
      expect(pin, `${file}: ${action} is a third-party action nobody has checked`).toBeDefined();
      if (pin?.version === comment) expect(ref, `${file}: ${action} ${comment}`).toBe(pin.sha);
    }
  });

  it('an action is pinned alike everywhere: one release, one commit, in every workflow, example and the action', async () => {
    const pins = new Map<string, Set<string>>();
    for (const file of FILES) {
      for (const { action, ref, comment } of usesLines(await text(file))) {
        if (action === 'your-org/termsync') continue;
        pins.set(action, (pins.get(action) ?? new Set()).add(`${ref} # ${comment}`));
      }
    }
    expect(pins.size).toBeGreaterThanOrEqual(Object.keys(PINS).length);
    for (const [action, refs] of pins) expect([...refs], action).toHaveLength(1);
  });

  it('a ref that is a tag, a short SHA, a SHA without its release or another commit for a known release is refused (so the checks above can fail)', () => {
    const checks = (line: string): boolean => {
      const [use] = usesLines(line);
      const pin = PINS[use?.action ?? ''];
      return /^[0-9a-f]{40}$/.test(use?.ref ?? '') && /^v\d+\.\d+\.\d+$/.test(use?.comment ?? '') && pin !== undefined && (pin.version !== use?.comment || pin.sha === use.ref);
    };
    expect(checks('- uses: actions/checkout@08c6903cd8c0fde910a37f88322edcfb5dd907a8 # v5.0.0')).toBe(true);
    for (const bad of [
      '- uses: actions/checkout@v5',
      '- uses: actions/checkout@08c6903 # v5.0.0',
      '- uses: actions/checkout@08c6903cd8c0fde910a37f88322edcfb5dd907a8',
      '- uses: actions/checkout@18c6903cd8c0fde910a37f88322edcfb5dd907a8 # v5.0.0',
      '- uses: someone/unchecked@08c6903cd8c0fde910a37f88322edcfb5dd907a8 # v1.0.0',
    ]) {
      expect(checks(bad), bad).toBe(false);
    }
  });

  it("the examples use termsync's action at this release, and the action runs the termsync of its own version", async () => {
    const refs = (await Promise.all(WORKFLOWS.filter((f) => f.startsWith('examples/')).map(text))).flatMap((s) => usesLines(s).filter((u) => u.action === 'your-org/termsync').map((u) => u.ref));
    expect(refs.length).toBeGreaterThanOrEqual(4);
    expect(new Set(refs)).toEqual(new Set([`v${pkg.version}`]));
    const install = (await stepsOf('action.yml')).find((s) => s.run?.includes('npm install') === true);
    expect(install?.run).toContain("node -p 'require(process.argv[1]).version' \"$GITHUB_ACTION_PATH/package.json\"");
  });
});

describe('least privilege', () => {
  /** What each job may do: nothing else. */
  const EXPECTED: Record<string, Record<string, Record<string, string>>> = {
    'examples/github/terminology-pull-request.yml': {
      validate: { contents: 'read' },
      plan: { contents: 'read', 'pull-requests': 'write', issues: 'write' },
    },
    'examples/github/terminology-apply.yml': { apply: { contents: 'read' } },
    'examples/github/terminology-drift.yml': { drift: { contents: 'read' } },
    '.github/workflows/release.yml': {
      verify: { contents: 'read' },
      npm: { contents: 'read', 'id-token': 'write' },
      image: { contents: 'read', packages: 'write', 'id-token': 'write' },
      release: { contents: 'write' },
    },
  };

  it('every workflow grants nothing at the top and each job exactly what it needs', async () => {
    expect(Object.keys(EXPECTED).sort()).toEqual([...WORKFLOWS].sort());
    for (const file of WORKFLOWS) {
      const doc = await yaml(file);
      expect(doc['permissions'], `${file}: top-level permissions`).toEqual({});
      const jobs = doc['jobs'] as Record<string, Job>;
      expect(Object.fromEntries(Object.entries(jobs).map(([name, job]) => [name, job.permissions])), file).toEqual(EXPECTED[file]);
    }
  });

  it('every job has a time limit, every checkout keeps no credentials', async () => {
    for (const file of WORKFLOWS) {
      for (const [name, job] of Object.entries((await yaml(file))['jobs'] as Record<string, Job>)) {
        expect(job['timeout-minutes'], `${file}: job ${name}`).toBeGreaterThan(0);
        expect(job['timeout-minutes'], `${file}: job ${name}`).toBeLessThanOrEqual(60);
      }
    }
    let checkouts = 0;
    for (const file of FILES) {
      for (const step of (await stepsOf(file)).filter((s) => s.uses?.startsWith('actions/checkout@') === true)) {
        expect(step.with?.['persist-credentials'], `${file}: checkout`).toBe(false);
        checkouts += 1;
      }
    }
    expect(checkouts).toBeGreaterThanOrEqual(8);
  });

  it('GitLab: every job of the example has a time limit (the default one) and runs on Node 24', async () => {
    const pipeline = await yaml('examples/gitlab/.gitlab-ci.yml');
    expect((pipeline['default'] as Yaml)['timeout']).toMatch(/^\d+ minutes$/);
    const images = Object.values(pipeline).flatMap((job) => (typeof job === 'object' && job !== null && 'image' in job ? [(job as Yaml)['image']] : []));
    expect(images.length).toBeGreaterThanOrEqual(2);
    for (const image of images) expect(image).toMatch(/^node:24-/);
  });
});

describe('Node 24 and the allowed hosts', () => {
  it('the action runs termsync on Node 24 by default, and so does every setup-node of the workflows', async () => {
    const action = await yaml('action.yml');
    expect(((action['inputs'] as Yaml)['node-version'] as Yaml)['default']).toBe('24');
    const setups = (await Promise.all(FILES.map(stepsOf))).flat().filter((s) => s.uses?.startsWith('actions/setup-node@') === true);
    expect(setups.length).toBeGreaterThanOrEqual(3);
    for (const step of setups) expect(String(step.with?.['node-version'])).toMatch(/^(24|\$\{\{ inputs\.node-version \}\})$/);
  });

  it('allowed-hosts: an input of the action, given to termsync as TERMSYNC_ALLOWED_HOSTS (the job variable when left empty); the examples set it', async () => {
    const action = await yaml('action.yml');
    expect(((action['inputs'] as Yaml)['allowed-hosts'] as Yaml)['default']).toBe('');
    const run = (await stepsOf('action.yml')).find((s) => s.run?.includes('run-termsync.js') === true);
    expect(run?.env?.['TERMSYNC_ALLOWED_HOSTS']).toBe('${{ inputs.allowed-hosts || env.TERMSYNC_ALLOWED_HOSTS }}');
    for (const file of WORKFLOWS.filter((f) => f.startsWith('examples/'))) {
      for (const step of (await stepsOf(file)).filter((s) => s.uses?.startsWith('your-org/termsync@') === true && s.with?.['command'] !== 'validate')) {
        expect(step.with?.['allowed-hosts'], file).toBe('${{ vars.TERMSYNC_ALLOWED_HOSTS }}');
      }
    }
  });
});

describe('Dependabot', () => {
  it('keeps the action pins, the npm dependencies and the base image current', async () => {
    const document = parseDocument(await text('.github/dependabot.yml'), { uniqueKeys: true });
    expect(document.errors).toEqual([]);
    const config = document.toJS() as { version: number; updates: { 'package-ecosystem': string; directory: string; schedule: { interval: string } }[] };
    expect(config.version).toBe(2);
    expect(config.updates.map((u) => `${u['package-ecosystem']} ${u.directory} ${u.schedule.interval}`).sort()).toEqual(['docker / weekly', 'github-actions / weekly', 'npm / weekly']);
  });
});
