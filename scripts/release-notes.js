#!/usr/bin/env node
// The notes of a release, from CHANGELOG.md, and the checks that the tag may be released:
//
//   node scripts/release-notes.js vX.Y.Z [--out FILE]
//
// The tag must be vX.Y.Z of the version in package.json, and CHANGELOG.md must have a dated section
// `## [X.Y.Z] - YYYY-MM-DD` with something in it and its link at the end. Prints (or writes to
// FILE) that section's text without its heading: the body of the GitHub release. Any problem is one
// line on stderr and exit 1. The release workflow (.github/workflows/release.yml) runs it before
// anything is published; test/release/release.test.ts runs it here.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** `v1.2.3` → `1.2.3`; a pre-release or build suffix is not a release tag here. */
export function versionOfTag(tag) {
  const match = /^v(\d+\.\d+\.\d+)$/.exec(tag);
  if (match === null) throw new Error(`expected a release tag vX.Y.Z, got ${JSON.stringify(tag)}`);
  return match[1];
}

/** The text of the CHANGELOG section of `version` (without its heading), checked as described above. */
export function releaseNotes(changelog, version) {
  const lines = changelog.split(/\r?\n/);
  const escaped = version.replace(/\./g, '\\.');
  const start = lines.findIndex((line) => new RegExp(`^## \\[${escaped}\\]`).test(line));
  if (start === -1) throw new Error(`CHANGELOG.md has no section "## [${version}] - YYYY-MM-DD": move the Unreleased entries under it`);
  if (!new RegExp(`^## \\[${escaped}\\] - \\d{4}-\\d{2}-\\d{2}$`).test(lines[start])) {
    throw new Error(`CHANGELOG.md: the heading of ${version} must read "## [${version}] - YYYY-MM-DD", got ${JSON.stringify(lines[start])}`);
  }
  const next = lines.findIndex((line, i) => i > start && (/^## /.test(line) || /^\[[^\]]+\]:\s/.test(line)));
  const body = lines.slice(start + 1, next === -1 ? undefined : next).join('\n').trim();
  if (body === '') throw new Error(`CHANGELOG.md: the section of ${version} is empty`);
  if (!lines.some((line) => line.startsWith(`[${version}]: `))) throw new Error(`CHANGELOG.md has no link "[${version}]: …" at its end`);
  return `${body}\n`;
}

function main(argv) {
  const [tag, flag, out] = argv;
  if (tag === undefined || (flag !== undefined && (flag !== '--out' || out === undefined))) throw new Error('usage: node scripts/release-notes.js vX.Y.Z [--out FILE]');
  const version = versionOfTag(tag);
  const { version: packaged } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  if (packaged !== version) throw new Error(`the tag ${tag} is not the version of package.json (${packaged}): tag the commit that sets it`);
  const notes = releaseNotes(readFileSync(path.join(ROOT, 'CHANGELOG.md'), 'utf8'), version);
  if (out === undefined) process.stdout.write(notes);
  else writeFileSync(out, notes);
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    main(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`release-notes: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
