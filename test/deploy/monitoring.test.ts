/**
 * deploy/kubernetes/monitoring, checked with Prometheus's own tool (promtool, from Debian's
 * `prometheus` package; .ci/run installs it when missing): the PrometheusRule's groups pass
 * `promtool check rules` and its unit tests (`promtool test rules`, test/deploy/prometheus-rules
 * .test.yaml); every query of the Grafana dashboard is valid PromQL; and every metric the rules and
 * the dashboard read is one a running daemon serves on /metrics; and that /metrics passes
 * `promtool check metrics`.
 */
import { execFile, spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify } from 'yaml';
import { PROJECT_ROOT } from './read-dockerfile.js';

const MONITORING = join(PROJECT_ROOT, 'deploy', 'kubernetes', 'monitoring');

interface Run {
  readonly code: number;
  readonly output: string;
}

function promtool(args: readonly string[], cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile('promtool', [...args], { cwd, timeout: 60_000 }, (error, stdout, stderr) => {
      if (error !== null && (error as NodeJS.ErrnoException).code === 'ENOENT') {
        resolve({ code: -1, output: 'promtool is not installed: apt-get install prometheus (.ci/run installs it when it is missing)' });
        return;
      }
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, output: `${stdout}${stderr}` });
    });
  });
}

interface Rule {
  readonly alert: string;
  readonly expr: string;
  readonly for?: string;
  readonly labels: Record<string, string>;
  readonly annotations: Record<string, string>;
}

const prometheusRule = parseYaml(await readFile(join(MONITORING, 'prometheusrule.yaml'), 'utf8')) as { spec: { groups: { name: string; rules: Rule[] }[] } };
const rules = prometheusRule.spec.groups.flatMap((g) => g.rules);
const dashboard = JSON.parse(await readFile(join(MONITORING, 'grafana-dashboard.json'), 'utf8')) as {
  uid: string;
  title: string;
  panels: { id: number; type: string; title: string; targets?: { expr: string; refId: string }[] }[];
  templating: { list: { name: string }[] };
};
const queries = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr })));

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'termsync-monitoring-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** A folder holding the rule groups as a rules file (rules.yaml) and, optionally, the unit tests next to it. */
async function rulesFolder(name: string, groups: unknown, withTests = true): Promise<string> {
  const dir = join(scratch, name);
  await mkdir(dir, { recursive: true });
  if (withTests) await cp(join(PROJECT_ROOT, 'test', 'deploy', 'prometheus-rules.test.yaml'), join(dir, 'tests.yaml'));
  await writeFile(join(dir, 'rules.yaml'), stringify({ groups }));
  return dir;
}

describe('the alert rules', () => {
  it('pass promtool check rules: the five conditions of the issue and the ones around them, each with a severity, a summary and a description', async () => {
    const dir = await rulesFolder('check', prometheusRule.spec.groups, false);
    const check = await promtool(['check', 'rules', 'rules.yaml'], dir);
    expect(check.output).toContain(`SUCCESS: ${rules.length} rules found`);
    expect(check.code).toBe(0);
    expect(rules.map((r) => r.alert)).toEqual([
      'TermsyncReconcileFailing',
      'TermsyncNoRecentSuccess',
      'TermsyncRepositoryInvalid',
      'TermsyncDriftDetected',
      'TermsyncDriftPresent',
      'TermsyncThrottled',
      'TermsyncGitPullsFailing',
      'TermsyncMetricsDown',
    ]);
    for (const rule of rules) {
      expect(['info', 'warning', 'critical'], rule.alert).toContain(rule.labels['severity']);
      expect(Object.keys(rule.annotations).sort(), rule.alert).toEqual(['description', 'summary']);
    }
  });

  it('pass their unit tests (promtool test rules): each fires when it should, with its labels and annotations, and stays silent in the look-alike case', async () => {
    const dir = await rulesFolder('unit', prometheusRule.spec.groups);
    const test = await promtool(['test', 'rules', 'tests.yaml'], dir);
    expect(test.output).toContain('SUCCESS');
    expect(test.code, test.output).toBe(0);
    // Every alert has a case that fires and one that does not.
    const tests = parseYaml(await readFile(join(dir, 'tests.yaml'), 'utf8')) as { tests: { alert_rule_test: { alertname: string; exp_alerts: unknown[] }[] }[] };
    const cases = tests.tests.flatMap((t) => t.alert_rule_test);
    for (const rule of rules) {
      expect(cases.some((c) => c.alertname === rule.alert && c.exp_alerts.length > 0), `${rule.alert} fires in a test`).toBe(true);
      expect(cases.some((c) => c.alertname === rule.alert && c.exp_alerts.length === 0), `${rule.alert} stays silent in a test`).toBe(true);
    }
  });

  it('the unit tests fail on a rule that fires at another threshold, and check rules fails on broken PromQL (so the checks above can fail)', async () => {
    const moved = structuredClone(prometheusRule.spec.groups);
    const noRecent = moved[0]?.rules.find((r) => r.alert === 'TermsyncNoRecentSuccess') as { expr: string };
    noRecent.expr = noRecent.expr.replace('> 1800', '> 3600');
    const failing = await promtool(['test', 'rules', 'tests.yaml'], await rulesFolder('moved', moved));
    expect(failing.code).not.toBe(0);
    expect(failing.output).toContain('TermsyncNoRecentSuccess');
    const broken = structuredClone(prometheusRule.spec.groups);
    (broken[0]?.rules[0] as { expr: string }).expr = 'sum without (trigger (termsync_reconcile_runs_total)';
    const check = await promtool(['check', 'rules', 'rules.yaml'], await rulesFolder('broken', broken, false));
    expect(check.code).not.toBe(0);
  });
});

describe('the Grafana dashboard', () => {
  it('is a dashboard of unique panels whose queries are all valid PromQL (promtool, as recording rules)', async () => {
    expect(dashboard.uid).toBe('termsync');
    expect(new Set(dashboard.panels.map((p) => p.id)).size).toBe(dashboard.panels.length);
    expect(dashboard.templating.list.map((v) => v.name)).toEqual(['datasource', 'namespace', 'pod']);
    expect(queries.length).toBeGreaterThanOrEqual(18);
    // Grafana's variables as Prometheus would get them.
    const recorded = queries.map((q, i) => ({ record: `termsync:dashboard_query_${i}`, expr: q.expr.replaceAll('$__rate_interval', '5m').replaceAll('$namespace', '.*').replaceAll('$pod', '.*') }));
    for (const rule of recorded) expect(rule.expr, rule.record).not.toContain('$');
    const dir = await rulesFolder('dashboard', [{ name: 'dashboard', rules: recorded }], false);
    const check = await promtool(['check', 'rules', 'rules.yaml'], dir);
    expect(check.output).toContain(`SUCCESS: ${recorded.length} rules found`);
    expect(check.code).toBe(0);
  });
});

/** The metric names a PromQL expression reads: termsync_*, process_*, nodejs_* and up; both names of a `__name__=~"(termsync_)?x"` selector. */
function metricsOf(expr: string): string[][] {
  const names: string[][] = [];
  for (const [, pattern] of expr.matchAll(/__name__=~"\(termsync_\)\?([a-z_]+)"/g)) names.push([`termsync_${pattern}`, pattern ?? '']);
  const plain = expr.replace(/__name__=~"[^"]*"/g, '').replace(/"[^"]*"/g, '""');
  for (const [name] of plain.matchAll(/\b(?:termsync_[a-z_]+|process_[a-z_]+|nodejs_[a-z_]+|up)\b(?=\s*[{[)]|\s*$|\s*[<>=!])/g)) names.push([name]);
  return names;
}

describe("a running daemon's /metrics", () => {
  let served: Set<string>;
  let text: string;
  beforeAll(async () => {
    // The daemon on a copy of the example repository, against its built-in emulator.
    const repo = join(scratch, 'repo');
    await cp(join(PROJECT_ROOT, 'config'), join(repo, 'config'), { recursive: true });
    await cp(join(PROJECT_ROOT, 'glossaries'), join(repo, 'glossaries'), { recursive: true });
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('TERMSYNC_')));
    const token = join(scratch, 'reconcile-token');
    await writeFile(token, 'monitoring-token\n');
    const args = ['watch', '--dir', repo, '--listen', '127.0.0.1:0', '--emulator', 'auto', '--no-verify', '--reconcile-token-file', token];
    const daemon = spawn(process.execPath, [join(PROJECT_ROOT, 'bin', 'termsync.js'), ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    daemon.stdout.on('data', (chunk: Buffer) => (log += chunk.toString()));
    daemon.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
    try {
      const base = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the daemon did not serve its endpoints:\n${log}`)), 30_000);
        const look = (): void => {
          const url = /serving .* on (http:\/\/[\d.]+:\d+)/.exec(log)?.[1];
          if (url !== undefined) {
            clearTimeout(timer);
            resolve(url);
          }
        };
        daemon.stdout.on('data', look);
        daemon.stderr.on('data', look);
        daemon.once('exit', (code) => reject(new Error(`the daemon exited (${code}):\n${log}`)));
      });
      // After the first reconcile, so that every metric of a run has been touched.
      for (let i = 0; ; i++) {
        const status = (await (await fetch(`${base}/status`)).json()) as { runs: unknown[] };
        if (status.runs.length > 0) break;
        if (i > 300) throw new Error(`no reconcile ran:\n${log}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      // A refused POST /reconcile, so that the requests counter of the endpoints has a series too.
      expect((await fetch(`${base}/reconcile`, { method: 'POST' })).status).toBe(401);
      text = await (await fetch(`${base}/metrics`)).text();
      served = new Set([...text.matchAll(/^# TYPE (\S+) \S+$/gm)].map((m) => m[1] ?? ''));
    } finally {
      daemon.kill('SIGTERM');
      await new Promise((r) => (daemon.exitCode === null ? daemon.once('exit', r) : r(undefined)));
    }
  }, 60_000);

  it('passes promtool check metrics (names, types, units, help), with every family of the daemon in it', async () => {
    for (const name of ['termsync_build_info', 'termsync_drift_resources', 'termsync_queue_depth', 'termsync_suspended', 'termsync_hook_requests_total', 'process_cpu_seconds_total', 'nodejs_heap_size_used_bytes']) {
      expect(served.has(name), name).toBe(true);
    }
    const check = await new Promise<Run>((resolve) => {
      const child = spawn('promtool', ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.on('error', () => resolve({ code: -1, output: 'promtool is not installed: apt-get install prometheus (.ci/run installs it when it is missing)' }));
      child.on('close', (code) => resolve({ code: code ?? -1, output }));
      child.stdin.end(text);
    });
    expect(check.output).toBe('');
    expect(check.code).toBe(0);
  });

  it('serve every metric the rules and the dashboard read', () => {
    expect(served.has('termsync_reconcile_runs_total')).toBe(true);
    const base = (name: string): string => name.replace(/_(bucket|sum|count)$/, '');
    const read = [...rules.map((r) => ({ where: `rule ${r.alert}`, expr: r.expr })), ...queries.map((q) => ({ where: `panel ${q.panel}`, expr: q.expr }))];
    const used = new Set<string>();
    for (const { where, expr } of read) {
      const names = metricsOf(expr);
      expect(names.length, `${where} reads a metric`).toBeGreaterThan(0);
      for (const alternatives of names) {
        if (alternatives.length === 1 && alternatives[0] === 'up') continue; // Prometheus's own, per scrape
        const known = alternatives.some((name) => served.has(base(name)));
        expect(known, `${where} reads ${alternatives.join(' or ')}, which the daemon does not serve`).toBe(true);
        for (const name of alternatives) used.add(base(name));
      }
    }
    expect(used.has('termsync_drift_resources')).toBe(true);
  });
});
