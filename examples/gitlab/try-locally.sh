#!/usr/bin/env bash
# Runs the `plan` job of examples/gitlab/.gitlab-ci.yml on this machine — no GitLab, no Docker —
# with gitlab-ci-local's shell executor, against the termsync emulator: the example repository of
# this project is applied to the emulator, one term is changed, and the merge-request plan job runs
# as GitLab would run it (same script, same variables), installing termsync from a tarball.
#
# Needs node 20+, git and rsync (gitlab-ci-local copies files with it); run `npm ci` first.
# Usage: examples/gitlab/try-locally.sh        (from the termsync checkout; prints the plan note)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="$(mktemp -d)"
emulator_pid=""
cleanup() {
  if [ -n "$emulator_pid" ]; then kill "$emulator_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

command -v rsync >/dev/null || { echo "rsync is needed (gitlab-ci-local copies files with it)" >&2; exit 1; }

# termsync as the job installs it (TERMSYNC_PACKAGE), from a tarball of this checkout.
(cd "$root" && npm pack --silent --pack-destination "$work" >/dev/null)
package="$(ls "$work"/termsync-*.tgz)"

# The service: the emulator on a free port (each key is an account of its own there, so the plan
# uses the key that applied; on the real service it would be a read-scoped key of the same account).
node "$root/bin/termsync.js" emulator --port 0 --keys demo > "$work/emulator.log" &
emulator_pid=$!
for _ in $(seq 50); do grep -q '^listening on ' "$work/emulator.log" && break; sleep 0.1; done
url="$(sed -n 's/^listening on //p' "$work/emulator.log" | head -1)"
[ -n "$url" ] || { echo "the emulator did not start" >&2; cat "$work/emulator.log" >&2; exit 1; }

# The terminology repository: the example, applied, committed as the merge request's base.
repo="$work/repo"
mkdir "$repo"
cp -R "$root/config" "$root/glossaries" "$repo/"
cp "$root/examples/gitlab/.gitlab-ci.yml" "$repo/"
git -C "$repo" init --quiet
git -C "$repo" add --all
git -C "$repo" -c user.name=demo -c user.email=demo@termsync.invalid commit --quiet --message base
TERMSYNC_BASE_URL="$url" TERMSYNC_API_KEY=demo node "$root/bin/termsync.js" apply --dir "$repo" > /dev/null
base="$(git -C "$repo" rev-parse HEAD)"

# The merge request: one changed term.
sed -i.bak 's/^checkout	Kasse$/checkout	Zur Kasse/' "$repo/glossaries/entries/storefront-ui.en-de.tsv"
rm "$repo/glossaries/entries/storefront-ui.en-de.tsv.bak"

# `npm install --global` of the job goes to a folder of its own, not this machine's global one.
export npm_config_prefix="$work/npm-global"
export PATH="$npm_config_prefix/bin:$PATH"
export GCL_IGNORE_PREDEFINED_VARS=CI_PIPELINE_SOURCE,CI_PROJECT_ID
status=0
(cd "$repo" && "$root/node_modules/.bin/gitlab-ci-local" plan --force-shell-executor \
  --variable CI_PIPELINE_SOURCE=merge_request_event \
  --variable CI_PROJECT_ID=1 \
  --variable CI_MERGE_REQUEST_SOURCE_PROJECT_ID=1 \
  --variable CI_MERGE_REQUEST_DIFF_BASE_SHA="$base" \
  --variable TERMSYNC_PACKAGE="$package" \
  --variable TERMSYNC_BASE_URL="$url" \
  --variable TERMSYNC_ALLOWED_HOSTS=127.0.0.1 \
  --variable TERMSYNC_READ_KEY=demo) || status=$?

echo
echo "plan job: exit $status; termsync plan exit code $(cat "$repo/plan-exitcode.txt" 2>/dev/null || echo none)"
echo "the note the plan-note job would write:"
cat "$repo/plan.md"
exit "$status"
