import type { Operation, OperationType } from '../model/index.js';
import { ENDPOINTS, requestLine, requestTo, type EndpointRequest, type HttpMethod } from './endpoints.js';
import { entriesTsvBytes } from './entries-tsv.js';

/** The methods of the calls a plan makes: every operation writes. */
export type WriteMethod = Exclude<HttpMethod, 'GET'>;

type OperationOf<T extends OperationType> = Extract<Operation, { readonly type: T }>;

/**
 * The request each type of operation becomes, from the endpoint table: one row per type (the
 * mapped type says every type has one, and that each is a write). test/lib/endpoints.test.ts checks
 * that the emulator serves each.
 */
export const OPERATION_REQUESTS: { readonly [T in OperationType]: (op: OperationOf<T>) => EndpointRequest<WriteMethod> } = {
  'glossary.create': () => requestTo(ENDPOINTS.createGlossary, {}),
  'glossary_v2.create': () => requestTo(ENDPOINTS.createGlossaryV2, {}),
  'glossary.patch': (op) => requestTo(ENDPOINTS.patchGlossary, { id: op.glossaryId }),
  'glossary.put_dictionary': (op) => requestTo(ENDPOINTS.putDictionary, { id: op.glossaryId }),
  'glossary.delete_dictionary': (op) => requestTo(ENDPOINTS.deleteDictionary, { id: op.glossaryId }, { source_lang: op.sourceLang, target_lang: op.targetLang }),
  'glossary.delete': (op) => requestTo(op.api === 'v2' ? ENDPOINTS.deleteGlossaryV2 : ENDPOINTS.deleteGlossary, { id: op.glossaryId }),
  'style_rules.create': () => requestTo(ENDPOINTS.createStyleRules, {}),
  'style_rules.rename': (op) => requestTo(ENDPOINTS.renameStyleRules, { id: op.styleId }),
  'style_rules.put_configured_rules': (op) => requestTo(ENDPOINTS.putConfiguredRules, { id: op.styleId }),
  'style_rules.create_instruction': (op) => requestTo(ENDPOINTS.createInstruction, { id: op.styleId }),
  'style_rules.update_instruction': (op) => requestTo(ENDPOINTS.updateInstruction, { id: op.styleId, instructionId: op.instructionId }),
  'style_rules.delete_instruction': (op) => requestTo(ENDPOINTS.deleteInstruction, { id: op.styleId, instructionId: op.instructionId }),
  'style_rules.delete': (op) => requestTo(ENDPOINTS.deleteStyleRules, { id: op.styleId }),
};

/** The HTTP request an operation becomes (the service's paths), for people: plan JSON and apply results. */
export function requestOf(op: Operation): EndpointRequest<WriteMethod> {
  return (OPERATION_REQUESTS[op.type] as (op: Operation) => EndpointRequest<WriteMethod>)(op);
}

/** `PUT /v3/glossaries/{id}/dictionaries`, as the plan and apply's results show an operation's request. */
export function requestLineOf(op: Operation): string {
  return requestLine(requestOf(op));
}

export function methodOf(op: Operation): WriteMethod {
  return requestOf(op).method;
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
