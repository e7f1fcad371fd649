import type { Operation } from '../model/index.js';
import { entriesTsvBytes } from './entries-tsv.js';

export type HttpMethod = 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export function methodOf(op: Operation): HttpMethod {
  switch (op.type) {
    case 'glossary.create':
    case 'glossary_v2.create':
    case 'style_rules.create':
    case 'style_rules.create_instruction':
      return 'POST';
    case 'glossary.put_dictionary':
    case 'style_rules.put_configured_rules':
    case 'style_rules.update_instruction':
      return 'PUT';
    case 'glossary.patch':
    case 'style_rules.rename':
      return 'PATCH';
    case 'glossary.delete_dictionary':
    case 'glossary.delete':
    case 'style_rules.delete_instruction':
    case 'style_rules.delete':
      return 'DELETE';
  }
}

/** Bytes of entries (TSV) an operation uploads. */
export function uploadBytesOf(op: Operation): number {
  switch (op.type) {
    case 'glossary.create':
      return op.dictionaries.reduce((sum, d) => sum + entriesTsvBytes(d.entries), 0);
    case 'glossary_v2.create':
    case 'glossary.put_dictionary':
      return entriesTsvBytes(op.dictionary.entries);
    case 'glossary.patch':
      return op.dictionary === undefined ? 0 : entriesTsvBytes(op.dictionary.entries);
    default:
      return 0;
  }
}



/** The HTTP request an operation becomes (spec paths), for people: plan JSON and apply results. */
export function requestOf(op: Operation): { readonly method: HttpMethod; readonly path: string } {
  const id = (value: string): string => encodeURIComponent(value);
  const method = methodOf(op);
  switch (op.type) {
    case 'glossary.create':
      return { method, path: '/v3/glossaries' };
    case 'glossary_v2.create':
      return { method, path: '/v2/glossaries' };
    case 'glossary.patch':
      return { method, path: `/v3/glossaries/${id(op.glossaryId)}` };
    case 'glossary.put_dictionary':
      return { method, path: `/v3/glossaries/${id(op.glossaryId)}/dictionaries` };
    case 'glossary.delete_dictionary':
      return { method, path: `/v3/glossaries/${id(op.glossaryId)}/dictionaries?source_lang=${id(op.sourceLang)}&target_lang=${id(op.targetLang)}` };
    case 'glossary.delete':
      return { method, path: `/${op.api}/glossaries/${id(op.glossaryId)}` };
    case 'style_rules.create':
      return { method, path: '/v3/style_rules' };
    case 'style_rules.rename':
      return { method, path: `/v3/style_rules/${id(op.styleId)}` };
    case 'style_rules.put_configured_rules':
      return { method, path: `/v3/style_rules/${id(op.styleId)}/configured_rules` };
    case 'style_rules.create_instruction':
      return { method, path: `/v3/style_rules/${id(op.styleId)}/custom_instructions` };
    case 'style_rules.update_instruction':
      return { method, path: `/v3/style_rules/${id(op.styleId)}/custom_instructions/${id(op.instructionId)}` };
    case 'style_rules.delete_instruction':
      return { method, path: `/v3/style_rules/${id(op.styleId)}/custom_instructions/${id(op.instructionId)}` };
    case 'style_rules.delete':
      return { method, path: `/v3/style_rules/${id(op.styleId)}` };
  }
}
