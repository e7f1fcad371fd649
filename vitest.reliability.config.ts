import { defineConfig } from 'vitest/config';

// `npm run test:reliability`: the slow, adversarial checks (fault storms, kill points, hostile
// repositories and servers, concurrent runners, the key hunt). Kept out of `npm test`.
export default defineConfig({
  test: {
    include: ['test/reliability/**/*.test.ts'],
    environment: 'node',
    setupFiles: ['test/setup/properties.ts'],
    pool: 'forks',
    // Each check spawns termsync processes of its own; two checks at a time fill two cores.
    maxWorkers: 2,
    // Generous: a check that hangs is what fails; on a shared, busy machine each run is slow.
    testTimeout: 600_000,
    hookTimeout: 60_000,
    globalSetup: ['test/reliability/global-setup.ts'],
    // The counts reporter ends the run with what was tried (CI names it again next to its JSON reporter).
    reporters: ['default', './test/reliability/counts-reporter.ts'],
  },
});
