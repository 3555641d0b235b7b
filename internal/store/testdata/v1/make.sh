#!/usr/bin/env bash
# make.sh: writes the v1 store fixture, a data directory made by the last
# release whose store schema is misslab-store/1, which every later build
# must open, migrate and export to the same CSV bytes
# (internal/store/migrate_test.go).
#
#   internal/store/testdata/v1/make.sh [COMMIT]
#
# COMMIT defaults to 24d2bfc8a784 (the tip of main when schema 2 was
# written). The script builds that commit's coordinator and worker from
# `git archive` in a temporary directory and, with them:
#   1. serves a fresh data directory (max 1 delivery per job) with the
#      methods file of this directory (one method, `crash`, always fails);
#   2. submits broken.hcl detached (its table is uploaded), stops the
#      coordinator, flips one byte of that table's file (same size) and
#      serves again: every job of sweep "broken" then fails as a whole
#      (the worker's hash check), so the failures bucket has records;
#   3. submits fixture.hcl with a worker running and follows it to the
#      end: simulated results (settings overrides, the Bayes oracle, tree
#      root splits, imputation RMSEs), the crash method's pipeline
#      failures, a table sweep's folds, the fp-class and lease-key keys;
#   4. stops everything and runs downgrade.go, which rewrites two thirds
#      of the results in the older value versions 1 and 2;
#   5. serves once more and exports each sweep (export-<name>.csv), then
#      stops and copies the data directory here (data/).
# Needs go, git, tar and the module's dependencies (the Go module proxy).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(git -C "$here" rev-parse --show-toplevel)
commit=${1:-24d2bfc8a784382f82061beceeada4266492224e}
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
die() { echo "make.sh: $*" >&2; exit 1; }

mkdir -p "$tmp/src" "$tmp/bin"
git -C "$root" archive "$commit" | tar -x -C "$tmp/src"
(cd "$tmp/src" && go build -o "$tmp/bin/" ./cmd/coordinator ./cmd/worker)
coord=$tmp/bin/coordinator
data=$tmp/data

serve() { # starts a coordinator on a free port; sets addr and pid
	rm -f "$tmp/addr"
	"$coord" serve --data "$data" --listen 127.0.0.1:0 --addr-file "$tmp/addr" \
		--methods "$here/methods.hcl" --max-deliveries 1 --log-level warn 2>>"$tmp/serve.log" &
	pid=$!
	pids+=("$pid")
	for _ in $(seq 200); do [[ -s $tmp/addr ]] && break; sleep 0.05; done
	[[ -s $tmp/addr ]] || die "coordinator did not start: $(cat "$tmp/serve.log")"
	addr=$(cat "$tmp/addr")
}
stop() { kill -INT "$1"; wait "$1" || true; }

serve
"$coord" submit "$here/broken.hcl" --addr "$addr" --detach
stop "$pid"
table=$(ls "$data/tables")
[[ $(echo "$table" | wc -l) == 1 ]] || die "expected one table, found: $table"
printf '9' | dd of="$data/tables/$table" bs=1 seek=40 conv=notrunc status=none

serve
"$tmp/bin/worker" --join "$addr" --methods "$here/methods.hcl" --parallel 2 --log-level warn 2>>"$tmp/worker.log" &
wpid=$!
pids+=("$wpid")
"$coord" submit "$here/fixture.hcl" --addr "$addr" --every 1s
"$coord" submit "$here/broken.hcl" --addr "$addr" --every 1s || true
"$coord" status --addr "$addr"
stop "$wpid"
stop "$pid"

(cd "$root" && go run "$here/downgrade.go" "$data/misslab.db")

serve
for name in simulated table broken; do
	"$coord" export "$name" --addr "$addr" --out "$tmp/export-$name.csv"
done
stop "$pid"

rm -rf "$here/data"
cp -r "$data" "$here/data"
cp "$tmp"/export-*.csv "$here/"
echo "$commit" >"$here/COMMIT"
ls -l "$here/data" "$here/data/tables"
