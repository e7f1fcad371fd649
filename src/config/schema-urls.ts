// Where editors find termsync's JSON Schemas (schema/*.schema.json): each release's files in the
// repository at its tag. The same address is each schema's `$id`, the `url` of the SchemaStore
// catalog entry (schema/schemastore-catalog.json) and, where no installed termsync is at hand,
// the `# yaml-language-server: $schema=` line `init` and `import` write. The organisation is a
// placeholder until the repository is published (package.json `repository` names the same one;
// test/config/editor-schemas.test.ts holds them together).

/** The repository's files at a tag, as a web server serves them raw. */
export const SCHEMA_BASE_URL = 'https://raw.githubusercontent.com/your-org/termsync';

/** The two schemas: a resource file (glossary or style rule list) and the project config. */
export type SchemaName = 'resource' | 'config';

export const SCHEMA_FILES: Readonly<Record<SchemaName, string>> = { resource: 'resource.schema.json', config: 'config.schema.json' };

/** `https://raw.githubusercontent.com/your-org/termsync/v0.1.0/schema/resource.schema.json` for version 0.1.0. */
export function schemaUrl(name: SchemaName, version: string): string {
  return `${SCHEMA_BASE_URL}/v${version}/schema/${SCHEMA_FILES[name]}`;
}

/** One entry of SchemaStore's catalog (src/api/json/catalog.json of its repository). */
export interface CatalogEntry {
  readonly name: string;
  readonly description: string;
  readonly fileMatch?: readonly string[];
  readonly url: string;
  readonly versions: Readonly<Record<string, string>>;
}

/**
 * The entries to add to SchemaStore's catalog for a release (schema/schemastore-catalog.json). The
 * project config is found by its file name; a resource file has no name of its own (any
 * `glossaries/*.yaml`), so it has no fileMatch: editors learn it from the `# yaml-language-server`
 * line that `termsync init` and `termsync import` write, or from the user's settings.
 */
export function catalogEntries(version: string): CatalogEntry[] {
  return [
    {
      name: 'termsync config',
      description: 'termsync project config: the targets, prune, guards, rate limit and schedule of a terminology repository (GitOps for glossaries and style rules)',
      fileMatch: ['termsync.yaml'],
      url: schemaUrl('config', version),
      versions: { [version]: schemaUrl('config', version) },
    },
    {
      name: 'termsync resource',
      description: 'termsync resource file: one glossary (with its dictionaries or a multilingual entries file) or one style rule list',
      url: schemaUrl('resource', version),
      versions: { [version]: schemaUrl('resource', version) },
    },
  ];
}
