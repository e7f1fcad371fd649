// Makes the suite's output folder and hands it to the test files (inject) and the reporter (env).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

export const OUT_ENV = 'RELIABILITY_OUT';

export default function setup(project: TestProject): void {
  const dir = mkdtempSync(join(tmpdir(), 'termsync-reliability-'));
  process.env[OUT_ENV] = dir;
  project.provide('reliabilityOut', dir);
}
