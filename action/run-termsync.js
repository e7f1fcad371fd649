#!/usr/bin/env node
// The main step of the termsync GitHub Action (../action.yml). It runs `termsync` (found on PATH),
// writes the job summary, the pull-request comment body and the step outputs. It never fails the
// step itself: the action's last step does, after the comment and the label are posted.
//
// Inputs (environment): INPUT_COMMAND (validate | plan | apply), INPUT_DIRECTORY, INPUT_TARGET,
// INPUT_ARGS (further options, split on whitespace), INPUT_IDS_FILE; the GitHub files
// GITHUB_OUTPUT and GITHUB_STEP_SUMMARY; RUNNER_TEMP for the plan files.
//
// Outputs: exitcode; has_changes and has_destroy ("true"/"false", read from the saved plan JSON, so
// they are right even when a guard blocks the plan with exit 4; empty when no plan was made);
// plan-json, plan-markdown, comment-file, marker (what the comment is found by), label, ids-file.
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const MEANING = {
  0: 'success',
  1: 'internal error (a bug in termsync)',
  2: 'changes are present',
  3: 'invalid configuration or input: nothing was sent to the service',
  4: 'blocked by a safety guard: nothing was applied',
  5: 'the saved plan is stale, or another termsync run holds the lock',
  6: 'apply incomplete: some operations failed after retries',
  7: 'authentication, permission or destination error',
};

const LABELS = { none: 'glossary:no-changes', changes: 'glossary:changes', destroy: 'glossary:destroy' };

function input(name, fallback = '') {
  const value = process.env[`INPUT_${name}`];
  return value === undefined || value.trim() === '' ? fallback : value.trim();
}

function requireFile(variable) {
  const path = process.env[variable];
  if (!path) throw new Error(`${variable} is not set: this script runs as a step of the termsync action`);
  return path;
}

/** What of termsync's stderr is kept to find the first error line (the log has all of it). */
const STDERR_KEPT = 64 * 1024;

/** Runs termsync; stdout and stderr are captured and echoed to the log (stderr: its first 64 KiB kept). */
function termsync(argv) {
  console.log(`$ termsync ${argv.join(' ')}`);
  return new Promise((done, fail) => {
    const child = spawn('termsync', argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      process.stdout.write(chunk);
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => {
      if (stderr.length < STDERR_KEPT) stderr += chunk.slice(0, STDERR_KEPT - stderr.length);
      process.stderr.write(chunk);
    });
    child.on('error', fail);
    child.on('close', (code, signal) => done({ code: code ?? (signal ? 1 : 0), stdout, stderr }));
  });
}

/**
 * The line of termsync's stderr that says why it failed: the first located problem
 * (`file:line:col: error: …`), `Error: …` line or error-level log message (a JSON line, or a human
 * one: `error: …`), in the order they
 * came; else the last line that is not a log line. Control characters become `?`, and it is cut to
 * 500 characters. Empty when stderr has nothing.
 */
export function firstErrorLine(stderr) {
  const lines = stderr.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== '');
  let fallback = '';
  for (const line of lines) {
    let message;
    if (line.startsWith('{')) {
      try {
        const record = JSON.parse(line);
        if (typeof record.level === 'number' && record.level >= 50 && typeof record.msg === 'string') message = record.msg;
        else continue;
      } catch {
        // not a log line
      }
    }
    // A log line as termsync writes it beside human output (`warning: …`, `error: …`).
    const human = /^(trace|debug|info|warning|error|fatal): (.*)$/.exec(line);
    if (human !== null) {
      if (human[1] === 'error' || human[1] === 'fatal') message = human[2];
      else continue;
    }
    if (message === undefined && (/^Error: /.test(line) || /^\S.*:\d+:\d+: error: /.test(line) || /^\S+:[^\s:]+![A-Z]+\d+: error: /.test(line))) message = line;
    if (message !== undefined) return clip(message);
    fallback = line;
  }
  return clip(fallback);
}

function clip(text) {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
  return clean.length > 500 ? `${clean.slice(0, 499)}…` : clean;
}

/** A code fence longer than any run of backticks in the text. */
function fenced(text, info = 'text') {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${info}\n${text.replace(/\n$/, '')}\n${fence}`;
}

/** The hidden line the plan comment is found by: exact for one named target, a prefix otherwise. */
function markerFor(target) {
  return target === '' ? '<!-- termsync-plan target=' : `<!-- termsync-plan target=${encodeURIComponent(target)} -->`;
}

/** What the saved plan says: changes at all, and anything deleted or replaced. */
export function readPlanFacts(planJson) {
  if (!existsSync(planJson)) return { hasChanges: '', hasDestroy: '' };
  const plan = JSON.parse(readFileSync(planJson, 'utf8'));
  const changes = plan.changes ?? [];
  const destroys = changes.some(
    (c) => c.action === 'delete' || c.action === 'replace' || (c.dictionaries ?? []).some((d) => d.action === 'delete'),
  );
  return { hasChanges: String((plan.operations ?? []).length > 0), hasDestroy: String(destroys) };
}

export function labelFor(facts) {
  if (facts.hasChanges === '') return '';
  if (facts.hasDestroy === 'true') return LABELS.destroy;
  return facts.hasChanges === 'true' ? LABELS.changes : LABELS.none;
}

/** The comment of a plan that could not be made: the exit code, what it means, and the first error line. */
export function failureComment(marker, target, command, code, stderr = '') {
  const what = target === '' ? '' : ` for target ${target.replace(/[^\w .:-]/g, '')}`;
  const why = firstErrorLine(stderr);
  return [
    marker.endsWith('-->') ? marker : `${marker} -->`,
    `### termsync ${command}${what}`,
    '',
    `**termsync ${command} failed with exit code ${code}: ${MEANING[code] ?? 'unexpected exit code'}.**`,
    '',
    ...(why === '' ? ['The job log says why.'] : [fenced(why), '', 'The job log has the rest.']),
    '',
  ].join('\n');
}

/**
 * The termsync command lines the action runs for its inputs (plan files in `work`): one for
 * validate and plan, two for apply (plan, then apply exactly that plan).
 */
export function commandLines({ command, directory = '.', target = '', args = '', work, idsFile }) {
  if (!['validate', 'plan', 'apply'].includes(command)) {
    throw new Error(`expected the input "command" to be validate, plan or apply, got "${command}"`);
  }
  const common = ['--dir', directory, ...(target === '' ? [] : ['--target', target]), ...args.split(/\s+/).filter((a) => a !== '')];
  if (command === 'validate') return [['validate', '--format', 'github', ...common]];
  const plan = ['plan', '--format', 'markdown', '--out', join(work, 'plan.json'), '--detailed-exitcode', ...common];
  if (command === 'plan') return [plan];
  return [plan, ['apply', join(work, 'plan.json'), '--ids-out', idsFile ?? join(work, 'ids.json'), ...common]];
}

async function main() {
  const command = input('COMMAND', 'plan');
  const target = input('TARGET');
  const outputFile = requireFile('GITHUB_OUTPUT');
  const summaryFile = requireFile('GITHUB_STEP_SUMMARY');
  const work = join(requireFile('RUNNER_TEMP'), 'termsync');
  mkdirSync(work, { recursive: true });
  const ids = input('IDS_FILE') === '' ? undefined : resolve(input('IDS_FILE'));
  const lines = commandLines({ command, directory: input('DIRECTORY', '.'), target, args: input('ARGS'), work, idsFile: ids });
  const outputs = { exitcode: '', has_changes: '', has_destroy: '', 'plan-json': '', 'plan-markdown': '', 'comment-file': '', marker: '', label: '', 'ids-file': '' };
  const summary = [];

  if (command === 'validate') {
    const run = await termsync(lines[0]);
    outputs.exitcode = String(run.code);
    const last = run.stdout.trim().split('\n').at(-1) ?? '';
    summary.push('### termsync validate', '', run.code === 0 ? `✅ ${last}` : `❌ ${last} See the annotations on the changed files.`);
  } else {
    if (!process.env.TERMSYNC_ALLOWED_HOSTS) {
      console.log('::warning title=termsync::TERMSYNC_ALLOWED_HOSTS is not set: termsync sends the key to whatever URL the target names. Set it to the service host (see docs/ci.md).');
    }
    const planJson = join(work, 'plan.json');
    const planMarkdown = join(work, 'plan.md');
    // A plan file left by an earlier step of this job must not pass for this one.
    rmSync(planJson, { force: true });
    const plan = await termsync(lines[0]);
    writeFileSync(planMarkdown, plan.stdout);
    const facts = readPlanFacts(planJson);
    const marker = markerFor(target);
    // A plan blocked by a guard (exit 4) is still rendered, with the violations; other failures are not.
    const rendered = plan.stdout.startsWith('<!-- termsync-plan') ? plan.stdout : failureComment(marker, target, 'plan', plan.code, plan.stderr);
    Object.assign(outputs, {
      exitcode: String(plan.code),
      has_changes: facts.hasChanges,
      has_destroy: facts.hasDestroy,
      'plan-json': existsSync(planJson) ? planJson : '',
      'plan-markdown': planMarkdown,
      marker,
      label: labelFor(facts),
    });
    summary.push(rendered);
    if (command === 'plan') {
      const comment = join(work, 'comment.md');
      writeFileSync(comment, rendered);
      outputs['comment-file'] = comment;
    } else if (plan.code === 0 || plan.code === 2) {
      // Exactly the plan shown above; apply refuses it (exit 5) if the service changed meanwhile.
      const apply = await termsync(lines[1]);
      outputs.exitcode = String(apply.code);
      const idsFile = ids ?? join(work, 'ids.json');
      if (existsSync(idsFile)) outputs['ids-file'] = idsFile;
      const outcome = apply.code === 0 ? 'complete' : `exit code ${apply.code}, ${MEANING[apply.code] ?? 'unexpected exit code'}`;
      summary.push('', `#### Apply: ${outcome}`, '', fenced(apply.stdout));
    }
  }

  appendFileSync(summaryFile, `${summary.join('\n')}\n`);
  appendFileSync(outputFile, Object.entries(outputs).map(([name, value]) => `${name}=${value}\n`).join(''));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error) => {
    console.log(`::error title=termsync action::${String(error instanceof Error ? error.message : error).replace(/%/g, '%25').replace(/\r?\n/g, '%0A')}`);
    process.exitCode = 1;
  });
}
