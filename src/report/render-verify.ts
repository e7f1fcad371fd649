import type { CheckResult, VerifyBudget } from '../model/verify.js';
import { displayPhrase } from './format-plan.js';
import { stableJson } from './stable-json.js';

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function quoted(text: string): string {
  return `"${displayPhrase(text)}"`;
}

/** The line printed before anything is sent: what the run will cost. */
export function renderVerifyBudget(target: string, budget: VerifyBudget): string {
  return `Verify target "${displayPhrase(target)}": ${plural(budget.checks, 'translation')}, ${plural(budget.characters, 'character')} to send (limit ${budget.maxCharacters} per run, verify.max_characters).\n`;
}

/** Why a run over the cap sent nothing, and what to do. */
export function renderVerifyOverCap(target: string, budget: VerifyBudget): string {
  return (
    `Verify refused for target "${displayPhrase(target)}": the checks would send ${budget.characters} characters, more than the limit of ${budget.maxCharacters} (verify.max_characters); nothing was sent. ` +
    'Ask for a smaller --sample, or raise the limit (verify.max_characters in the config, or --max-characters) if the account\'s quota allows.\n'
  );
}

function title(result: CheckResult): string {
  const c = result.check;
  const pair = `${c.sourceLang} → ${c.targetLang}`;
  if (c.kind === 'test') {
    const where = c.origin === undefined ? '' : `  (${displayPhrase(c.origin.file)}:${c.origin.line})`;
    return `${displayPhrase(c.glossary)} · test ${c.index ?? '?'} · ${pair}${where}`;
  }
  const [source = '', target = ''] = c.entry ?? [];
  return `${displayPhrase(c.glossary)} · entry ${quoted(source)} → ${quoted(target)} · ${pair}`;
}

function details(result: CheckResult): string[] {
  const pad = (label: string, text: string): string => `        ${`${label}:`.padEnd(13)}${text}`;
  if (result.problem !== undefined) return [pad('not sent', displayPhrase(result.problem))];
  const c = result.check;
  const lines: string[] = [];
  if (c.kind === 'test') lines.push(pad('text', displayPhrase(c.text)));
  lines.push(pad('translation', displayPhrase(result.translation ?? '')));
  if (c.kind === 'sample') {
    const untouched = (result.translation ?? '').trim() === c.text.trim();
    lines.push(
      pad(
        'not applied',
        untouched
          ? 'the source came back unchanged: the glossary never matched it (check its casing, spacing and length)'
          : `the target phrase ${quoted(c.expect[0] ?? '')} is not in the translation of the source alone`,
      ),
    );
    return lines;
  }
  for (const term of result.missing) lines.push(pad('missing', `${quoted(term)} is expected in the translation but not there`));
  for (const term of result.forbidden) lines.push(pad('forbidden', `${quoted(term)} must not appear in the translation, but does`));
  return lines;
}

/** One line per check (failures with the text, the translation and what is wrong), then the totals. */
export function renderVerifyText(target: string, results: readonly CheckResult[], budget: VerifyBudget): string {
  const lines: string[] = [];
  for (const result of results) {
    lines.push(`${result.status === 'pass' ? 'PASS' : 'FAIL'}  ${title(result)}`);
    if (result.status === 'fail') lines.push(...details(result));
  }
  const failed = results.filter((r) => r.status === 'fail').length;
  const summary = `${results.length - failed} passed, ${failed} failed (${plural(results.length, 'check')}, ${plural(budget.characters, 'character')} sent to target "${displayPhrase(target)}").`;
  lines.push(failed === 0 ? `Verify passed: ${summary}` : `Verify failed: ${summary}`);
  return `${lines.join('\n')}\n`;
}

/** The results as JSON (snake_case), for scripts. */
export function renderVerifyJson(target: string, results: readonly CheckResult[], budget: VerifyBudget): string {
  return stableJson({
    target,
    characters: budget.characters,
    max_characters: budget.maxCharacters,
    passed: results.filter((r) => r.status === 'pass').length,
    failed: results.filter((r) => r.status === 'fail').length,
    checks: results.map((r) => ({
      kind: r.check.kind,
      glossary: r.check.glossary,
      source_lang: r.check.sourceLang,
      target_lang: r.check.targetLang,
      text: r.check.text,
      expect: r.check.expect,
      forbid: r.check.forbid,
      ...(r.check.index === undefined ? {} : { index: r.check.index }),
      ...(r.check.origin === undefined ? {} : { file: r.check.origin.file, line: r.check.origin.line }),
      status: r.status,
      ...(r.translation === undefined ? {} : { translation: r.translation }),
      missing: r.missing,
      forbidden: r.forbidden,
      ...(r.problem === undefined ? {} : { problem: r.problem }),
    })),
  });
}
