#!/usr/bin/env node
// The floor of loading a TBX file or a workbook with the libraries termsync must use: the XML
// read by saxes and nothing else (for a workbook, its parts taken out of the zip by yauzl and
// inflated by zlib first), handlers that only count tags and text. No entries, no checks. Run in a
// fresh process by bench/load-formats.js next to the real loads; prints one JSON line: CPU time
// (ms, all threads: process.cpuUsage) of the reading alone, XML bytes, tags.
//
//   node bench/xml-floor.js FILE.tbx|FILE.xlsx
import { readFile } from 'node:fs/promises';
import { TextDecoder } from 'node:util';
import { createInflateRaw } from 'node:zlib';
import { SaxesParser } from 'saxes';
import yauzl from 'yauzl';

const PIECE = 16 * 1024; // what termsync gives saxes at a time
const file = process.argv[2];

let tags = 0;
let texts = 0;
let bytes = 0;

function parser() {
  const p = new SaxesParser({ xmlns: false, position: true });
  p.on('opentag', () => tags++);
  p.on('text', () => texts++);
  p.on('error', (err) => {
    throw err;
  });
  return p;
}

function feed(p, text) {
  for (let at = 0; at < text.length; at += PIECE) p.write(text.slice(at, at + PIECE));
}

async function tbx() {
  const data = await readFile(file);
  bytes += data.length;
  const p = parser();
  feed(p, data.toString('utf8'));
  p.close();
}

/** Every XML part a sheet's terms live in: the worksheets and the shared strings. */
const wanted = (name) => /^xl\/(worksheets\/[^/]+\.xml|sharedStrings\.xml)$/.test(name);

async function workbook() {
  const data = await readFile(file);
  const zip = await new Promise((resolve, reject) => yauzl.fromBuffer(data, { lazyEntries: true, decodeStrings: true }, (e, z) => (e ? reject(e) : resolve(z))));
  await new Promise((resolve, reject) => {
    zip.on('error', reject);
    zip.on('end', resolve);
    zip.on('entry', (entry) => {
      if (!wanted(entry.fileName)) return zip.readEntry();
      zip.openReadStream(entry, { decompress: false }, (err, raw) => {
        if (err) return reject(err);
        const p = parser();
        const decoder = new TextDecoder('utf-8', { fatal: true });
        const inflate = entry.compressionMethod === 8 ? raw.pipe(createInflateRaw({ chunkSize: 64 * 1024 })) : raw;
        inflate.on('data', (chunk) => {
          bytes += chunk.length;
          feed(p, decoder.decode(chunk, { stream: true }));
        });
        inflate.on('end', () => {
          p.write(decoder.decode());
          p.close();
          zip.readEntry();
        });
        inflate.on('error', reject);
      });
    });
    zip.readEntry();
  });
}

const cpu = process.cpuUsage();
await (file.endsWith('.xlsx') ? workbook() : tbx());
const used = process.cpuUsage(cpu);
console.log(JSON.stringify({ cpu: (used.user + used.system) / 1000, xmlBytes: bytes, tags, texts, rss: process.resourceUsage().maxRSS / 1024 }));
