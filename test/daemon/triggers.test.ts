import { describe, expect, it } from 'vitest';
import { mergeRequests, pullOnly, requestFor, TRIGGERS, webhookRequest } from '../../src/daemon/triggers.js';

describe('run requests', () => {
  it('a file change asks for the files it names, nothing more', () => {
    expect(requestFor('files', ['a.tsv'])).toEqual({ trigger: 'files', full: false, fetch: false, fresh: false, files: new Set(['a.tsv']) });
  });

  it('fold into one run that covers each: labelled by the first trigger, or the first full one', () => {
    const files = mergeRequests(requestFor('files', ['a.tsv']), requestFor('files', ['b.tsv']));
    expect(files).toMatchObject({ trigger: 'files', full: false, files: new Set(['a.tsv', 'b.tsv']) });
    const scheduled = mergeRequests(files, requestFor('schedule'));
    expect(scheduled).toMatchObject({ trigger: 'schedule', full: true, fetch: true, fresh: false, files: new Set(['a.tsv', 'b.tsv']) });
    // SIGHUP after a queued scheduled run: the run keeps its label and reads every file.
    expect(mergeRequests(scheduled, requestFor('reload'))).toMatchObject({ trigger: 'schedule', full: true, fresh: true });
  });

  it('a git tick folded into a queued retry still fetches', () => {
    expect(mergeRequests(requestFor('retry'), requestFor('git'))).toMatchObject({ trigger: 'retry', full: true, fetch: true });
    expect(mergeRequests(requestFor('git'), requestFor('reload'))).toMatchObject({ trigger: 'reload', full: true, fetch: true, fresh: true });
  });

  it('full runs are those that repair drift: start-up, schedule, retry, reload, POST /reconcile', () => {
    expect(Object.entries(TRIGGERS).filter(([, p]) => p.full).map(([t]) => t)).toEqual(['startup', 'schedule', 'retry', 'reload', 'api']);
    expect(Object.entries(TRIGGERS).filter(([, p]) => p.fetch).map(([t]) => t)).toEqual(['startup', 'schedule', 'git', 'webhook', 'api']);
  });

  it('a push webhook is a pull with --git-pull (no run when it brings nothing), else a full run; folded into a full request it is that run', () => {
    expect(webhookRequest(true)).toMatchObject({ trigger: 'webhook', full: false, fetch: true });
    expect(pullOnly(webhookRequest(true))).toBe(true);
    expect(webhookRequest(false)).toMatchObject({ trigger: 'webhook', full: true, fetch: true });
    expect(pullOnly(webhookRequest(false))).toBe(false);
    expect(pullOnly(mergeRequests(webhookRequest(true), requestFor('schedule')))).toBe(false);
    // A file change queued before a webhook without --git-pull: the run covers everything.
    expect(mergeRequests(requestFor('files', ['a.tsv']), webhookRequest(false))).toMatchObject({ trigger: 'webhook', full: true });
  });
});
