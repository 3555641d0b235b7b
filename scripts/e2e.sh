#!/usr/bin/env bash
# e2e.sh: the quickstart from grid file to report, as a user runs it.
#
# Builds the coordinator, runs `coordinator run examples/quickstart.hcl
# --reps 3` (9 jobs, every learner family), and checks
#   - results.csv: every (scenario, repetition, pipeline) once, no error
#     but the Bayes oracle's "unavailable" under censoring MNAR;
#   - the report in OUT/report/quickstart/: complete (no banner), every
#     expected figure (box plots, p-value maps per scenario and learner
#     family, timings) as PNG and SVG, shown by index.html, the oracle
#     under MNAR marked "not available", no failure;
#   - `coordinator report` on a copy of the data directory, with no
#     server, writes the same report byte for byte;
#   - scripts/browser-check.sh: headless Chromium loads the page, every
#     image decodes, the screenshot is not blank.
# Environment: GO (default go), KEEP=1 keeps the work directory.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}

die() { echo "e2e: $*" >&2; exit 1; }

tmp=$(mktemp -d)
if [[ ${KEEP:-0} == 1 ]]; then
	echo "e2e: keeping $tmp" >&2
else
	trap 'rm -rf "$tmp"' EXIT
fi
start=$SECONDS

$GO build -o "$tmp/coordinator" ./cmd/coordinator
"$tmp/coordinator" run examples/quickstart.hcl --reps 3 --out "$tmp/qs" >"$tmp/run.log" 2>&1 ||
	{ cat "$tmp/run.log" >&2; die "coordinator run failed"; }
echo "e2e: quickstart (9 jobs) ran in $((SECONDS - start)) s"

# results.csv: 3 scenarios × 3 repetitions × 21 pipelines; the only
# errors are the 3 MNAR repetitions of the oracle (4 metric rows each).
csv=$tmp/qs/results.csv
head -n 1 "$csv" | grep -q '^sweep_id,sweep,scenario,model,' || die "results.csv has no header"
runs=$(awk -F, 'NR > 1 { k[$3 FS $14 FS $15] = 1 } END { print length(k) }' "$csv")
[[ $runs -eq 189 ]] || die "results.csv has $runs (scenario, rep, pipeline) runs, want 189"
bad=$(awk -F, 'NR > 1 && $18 != "" && !($15 == "bayes/oracle" && $10 == "mnar" && $18 ~ /^"?unavailable:/)' "$csv" | head -n 3)
[[ -z $bad ]] || die "results.csv has unexpected errors:"$'\n'"$bad"
unavail=$(awk -F, 'NR > 1 && $18 ~ /^"?unavailable:/' "$csv" | wc -l)
[[ $unavail -eq 12 ]] || die "results.csv has $unavail unavailable rows, want 12 (3 MNAR repetitions × 4 metrics)"

rep=$tmp/qs/report/quickstart
[[ -f $rep/index.html ]] || die "no report in $rep"
! grep -q 'id="banner"' "$rep/index.html" || die "the report says the sweep is incomplete"
grep -q 'No failures were reported.' "$rep/index.html" || die "the report lists failures"
grep -q 'not available' "$rep/index.html" || die "the report does not say the MNAR oracle is not available"
for f in results.csv summary.csv ttests.csv; do
	[[ -s $rep/$f ]] || die "report table $f missing"
done
figs=(box-r2-1 box-rel-1)
for s in 1 2 3; do
	figs+=("timing-$s")
	for fam in tree forest boost svm knn; do figs+=("pvalues-$s-*-$fam"); done
done
for pat in "${figs[@]}"; do
	png=$(compgen -G "$rep/$pat.png" | head -n 1) || die "report lacks figure $pat.png"
	[[ -s $png && -s ${png%.png}.svg ]] || die "figure $png or its SVG is empty"
	grep -q "src=\"$(basename "$png")\"" "$rep/index.html" || die "index.html does not show $(basename "$png")"
done
[[ ! -e $rep/timing-4.png && ! -e $rep/box-r2-2.png ]] || die "the report has figures for scenarios the quickstart lacks"
echo "e2e: report has all ${#figs[@]} expected figures"

# Offline: the report command on a copy of the data directory, no server.
mkdir "$tmp/copy"
cp "$tmp/qs/misslab.db" "$tmp/copy/"
"$tmp/coordinator" report quickstart --data "$tmp/copy" --out "$tmp/offline" >/dev/null
diff -r -q "$rep" "$tmp/offline" || die "the offline report differs from the one run wrote"
echo "e2e: offline report from a copied data directory is identical"

bash scripts/browser-check.sh "$rep"
echo "e2e: OK in $((SECONDS - start)) s"
