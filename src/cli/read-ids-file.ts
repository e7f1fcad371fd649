import { readFile } from 'node:fs/promises';
import * as z from 'zod';
import { InputError } from '../lib/errors.js';
import type { KeepIds } from '../plan/index.js';

const idsFile = z.object({
  glossaries: z.record(z.string(), z.string()).default({}),
  style_rules: z.record(z.string(), z.string()).default({}),
});

/**
 * The ids file an earlier `apply --ids-out` wrote (`{glossaries: {name: id}, style_rules: {name: id}}`):
 * among live duplicates of a declared name, the one it names is kept, as consumers were given that
 * id. `missingOk`: a file that does not exist yet (the first apply) is no ids at all.
 */
export async function readIdsFile(path: string, options: { missingOk: boolean }): Promise<KeepIds | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && options.missingOk) return undefined;
    throw new InputError('ids_file_unreadable', `cannot read the ids file ${path}: ${code ?? 'unreadable'}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InputError('ids_file_invalid', `${path}: the ids file is not JSON: ${(error as Error).message}`);
  }
  const result = idsFile.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue === undefined || issue.path.length === 0 ? '(top level)' : issue.path.join('.');
    throw new InputError('ids_file_invalid', `${path}: not an ids file as \`apply --ids-out\` writes it: ${where}: ${issue?.message ?? 'invalid'}`);
  }
  return { glossaries: result.data.glossaries, styleRules: result.data.style_rules };
}
