#!/usr/bin/env bash
# bench-ab.sh PKG BENCH [ROUNDS] [BASE]
#
# Compares a package's benchmarks between BASE (a commit, default HEAD)
# and the working tree, alternating the two test binaries ROUNDS times
# (default 5) so that the machine's drift (a shared or virtual machine
# drifts by ±5-10% over minutes) falls on both alike. Prints, per
# benchmark, each side's cpu-ms/op (or ns/op when the benchmark reports
# no CPU time) in run order, then the medians.
#
#   scripts/bench-ab.sh internal/learn/forest 'FitPredict(Mean|MIA)$'
#   scripts/bench-ab.sh internal/learn/boost 'FitPredict$' 7 HEAD~3
#   BENCHTIME=1x scripts/bench-ab.sh internal/experiment 'Large/forest/mean/n=100000' 2   # -test.benchtime (default 10x)
set -euo pipefail
cd "$(dirname "$0")/.."

pkg=${1:?usage: bench-ab.sh PKG BENCH [ROUNDS] [BASE]}
bench=${2:?usage: bench-ab.sh PKG BENCH [ROUNDS] [BASE]}
rounds=${3:-5}
base=${4:-HEAD}
GO=${GO:-go}

tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/base" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT

git worktree add -q --detach "$tmp/base" "$base"
(cd "$tmp/base" && $GO test -c -o "$tmp/A.test" "./$pkg")
$GO test -c -o "$tmp/B.test" "./$pkg"

cd "$pkg"
for _ in $(seq "$rounds"); do
	for side in A B; do
		"$tmp/$side.test" -test.run '^$' -test.bench "$bench" -test.benchtime "${BENCHTIME:-10x}" 2>/dev/null |
			awk -v side="$side" '/^Benchmark/ {
				v = $3; unit = "ns/op"
				for (i = 4; i <= NF; i++) if ($i == "cpu-ms/op") { v = $(i-1); unit = "cpu-ms/op" }
				print side, $1, unit, v
			}'
	done
done | awk -v base="$base" '
	{ k = $2 " " $3; vals[$1 SUBSEP k] = vals[$1 SUBSEP k] " " $4; keys[k] = 1 }
	function median(s,   a, n, i, j, t) {
		n = split(s, a, " ")
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	END {
		for (k in keys) {
			a = vals["A" SUBSEP k]; b = vals["B" SUBSEP k]
			printf "%s\n  A (%s):%s\n  B (work tree):%s\n  median A %s, B %s (B/A %.3f)\n", k, base, a, b, median(a), median(b), median(b) / median(a)
		}
	}'
