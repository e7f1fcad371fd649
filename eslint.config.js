import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
    // The emulator is built from the spec alone: it must not share code with the client.
    files: ['src/emulator/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/api/**', '**/live/**', '**/plan/**', '**/config/**', '**/lib/canonical*'], message: 'The emulator shares no code with the client.' }] }],
    },
  },
  {
    // Planner and renderers are pure.
    files: ['src/plan/**/*.ts', 'src/report/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: ['node:fs', 'node:fs/promises', 'node:http', 'undici', 'node:process'], patterns: [{ group: ['**/api/**', '**/live/**', '**/apply/**', '**/config/**'], message: 'plan/ and report/ import only model/ and lib/.' }] }],
    },
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
  {
    // The verify checks and the pull's edits are pure too: values in, values out (reconcile/ does the I/O).
    files: ['src/verify/**/*.ts', 'src/pull/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['node:fs', 'node:fs/promises', 'node:http', 'undici', 'node:process', 'node:child_process'],
          patterns: [{ group: ['**/api/**', '**/live/**', '**/apply/**', '**/reconcile/**', '**/cli/**', '**/daemon/**'], message: 'verify/ and pull/ are pure: no I/O, no pipeline.' }],
        },
      ],
    },
  },
  {
    // Entries formats (one folder each, found through formats/registry.ts): bytes in, values out.
    // A lower layer: the loader (config/), pull/, import (cli/) and the watcher (daemon/) use it;
    // it uses only model/ and lib/, and never touches the file system (config/ reads the files).
    files: ['src/formats/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['node:fs', 'node:fs/promises', 'node:http', 'undici', 'node:process', 'node:child_process'],
          patterns: [
            {
              group: ['**/cli/**', '**/daemon/**', '**/reconcile/**', '**/config/**', '**/pull/**', '**/api/**', '**/live/**', '**/plan/**', '**/apply/**', '**/report/**', '**/verify/**', '**/emulator/**'],
              message: 'formats/ is a lower layer: it imports only model/ and lib/ (config/, pull/, cli/ and daemon/ import it).',
            },
          ],
        },
      ],
    },
  },
  {
    // Dependency direction: cli → daemon → reconcile → {config, live, plan, apply, report} → {formats, api, model, lib}.
    files: ['src/reconcile/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/cli/**', '**/daemon/**'], message: 'reconcile/ returns outcomes; only cli/ and daemon/ use them.' }] }],
    },
  },
  {
    files: ['src/daemon/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/cli/**'], message: 'The daemon does not depend on the CLI.' },
            { group: ['**/lib/virtual-clock*'], message: "The test clock is injected, never imported: the daemon's time is a TimerClock (lib/clock.ts)." },
          ],
        },
      ],
    },
  },
  {
    files: ['src/{api,apply,config,live,lib,model}/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/cli/**', '**/daemon/**', '**/reconcile/**'], message: 'Lower layers do not import the pipeline owner or its callers.' }] }],
    },
  },
  {
    // After the block above, which it extends for live/ (a later block's rule replaces an earlier one's).
    // The live fetch only fetches: comparing what it reads is the planner's (plan/compare/), handed to it by the caller.
    files: ['src/live/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/cli/**', '**/daemon/**', '**/reconcile/**', '**/plan/**'], message: 'live/ fetches; the comparison is plan/compare/, passed in by reconcile/.' }] }],
    },
  },
);
