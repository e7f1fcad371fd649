// How a `plan` went against a throttling service: from the emulator's request log (arrival times,
// statuses) the request phase against its lower bound, the pauses, and pauses nobody asked for;
// from the client's trace log, requests sent during a pause it was asked for. (The service cannot
// tell the latter: on a busy machine a request can arrive 100 ms and more after it left, when the
// refusal that closed the gate had not yet been read.) Used by bench/run.js.

/** How much later than the pause a refusal asked for the next request may arrive: the refusal's answer on its way, timers on a busy machine. */
export const PAUSE_SLACK_MS = 500;

/**
 * @param {{ time: number, status: number | string }[]} seen the requests of one run, in arrival order
 * @param {number} bound requests per second of the lower bound (the service's limit, or the rate)
 * @param {number} [retryAfterMs] the pause each refusal asks for (the emulator's Retry-After: 1)
 */
export function analyseRequests(seen, bound, retryAfterMs = 1000) {
  if (seen.length === 0) throw new Error('no requests reached the service');
  const refusals = seen.filter((e) => e.status === 429 || e.status === 529);
  const calls = seen.length - refusals.length;
  // A gap between arrivals of over the pause that no refusal explains (one that arrived before the
  // gap began and asked for a pause that ends, give or take PAUSE_SLACK_MS, when the gap does): a
  // pause nobody asked for.
  let unasked = 0;
  for (let k = 1; k < seen.length; k++) {
    const [before, after] = [seen[k - 1].time, seen[k].time];
    const asked = refusals.some((e) => e.time <= before + 50 && after <= e.time + retryAfterMs + PAUSE_SLACK_MS);
    if (after - before > retryAfterMs + 100 && !asked) unasked++;
  }
  // Rounds of refusals: refusals less than half a second apart belong to one pause.
  let rounds = 0;
  for (let k = 0; k < refusals.length; k++) if (k === 0 || refusals[k].time - refusals[k - 1].time > 500) rounds++;
  const ideal = calls / bound;
  // The request phase, as the service saw it: first arrival to last.
  const span = (seen.at(-1).time - seen[0].time) / 1000;
  return {
    calls,
    refused: refusals.length,
    rounds,
    unasked,
    span,
    ratio: span / ideal,
    // Without the one-off cost of finding a limit: the first two pauses (of 1 s) taken out.
    learned: (span - Math.min(rounds, 2) * (retryAfterMs / 1000)) / ideal,
  };
}

/**
 * Sends during a pause, by the client's own account: its trace log (`--log-level trace` with
 * `--format json`: JSON lines) says when each request left (`sending`, `at`) and, for each throttling answer, until when
 * the queue is paused (`throttled: pausing the queue`, `until`), both by the queue's clock. A
 * request that left before the gate opened again, after the answer that closed it was read, was
 * sent during a pause the service asked for. Lines that are not JSON are skipped.
 * @param {string} stderr
 * @returns {{ sends: number, throttles: number, early: number }}
 */
export function sendsDuringPauses(stderr) {
  let until = -Infinity;
  let sends = 0;
  let throttles = 0;
  let early = 0;
  for (const line of stderr.split('\n')) {
    if (!line.startsWith('{')) continue;
    let entry;
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    if (entry.msg === 'throttled: pausing the queue' && typeof entry.until === 'number') {
      throttles += 1;
      until = Math.max(until, entry.until);
    } else if (entry.msg === 'sending' && typeof entry.at === 'number') {
      sends += 1;
      if (entry.at < until) early += 1;
    }
  }
  return { sends, throttles, early };
}
