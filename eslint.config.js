import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The rooms of src/ and what each may import: an allow-list, complete by construction (lint forbids
// every other room), in the order of the arrows cli → daemon → reconcile → {config, live, plan,
// apply, pull, verify, report} → {formats, api, model, lib}. docs/architecture.md shows this table
// (test/docs/architecture.test.ts keeps the two equal). `never` adds what a room must not touch
// beyond other rooms: pure rooms do no I/O; the emulator shares no code with the client.
const NO_IO = ['node:fs', 'node:fs/promises', 'node:http', 'undici', 'node:process', 'node:child_process'];
const ROOMS = {
  cli: { may: ['api', 'apply', 'config', 'daemon', 'emulator', 'formats', 'lib', 'live', 'model', 'plan', 'pull', 'reconcile', 'report', 'verify'] },
  daemon: { may: ['api', 'apply', 'config', 'formats', 'lib', 'model', 'reconcile', 'report'], never: { patterns: ['**/lib/virtual-clock*'] }, why: "The test clock is injected, never imported: the daemon's time is a TimerClock (lib/clock.ts)." },
  reconcile: { may: ['api', 'apply', 'config', 'lib', 'live', 'model', 'plan', 'pull', 'verify'] },
  config: { may: ['formats', 'lib', 'model'] },
  formats: { may: ['lib', 'model'], never: { paths: NO_IO }, why: 'formats/ is bytes in, values out: config/ reads the files.' },
  api: { may: ['lib', 'model'] },
  live: { may: ['lib', 'model'] },
  plan: { may: ['lib', 'model'], never: { paths: NO_IO }, why: 'plan/ is pure.' },
  apply: { may: ['api', 'lib', 'model'] },
  pull: { may: ['config', 'formats', 'lib', 'model', 'plan'], never: { paths: NO_IO }, why: 'pull/ is pure: reconcile/ writes its edits.' },
  verify: { may: ['lib', 'model'], never: { paths: NO_IO }, why: 'verify/ is pure: reconcile/ sends its checks.' },
  report: { may: ['lib', 'model'], never: { paths: NO_IO }, why: 'report/ is pure: it renders values.' },
  model: { may: [] },
  lib: { may: ['model'] },
  emulator: { may: ['lib'], never: { patterns: ['**/lib/canonical*'] }, why: 'The emulator shares no code with the client.' },
};

const folders = readdirSync(new URL('./src/', import.meta.url), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
const unlisted = folders.filter((room) => !(room in ROOMS));
if (unlisted.length > 0) throw new Error(`eslint.config.js: add ${unlisted.map((r) => `src/${r}/`).join(', ')} to ROOMS (what it may import)`);

/** The rule that forbids `room` every other room (and what its `never` names), plus `extra` for a part of it. */
function restrictedImports(room, extra) {
  const { may, never = {}, why } = ROOMS[room];
  const others = folders.filter((other) => other !== room && !may.includes(other)).sort();
  const patterns = [{ group: others.map((other) => `**/${other}/**`), message: `${room}/ may import only ${may.length > 0 ? may.map((m) => `${m}/`).join(', ') : 'no other room'} (docs/architecture.md).` }];
  if (never.patterns) patterns.push({ group: never.patterns, message: why });
  if (extra?.patterns) patterns.push({ group: extra.patterns, message: extra.message });
  const paths = [...new Set([...(never.paths ?? []), ...(extra?.paths ?? [])])];
  return ['error', { ...(paths.length > 0 ? { paths } : {}), patterns: patterns.filter((p) => p.group.length > 0) }];
}

const layering = () => Object.keys(ROOMS).map((room) => ({ files: [`src/${room}/**/*.ts`], rules: { 'no-restricted-imports': restrictedImports(room) } }));

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', 'node_modules/', 'bench/results/', 'bench/out/'] },
  js.configs.recommended,
  {
    files: ['**/*.ts'],
    extends: [...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        { selector: "CallExpression[callee.object.name='process'][callee.property.name='exit']", message: 'Only the CLI sets process.exitCode; never call process.exit().' },
      ],
    },
  },
  {
    files: ['**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', AbortController: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', fetch: 'readonly' } },
  },
  {
    // CommonJS: bin/ (bin/package.json) and the bundle's CommonJS loader (scripts/bundle.js).
    files: ['bin/**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', __dirname: 'readonly', __filename: 'readonly' } },
  },
  {
    // Pure in what they touch too, not only in what they import: no clock, no process, no timers,
    // no randomness (the caller passes the time, the signal or the seed it needs).
    files: ['src/plan/**/*.ts', 'src/report/**/*.ts', 'src/model/**/*.ts'],
    rules: {
      'no-restricted-globals': [
        'error',
        ...['Date', 'process', 'performance', 'setTimeout', 'setInterval', 'setImmediate', 'clearTimeout', 'clearInterval', 'clearImmediate'].map((name) => ({
          name,
          message: 'plan/, report/ and model/ are pure: the caller passes the time or the value it needs.',
        })),
      ],
      'no-restricted-syntax': [
        'error',
        { selector: "CallExpression[callee.object.name='process'][callee.property.name='exit']", message: 'Only the CLI sets process.exitCode; never call process.exit().' },
        { selector: "MemberExpression[object.name='Math'][property.name='random']", message: 'plan/, report/ and model/ are pure: randomness comes from the caller.' },
      ],
    },
  },
  {
    // One room per concern: files and functions small enough to read whole, everywhere in src/.
    files: ['src/**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 450 }],
      'max-lines-per-function': ['error', { max: 120 }],
    },
  },
  ...layering(),
  {
    // The dashboard's pages are pure functions of the daemon's state (dashboard-routes.ts serves them):
    // no I/O, no process, no pipeline. (After the daemon's block, whose rule this one replaces for these files.)
    files: ['src/daemon/dashboard/render-*.ts', 'src/daemon/dashboard/{html,format-dashboard,dashboard-state,dashboard-css}.ts'],
    rules: {
      'no-restricted-imports': restrictedImports('daemon', {
        paths: [...NO_IO, 'node:net'],
        patterns: ['**/api/**', '**/live/**', '**/apply/**', '**/config/**', '**/start-daemon*', '**/serve-endpoints*'],
        message: "The dashboard's pages draw the state they are given: no I/O, no pipeline.",
      }),
    },
  },
);
