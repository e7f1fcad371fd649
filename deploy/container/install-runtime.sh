#!/bin/sh
# The image's install steps, in one place: the Dockerfile's build stage runs this script, and so
# does test/deploy/container-install.test.ts outside Docker, so the two cannot drift apart.
#
#   deploy/container/install-runtime.sh DEST
#
# Run it from a checkout where `npm ci` (or `npm ci --ignore-scripts && npm run build`) has run.
# It packs the package exactly as it would be published (`npm pack`: the `files` of package.json),
# unpacks it into DEST, installs its production dependencies at the versions of package-lock.json
# (from the npm cache that `npm ci` filled), and checks that the installed CLI starts (`--version`)
# and that a plain `validate`, which runs other files of the bundle, answers.
set -eu

dest=${1:?usage: install-runtime.sh DEST (an empty or missing folder)}
root=$(cd "$(dirname "$0")/../.." && pwd)

fail() {
  echo "install-runtime.sh: $*" >&2
  exit 1
}

[ -f "$root/dist/bundle/termsync.js" ] || fail "$root/dist is not built: run \`npm ci\` (it builds) or \`npm run build\` first"
[ -f "$root/package-lock.json" ] || fail "$root/package-lock.json is missing: the runtime installs the locked versions"
if [ -e "$dest" ] && [ -n "$(ls -A "$dest")" ]; then fail "$dest is not empty"; fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

# The build has run already: --ignore-scripts keeps `prepare` from compiling a second time.
(cd "$root" && npm pack --ignore-scripts --silent --pack-destination "$work" >"$work/pack.out") ||
  fail "npm pack failed"
tarball=$(tail -n 1 "$work/pack.out")
[ -f "$work/$tarball" ] || fail "npm pack did not write the tarball it named (${tarball:-nothing})"

mkdir -p "$dest"
tar -xzf "$work/$tarball" -C "$dest" --strip-components=1 --no-same-owner
cp "$root/package-lock.json" "$dest/package-lock.json"

# npm ci: exactly the locked versions, production dependencies only; --ignore-scripts: no
# lifecycle script of termsync (its `prepare` needs the dev tools) or of a dependency runs here.
(cd "$dest" && npm ci --omit=dev --ignore-scripts --prefer-offline --no-audit --no-fund --loglevel=error) ||
  fail "npm ci --omit=dev failed in $dest"
chmod 0755 "$dest/bin/termsync.js"

version=$(node "$dest/bin/termsync.js" --version) || fail "the installed CLI does not start"
# `--version` runs the ES module bundle; a plain `validate` runs the CommonJS files of the bundle
# (bin/package.json makes bin/termsync.js CommonJS). An empty folder is a located error: exit 3.
mkdir "$work/empty"
set +e
node "$dest/bin/termsync.js" validate --dir "$work/empty" >"$work/validate.out" 2>&1
code=$?
set -e
[ "$code" -eq 3 ] || fail "the installed CLI's validate of an empty folder exited $code, not 3: $(head -c 400 "$work/validate.out")"
grep -q 'config/not-found' "$work/validate.out" || fail "the installed CLI's validate did not report the missing project config: $(head -c 400 "$work/validate.out")"

# The V8 code cache of the plain validate, made here for the Node that will run it (the image's build
# and runtime stages share one base image): the package ships none, since a cache only fits the V8
# that made it, and the runtime's bundle folder is read-only. It holds what a validate of the example
# repository compiled (every kind of entries file), else of the empty folder above.
example="$work/empty"
[ -f "$root/config/termsync.yaml" ] && example=$root
node -e '
const [loaderFile, dir] = process.argv.slice(1);
const loader = require(loaderFile);
const compiled = loader.compilePlainValidate({ cache: false });
const io = { stdout: () => undefined, stderr: () => undefined, env: {}, cwd: dir, signal: new AbortController().signal };
compiled.exports.runPlainValidate({ dir: ".", logLevel: "warn", format: "text" }, io).then(() => {
  if (loader.writeCodeCache(compiled, { beside: true }) === undefined) process.exitCode = 1;
});
' "$dest/dist/bundle/plain-validate-loader.cjs" "$example" || fail "cannot write the code cache of the plain validate into $dest/dist/bundle"
echo "installed termsync $version in $dest"
