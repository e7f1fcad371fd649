import type { Diagnostic } from '../../lib/diagnostics.js';
import type { SourceRef } from '../../model/desired.js';
import { positionAt, type YamlFile } from '../parse-yaml.js';

/*
 * The validator's rules as named objects (house style 2: cross-field checks are small named
 * rules): a rule has a stable id (the diagnostic's `code`), a severity, a one-line summary for
 * people, and a check that returns the problems of one subject (a glossary, a dictionary, a
 * language code…), each located and explained. validate-resource.ts runs them; rule-table.ts lists
 * every rule the loader has, these and those checked elsewhere (the readers, the YAML parser).
 */

export type Severity = Diagnostic['severity'];

/** What a rule says about itself: enough to list it (`validate --list-rules`). */
export interface RuleInfo {
  readonly id: string;
  readonly severity: Severity;
  /** One line: what the rule refuses (an error) or points out (a warning). */
  readonly summary: string;
}

/** One problem a rule found: where, and the message (what is wrong, what to do). */
export interface Problem {
  readonly at: SourceRef;
  readonly message: string;
}

export interface Rule<S> extends RuleInfo {
  readonly check: (subject: S) => Iterable<Problem>;
}

/** A problem as the diagnostic of its rule. */
export function diagnosticOf(rule: RuleInfo, problem: Problem): Diagnostic {
  const { at, message } = problem;
  return { severity: rule.severity, code: rule.id, message, file: at.file, line: at.line, column: at.column };
}

/** Runs `rules` on `subject`, adding a diagnostic per problem; returns how many problems were found. */
export function applyRules<S>(rules: readonly Rule<S>[], subject: S, diagnostics: Diagnostic[]): number {
  let found = 0;
  for (const rule of rules) {
    for (const problem of rule.check(subject)) {
      diagnostics.push(diagnosticOf(rule, problem));
      found++;
    }
  }
  return found;
}

/** Where a value (or its key) is in a YAML file. */
export function ref(yaml: YamlFile, path: readonly PropertyKey[], which: 'value' | 'key' = 'value'): SourceRef {
  return { file: yaml.file, ...positionAt(yaml, path, which) };
}
