import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // The reliability suite has its own config (`npm run test:reliability`).
    exclude: [...configDefaults.exclude, 'test/reliability/**'],
    environment: 'node',
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // The suite must stay well under five minutes on two cores.
    maxWorkers: 2,
  },
});
