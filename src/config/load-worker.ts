/**
 * Worker thread body: parses resource files and reads entries files for the loader (see
 * parallel-load.ts). Runs the very same code as the main thread, so the outcome of a file does not
 * depend on which thread handled it; entries travel back packed (see packBatch).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadResourceFile, type RepositoryRoot } from './load-resources.js';
import { joinTexts, packBatch } from './entries-wire.js';
import type { BatchReply, BatchRequest } from './parallel-load.js';
import { readEntriesBatch } from './read-entries.js';

const port = parentPort;
if (port === null) throw new Error('load-worker.js runs as a worker thread only');
const repo = workerData as RepositoryRoot;
const dirCache = new Map<string, string | null>();
// Batches may overlap while a workbook is read (asynchronously): replies carry their batch id.
port.on('message', (request: BatchRequest) => {
  void (async () => {
    const reply: BatchReply =
      request.kind === 'resources'
        ? { kind: 'resources', id: request.id, loaded: request.files.map((file, i) => loadResourceFile(repo, file, request.known?.[i])) }
        : { kind: 'entries', id: request.id, ...joinTexts(packBatch(await readEntriesBatch(request.jobs, dirCache, { defer: request.defer, ...(request.known === undefined ? {} : { known: request.known }) }))) };
    port.postMessage(reply);
  })();
});
