import picomatch from 'picomatch';
import type { LiveGlossary, LiveStyleRules, NotManaged, ProjectConfig, ResourceAddress } from '../model/index.js';
import { compareStrings } from './compare-strings.js';
import type { DraftChange, Refs } from './draft.js';

/**
 * Live resources the repository does not declare: deleted when the config owns them
 * (`prune: all`, or `prune: owned` and the name matches `owned_names`), otherwise listed as not managed.
 */
export function planPrune(
  config: ProjectConfig,
  glossaries: readonly LiveGlossary[],
  styleRules: readonly LiveStyleRules[],
  refs: Refs,
): { changes: DraftChange[]; notManaged: NotManaged[] } {
  // Names are not paths: `*` matches `/` too (bash mode).
  const owned = config.ownedNames === undefined ? () => false : picomatch(config.ownedNames, { bash: true, dot: true });
  const reasonFor = (name: string): string | undefined => {
    if (config.prune === 'all') return 'not declared in the repository (prune: all) → delete';
    if (config.prune === 'owned' && owned(name)) return `not declared in the repository, name matches owned_names "${config.ownedNames ?? ''}" (prune: owned) → delete`;
    return undefined;
  };
  const changes: DraftChange[] = [];
  const notManaged: NotManaged[] = [];
  for (const g of glossaries) {
    const reason = reasonFor(g.name);
    if (reason === undefined) {
      notManaged.push({ kind: 'glossary', name: g.name, id: g.id });
      continue;
    }
    const address: ResourceAddress = { kind: 'glossary', name: g.name };
    changes.push({
      change: {
        address,
        action: 'delete',
        api: g.api,
        reasons: [reason],
        liveId: g.id,
        dictionaries: [...g.dictionaries]
          .sort((a, b) => compareStrings(`${a.sourceLang}-${a.targetLang}`, `${b.sourceLang}-${b.targetLang}`))
          .map((dict) => ({
            sourceLang: dict.sourceLang,
            targetLang: dict.targetLang,
            action: 'delete',
            method: 'DELETE',
            added: 0,
            changed: 0,
            removed: dict.entryCount,
            entriesBefore: dict.entryCount,
            entriesAfter: 0,
            entryChanges: [],
          })),
        details: [],
      },
      ops: [refs.op({ type: 'glossary.delete', resource: address, glossaryId: g.id, api: g.api })],
    });
  }
  for (const s of styleRules) {
    const reason = reasonFor(s.name);
    if (reason === undefined) {
      notManaged.push({ kind: 'style_rules', name: s.name, id: s.id });
      continue;
    }
    const address: ResourceAddress = { kind: 'style_rules', name: s.name };
    changes.push({
      change: { address, action: 'delete', reasons: [reason], liveId: s.id, dictionaries: [], details: [] },
      ops: [refs.op({ type: 'style_rules.delete', resource: address, styleId: s.id })],
    });
  }
  notManaged.sort((a, b) => compareStrings(a.kind, b.kind) || compareStrings(a.name, b.name) || compareStrings(a.id, b.id));
  return { changes, notManaged };
}
