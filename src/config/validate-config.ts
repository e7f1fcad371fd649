import { appendDiagnostics, type Diagnostic, error, show } from '../lib/diagnostics.js';
import type { ProjectConfig, RateLimit } from '../model/desired.js';
import { positionAt, type YamlFile } from './parse-yaml.js';
import { configSchema, ENV_PREFIX } from './schemas.js';
import { schemaDiagnostics, type RuleForIssue } from './validate-schema.js';

const configRules: RuleForIssue = (issue, path) => {
  if (path === 'prune') return { code: 'config/unknown-prune-mode', message: 'unknown `prune` mode: expected "off", "owned" or "all" (quote "off")' };
  if (path === 'version') return { code: 'config/unsupported-version', message: 'expected `version: 1`' };
  if (issue.code === 'invalid_format' && /_env$/.test(path)) return { code: 'config/invalid-env-name', message: `\`${path}\`: expected the name of an environment variable that starts with ${ENV_PREFIX} (then letters, digits, _)` };
  return undefined;
};

/** Folders to scan even when the config is unusable, so `validate` still reports on the resources. */
export function declaredResourceFolders(value: Record<string, unknown> | undefined): string[] {
  const resources = value?.['resources'];
  if (Array.isArray(resources) && resources.length > 0 && resources.every((r): r is string => typeof r === 'string' && r !== '')) return resources;
  return ['glossaries'];
}

const ANY_ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Every `*_env` field of the config, wherever it stands and whatever its schema, must name a
 * variable of termsync's prefix (see ENV_PREFIX in schemas.ts). Reported before anything is read
 * from the environment or sent. The name is shown: it is not a secret (a value that is not a
 * variable name at all is left to the schema, which never echoes a key-looking value).
 */
function envNameDiagnostics(yaml: YamlFile): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const walk = (value: unknown, path: PropertyKey[]): void => {
    if (Array.isArray(value)) value.forEach((item, i) => walk(item, [...path, i]));
    else if (value !== null && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) {
        if (/_env$/.test(key) && typeof child === 'string' && ANY_ENV_NAME.test(child) && !child.startsWith(ENV_PREFIX)) {
          const { line, column } = positionAt(yaml, [...path, key]);
          diagnostics.push(
            error(
              'config/env-name-not-allowed',
              `\`${key}\` names ${child}: the variables a repository names for keys and URLs must start with ${ENV_PREFIX} (e.g. ${ENV_PREFIX}${key === 'base_url_env' ? 'BASE_URL' : 'API_KEY'}), so that a change to the repository cannot send another secret of the job as the key, or the key to another address; set ${ENV_PREFIX}… from your secret store instead`,
              yaml.file,
              line,
              column,
            ),
          );
        } else walk(child, [...path, key]);
      }
    }
  };
  walk(yaml.value, []);
  return diagnostics;
}

/**
 * A variable named both for a URL and for a key would send the key as the URL (and an error about
 * the URL could show it): refused wherever the two meet, also across targets.
 */
function envRoleDiagnostics(yaml: YamlFile, targets: readonly { base_url_env: string; api_key_env: string }[]): Diagnostic[] {
  const keyVariables = new Set(targets.map((t) => t.api_key_env));
  const diagnostics: Diagnostic[] = [];
  targets.forEach((target, i) => {
    if (!keyVariables.has(target.base_url_env)) return;
    const { line, column } = positionAt(yaml, ['targets', i, 'base_url_env']);
    diagnostics.push(error('config/env-name-conflict', `\`base_url_env\` names ${target.base_url_env}, which an \`api_key_env\` of this config names too: the URL and the key need two variables`, yaml.file, line, column));
  });
  return diagnostics;
}

/** A `rate_limit` of the config (the top-level one, or a target's). */
function rateLimitOf(input: { readonly requests_per_second: number; readonly concurrency: number }): RateLimit {
  return { requestsPerSecond: input.requests_per_second, concurrency: input.concurrency };
}

/** Checks the project config; `config` is absent when it cannot be used. Defaults are applied here. */
export async function validateConfig(yaml: YamlFile): Promise<{ config?: ProjectConfig; diagnostics: Diagnostic[] }> {
  const envNames = envNameDiagnostics(yaml);
  const parsed = configSchema.safeParse(yaml.value);
  if (!parsed.success) {
    // The schema refuses the same names; the rule above says why, once.
    const fromSchema = schemaDiagnostics(yaml, configSchema, parsed.error.issues, configRules).filter(
      (d) => !(d.code === 'config/invalid-env-name' && envNames.some((e) => e.line === d.line && e.column === d.column)),
    );
    return { diagnostics: [...envNames, ...fromSchema] };
  }
  const diagnostics: Diagnostic[] = [...envNames];
  const input = parsed.data;
  appendDiagnostics(diagnostics, envRoleDiagnostics(yaml, input.targets));
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
  // node-cron (and the child_process and crypto modules it loads) only for a config that has a schedule.
  if (input.schedule !== undefined && !(await import('node-cron')).validate(input.schedule)) {
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
    rateLimit: rateLimitOf(input.rate_limit),
    ...(input.schedule === undefined ? {} : { schedule: input.schedule }),
    ...(input.suspend ? { suspend: true } : {}),
    ...(input.parallel_targets === undefined ? {} : { parallelTargets: input.parallel_targets }),
    verify: { maxCharacters: input.verify.max_characters, sample: input.verify.sample, seed: input.verify.seed },
    ui: { ...(input.ui.show_terms === undefined ? {} : { showTerms: input.ui.show_terms }), keepRuns: input.ui.keep_runs },
    pull: { tbxRemoved: input.pull.tbx_removed },
    targets: input.targets.map((t) => ({
      name: t.name,
      baseUrlEnv: t.base_url_env,
      apiKeyEnv: t.api_key_env,
      authScheme: t.auth_scheme,
      capabilities: { deleteCustomInstruction: t.capabilities.delete_custom_instruction },
      ...(t.suspend ? { suspend: true } : {}),
      ...(t.rate_limit === undefined ? {} : { rateLimit: rateLimitOf(t.rate_limit) }),
    })),
  };
  return { config, diagnostics };
}
