import { codePointName } from '../../lib/canonical.js';
import { show } from '../../lib/diagnostics.js';
import { looksLikeSecret } from '../detect-secrets.js';
import { didYouMeanSuffix } from '../did-you-mean.js';
import { positionAt, type YamlFile } from '../parse-yaml.js';
import { describeType } from '../validate-schema.js';
import { ref, type Rule } from './rule.js';

export const RESOURCE_KINDS = ['glossary', 'style_rules'] as const;

// A name or label is one line of plain text: no C0 control (tab and line breaks included), DEL,
// C1, line or paragraph separator, or unpaired surrogate. A prompt may span lines (tab, LF).
// eslint-disable-next-line no-control-regex
const NOT_IN_NAME = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]|\p{Cs}/u;
// eslint-disable-next-line no-control-regex
const NOT_IN_PROMPT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]|\p{Cs}/u;

/**
 * What makes a name, label or prompt unusable: a raw NUL or another control character (it would
 * reach the service, and every plan, log line and comment, as it is). Undefined for a good value.
 * The one table of this rule: the loader reports it at the value, `pull` and `import` at the
 * resource on the service before they would write it.
 */
export function plainTextProblem(value: string, what: string, multiline = false): { readonly code: string; readonly message: string } | undefined {
  const found = (multiline ? NOT_IN_PROMPT : NOT_IN_NAME).exec(value);
  if (found === null) return undefined;
  const surrogate = /^U\+D[89A-F]/.test(codePointName(value, found.index)) ? ' (an unpaired surrogate)' : '';
  return {
    code: CONTROL_CHARACTER.id,
    message: `${what} contains the control character ${codePointName(value, found.index)}${surrogate} at character ${found.index + 1}; ${multiline ? 'a prompt is text (tabs and line breaks allowed)' : 'it must be one line of plain text'}`,
  };
}

/** A name, label or prompt of a resource file, and what it is called in messages. */
export interface PlainTextSubject {
  readonly yaml: YamlFile;
  readonly value: string | undefined;
  readonly path: readonly PropertyKey[];
  readonly what: string;
  readonly multiline?: boolean;
}

export const CONTROL_CHARACTER: Rule<PlainTextSubject> = {
  id: 'resource/control-character',
  severity: 'error',
  summary: 'a name, label or prompt with a control character (a name or label is one line of plain text)',
  *check({ yaml, value, path, what, multiline }) {
    const problem = value === undefined ? undefined : plainTextProblem(value, what, multiline);
    if (problem !== undefined) yield { at: ref(yaml, path), message: problem.message };
  },
};

/** A resource file's `kind`: each rule finds a problem only when the kind is not one termsync knows. */
export const KIND_RULES: readonly Rule<YamlFile>[] = [
  {
    id: 'resource/missing-kind',
    severity: 'error',
    summary: 'a resource file without `kind`',
    *check(yaml) {
      if (yaml.value['kind'] === undefined) yield { at: { file: yaml.file, ...positionAt(yaml, []) }, message: 'missing `kind`: expected `kind: glossary` or `kind: style_rules`' };
    },
  },
  {
    id: 'resource/unknown-kind',
    severity: 'error',
    summary: 'a `kind` other than `glossary` or `style_rules`',
    *check(yaml) {
      const kind = yaml.value['kind'];
      if (kind === undefined || (RESOURCE_KINDS as readonly unknown[]).includes(kind)) return;
      const suggestion = typeof kind === 'string' ? didYouMeanSuffix(kind, RESOURCE_KINDS) : '';
      // A key pasted into the wrong field must not be echoed (judged as if the field were named `key`).
      const shown = typeof kind !== 'string' ? describeType(kind) : looksLikeSecret(kind, 'key') ? '(a value that looks like a key, not shown)' : show(kind);
      yield { at: { file: yaml.file, ...positionAt(yaml, ['kind']) }, message: `unknown \`kind\` ${shown}: expected "glossary" or "style_rules"${suggestion}` };
    },
  },
];
