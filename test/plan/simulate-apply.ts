import type { ConfiguredRules, Entries, GlossaryApi, LiveInstruction, LiveState, Operation } from '../../src/model/index.js';

/**
 * A pure in-memory model of the service's glossary and style rule endpoints, enough to apply a
 * plan's operations to a LiveState (spec rules: PUT replaces or adds one dictionary, PATCH merges
 * entries and/or renames, v2 glossaries are created whole, style rule versions grow on each write).
 */
interface SimGlossary {
  id: string;
  name: string;
  api: GlossaryApi;
  creationTime: string;
  dicts: Map<string, Map<string, string>>;
}

interface SimStyle {
  id: string;
  name: string;
  language: string;
  version: number;
  configuredRules: ConfiguredRules;
  instructions: LiveInstruction[];
  creationTime: string;
}

export function simulateApply(live: LiveState, operations: readonly Operation[]): LiveState {
  let next = 0;
  const used = new Set([...live.glossaries.map((g) => g.id), ...live.styleRules.flatMap((s) => [s.id, ...s.customInstructions.map((i) => i.id)])]);
  // Ids are never reused, also across several simulated runs.
  const newId = (prefix: string): string => {
    let id = `${prefix}-new-${++next}`;
    while (used.has(id)) id = `${prefix}-new-${++next}`;
    used.add(id);
    return id;
  };
  // Later than anything generated, so new resources sort after old ones.
  const newTime = (): string => `2099-01-01T00:00:00.${String(next).padStart(3, '0')}Z`;
  const glossaries = new Map<string, SimGlossary>();
  for (const g of live.glossaries) {
    const dicts = new Map<string, Map<string, string>>();
    for (const d of g.dictionaries) dicts.set(`${d.sourceLang}-${d.targetLang}`, new Map(live.entries.get(`${g.id}/${d.sourceLang}-${d.targetLang}`) ?? []));
    glossaries.set(g.id, { id: g.id, name: g.name, api: g.api, creationTime: g.creationTime, dicts });
  }
  const styles = new Map<string, SimStyle>();
  for (const s of live.styleRules) {
    styles.set(s.id, { ...s, instructions: [...s.customInstructions] });
  }
  const glossary = (id: string): SimGlossary => {
    const g = glossaries.get(id);
    if (g === undefined) throw new Error(`404: glossary ${id}`);
    return g;
  };
  const style = (id: string): SimStyle => {
    const s = styles.get(id);
    if (s === undefined) throw new Error(`404: style rules ${id}`);
    s.version += 1;
    return s;
  };
  const done = new Set<string>();
  for (const op of operations) {
    for (const dep of op.dependsOn) if (!done.has(dep)) throw new Error(`${op.key} runs before ${dep}, which it depends on`);
    switch (op.type) {
      case 'glossary.create': {
        const id = newId('g');
        const dicts = new Map(op.dictionaries.map((d) => [`${d.sourceLang}-${d.targetLang}`, new Map(d.entries)]));
        glossaries.set(id, { id, name: op.name, api: 'v3', creationTime: newTime(), dicts });
        break;
      }
      case 'glossary_v2.create': {
        const id = newId('g');
        const d = op.dictionary;
        glossaries.set(id, { id, name: op.name, api: 'v2', creationTime: newTime(), dicts: new Map([[`${d.sourceLang}-${d.targetLang}`, new Map(d.entries)]]) });
        break;
      }
      case 'glossary.patch': {
        const g = glossary(op.glossaryId);
        if (g.api !== 'v3') throw new Error('v2 glossaries are immutable');
        if (op.name !== undefined) g.name = op.name;
        if (op.dictionary !== undefined) {
          const dict = g.dicts.get(`${op.dictionary.sourceLang}-${op.dictionary.targetLang}`);
          if (dict === undefined) throw new Error('PATCH merges into an existing dictionary');
          for (const [s, t] of op.dictionary.entries) dict.set(s, t);
        }
        break;
      }
      case 'glossary.put_dictionary': {
        const g = glossary(op.glossaryId);
        if (g.api !== 'v3') throw new Error('v2 glossaries are immutable');
        g.dicts.set(`${op.dictionary.sourceLang}-${op.dictionary.targetLang}`, new Map(op.dictionary.entries));
        break;
      }
      case 'glossary.delete_dictionary': {
        const g = glossary(op.glossaryId);
        if (!g.dicts.delete(`${op.sourceLang}-${op.targetLang}`)) throw new Error('404: dictionary');
        break;
      }
      case 'glossary.delete':
        glossary(op.glossaryId);
        glossaries.delete(op.glossaryId);
        break;
      case 'style_rules.create': {
        const id = newId('s');
        const instructions = op.customInstructions.map((i) => ({ id: newId('i'), ...i }));
        styles.set(id, { id, name: op.name, language: op.language, version: 1, configuredRules: op.configuredRules, instructions, creationTime: newTime() });
        break;
      }
      case 'style_rules.rename':
        style(op.styleId).name = op.name;
        break;
      case 'style_rules.put_configured_rules':
        style(op.styleId).configuredRules = op.configuredRules;
        break;
      case 'style_rules.create_instruction': {
        const { label, prompt, sourceLanguage } = op;
        style(op.styleId).instructions.push({ id: newId('i'), label, prompt, ...(sourceLanguage === undefined ? {} : { sourceLanguage }) });
        break;
      }
      case 'style_rules.update_instruction': {
        const s = style(op.styleId);
        s.instructions = s.instructions.map((i) =>
          i.id === op.instructionId ? { ...i, label: op.label, prompt: op.prompt, ...(op.sourceLanguage === undefined ? {} : { sourceLanguage: op.sourceLanguage }) } : i,
        );
        break;
      }
      // A service that has the route (the fallback is the executor's, tested against the emulator).
      case 'style_rules.delete_instruction': {
        const s = style(op.styleId);
        s.instructions = s.instructions.filter((i) => i.id !== op.instructionId);
        break;
      }
      case 'style_rules.delete':
        if (!styles.delete(op.styleId)) throw new Error('404: style rules');
        break;
    }
    done.add(op.key);
  }
  const entries = new Map<string, Entries>();
  for (const g of glossaries.values()) for (const [pair, dict] of g.dicts) entries.set(`${g.id}/${pair}`, dict);
  return {
    glossaries: [...glossaries.values()].map((g) => ({
      id: g.id,
      name: g.name,
      api: g.api,
      creationTime: g.creationTime,
      dictionaries: [...g.dicts].map(([pair, dict]) => {
        const [sourceLang = '', targetLang = ''] = pair.split('-');
        return { sourceLang, targetLang, entryCount: dict.size };
      }),
    })),
    styleRules: [...styles.values()].map((s) => ({
      id: s.id,
      name: s.name,
      language: s.language,
      version: s.version,
      configuredRules: s.configuredRules,
      customInstructions: s.instructions,
      creationTime: s.creationTime,
      updatedTime: s.creationTime,
    })),
    entries,
  };
}
