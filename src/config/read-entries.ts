import { appendDiagnostics, CappedDiagnostics, type Diagnostic, error } from '../lib/diagnostics.js';
import { TermsyncError } from '../lib/errors.js';
import { literalDigestOfBytes } from '../lib/text-digest.js';
import type { LanguagePair } from '../model/entries.js';
import type { SourceRef } from '../model/desired.js';
import { PackedEntries, type DeferredText } from '../model/packed-entries.js';
import { ConceptCollector } from '../formats/common/collect-concepts.js';
import { decodeDeclared, type TextEncodingName } from '../formats/common/text-encoding.js';
import { Interrupted } from '../formats/common/interrupted.js';
import type { EntriesFileOptions, EntriesFormat } from '../formats/entries-format.js';
import { formatNamed } from '../formats/registry.js';
import { BatchArena, decodeUtf8Files, MEMO_GROUP_BYTES } from './decode-batch.js';
import { detectSecretsInText, mayHoldSecret } from './detect-secrets.js';
import { EMPTY_DICTIONARY } from './rules/glossary-rules.js';
import { applyRules } from './rules/rule.js';
import { entriesFilePath, fileDigest, readEntriesFile, relativePath, unreadDigest, type Digested, type EntriesFileBytes, type Known } from './read-files.js';

export interface ReadEntriesOptions {
  /**
   * Keep of a TSV file whose entries are its very text only what tells a live dictionary equal to
   * it (see deferredEntries), not the text: for a plan, which compares each dictionary once.
   */
  readonly defer?: boolean;
  /**
   * Given when the load remembers its files (see load-memo.ts), one per job: the digest its file
   * had when its outcome was kept, or null. Each outcome then carries the digest of the file read;
   * a file whose digest is the known one is not decoded or parsed (`unchanged`). Text files are
   * then decoded in groups of MEMO_GROUP_BYTES: a kept text holds on to a few files of its batch at
   * most. A file vouched unchanged (`{ unread }`) is not even read: its outcome is `unchanged` with that digest.
   */
  readonly known?: readonly Known[];
  /**
   * The load's signal (on the thread that has it): a long parse of a TBX file or a workbook yields
   * to the event loop now and then, so that a signal is heard, and stops once it is aborted
   * (throwing Interrupted).
   */
  readonly signal?: AbortSignal;
}

/** One entries file to read and parse. */
export interface EntriesJob {
  readonly root: string;
  readonly rootReal: string;
  readonly resourceFile: string;
  readonly declared: string;
  readonly at: SourceRef;
  /** The dictionaries the file feeds: one for a dictionary's own file, every derived one for a glossary-level file. */
  readonly pairs: readonly LanguagePair[];
  /** A glossary-level file (outcome in `dictionaries`): always read as one concept per row or entry. */
  readonly glossaryLevel: boolean;
  /** The languages a concept should have a term in (the glossary's `languages`, or the dictionary's pair). */
  readonly languages: readonly string[];
  readonly options: EntriesFileOptions;
}

export interface EntriesOutcome {
  readonly diagnostics: Diagnostic[];
  /** Repository-relative path, when the file resolved inside the repository. */
  readonly file?: string;
  /** Present when the file was read (possibly empty), for a dictionary's own file. */
  readonly entries?: PackedEntries;
  /** Present when a glossary-level file was read: the entries of each of the job's `pairs`, in order. */
  readonly dictionaries?: PackedEntries[];
}

/**
 * What is kept of a TSV file whose entries are its very text (every line canonical, checked and
 * kept as it is), instead of the text: enough to tell a live dictionary equal to it, and to know
 * the file again when the text is needed (see deferredEntries). Plain data: it crosses threads.
 */
export interface EntriesFileCheck {
  /**
   * Literal digest (lib/text-digest.ts) of the file's text without a last LF: the entries as
   * uploaded in the order read, as a JSON string of an answer holds them.
   */
  readonly digest: string;
  /** Bytes of that JSON string (quotes included): an answer's string of another length is not it. */
  readonly literalBytes: number;
  /** The file's size in bytes, and whether its last byte is LF. */
  readonly fileBytes: number;
  readonly finalLf: boolean;
  /** Length of the entries' packed text (UTF-16 code units): the file's text, with an LF added when it has none. */
  readonly length: number;
}

/** The deferred text of a checked file, with its check (for a crossing to another thread). */
export interface EntriesFileText extends DeferredText {
  readonly check: EntriesFileCheck;
}

/**
 * Entries whose text is read again from their file when something needs it (see
 * PackedEntries.deferred): the file is read through the same checks as at first (a regular file
 * within the size limit; its folder as the load resolved it, not resolved again) and must be byte
 * for byte the file that was checked; anything else is an error, never entries of other content.
 */
export function deferredEntries(job: EntriesJob, check: EntriesFileCheck, size: number, dirCache: Map<string, string | null> = new Map()): PackedEntries {
  /** The file's bytes read again (the arena's, until the next read), checked to be the ones read at first. */
  const readBytes = (): Buffer => {
    // The bytes are never kept: one arena serves every read again (a buffer of its own per file
    // costs more than the read), and the load's folders are not resolved again.
    rereadArena.reset();
    const again = readEntriesFile(job.root, job.rootReal, job.resourceFile, job.declared, job.at, dirCache, rereadArena);
    const bytes = again.bytes;
    // Valid UTF-8 (or no bytes at all): the same text is the same bytes.
    const same = bytes !== undefined && bytes.length === check.fileBytes && (bytes.length > 0 && bytes[bytes.length - 1] === 10) === check.finalLf;
    if (!same || literalDigestOfBytes(bytes, 0, check.finalLf ? bytes.length - 1 : bytes.length).digest !== check.digest) {
      // A file that can no longer be read says why (gone, unreadable, a folder, too large now…).
      const why = bytes === undefined ? again.diagnostics.find((d) => d.severity === 'error')?.message : undefined;
      throw new TermsyncError(
        'entries_file_changed',
        `the entries file ${again.file ?? relativePath(job.root, entriesFilePath(job.root, job.resourceFile, job.declared))} (\`entries_file\` of ${job.resourceFile}) changed while termsync ran: ${why === undefined ? 'it no longer holds what was read and checked at the start' : `it can no longer be read (${why})`}, so no plan is made from it; run again`,
      );
    }
    return bytes;
  };
  const read = (): string => {
    const text = readBytes().toString('utf8');
    return check.finalLf ? text : `${text}\n`;
  };
  // Latin-1: one character per byte, copied without decoding.
  const readLatin1 = (): string => {
    const text = readBytes().toString('latin1');
    return check.finalLf ? text : `${text}\n`;
  };
  const deferred: EntriesFileText = {
    digest: check.digest,
    literalBytes: check.literalBytes,
    length: check.length,
    bytes: check.fileBytes + (check.finalLf ? 0 : 1),
    read,
    readLatin1,
    check,
  };
  return PackedEntries.deferred(deferred, size);
}

/**
 * Files of up to this many characters are deferred. A larger one is decoded alone either way (its
 * own fresh memory, kept or not), few of them make a repository, and reading one again costs more
 * than keeping it (its answer is compared whole only when it is the file as read).
 */
const DEFER_MAX_CHARS = 1024 * 1024;

/** Where this thread reads the text files of a batch (see BatchArena). */
const arena = new BatchArena();
/** Where this thread reads a deferred file again (see deferredEntries). */
const rereadArena = new BatchArena();
const EMPTY_BYTES = Buffer.alloc(0);

function isText(format: EntriesFormat): boolean {
  return format.content === 'text';
}

/** A long parse yields to the event loop at most this often (a signal's handler then runs). */
const PAUSE_EVERY_MS = 50;

/**
 * What a long parse awaits between its pieces: a turn of the event loop now and then, after which
 * an aborted load stops (Interrupted). Undefined without a signal (a worker thread is terminated).
 */
export function pauseFor(signal: AbortSignal | undefined): (() => Promise<void>) | undefined {
  if (signal === undefined) return undefined;
  let last = performance.now();
  return async () => {
    if (performance.now() - last < PAUSE_EVERY_MS) return;
    await new Promise((resolve) => setImmediate(resolve));
    last = performance.now();
    if (signal.aborted) throw new Interrupted();
  };
}

/** The declared encoding of a text file, when it is not UTF-8. */
function otherEncoding(job: EntriesJob): Exclude<TextEncodingName, 'utf-8'> | undefined {
  const encoding = job.options.encoding;
  return encoding === undefined || encoding === 'utf-8' ? undefined : encoding;
}

/**
 * Reads, checks and canonicalises a batch of entries files (synchronous file I/O, see
 * read-files.ts), one outcome per job, in order. The text files of a batch are decoded together
 * (one at a time with `defer`); a workbook is read asynchronously (its reader streams).
 */
export async function readEntriesBatch(jobs: readonly EntriesJob[], dirCache?: Map<string, string | null>, options: ReadEntriesOptions = {}): Promise<(EntriesOutcome & Digested)[]> {
  // Text files are decoded before the first await: the arena is free for the next batch from then on.
  arena.reset();
  const folders = dirCache ?? new Map<string, string | null>();
  const known = options.known;
  const reads = jobs.map((job, i): EntriesFileBytes & Digested => {
    const unread = unreadDigest(known?.[i]);
    if (unread !== undefined) return { diagnostics: [], digest: unread, unchanged: true };
    const read = readEntriesFile(job.root, job.rootReal, job.resourceFile, job.declared, job.at, folders, arena, job.options.encoding);
    if (known === undefined || read.bytes === undefined || read.file === undefined) return read;
    const digest = fileDigest(read.file, read.bytes);
    return digest === known[i] ? { file: read.file, diagnostics: [], digest, unchanged: true } : { ...read, digest };
  });
  // Text files in UTF-8 (checked): decoded here; those of another declared encoding one by one below.
  const textual = reads.filter((read, i) => read.bytes !== undefined && read.format !== undefined && isText(read.format) && otherEncoding(jobs[i] as EntriesJob) === undefined);
  const defer = options.defer === true;
  // Deferred, a file's text is garbage once checked: decoded alone, it dies young (in memory the
  // garbage collector reuses), where the joined text of many files is fresh memory each time.
  // Remembered (known), texts are kept across loads: decoded in small groups, each holding on to
  // no more than a few files of its batch (see decodeUtf8Files, MEMO_GROUP_BYTES).
  const textBytes = textual.map((read) => read.bytes as Buffer);
  const texts = defer ? textBytes.map((b) => b.toString('utf8')) : decodeUtf8Files(textBytes, known === undefined ? undefined : MEMO_GROUP_BYTES);
  // Decoded, a text file's bytes are needed no more unless they are digested for deferral (below):
  // let go of them now, so that a large file's die young instead of outliving its parse in the old
  // generation until a full collection (10 MB of a 10 MiB dictionary's first apply's peak memory).
  for (let i = 0, k = 0; i < reads.length && k < textual.length; i++) {
    const read = reads[i] as EntriesFileBytes & Digested;
    if (read !== textual[k]) continue;
    if (!(defer && (texts[k++] as string).length <= DEFER_MAX_CHARS)) reads[i] = { ...read, bytes: EMPTY_BYTES };
  }
  textual.length = 0;
  let next = 0;
  const outcomes: ((EntriesOutcome & Digested) | undefined)[] = [];
  // Multilingual files (TBX, workbook, language columns) wait here: their readers await, and every
  // use of the arena's bytes must come first (a worker's next batch may reset it meanwhile).
  const multilingual: { readonly i: number; readonly job: EntriesJob; readonly bytes: Buffer; readonly text: string | undefined; readonly format: EntriesFormat; readonly file: string; readonly digest: Digested }[] = [];
  for (const [i, read] of reads.entries()) {
    if (read.unchanged === true) {
      outcomes.push(read);
      continue;
    }
    if (read.bytes === undefined || read.format === undefined || read.file === undefined) {
      outcomes.push({ diagnostics: read.diagnostics, ...(read.file === undefined ? {} : { file: read.file }) });
      continue;
    }
    const digest = read.digest === undefined ? {} : { digest: read.digest };
    // A file that was read carries no diagnostic from reading (readEntriesFile): all come from parsing.
    const job = jobs[i] as EntriesJob;
    const encoding = otherEncoding(job);
    let text: string | undefined;
    if (isText(read.format)) {
      if (encoding === undefined) text = texts[next++];
      else {
        const decoded = decodeDeclared(read.bytes, encoding, read.file);
        if (decoded.text === undefined) {
          outcomes.push({ diagnostics: decoded.diagnostic === undefined ? [] : [decoded.diagnostic], file: read.file, ...digest });
          continue;
        }
        text = decoded.text;
      }
    }
    if (!job.glossaryLevel && text !== undefined && read.format.readEntries !== undefined) {
      const outcome = entriesOutcome(text, read.format.name, job.pairs[0] as LanguagePair, read.file, job.at, job.options);
      const entries = outcome.entries;
      // Entries that are the file's very text (TSV in UTF-8, every line kept as it is) are read again when needed.
      if (defer && encoding === undefined && entries !== undefined && entries.size > 0 && text.length <= DEFER_MAX_CHARS && (entries.text === text || (entries.text.length === text.length + 1 && entries.text === `${text}\n`))) {
        const finalLf = entries.text.length === text.length;
        // The bytes of a TSV file are the arena's: only their count is kept. Only the text as read
        // is digested, from the file's bytes (valid UTF-8, checked): the entries sorted (as termsync
        // uploads them) are made from the file read again, only for an answer that is not this text
        // (see ReadOnce in plan/compare/read-once.ts).
        const literal = literalDigestOfBytes(read.bytes, 0, finalLf ? read.bytes.length - 1 : read.bytes.length);
        const check: EntriesFileCheck = {
          digest: literal.digest,
          literalBytes: literal.bytes,
          fileBytes: read.bytes.length,
          finalLf,
          length: entries.text.length,
        };
        outcomes.push({ ...outcome, entries: deferredEntries(job, check, entries.size, folders), ...digest });
      } else outcomes.push({ ...outcome, ...digest });
    }
    // A text file's bytes are the arena's (overwritten by the next batch): only its text goes on.
    else {
      multilingual.push({ i, job, bytes: text === undefined ? read.bytes : EMPTY_BYTES, text, format: read.format, file: read.file, digest });
      outcomes.push(undefined);
    }
  }
  const pause = pauseFor(options.signal);
  for (const { i, job, bytes, text, format, file, digest } of multilingual) outcomes[i] = { ...(await conceptsOutcome(bytes, text, format, job, file, pause)), ...digest };
  return outcomes as (EntriesOutcome & Digested)[];
}

/**
 * Reads a multilingual file (TBX, workbook, CSV/TSV with language columns) into the entries of
 * each of the job's pairs. A refused file (malformed, hostile) yields no entries at all.
 */
export async function conceptsOutcome(bytes: Buffer, text: string | undefined, format: EntriesFormat, job: EntriesJob, file: string, pause?: () => Promise<void>): Promise<EntriesOutcome> {
  // At most MAX_SAME_RULE_PER_FILE per rule are listed (a file of a million duplicate rows).
  const capped = new CappedDiagnostics();
  let diagnostics: Diagnostic[] = capped;
  // A text file is scanned for credentials as a whole (every cell); of a TBX file or a workbook,
  // every term the dictionaries would take is checked (ConceptCollector). That is all of a TBX file
  // that is ever sent or written: parse-tbx.ts keeps the terms taken and nothing else (a usage
  // status only chooses among them), so its notes, definitions, descriptive and administrative
  // fields, header, attributes and the terms not taken (refused by their usage status, or not the one
  // the `terms` option chooses) reach neither the service nor any file or report (a message that
  // quotes the file, such as a concept's id or an unknown status value, goes through redactSecrets),
  // and are not scanned (test/config/secrets.test.ts holds this). A reader that starts to send or
  // write any of them must scan it here too.
  if (text !== undefined) appendDiagnostics(diagnostics, detectSecretsInText(text, file, 'a cell'));
  const { unit, item } = format.concepts;
  const collector = new ConceptCollector(file, diagnostics, job.pairs, job.languages, unit, item, text === undefined ? (term) => scanTerm(term, file) : undefined);
  // Each reader (and its XML, zip or CSV library) is loaded only for a repository that has such a file.
  const reader = await format.concepts.load();
  const { ok, locate } = await reader.read({ bytes, text }, file, collector, job.languages, job.options, diagnostics, pause);
  const maps = collector.finish();
  diagnostics = capped.close();
  if (locate !== undefined) diagnostics = locate(diagnostics);
  if (!ok) return { diagnostics, file };
  const errors = diagnostics.some((d) => d.severity === 'error');
  for (const [i, pair] of job.pairs.entries()) {
    if ((maps[i] as PackedEntries).size > 0 || errors) continue;
    diagnostics.push(
      error(
        'entries/empty-dictionary',
        `no ${item} has a term in both ${pair.sourceLang} and ${pair.targetLang}, so the dictionary ${pair.sourceLang}-${pair.targetLang} holds no entries; the service rejects a dictionary without entries`,
        job.at.file,
        job.at.line,
        job.at.column,
      ),
    );
  }
  return job.glossaryLevel ? { diagnostics, file, dictionaries: maps } : { diagnostics, file, entries: maps[0] ?? PackedEntries.EMPTY };
}

/** The credentials in one term of a multilingual file (the quick test first: a term is seldom a candidate, and then nothing is allocated for it). */
function scanTerm(term: string, file: string): readonly Diagnostic[] {
  return mayHoldSecret(term) ? detectSecretsInText(term, file, 'a term') : [];
}

/** Parses and checks the text of an entries file (pure): its outcome. */
export function entriesOutcome(text: string, format: string, pair: LanguagePair, file: string, at: SourceRef, options: EntriesFileOptions = { terms: 'preferred' }): EntriesOutcome {
  const read = formatNamed(format)?.readEntries;
  if (read === undefined) throw new Error(`${format} files are not read as the entries of one dictionary`);
  const { entries, diagnostics } = read(text, pair, file, options, (list) => appendDiagnostics(list, detectSecretsInText(text, file, 'a cell')));
  applyRules([EMPTY_DICTIONARY], { entries, diagnostics: [...diagnostics], at }, diagnostics);
  return { diagnostics, file, entries };
}
