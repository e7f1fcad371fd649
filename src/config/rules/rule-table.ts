import { COMMON_READER_RULES } from '../../formats/common/reader-rules.js';
import { ENTRIES_FORMATS } from '../../formats/registry.js';
import { CONTROL_CHARACTER, KIND_RULES } from './resource-rules.js';
import { COUNT_RULES, DICTIONARY_RULES, DUPLICATE_LANGUAGE, DUPLICATE_PAIR, EMPTY_DICTIONARY, GLOSSARY_RULES, PAIRS, SOURCE_RULES, UNUSED_OPTION } from './glossary-rules.js';
import { LANGUAGE_RULES } from './language-rules.js';
import type { RuleInfo, Severity } from './rule.js';
import { STYLE_RULES } from './style-rules.js';
import { TARGET_VARIANT, TEST_RULES } from './test-rules.js';

/*
 * Every rule the loader has, from one table: `validate --list-rules` prints it, and
 * test/config/rule-table.test.ts holds that every diagnostic code of the loader is in it. The
 * validator's own rules (rules/*.ts) are listed from their objects; the rules that another part
 * of the loader checks (the YAML parser, the schema, the file reader, the entries formats'
 * readers, the repository-wide checks) are described here, each by the part that checks it.
 */

/** Which part of the loader checks a rule. */
export type RuleSource = 'validator' | 'schema' | 'yaml' | 'file' | 'entries file' | 'entries reader' | 'repository' | 'project config' | 'credentials';

export interface ListedRule extends RuleInfo {
  readonly checkedBy: RuleSource;
}

const described = (checkedBy: RuleSource, severity: Severity, rules: Readonly<Record<string, string>>): ListedRule[] =>
  Object.entries(rules).map(([id, summary]) => ({ id, severity, summary, checkedBy }));

/** An inline entry whose source or target is not a text (the schema, or the entries' YAML nodes). */
export const NOT_A_STRING: RuleInfo = { id: 'entries/not-a-string', severity: 'error', summary: 'an inline entry whose source or target phrase is a list, a mapping or no text' };

/** The validator's rules (each with its check), in the order they run. */
const VALIDATOR_RULES: readonly RuleInfo[] = [
  ...KIND_RULES,
  ...GLOSSARY_RULES,
  CONTROL_CHARACTER,
  ...SOURCE_RULES.filter((r) => r.id !== 'glossary/entries-source'),
  DUPLICATE_LANGUAGE,
  PAIRS,
  UNUSED_OPTION,
  ...COUNT_RULES,
  ...DICTIONARY_RULES,
  DUPLICATE_PAIR,
  EMPTY_DICTIONARY,
  ...LANGUAGE_RULES,
  TARGET_VARIANT,
  ...TEST_RULES,
  ...STYLE_RULES.filter((r) => r.id !== CONTROL_CHARACTER.id),
];

const OTHER_RULES: readonly ListedRule[] = [
  ...described('schema', 'error', {
    'schema/unknown-field': 'a field a resource or the project config does not have (with the nearest known one)',
    'schema/missing-field': 'a required field left out',
    'schema/invalid-type': 'a value of the wrong type (a list for a text…)',
    'schema/invalid-value': 'a value out of its range or not one of its choices',
    'glossary/unknown-api': 'a glossary `api` other than "v3" or "v2"',
    'style/name-too-long': 'a style rule list `name` over 1024 characters',
    'style/too-many-instructions': 'more than 200 custom instructions in one list',
    'style/prompt-too-long': 'a custom instruction `prompt` over 300 characters',
  }),
  { ...NOT_A_STRING, checkedBy: 'schema' },
  ...described('yaml', 'error', {
    'yaml/syntax': 'a YAML syntax error',
    'yaml/duplicate-key': 'a key written twice in one mapping',
    'yaml/empty': 'an empty YAML file',
    'yaml/not-a-mapping': 'a YAML file that is not a mapping',
    'yaml/multiple-documents': 'more than one YAML document in a file',
    'yaml/alias-bomb': 'aliases that expand without bound',
    'yaml/too-deep': 'YAML nested deeper than termsync reads',
    'yaml/too-large': 'a YAML file over 10 MiB',
    'yaml/invalid-utf8': 'a YAML file that is not valid UTF-8',
  }),
  ...described('yaml', 'warning', { 'yaml/warning': 'what the YAML parser warns about' }),
  ...described('file', 'error', {
    'file/not-a-file': 'a folder, pipe, socket or device where a file is read',
    'file/unreadable': 'a file that cannot be read (permissions, a broken or looping link)',
    'resource/outside-repo': 'a resource file that is a symbolic link out of the repository',
  }),
  ...described('entries file', 'error', {
    'entries-file/outside-repo': 'an `entries_file` that leaves the repository (absolute, `..`, a link out)',
    'entries-file/extension': 'an `entries_file` whose extension is no entries format (the registry of src/formats/)',
    'entries-file/missing': 'an `entries_file` that does not exist, or a broken link',
    'entries-file/unreadable': 'an `entries_file` that cannot be read',
    'entries-file/not-a-file': 'an `entries_file` that is not a regular file',
    'entries-file/too-large': "an `entries_file` over its format's size limit",
    'entries-file/invalid-utf8': 'a TSV or CSV file that is not valid UTF-8 and declares no other `encoding`',
    'entries-file/encoding': 'a TSV or CSV file that is not in the `encoding` it declares',
  }),
  ...[...COMMON_READER_RULES, ...ENTRIES_FORMATS.flatMap((format) => format.rules)].map((rule): ListedRule => ({ ...rule, checkedBy: 'entries reader' })),
  ...described('credentials', 'error', { 'config/api-key-in-repo': 'a credential (an API key, a token) in a file of the repository' }),
  ...described('repository', 'error', {
    'resource/duplicate-name': 'two resources of one kind with the same name',
    'glossary/v2-v3-same-name': 'a v2 and a v3 glossary with the same name',
    'glossary/too-many': 'more glossaries than the service holds',
    'glossary/too-large': "a glossary over the service's 10 MiB of entries",
    'repository/not-found': 'a repository folder that does not exist',
    'repository/not-a-folder': 'a repository that is not a folder',
  }),
  ...described('project config', 'error', {
    'config/not-found': 'no project config',
    'config/outside-repo': 'a project config that is a symbolic link out of the repository',
    'config/unsupported-version': 'a config `version` other than 1',
    'config/duplicate-target': 'two targets with the same name',
    'config/invalid-env-name': 'an environment variable name that does not start with TERMSYNC_',
    'config/env-name-not-allowed': 'an environment variable termsync does not read from a target',
    'config/env-name-conflict': 'two settings read from the same environment variable',
    'config/invalid-schedule': 'a `schedule` that is not a cron expression',
    'config/unknown-prune-mode': 'a `prune` mode termsync does not know',
    'config/owned-names-missing': '`prune: owned` without the names it owns',
    'config/resource-folder-outside': 'a resource folder outside the repository',
  }),
  ...described('project config', 'warning', { 'config/resource-folder-missing': 'a resource folder that does not exist' }),
];

/** Every rule of the loader, each id once: the validator's first, then by the part that checks them. */
export const RULE_TABLE: readonly ListedRule[] = [...VALIDATOR_RULES.map((r): ListedRule => ({ id: r.id, severity: r.severity, summary: r.summary, checkedBy: 'validator' })), ...OTHER_RULES].filter(
  (rule, i, all) => all.findIndex((r) => r.id === rule.id) === i,
);

/** The table as markdown (docs/rules.md, written by scripts/rules-doc.js): one row per rule, grouped by the part that checks it. */
export function renderRuleTable(rules: readonly ListedRule[] = RULE_TABLE): string {
  const lines = [
    '# Validation rules',
    '',
    '<!-- Generated from src/config/rules/rule-table.ts by `node scripts/rules-doc.js` (after `npm run build`); test/config/rule-table.test.ts checks it is current. -->',
    '',
    'Every diagnostic `validate` (and `plan`, `apply`, `watch`) can report, by its code. An error stops a',
    'run before anything is sent; a warning does not.',
  ];
  for (const source of [...new Set(rules.map((r) => r.checkedBy))]) {
    lines.push('', `## Checked by: ${source}`, '', '| code | severity | what it reports |', '| --- | --- | --- |');
    for (const rule of rules.filter((r) => r.checkedBy === source)) lines.push(`| \`${rule.id}\` | ${rule.severity} | ${rule.summary.replace(/\|/g, '\\|')} |`);
  }
  return `${lines.join('\n')}\n`;
}
