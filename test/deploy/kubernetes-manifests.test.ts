/**
 * deploy/kubernetes, checked without a cluster: every resource against the Kubernetes OpenAPI
 * schemas bundled in kubernetes-models (types, required fields, enums, quantities; unknown fields
 * are not reported by those schemas, so the fields termsync relies on are asserted one by one
 * below), the kustomizations' references followed by hand (no kustomize binary runs here), and the
 * options each manifest passes to termsync checked against the CLI itself.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { Deployment, type IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import { StatefulSet, type IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { CronJob, type ICronJob } from 'kubernetes-models/batch/v1/CronJob';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import { Service, type IService } from 'kubernetes-models/v1/Service';
import { Ingress, type IIngress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { NetworkPolicy, type INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import { ServiceMonitor, type IServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import { isMap, isPair, isScalar, parseAllDocuments, type Pair } from 'yaml';
import { describe, expect, it } from 'vitest';
import { checkAllowedHost, readAllowedHosts } from '../../src/api/read-env.js';
import { resolveShard } from '../../src/daemon/shard.js';
import { ExitCode } from '../../src/lib/exit-codes.js';
import { runCliCaptured } from '../cli/run-cli.js';
import { onlyInstruction, readDockerfile, words } from './read-dockerfile.js';
import { KUBERNETES_DIR, manifestFiles, readKustomization, readYamlFile, type Deployable, type ManifestDocument } from './read-manifests.js';

const MODELS: Record<string, { new (data: never): { validate(): void } }> = {
  'apps/v1/Deployment': Deployment,
  'apps/v1/StatefulSet': StatefulSet,
  'batch/v1/CronJob': CronJob,
  'v1/Service': Service,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'networking.k8s.io/v1/Ingress': Ingress,
  'monitoring.coreos.com/v1/ServiceMonitor': ServiceMonitor,
  'monitoring.coreos.com/v1/PrometheusRule': PrometheusRule,
};

function validateResource(doc: ManifestDocument): string | undefined {
  const { apiVersion, kind } = doc.value as { apiVersion?: string; kind?: string };
  const Model = MODELS[`${apiVersion}/${kind}`];
  if (Model === undefined) return `${doc.where}: no schema here for ${apiVersion}/${kind}`;
  try {
    new Model(doc.value as never).validate();
    return undefined;
  } catch (error) {
    return `${doc.where}: ${(error as Error).message}`;
  }
}

const deployables = {
  base: readKustomization(join(KUBERNETES_DIR, 'base')),
  secondAccount: readKustomization(join(KUBERNETES_DIR, 'overlays', 'second-account')),
  cronjob: readKustomization(join(KUBERNETES_DIR, 'cronjob')),
  gitPull: readKustomization(join(KUBERNETES_DIR, 'git-pull')),
  sharded: readKustomization(join(KUBERNETES_DIR, 'sharded')),
};
const monitoring = readKustomization(join(KUBERNETES_DIR, 'monitoring'));

function only<T>(deployable: Deployable, kind: string): T {
  const found = deployable.resources.filter((r) => r.value['kind'] === kind);
  if (found.length !== 1) throw new Error(`${deployable.dir}: expected one ${kind}, found ${found.length}`);
  return found[0]?.value as T;
}

/** The pod template of a Deployment or a CronJob. */
function podOf(resource: ManifestDocument): IPodSpec | undefined {
  if (resource.value['kind'] === 'CronJob') return (resource.value as unknown as ICronJob).spec?.jobTemplate.spec?.template.spec;
  if (resource.value['kind'] === 'Deployment') return (resource.value as unknown as IDeployment).spec?.template.spec;
  if (resource.value['kind'] === 'StatefulSet') return (resource.value as unknown as IStatefulSet).spec?.template.spec;
  return undefined;
}

function container(pod: IPodSpec | undefined, name: string): IContainer {
  const found = [...(pod?.initContainers ?? []), ...(pod?.containers ?? [])].find((c) => c.name === name);
  if (found === undefined) throw new Error(`no container ${name}`);
  return found;
}

/** `--name=value` or `--name value` of a container's args. */
function option(args: readonly string[] | undefined, name: string): string | undefined {
  const list = args ?? [];
  for (let i = 0; i < list.length; i++) {
    const arg = list[i] ?? '';
    if (arg.startsWith(`${name}=`)) return arg.slice(name.length + 1);
    if (arg === name) return list[i + 1];
  }
  return undefined;
}

function env(c: IContainer, name: string): NonNullable<IContainer['env']>[number] | undefined {
  return c.env?.find((e) => e.name === name);
}

const imageUid = Number(words(onlyInstruction(readDockerfile().stages.at(-1) ?? { name: undefined, image: '', instructions: [] }, 'USER'))[0]?.split(':')[0]);

/**
 * What every pod of termsync must hold, whichever way it gets the repository. The key: one file from
 * the Secret termsync-api-key, or (`keys: 'variables'`, a config of many targets) every key of the
 * Secret termsync-api-keys as a variable; never a literal.
 */
function checkTermsyncPod(pod: IPodSpec | undefined, repoDir: string, keys: 'file' | 'variables' = 'file'): void {
  expect(pod?.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: imageUid, runAsGroup: imageUid, fsGroup: imageUid, seccompProfile: { type: 'RuntimeDefault' } });
  expect(pod?.automountServiceAccountToken).toBe(false);
  // The daemon waits up to 30 s for a running operation on SIGTERM: Kubernetes must wait longer.
  expect(pod?.terminationGracePeriodSeconds).toBeGreaterThan(30);
  for (const c of [...(pod?.initContainers ?? []), ...(pod?.containers ?? [])]) {
    expect(c.securityContext, c.name).toEqual({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
    expect(Object.keys(c.resources?.requests ?? {}).sort(), `${c.name} requests`).toEqual(['cpu', 'memory']);
    expect(Object.keys(c.resources?.limits ?? {}).sort(), `${c.name} limits`).toEqual(['cpu', 'memory']);
  }
  const termsync = container(pod, 'termsync');
  expect(termsync.image).toBe('termsync');
  expect(option(termsync.args, '--dir')).toBe(repoDir);
  const mount = (path: string): NonNullable<IContainer['volumeMounts']>[number] | undefined =>
    termsync.volumeMounts?.filter((m) => path === m.mountPath || path.startsWith(`${m.mountPath}/`)).sort((a, b) => b.mountPath.length - a.mountPath.length)[0];
  const volume = (name: string | undefined): NonNullable<IPodSpec['volumes']>[number] | undefined => pod?.volumes?.find((v) => v.name === name);
  // The lock file goes into the checkout: writable. The read-only root file system needs a /tmp.
  const repo = mount(repoDir);
  expect(repo?.readOnly ?? false, 'the checkout is mounted writable').toBe(false);
  expect(volume(repo?.name)?.emptyDir).toBeDefined();
  expect(volume(mount('/tmp')?.name)?.emptyDir).toBeDefined();
  // The key: a file from a Secret, never a literal.
  expect(env(termsync, 'TERMSYNC_API_KEY')).toBeUndefined();
  expect(termsync.env?.filter((e) => /^TERMSYNC_.*KEY/.test(e.name) && e.value !== undefined && e.name !== 'TERMSYNC_API_KEY_FILE')).toEqual([]);
  if (keys === 'variables') {
    expect(termsync.envFrom).toEqual([{ secretRef: { name: 'termsync-api-keys' } }]);
    expect(env(termsync, 'TERMSYNC_API_KEY_FILE')).toBeUndefined();
  } else checkKeyFile(pod, termsync, mount, volume);
  expect(env(termsync, 'TERMSYNC_BASE_URL')?.valueFrom?.configMapKeyRef).toEqual({ name: 'termsync', key: 'TERMSYNC_BASE_URL' });
  // The key is fenced to the hosts of the ConfigMap (each kustomization's URL host is listed there: checked below).
  expect(env(termsync, 'TERMSYNC_ALLOWED_HOSTS')?.valueFrom?.configMapKeyRef).toEqual({ name: 'termsync', key: 'TERMSYNC_ALLOWED_HOSTS' });
}

/** The key as one file of the Secret termsync-api-key, mounted read-only. */
function checkKeyFile(
  _pod: IPodSpec | undefined,
  termsync: IContainer,
  mount: (path: string) => NonNullable<IContainer['volumeMounts']>[number] | undefined,
  volume: (name: string | undefined) => NonNullable<IPodSpec['volumes']>[number] | undefined,
): void {
  const keyFile = env(termsync, 'TERMSYNC_API_KEY_FILE')?.value ?? '';
  const keyMount = mount(keyFile);
  expect(keyMount?.readOnly).toBe(true);
  const secret = volume(keyMount?.name)?.secret;
  expect(secret?.secretName).toBe('termsync-api-key');
  expect(secret?.items?.map((i) => i.path)).toContain(posix.relative(keyMount?.mountPath ?? '', keyFile));
}

/** The daemon's Deployment: one replica, Recreate, probes and scrape annotations on its endpoints. */
function checkDaemonDeployment(deployment: IDeployment, repoDir: string): void {
  expect(deployment.spec?.replicas).toBe(1);
  expect(deployment.spec?.strategy).toEqual({ type: 'Recreate' });
  const template = deployment.spec?.template;
  expect(template?.metadata?.labels).toEqual(deployment.spec?.selector.matchLabels);
  const pod = template?.spec;
  checkTermsyncPod(pod, repoDir);
  const termsync = container(pod, 'termsync');
  expect(termsync.args?.[0]).toBe('watch');
  const port = Number(/:(\d+)$/.exec(option(termsync.args, '--listen') ?? '')?.[1]);
  expect(option(termsync.args, '--listen')).toBe(`0.0.0.0:${port}`);
  expect(termsync.ports).toEqual([{ name: 'metrics', containerPort: port }]);
  expect(termsync.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'metrics' });
  expect(termsync.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'metrics' });
  expect(template?.metadata?.annotations).toEqual({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': String(port), 'prometheus.io/path': '/metrics' });
}

/** The comment just above `replicas:` in a Deployment's spec. */
function commentAboveReplicas(doc: ManifestDocument): string {
  const spec: unknown = doc.document.get('spec', true);
  if (!isMap(spec)) return '';
  const pair = spec.items.find((p): p is Pair => isPair(p) && isScalar(p.key) && p.key.value === 'replicas');
  if (pair === undefined || !isScalar(pair.key)) return '';
  // yaml keeps the comment before the first key of a block mapping on the mapping itself.
  return (spec.items[0] === pair ? spec.commentBefore : pair.key.commentBefore) ?? '';
}

describe('deploy/kubernetes', () => {
  const files = manifestFiles();
  const resources = files.filter((f) => !f.endsWith('kustomization.yaml')).flatMap(readYamlFile);

  it('every resource validates against the Kubernetes schemas, and no Secret is kept in the repository', () => {
    expect(resources.map((r) => `${String(r.value['kind'])} ${(r.value['metadata'] as { name?: string }).name ?? ''}`).sort()).toEqual([
      'CronJob termsync-apply',
      'Deployment termsync',
      'Deployment termsync',
      'Ingress termsync-webhook',
      'NetworkPolicy termsync',
      'PrometheusRule termsync',
      'Service termsync-metrics',
      'Service termsync-shards',
      'Service termsync-webhook',
      'ServiceMonitor termsync',
      'StatefulSet termsync',
    ]);
    expect(resources.map(validateResource).filter((p) => p !== undefined)).toEqual([]);
  });

  it('the schema check rejects what a cluster would (wrong types, missing fields, unknown enum values)', () => {
    const deployment = resources.find((r) => r.value['kind'] === 'Deployment') as ManifestDocument;
    const broken = (change: (d: IDeployment) => void): string | undefined => {
      const copy = structuredClone(deployment.value) as unknown as IDeployment;
      change(copy);
      return validateResource({ ...deployment, value: copy as unknown as Record<string, unknown> });
    };
    expect(broken((d) => ((d.spec as { replicas: unknown }).replicas = 'one'))).toMatch(/replicas must be integer/);
    expect(broken((d) => ((d.spec as { strategy: unknown }).strategy = { type: 'Recreated' }))).toMatch(/must be equal to one of the allowed values/);
    expect(broken((d) => delete (d.spec?.template.spec?.containers[0]?.livenessProbe?.httpGet as { port?: unknown }).port)).toMatch(/httpGet must have required property port/);
    expect(broken((d) => ((d.spec?.template.spec?.containers[0]?.resources?.limits as Record<string, unknown>)['memory'] = '1 GB'))).toMatch(/quantity/);
  });

  it('every kustomization resolves: resources exist, each ConfigMap key a pod reads is generated, each image name is set', () => {
    for (const deployable of Object.values(deployables)) {
      for (const resource of deployable.resources) {
        const pod = podOf(resource);
        for (const c of [...(pod?.initContainers ?? []), ...(pod?.containers ?? [])]) {
          for (const e of c.env ?? []) {
            const ref = e.valueFrom?.configMapKeyRef;
            if (ref !== undefined) expect(deployable.configMaps.get(ref.name ?? '')?.has(ref.key), `${resource.where}: ${c.name} reads ${ref.name ?? '(no name)'}/${ref.key}`).toBe(true);
          }
          // A bare name is a placeholder for kustomize's `images`; a registry image is pinned to a version.
          if (c.image?.includes('/') === true) expect(c.image, `${resource.where}: ${c.name}`).toMatch(/:v?\d+\.\d+\.\d+$/);
          else expect(deployable.images.has(c.image ?? ''), `${resource.where}: ${c.name} image ${c.image} has no kustomize images entry`).toBe(true);
        }
      }
      const urls: string[] = [];
      for (const data of deployable.configMaps.values()) {
        const url = data.get('TERMSYNC_BASE_URL');
        if (url === undefined) continue;
        urls.push(url);
        expect(url).toMatch(/^https:\/\//);
        // termsync's own check, as at run time: the URL of the ConfigMap is one its key may go to.
        const fenced = { TERMSYNC_BASE_URL: url, TERMSYNC_ALLOWED_HOSTS: data.get('TERMSYNC_ALLOWED_HOSTS') };
        expect(readAllowedHosts(fenced), `${deployable.dir}: TERMSYNC_ALLOWED_HOSTS`).toBeDefined();
        expect(() => checkAllowedHost(fenced, { name: 'default', baseUrlEnv: 'TERMSYNC_BASE_URL' }, url)).not.toThrow();
      }
      // The checks above ran: every deployable's termsync ConfigMap holds the URL its pods read.
      expect(urls, `${deployable.dir}: the URLs checked`).toEqual([deployable.configMaps.get('termsync')?.get('TERMSYNC_BASE_URL')]);
      expect(urls[0], `${deployable.dir}: TERMSYNC_BASE_URL`).toBeDefined();
    }
  });

  it('base: the daemon with a git-sync native sidecar, one replica, Recreate (and a comment saying why)', () => {
    const deployment = only<IDeployment>(deployables.base, 'Deployment');
    const gitSync = container(deployment.spec?.template.spec, 'git-sync');
    expect(gitSync.image).toMatch(/^registry\.k8s\.io\/git-sync\/git-sync:v4\.\d+\.\d+$/);
    expect(gitSync.restartPolicy, 'a native sidecar: an init container that keeps running').toBe('Always');
    expect(deployment.spec?.template.spec?.initContainers?.map((c) => c.name)).toEqual(['git-sync']);
    // termsync starts once git-sync has published the first checkout.
    expect(gitSync.startupProbe?.httpGet?.port).toBe(Number(option(gitSync.args, '--http-bind')?.replace(/^.*:/, '')));
    const root = option(gitSync.args, '--root') ?? '';
    const repoDir = posix.join(root, option(gitSync.args, '--link') ?? '');
    expect(gitSync.volumeMounts?.find((m) => m.mountPath === root)?.name).toBe(container(deployment.spec?.template.spec, 'termsync').volumeMounts?.find((m) => m.mountPath === root)?.name);
    checkDaemonDeployment(deployment, repoDir);
    const doc = deployables.base.resources.find((r) => r.value['kind'] === 'Deployment') as ManifestDocument;
    expect(commentAboveReplicas(doc)).toMatch(/race[\s\S]*lock file/);
  });

  it('base: a Service for the metrics that keeps listing the pod while /readyz fails', () => {
    const service = only<IService>(deployables.base, 'Service');
    const deployment = only<IDeployment>(deployables.base, 'Deployment');
    expect(service.spec?.selector).toEqual(deployment.spec?.selector.matchLabels);
    expect(service.spec?.ports).toEqual([{ name: 'metrics', port: 9464, targetPort: 'metrics' }]);
    expect(service.spec?.publishNotReadyAddresses).toBe(true);
  });

  it('overlays/second-account: the same Deployment in its own namespace, with its own service address', () => {
    const overlay = deployables.secondAccount;
    expect(overlay.namespace).toMatch(/^[a-z0-9-]+$/);
    expect(deployables.base.namespace).toBeUndefined();
    expect(overlay.resources.map((r) => r.where)).toEqual(deployables.base.resources.map((r) => r.where));
    const url = (d: Deployable): string | undefined => d.configMaps.get('termsync')?.get('TERMSYNC_BASE_URL');
    expect(url(overlay)).toMatch(/^https:\/\//);
    expect(url(deployables.base)).toMatch(/^https:\/\//);
    expect(url(overlay)).not.toBe(url(deployables.base));
    expect(overlay.kustomization.labels?.[0]?.pairs['app.kubernetes.io/instance']).toBeDefined();
    // Selectors are immutable once applied: the instance label goes on objects and pods, not selectors.
    expect(overlay.kustomization.labels?.[0]?.includeSelectors ?? false).toBe(false);
  });

  it('git-pull: the image clones once and the daemon pulls with --git-pull', async () => {
    const deployment = only<IDeployment>(deployables.gitPull, 'Deployment');
    const pod = deployment.spec?.template.spec;
    const termsync = container(pod, 'termsync');
    expect(option(termsync.args, '--git-pull')).toMatch(/^\d+[smh]$/);
    const clone = container(pod, 'clone');
    expect(clone.image).toBe('termsync');
    expect(clone.command?.at(-1)).toMatch(/^test -d \/repo\/\.git \|\| exec git clone .* \/repo$/);
    checkDaemonDeployment(deployment, '/repo');
    const doc = deployables.gitPull.resources.find((r) => r.value['kind'] === 'Deployment') as ManifestDocument;
    expect(commentAboveReplicas(doc)).toMatch(/race/);
    // The credential helper, run by a real git with the Secret's files in a temporary folder.
    const helper = env(termsync, 'GIT_CONFIG_VALUE_0')?.value ?? '';
    expect(env(clone, 'GIT_CONFIG_VALUE_0')?.value).toBe(helper);
    const secrets = await mkdtemp(join(tmpdir(), 'termsync-git-secret-'));
    try {
      await writeFile(join(secrets, 'username'), 'terminology-bot');
      await writeFile(join(secrets, 'password'), 'token-from-the-secret\n');
      const filled = await new Promise<string>((resolve, reject) => {
        const git = execFile(
          'git',
          ['credential', 'fill'],
          { env: { PATH: process.env['PATH'] ?? '', GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1', HOME: secrets, GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'credential.helper', GIT_CONFIG_VALUE_0: helper.replaceAll('/var/run/secrets/git', secrets) } },
          (error, stdout, stderr) => (error ? reject(new Error(`git credential fill failed: ${stderr}`, { cause: error })) : resolve(stdout)),
        );
        git.stdin?.end('protocol=https\nhost=git.example.com\n\n');
      });
      expect(filled).toBe('protocol=https\nhost=git.example.com\nusername=terminology-bot\npassword=token-from-the-secret\n');
    } finally {
      await rm(secrets, { recursive: true, force: true });
    }
  });

  it('sharded: a StatefulSet whose replicas each take their shard of the targets from the pod ordinal, behind a headless Service', () => {
    const set = only<IStatefulSet>(deployables.sharded, 'StatefulSet');
    const service = only<IService>(deployables.sharded, 'Service');
    const spec = set.spec;
    expect(spec?.serviceName).toBe(service.metadata?.name);
    expect(service.spec?.clusterIP).toBe('None');
    expect(service.spec?.selector).toEqual(spec?.selector.matchLabels);
    expect(service.spec?.publishNotReadyAddresses).toBe(true);
    expect(service.spec?.ports).toEqual([{ name: 'metrics', port: 9464, targetPort: 'metrics' }]);
    expect(spec?.template.metadata?.labels).toEqual(spec?.selector.matchLabels);
    expect(spec?.podManagementPolicy).toBe('Parallel');
    const pod = spec?.template.spec;
    const gitSync = container(pod, 'git-sync');
    expect(gitSync.restartPolicy).toBe('Always');
    checkTermsyncPod(pod, posix.join(option(gitSync.args, '--root') ?? '', option(gitSync.args, '--link') ?? ''), 'variables');
    const termsync = container(pod, 'termsync');
    expect(termsync.args?.[0]).toBe('watch');
    expect(termsync.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'metrics' });
    expect(env(termsync, 'TERMSYNC_POD_NAME')?.valueFrom?.fieldRef?.fieldPath).toBe('metadata.name');
    expect(env(termsync, 'TERMSYNC_SHARDS')?.valueFrom?.configMapKeyRef).toEqual({ name: 'termsync', key: 'TERMSYNC_SHARDS' });
    // The count the pods are told is the number of replicas; each pod name gives the CLI its own shard.
    const count = deployables.sharded.configMaps.get('termsync')?.get('TERMSYNC_SHARDS') ?? '';
    expect(Number(count)).toBe(spec?.replicas);
    const name = set.metadata?.name ?? '';
    for (let ordinal = 0; ordinal < (spec?.replicas ?? 0); ordinal++) {
      expect(resolveShard({ env: { TERMSYNC_POD_NAME: `${name}-${ordinal}`, TERMSYNC_SHARDS: count }, hostname: 'node-1' })).toEqual({ index: ordinal, count: Number(count) });
    }
    // A pod beyond the count (kubectl scale without the ConfigMap) refuses to start.
    expect(() => resolveShard({ env: { TERMSYNC_POD_NAME: `${name}-${count}`, TERMSYNC_SHARDS: count }, hostname: 'node-1' })).toThrow(/set the count to the StatefulSet's replicas/);
  });

  it('webhook: a Component for git-pull whose patch mounts the Secret termsync-webhook where TERMSYNC_WEBHOOK_SECRET_FILE points; its Ingress forwards /hooks/ alone to the daemon', async () => {
    const component = readKustomization(join(KUBERNETES_DIR, 'webhook'), 'Component');
    const { patches } = component.kustomization as { patches?: { target: { kind: string; name: string }; patch: string }[] };
    expect(patches?.map((p) => p.target)).toEqual([{ kind: 'Deployment', name: 'termsync' }]);
    // The JSON patch, applied to git-pull's Deployment as kustomize would (each op appends to a list).
    const deployment = structuredClone(only<IDeployment>(deployables.gitPull, 'Deployment'));
    const ops = parseAllDocuments(patches?.[0]?.patch ?? '')[0]?.toJS() as { op: string; path: string; value: unknown }[];
    for (const op of ops) {
      expect(op.op).toBe('add');
      expect(op.path).toMatch(/\/-$/);
      let at: unknown = deployment;
      for (const key of op.path.split('/').slice(1, -1)) at = (at as Record<string, unknown>)[key];
      expect(Array.isArray(at), op.path).toBe(true);
      (at as unknown[]).push(op.value);
    }
    expect(validateResource({ where: 'git-pull + webhook', value: deployment as unknown as Record<string, unknown>, document: parseAllDocuments('{}')[0] as ManifestDocument['document'] })).toBeUndefined();
    const pod = deployment.spec?.template.spec;
    const termsync = container(pod, 'termsync');
    const file = env(termsync, 'TERMSYNC_WEBHOOK_SECRET_FILE')?.value ?? '';
    const mount = termsync.volumeMounts?.find((m) => file.startsWith(`${m.mountPath}/`));
    expect(mount?.readOnly).toBe(true);
    const volume = pod?.volumes?.find((v) => v.name === mount?.name);
    expect(volume?.secret?.secretName).toBe('termsync-webhook');
    expect(volume?.secret?.items).toEqual([{ key: 'secret', path: posix.relative(mount?.mountPath ?? '', file) }]);
    // The variable is one `watch` reads (its help names it).
    expect((await runCliCaptured(['watch', '--help'])).stdout).toContain('TERMSYNC_WEBHOOK_SECRET_FILE');

    const ingress = component.resources.find((r) => r.value['kind'] === 'Ingress')?.value as unknown as IIngress;
    const paths = (ingress.spec?.rules ?? []).flatMap((r) => r.http?.paths ?? []);
    expect(paths.map((p) => [p.path, p.pathType])).toEqual([['/hooks/', 'Prefix']]);
    const service = component.resources.find((r) => r.value['kind'] === 'Service')?.value as unknown as IService;
    expect(paths[0]?.backend.service?.name).toBe(service.metadata?.name);
    expect(service.spec?.ports?.map((p) => [p.name, p.targetPort])).toEqual([[paths[0]?.backend.service?.port?.name, 'metrics']]);
    expect(service.spec?.selector).toEqual(deployment.spec?.template.metadata?.labels);
  });

  it('cronjob: `apply` once per schedule, never two at a time, failing fast on what a retry cannot fix', () => {
    const cronjob = only<ICronJob>(deployables.cronjob, 'CronJob');
    expect(cronjob.spec?.concurrencyPolicy).toBe('Forbid');
    const job = cronjob.spec?.jobTemplate.spec;
    const pod = job?.template.spec;
    expect(pod?.restartPolicy).toBe('Never');
    const gitSync = container(pod, 'git-sync');
    expect(gitSync.restartPolicy, 'a plain init container: clone, then exit').toBeUndefined();
    expect(gitSync.args).toContain('--one-time');
    const repoDir = posix.join(option(gitSync.args, '--root') ?? '', option(gitSync.args, '--link') ?? '');
    checkTermsyncPod(pod, repoDir);
    expect(container(pod, 'termsync').args?.[0]).toBe('apply');
    const failJob = job?.podFailurePolicy?.rules.find((r) => r.action === 'FailJob');
    expect(failJob?.onExitCodes).toEqual({ containerName: 'termsync', operator: 'In', values: [ExitCode.invalidInput, ExitCode.guardBlocked] });
  });

  it('passes termsync only options its CLI has', async () => {
    const invocations = Object.values(deployables).flatMap((d) =>
      d.resources.flatMap((r) => {
        const pod = podOf(r);
        return (pod?.containers ?? []).filter((c) => c.image === 'termsync').map((c) => ({ where: r.where, args: c.args ?? [] }));
      }),
    );
    expect(invocations.map((i) => i.args[0]).sort()).toEqual(['apply', 'watch', 'watch', 'watch', 'watch']);
    for (const { where, args } of invocations) {
      const help = await runCliCaptured([args[0] ?? '', '--help']);
      expect(help.code).toBe(0);
      for (const name of args.filter((a) => a.startsWith('--')).map((a) => a.replace(/=.*$/, ''))) {
        expect(help.stdout, `${where}: termsync ${args[0]} has no ${name}`).toContain(`${name} `);
      }
    }
  });
});

describe('deploy/kubernetes: network policy, pinned images, monitoring', () => {
  const PRIVATE_RANGES = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16'];

  it.each(Object.entries(deployables))('%s: one NetworkPolicy selects every termsync pod; egress only to DNS and to HTTPS outside the cluster, ingress only to the metrics port', (_name, deployable) => {
    const policies = deployable.resources.filter((r) => r.value['kind'] === 'NetworkPolicy').map((r) => r.value as unknown as INetworkPolicy);
    expect(policies).toHaveLength(1);
    const policy = policies[0] as INetworkPolicy;
    const spec = policy.spec;
    expect(spec?.policyTypes).toEqual(['Ingress', 'Egress']);
    const pods = deployable.resources.flatMap((r) => {
      if (r.value['kind'] === 'CronJob') return [(r.value as unknown as ICronJob).spec?.jobTemplate.spec?.template.metadata?.labels ?? {}];
      if (r.value['kind'] === 'Deployment') return [(r.value as unknown as IDeployment).spec?.template.metadata?.labels ?? {}];
      if (r.value['kind'] === 'StatefulSet') return [(r.value as unknown as IStatefulSet).spec?.template.metadata?.labels ?? {}];
      return [];
    });
    expect(pods.length).toBeGreaterThan(0);
    for (const labels of pods) expect(labels).toMatchObject(spec?.podSelector.matchLabels ?? { none: 'selected' });
    // Egress: every rule names its ports (no rule lets everything out).
    const egress = spec?.egress ?? [];
    for (const rule of egress) expect(rule.ports?.length, JSON.stringify(rule)).toBeGreaterThan(0);
    const ports = egress.flatMap((rule) => (rule.ports ?? []).map((p) => `${p.protocol}/${p.port}`)).sort();
    expect(ports).toEqual(['TCP/443', 'TCP/53', 'UDP/53']);
    const dns = egress.find((rule) => rule.ports?.some((p) => p.port === 53));
    expect(dns?.to).toEqual([{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } }, podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } }]);
    const https = egress.find((rule) => rule.ports?.some((p) => p.port === 443));
    expect(https?.to).toHaveLength(1);
    expect(https?.to?.[0]?.ipBlock?.cidr).toBe('0.0.0.0/0');
    expect(https?.to?.[0]?.ipBlock?.except).toEqual(expect.arrayContaining(PRIVATE_RANGES));
    // What the pods reach through it: the service over https on its default port, the repository over https.
    const urls = [...deployable.configMaps.values()].flatMap((data) => [...data].filter(([key]) => /BASE_URL|REPO|REPOSITORY/.test(key)).map(([, value]) => value));
    expect(urls.length).toBeGreaterThanOrEqual(2);
    for (const url of urls) expect(new URL(url).protocol === 'https:' && new URL(url).port === '', url).toBe(true);
    // Ingress: only the daemon's metrics port, where there is a daemon.
    const ingress = (spec?.ingress ?? []).flatMap((rule) => (rule.ports ?? []).map((p) => p.port));
    expect(ingress).toEqual([9464]);
  });

  it('the example overlay pins every image by digest, not by tag', () => {
    const overlay = deployables.secondAccount;
    const images = overlay.kustomization.images ?? [];
    const used = new Set(overlay.resources.flatMap((r) => [...(podOf(r)?.initContainers ?? []), ...(podOf(r)?.containers ?? [])].map((c) => (c.image ?? '').replace(/:[^/:]+$/, ''))));
    expect([...used].sort()).toEqual(['registry.k8s.io/git-sync/git-sync', 'termsync']);
    for (const name of used) {
      const entry = images.find((i) => i.name === name);
      expect(entry?.digest, name).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(entry?.newTag, name).toBeUndefined();
    }
  });

  it('monitoring: the ServiceMonitor scrapes the metrics port of the termsync-metrics Service; the dashboard ships as a ConfigMap for Grafana', () => {
    const monitor = only<IServiceMonitor>(monitoring, 'ServiceMonitor');
    const service = only<IService>(deployables.base, 'Service');
    expect(service.metadata?.labels).toMatchObject(monitor.spec.selector.matchLabels ?? { none: 'selected' });
    expect(monitor.spec.endpoints?.map((e) => [e.port, e.path])).toEqual([['metrics', '/metrics']]);
    expect(service.spec?.ports?.map((p) => p.name)).toContain('metrics');
    expect(monitoring.resources.map((r) => r.value['kind']).sort()).toEqual(['PrometheusRule', 'ServiceMonitor']);
    const generator = monitoring.kustomization.configMapGenerator?.[0];
    expect(generator?.options?.labels).toEqual({ grafana_dashboard: '1' });
    const dashboard = JSON.parse(monitoring.configMaps.get(generator?.name ?? '')?.get('grafana-dashboard.json') ?? '{}') as { uid?: string; panels?: unknown[] };
    expect(dashboard.uid).toBe('termsync');
    expect(dashboard.panels?.length).toBeGreaterThan(10);
  });
});
