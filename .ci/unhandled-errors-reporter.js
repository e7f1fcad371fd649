// A vitest reporter for .ci/run: writes the errors vitest caught outside any test (an uncaught
// exception or an unhandled rejection after a test ended) to the file named by
// TERMSYNC_CI_UNHANDLED, as JSON. vitest exits 1 for them, but its JSON report still says
// `success: true` and counts no failure (its run-end reason too is "passed"), so .ci/summarize.js
// reads them from here.
import { writeFileSync } from 'node:fs';

export default class UnhandledErrorsReporter {
  onTestRunEnd(_modules, unhandledErrors, reason) {
    const file = process.env.TERMSYNC_CI_UNHANDLED;
    if (file === undefined || file === '') return;
    const text = (value) => (typeof value === 'string' ? value : undefined);
    const errors = (unhandledErrors ?? []).map((error) => ({
      type: text(error?.type) ?? 'Unhandled error',
      name: text(error?.name) ?? 'Error',
      message: text(error?.message) ?? String(error),
      // Set by vitest when the error came while a test ran (or from what a test left behind).
      file: text(error?.VITEST_TEST_PATH),
      test: text(error?.VITEST_TEST_NAME),
    }));
    writeFileSync(file, `${JSON.stringify({ reason, unhandledErrors: errors })}\n`);
  }
}
