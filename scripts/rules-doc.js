#!/usr/bin/env node
// Writes docs/rules.md, the table of every validation rule, from the compiled rule table
// (dist/config/rules/rule-table.js: run `npm run build` first). test/config/rule-table.test.ts
// fails when the file is not what this writes.
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const { renderRuleTable } = await import(new URL('../dist/config/rules/rule-table.js', import.meta.url).href);
const target = fileURLToPath(new URL('../docs/rules.md', import.meta.url));
await writeFile(target, renderRuleTable());
console.log(`wrote ${target}`);
