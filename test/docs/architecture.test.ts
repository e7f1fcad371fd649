import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// docs/architecture.md cannot rot: its table of rooms names every folder of src/ and no other,
// each room's "may import" is what eslint.config.js lets that folder import (every room it does
// not refuse) and its "never" what else lint refuses it, and every folder of test/ is a room's
// mirror or one the page lists.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const doc = readFileSync(`${ROOT}docs/architecture.md`, 'utf8');

const folders = (dir: string): string[] =>
  readdirSync(`${ROOT}${dir}`, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();

/** The rows of the markdown table that follows `heading`: first cell → the row's cells. */
function tableAfter(heading: string): Map<string, string[]> {
  const start = doc.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`docs/architecture.md has no heading ${heading}`);
  const rows = new Map<string, string[]>();
  let lines = 0;
  for (const line of doc.slice(start + heading.length + 2).split('\n')) {
    if (line.startsWith('|')) {
      // The header row and the row under it are not rows of the table.
      if (++lines <= 2) continue;
      const cells = line.slice(1, -1).split(' | ').map((c) => c.trim());
      rows.set(cells[0] ?? '', cells.slice(1));
    } else if (lines > 0) break;
  }
  return rows;
}

/** `` `a/`, `b*`, `node:fs` `` → the items, without backticks. */
const items = (cell: string | undefined): string[] => [...(cell ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '').sort();

/** What eslint.config.js forbids a file of src/ROOM to import, in the page's spelling: `api/`, `lib/canonical*`, `node:fs`. */
async function forbiddenFor(eslint: ESLint, room: string): Promise<string[]> {
  const config = (await eslint.calculateConfigForFile(`src/${room}/any.ts`)) as { rules?: Record<string, unknown[]> };
  const options = (config.rules?.['no-restricted-imports'] ?? []).slice(1) as { paths?: (string | { name: string })[]; patterns?: { group: string[] }[] }[];
  return options
    .flatMap((o) => [
      ...(o.paths ?? []).map((p) => (typeof p === 'string' ? p : p.name)),
      ...(o.patterns ?? []).flatMap((p) => p.group.map((g) => g.replace(/^\*\*\//, '').replace(/\/\*\*$/, '/'))),
    ])
    .sort();
}

describe('docs/architecture.md', () => {
  const rooms = tableAfter('## The rooms');

  it('names every folder of src/ as a room, and nothing else', () => {
    const named = [...rooms.keys()].map((k) => /^`([a-z-]+)\/`$/.exec(k)?.[1] ?? `unreadable row ${k}`);
    expect(named.sort()).toEqual(folders('src'));
  });

  it('gives for each room exactly the rooms lint lets it import, and what else lint refuses it', async () => {
    const eslint = new ESLint({ cwd: ROOT });
    const all = folders('src');
    for (const room of all) {
      const [may, never] = (rooms.get(`\`${room}/\``)?.[1] ?? '').split('; never ');
      const forbidden = await forbiddenFor(eslint, room);
      const allowed = all.filter((other) => other !== room && !forbidden.includes(`${other}/`)).map((other) => `${other}/`);
      expect(items(may), `docs/architecture.md, room ${room}/: "may import" against eslint.config.js`).toEqual(allowed);
      const refusedBeyondRooms = forbidden.filter((item) => !all.some((other) => item === `${other}/`));
      expect(items(never), `docs/architecture.md, room ${room}/: "never" against eslint.config.js`).toEqual(refusedBeyondRooms);
    }
  }, 60_000);

  it('lists every folder of test/ that is not the mirror of a room of src/', () => {
    const listed = new Set([...tableAfter('## Tests').keys()].flatMap((cell) => items(cell)).map((f) => f.replace(/^test\//, '').replace(/\/$/, '')));
    const rooms = new Set(folders('src'));
    const unexplained = folders('test').filter((f) => !rooms.has(f) && !listed.has(f));
    expect(unexplained, 'folders of test/ neither named after a room of src/ nor listed under "Tests" in docs/architecture.md').toEqual([]);
  });
});
