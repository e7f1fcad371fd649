#!/usr/bin/env node
// The floor under `termsync validate` of a repository (bench/startup-floor.js runs it): what a
// process costs that does only part of what validate must do, started as bin/termsync.js is
// (`node <file>`, CommonJS, no ES module loader).
//
//   node bench/startup-floor-script.cjs libraries|yaml-bundle|yaml-package [DIR]
//
// libraries:    termsync's validate bundle (dist/bundle/plain-validate.cjs: yaml, zod and termsync's
//               schemas, csv-parse, saxes, yauzl) compiled with its code cache, as validate loads
//               it; nothing run.
// yaml-bundle:  that, and every YAML file of the repository (config/termsync.yaml, glossaries/**)
//               read and parsed with the bundle's yaml; no schema checked, no entries file read.
// yaml-package: no termsync at all: the yaml package required from node_modules (as any script
//               would), and the same files parsed with it.
'use strict';
const { readdirSync, readFileSync } = require('node:fs');
const path = require('node:path');
const process = require('node:process');

const ROOT = path.resolve(__dirname, '..');
const [mode, dir = ROOT] = process.argv.slice(2);

/** The repository's YAML files: the config and every .yaml/.yml under glossaries/. */
function yamlFiles() {
  const glossaries = path.join(dir, 'glossaries');
  const found = readdirSync(glossaries, { recursive: true })
    .map(String)
    .filter((name) => /\.ya?ml$/.test(name))
    .map((name) => path.join(glossaries, name));
  return [path.join(dir, 'config', 'termsync.yaml'), ...found];
}

function parseAll(yaml) {
  for (const file of yamlFiles()) {
    const document = yaml.parseDocument(readFileSync(file, 'utf8'));
    if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0].message}`);
  }
}

const loader = () => require(path.join(ROOT, 'dist', 'bundle', 'plain-validate-loader.cjs'));
if (mode === 'libraries') {
  loader().compilePlainValidate();
} else if (mode === 'yaml-bundle') {
  parseAll(loader().sharedLibrary('yaml'));
} else if (mode === 'yaml-package') {
  parseAll(require(require.resolve('yaml', { paths: [ROOT] })));
} else {
  process.stderr.write('usage: node bench/startup-floor-script.cjs libraries|yaml-bundle|yaml-package [DIR]\n');
  process.exitCode = 2;
}
