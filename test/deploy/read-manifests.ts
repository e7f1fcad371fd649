import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { PROJECT_ROOT } from './read-dockerfile.js';

export const KUBERNETES_DIR = join(PROJECT_ROOT, 'deploy', 'kubernetes');

/** One YAML document of a manifest file, as plain data, and where it came from. */
export interface ManifestDocument {
  /** Relative to deploy/kubernetes, with the document's index when a file holds several. */
  readonly where: string;
  readonly value: Record<string, unknown>;
  /** The parsed document, for its comments. */
  readonly document: ReturnType<typeof parseAllDocuments>[number];
}

/** Every YAML document of a file; a syntax error or warning throws with the file and position. */
export function readYamlFile(path: string): ManifestDocument[] {
  const text = readFileSync(path, 'utf8');
  const parsed = parseAllDocuments(text, { prettyErrors: true, uniqueKeys: true });
  if (!Array.isArray(parsed)) throw new Error(`${path}: not a YAML stream`);
  const name = relative(KUBERNETES_DIR, path);
  return parsed.map((document, index) => {
    const problems = [...document.errors, ...document.warnings];
    if (problems.length > 0) throw new Error(`${name}: ${problems.map((p) => p.message).join('; ')}`);
    const value: unknown = document.toJS({ maxAliasCount: 0 });
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error(`${name} document ${index + 1}: expected a mapping`);
    return { where: parsed.length > 1 ? `${name}#${index + 1}` : name, value: value as Record<string, unknown>, document };
  });
}

/** Every `*.yaml` under deploy/kubernetes, sorted. */
export function manifestFiles(dir = KUBERNETES_DIR): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((entry) => {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) return manifestFiles(path);
      return /\.ya?ml$/.test(entry) ? [path] : [];
    });
}

export interface Kustomization {
  readonly resources?: string[];
  /** Kustomize Components (`kind: Component`) whose resources are added. */
  readonly components?: string[];
  readonly namespace?: string;
  readonly configMapGenerator?: { name: string; behavior?: string; literals?: string[]; files?: string[]; options?: { disableNameSuffixHash?: boolean; labels?: Record<string, string> } }[];
  readonly images?: { name: string; newName?: string; newTag?: string; digest?: string }[];
  readonly labels?: { pairs: Record<string, string>; includeSelectors?: boolean; includeTemplates?: boolean }[];
}

/** What a kustomization deploys, followed through its bases: the resources and the ConfigMap literals. */
export interface Deployable {
  readonly dir: string;
  readonly kustomization: Kustomization;
  readonly resources: ManifestDocument[];
  /** ConfigMap generator name → key → value, after `behavior: merge` of overlays. */
  readonly configMaps: Map<string, Map<string, string>>;
  readonly images: Set<string>;
  readonly namespace: string | undefined;
}

function literalsOf(literals: readonly string[] | undefined, where: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const literal of literals ?? []) {
    const at = literal.indexOf('=');
    if (at <= 0) throw new Error(`${where}: configMapGenerator literal without KEY=: ${literal}`);
    out.set(literal.slice(0, at), literal.slice(at + 1).trim());
  }
  return out;
}

/**
 * Follows a kustomization.yaml the way `kustomize build` reads it, for the parts these manifests use
 * (resources, bases, configMapGenerator with merge, images, namespace). It checks references; it
 * does not render: no kustomize binary runs here.
 */
export function readKustomization(dir: string, kind: 'Kustomization' | 'Component' = 'Kustomization'): Deployable {
  const file = join(dir, 'kustomization.yaml');
  const [doc, ...more] = readYamlFile(file);
  if (doc === undefined || more.length > 0) throw new Error(`${file}: expected one document`);
  const k = doc.value as Kustomization & { apiVersion?: string; kind?: string };
  const apiVersion = kind === 'Component' ? 'kustomize.config.k8s.io/v1alpha1' : 'kustomize.config.k8s.io/v1beta1';
  if (k.apiVersion !== apiVersion || k.kind !== kind) throw new Error(`${file}: not a ${apiVersion} ${kind}`);
  const resources: ManifestDocument[] = [];
  const configMaps = new Map<string, Map<string, string>>();
  const images = new Set<string>();
  let namespace: string | undefined;
  for (const entry of k.resources ?? []) {
    const path = resolve(dir, entry);
    if (!existsSync(path)) throw new Error(`${file}: resource ${entry} does not exist`);
    if (statSync(path).isDirectory()) {
      const base = readKustomization(path);
      resources.push(...base.resources);
      for (const [name, data] of base.configMaps) configMaps.set(name, new Map(data));
      for (const image of base.images) images.add(image);
      namespace = base.namespace;
    } else resources.push(...readYamlFile(path));
  }
  for (const entry of k.components ?? []) {
    const path = resolve(dir, entry);
    if (!existsSync(join(path, 'kustomization.yaml'))) throw new Error(`${file}: component ${entry} has no kustomization.yaml`);
    resources.push(...readKustomization(path, 'Component').resources);
  }
  for (const generator of k.configMapGenerator ?? []) {
    const literals = literalsOf(generator.literals, file);
    for (const name of generator.files ?? []) {
      if (!existsSync(resolve(dir, name))) throw new Error(`${file}: configMapGenerator ${generator.name} file ${name} does not exist`);
      literals.set(name, readFileSync(resolve(dir, name), 'utf8'));
    }
    const existing = configMaps.get(generator.name);
    if (generator.behavior === 'merge' || generator.behavior === 'replace') {
      if (existing === undefined) throw new Error(`${file}: configMapGenerator ${generator.name} has behavior ${generator.behavior} but no base defines it`);
      if (generator.behavior === 'replace') existing.clear();
      for (const [key, value] of literals) existing.set(key, value);
    } else {
      if (existing !== undefined) throw new Error(`${file}: configMapGenerator ${generator.name} is already defined by a base (use behavior: merge)`);
      configMaps.set(generator.name, literals);
    }
  }
  for (const image of k.images ?? []) images.add(image.name);
  return { dir, kustomization: k, resources, configMaps, images, namespace: k.namespace ?? namespace };
}
