import { show } from '../../lib/diagnostics.js';
import { GLOSSARY_LANGUAGES, languageList } from '../../lib/languages.js';
import type { YamlFile } from '../parse-yaml.js';
import type { StyleRulesInput } from '../schemas.js';
import { CONTROL_CHARACTER, type PlainTextSubject } from './resource-rules.js';
import { ref, type Problem, type Rule } from './rule.js';

/** A style rule list as its schema parsed it. */
export interface StyleRulesSubject {
  readonly yaml: YamlFile;
  readonly input: StyleRulesInput;
}

/** Variants the service lists among its target languages (spec, "Languages"), lowercased. */
const LISTED_VARIANTS = ['en-gb', 'en-us', 'es-419', 'pt-br', 'pt-pt', 'zh-hans', 'zh-hant'] as const;
const INSTRUCTION_LANGUAGES: ReadonlySet<string> = new Set([...GLOSSARY_LANGUAGES, ...LISTED_VARIANTS]);

/** The names, labels and prompts of a list (CONTROL_CHARACTER checks each). */
export function plainTexts({ yaml, input }: StyleRulesSubject): PlainTextSubject[] {
  return [
    { yaml, value: input.name, path: ['name'], what: 'style rule list `name`' },
    { yaml, value: input.renamed_from, path: ['renamed_from'], what: '`renamed_from`' },
    ...input.custom_instructions.flatMap((instruction, i): PlainTextSubject[] => [
      { yaml, value: instruction.label, path: ['custom_instructions', i, 'label'], what: 'custom instruction `label`' },
      { yaml, value: instruction.prompt, path: ['custom_instructions', i, 'prompt'], what: 'custom instruction `prompt`', multiline: true },
    ]),
  ];
}

/** The `configured_rules` as the YAML holds them (the schema checked their shape but for what these rules check). */
function* configuredRules(yaml: YamlFile): Iterable<{ category: string; value: unknown }> {
  const raw = yaml.value['configured_rules'];
  if (raw === null || typeof raw !== 'object') return;
  for (const [category, value] of Object.entries(raw as Record<string, unknown>)) yield { category, value };
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export const STYLE_RULES: readonly Rule<StyleRulesSubject>[] = [
  {
    id: 'style/duplicate-label',
    severity: 'error',
    summary: 'two custom instructions of one list with the same label',
    *check({ yaml, input }) {
      const labels = new Map<string, number>();
      for (const [i, instruction] of input.custom_instructions.entries()) {
        const at = ref(yaml, ['custom_instructions', i, 'label']);
        const first = labels.get(instruction.label);
        if (first !== undefined) yield { at, message: `custom instruction label ${show(instruction.label)} is used twice (first on line ${first}); the label identifies an instruction` };
        else labels.set(instruction.label, at.line);
      }
    },
  },
  {
    ...CONTROL_CHARACTER,
    check: (subject) => plainTexts(subject).flatMap((text) => [...CONTROL_CHARACTER.check(text)]),
  },
  {
    id: 'style/blank-text',
    severity: 'error',
    summary: 'a style rule list name, instruction label or prompt, or configured rule name, that is empty or only whitespace',
    *check({ yaml, input }) {
      const blank = (value: string, path: readonly PropertyKey[], what: string): Problem[] =>
        value.trim() === '' ? [{ at: ref(yaml, path), message: `${what} is empty or only whitespace; the service requires a text` }] : [];
      yield* blank(input.name, ['name'], 'style rule list `name`');
      for (const [i, instruction] of input.custom_instructions.entries()) {
        yield* blank(instruction.label, ['custom_instructions', i, 'label'], 'custom instruction `label`');
        yield* blank(instruction.prompt, ['custom_instructions', i, 'prompt'], 'custom instruction `prompt`');
      }
      for (const { category, value } of configuredRules(yaml)) {
        if (!isMapping(value)) continue;
        for (const rule of Object.keys(value)) {
          if (rule.trim() !== '') continue;
          yield { at: ref(yaml, ['configured_rules', category, rule], 'key'), message: `configured rule name ${show(rule)} in category ${show(category)} is empty or only whitespace; the service refuses it` };
        }
      }
    },
  },
  {
    id: 'style/instruction-language',
    severity: 'error',
    summary: "a custom instruction's `source_language` that is neither a glossary language nor a listed variant",
    *check({ yaml, input }) {
      for (const [i, instruction] of input.custom_instructions.entries()) {
        const raw = instruction.source_language;
        if (raw === undefined || INSTRUCTION_LANGUAGES.has(raw.trim().toLowerCase())) continue;
        yield {
          at: ref(yaml, ['custom_instructions', i, 'source_language']),
          message: `unknown custom instruction \`source_language\` ${show(raw)}: expected a code of the glossary language list (${languageList('glossary')}) or a variant from the service's target language list (${LISTED_VARIANTS.join(' ')})`,
        };
      }
    },
  },
  {
    id: 'style/configured-rules-shape',
    severity: 'error',
    summary: '`configured_rules` that are not a mapping of categories to mappings of rule → option (text)',
    *check({ yaml }) {
      for (const { category, value } of configuredRules(yaml)) {
        if (!isMapping(value)) {
          yield { at: ref(yaml, ['configured_rules', category], 'key'), message: `configured rules category ${show(category)} must be a mapping of rule → option (text)` };
          continue;
        }
        for (const [rule, option] of Object.entries(value)) {
          if (typeof option !== 'string') yield { at: ref(yaml, ['configured_rules', category, rule]), message: `configured rule ${show(rule)} must map to an option (text)` };
        }
      }
    },
  },
  {
    id: 'style/empty-category',
    severity: 'error',
    summary: 'a configured rules category with an empty name or no rules',
    *check({ yaml }) {
      for (const { category, value } of configuredRules(yaml)) {
        if (!isMapping(value) || (category.trim() !== '' && Object.keys(value).length > 0)) continue;
        const why = category.trim() === '' ? 'has an empty name' : 'has no rules';
        yield { at: ref(yaml, ['configured_rules', category], 'key'), message: `configured rules category ${show(category)} ${why}; the service refuses it` };
      }
    },
  },
  {
    id: 'style/blank-option',
    severity: 'error',
    summary: 'a configured rule with an empty option',
    *check({ yaml }) {
      for (const { category, value } of configuredRules(yaml)) {
        if (!isMapping(value)) continue;
        for (const [rule, option] of Object.entries(value)) {
          if (typeof option !== 'string' || option.trim() !== '') continue;
          yield { at: ref(yaml, ['configured_rules', category, rule]), message: `configured rule ${show(rule)} has an empty option; the service requires one (e.g. \`use_curly_apostrophes\`)` };
        }
      }
    },
  },
];

/**
 * `configured_rules` rebuilt from the parsed YAML into prototype-less objects: a category or rule
 * named `__proto__` or `constructor` is kept as an own key (a plain object would swallow
 * `__proto__` as its prototype). The shape was checked by the schema and STYLE_RULES; a category
 * that is not a mapping, and an option that is not a text, are left out.
 */
export function readConfiguredRules(yaml: YamlFile): Record<string, Record<string, string>> {
  const rules = Object.create(null) as Record<string, Record<string, string>>;
  for (const { category, value } of configuredRules(yaml)) {
    if (!isMapping(value)) continue;
    const options = Object.create(null) as Record<string, string>;
    for (const [rule, option] of Object.entries(value)) if (typeof option === 'string') options[rule] = option;
    rules[category] = options;
  }
  return rules;
}
