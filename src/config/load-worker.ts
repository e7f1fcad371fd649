/**
 * Worker thread body: reads batches of entries files for the loader (see parallel-load.ts). Runs
 * the very same code as the main thread, so the outcome of a file does not depend on which thread
 * read it; entries travel back packed (see packBatch).
 */
import { parentPort } from 'node:worker_threads';
import { packBatch, type BatchReply, type BatchRequest } from './parallel-load.js';
import { readEntriesBatch } from './read-entries.js';

const port = parentPort;
if (port === null) throw new Error('load-worker.js runs as a worker thread only');
const dirCache = new Map<string, string | null>();
port.on('message', (request: BatchRequest) => {
  const reply: BatchReply = { id: request.id, ...packBatch(readEntriesBatch(request.jobs, dirCache)) };
  port.postMessage(reply);
});
