import type { Operation } from '../model/plan.js';

/** `POST /v3/glossaries`: the request an operation makes, for people reading a result. */
export function describeOperation(op: Operation): string {
  switch (op.type) {
    case 'glossary.create':
      return 'POST /v3/glossaries';
    case 'glossary_v2.create':
      return 'POST /v2/glossaries';
    case 'glossary.patch':
      return `PATCH /v3/glossaries/${op.glossaryId}`;
    case 'glossary.put_dictionary':
      return `PUT /v3/glossaries/${op.glossaryId}/dictionaries`;
    case 'glossary.delete_dictionary':
      return `DELETE /v3/glossaries/${op.glossaryId}/dictionaries?source_lang=${op.sourceLang}&target_lang=${op.targetLang}`;
    case 'glossary.delete':
      return `DELETE /${op.api}/glossaries/${op.glossaryId}`;
    case 'style_rules.create':
      return 'POST /v3/style_rules';
    case 'style_rules.rename':
      return `PATCH /v3/style_rules/${op.styleId}`;
    case 'style_rules.put_configured_rules':
      return `PUT /v3/style_rules/${op.styleId}/configured_rules`;
    case 'style_rules.create_instruction':
      return `POST /v3/style_rules/${op.styleId}/custom_instructions`;
    case 'style_rules.update_instruction':
      return `PUT /v3/style_rules/${op.styleId}/custom_instructions/${op.instructionId}`;
    case 'style_rules.delete':
      return `DELETE /v3/style_rules/${op.styleId}`;
  }
}
