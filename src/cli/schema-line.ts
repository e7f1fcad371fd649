import { stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { SCHEMA_FILES, schemaUrl, type SchemaName } from '../config/index.js';
import { VERSION } from './version.js';

/** The YAML language server's modeline: the first line of every YAML file `init` and `import` write. */
export function schemaModeline(reference: string): string {
  return `# yaml-language-server: $schema=${reference}`;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/**
 * Where an editor finds the schema of a YAML file about to be written at `file` in the repository
 * `root`: the schema of the termsync installed in the repository (`node_modules/termsync/schema/`,
 * looked for from the file's folder up to the root, as Node resolves a package), by a path
 * relative to the file, so it matches the termsync that `npx termsync` runs there and works
 * offline; else this release's published schema (schema-urls.ts). A node_modules above the
 * repository root is never used: the path would not hold in another clone.
 */
export async function schemaReference(file: string, root: string, name: SchemaName): Promise<string> {
  const top = resolve(root);
  const from = dirname(resolve(file));
  for (let dir = from; ; dir = dirname(dir)) {
    const rel = relative(top, dir);
    if (rel.startsWith('..') || resolve(top, rel) !== dir) break;
    const candidate = join(dir, 'node_modules', 'termsync', 'schema', SCHEMA_FILES[name]);
    if (await isFile(candidate)) {
      const path = relative(from, candidate).split(sep).join('/');
      return path.startsWith('.') ? path : `./${path}`;
    }
    if (dir === top) break;
  }
  return schemaUrl(name, VERSION);
}
