import { validate as validateCron } from 'node-cron';
import type { Diagnostic } from '../lib/diagnostics.js';
import type { ProjectConfig } from '../model/desired.js';
import { error, show } from './diagnostic.js';
import { positionAt, type YamlFile } from './parse-yaml.js';
import { configSchema } from './schemas.js';
import { schemaDiagnostics, type RuleForIssue } from './validate-schema.js';

const configRules: RuleForIssue = (issue, path, missing) => {
  if (path === 'prune') return { code: 'config/unknown-prune-mode', message: 'unknown `prune` mode: expected "off", "owned" or "all" (quote "off")' };
  if (path === 'version') return { code: 'config/unsupported-version', message: 'expected `version: 1`' };
  if (/^targets\.\d+\.api_key_env$/.test(path) && missing) {
    return { code: 'config/missing-api-key-env', message: 'this target has no `api_key_env`: name the environment variable that holds its API key (the key itself never goes in the repository)' };
  }
  if (issue.code === 'invalid_format' && /_env$/.test(path)) return { code: 'config/invalid-env-name', message: `\`${path}\`: expected the name of an environment variable (letters, digits, _)` };
  return undefined;
};

/** Folders to scan even when the config is unusable, so `validate` still reports on the resources. */
export function declaredResourceFolders(value: Record<string, unknown> | undefined): string[] {
  const resources = value?.['resources'];
  if (Array.isArray(resources) && resources.length > 0 && resources.every((r): r is string => typeof r === 'string' && r !== '')) return resources;
  return ['glossaries'];
}

/** Checks the project config; `config` is absent when it cannot be used. Defaults are applied here. */
export function validateConfig(yaml: YamlFile): { config?: ProjectConfig; diagnostics: Diagnostic[] } {
  const parsed = configSchema.safeParse(yaml.value);
  if (!parsed.success) return { diagnostics: schemaDiagnostics(yaml, configSchema, parsed.error.issues, configRules) };
  const diagnostics: Diagnostic[] = [];
  const input = parsed.data;
  const at = (path: readonly PropertyKey[]): { line: number; column: number } => positionAt(yaml, path);
  if (input.prune === 'owned' && input.owned_names === undefined) {
    const { line, column } = at(['prune']);
    diagnostics.push(
      error('config/owned-names-missing', '`prune: owned` needs `owned_names`: the glob of live names termsync may delete (e.g. "termsync:*")', yaml.file, line, column),
    );
  }
  const targetLines = new Map<string, number>();
  input.targets.forEach((target, i) => {
    const { line, column } = at(['targets', i, 'name']);
    const first = targetLines.get(target.name);
    if (first !== undefined) diagnostics.push(error('config/duplicate-target', `target ${show(target.name)} is declared twice (first on line ${first})`, yaml.file, line, column));
    else targetLines.set(target.name, line);
  });
  if (input.schedule !== undefined && !validateCron(input.schedule)) {
    const { line, column } = at(['schedule']);
    diagnostics.push(error('config/invalid-schedule', `\`schedule\` is not a valid cron expression: ${show(input.schedule)} (e.g. "*/15 * * * *")`, yaml.file, line, column));
  }
  const config: ProjectConfig = {
    version: 1,
    resources: input.resources,
    prune: input.prune,
    ...(input.owned_names === undefined ? {} : { ownedNames: input.owned_names }),
    guards: {
      maxDeletes: input.guards.max_deletes,
      maxRemovedEntriesPercent: input.guards.max_removed_entries_percent,
      allowEmpty: input.guards.allow_empty,
    },
    rateLimit: { requestsPerSecond: input.rate_limit.requests_per_second, concurrency: input.rate_limit.concurrency },
    ...(input.schedule === undefined ? {} : { schedule: input.schedule }),
    verify: { maxCharacters: input.verify.max_characters, sample: input.verify.sample, seed: input.verify.seed },
    targets: input.targets.map((t) => ({
      name: t.name,
      baseUrlEnv: t.base_url_env,
      apiKeyEnv: t.api_key_env,
      authScheme: t.auth_scheme,
      capabilities: { deleteCustomInstruction: t.capabilities.delete_custom_instruction },
    })),
  };
  return { config, diagnostics };
}
