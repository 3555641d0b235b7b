#!/usr/bin/env bash
# e2e.sh: the quickstart from grid file to report, as a user runs it.
#
# Builds the coordinator, runs `coordinator run examples/quickstart.hcl
# --reps 3` (9 jobs, every learner family), and checks
#   - results.csv: every (scenario, repetition, pipeline) once, no error;
#     in every scenario (censoring MNAR included) the Bayes oracle has
#     the highest mean test R²;
#   - the report in OUT/report/quickstart/: complete (no banner), every
#     expected figure (box plots, p-value maps per scenario and learner
#     family, timings) as PNG and SVG, shown by index.html, nothing
#     marked "not available", no failure;
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

# results.csv: 3 scenarios × 3 repetitions × 21 pipelines, no errors.
csv=$tmp/qs/results.csv
head -n 1 "$csv" | grep -q '^sweep_id,sweep,scenario,model,' || die "results.csv has no header"
runs=$(awk -F, 'NR > 1 { k[$3 FS $14 FS $15] = 1 } END { print length(k) }' "$csv")
[[ $runs -eq 189 ]] || die "results.csv has $runs (scenario, rep, pipeline) runs, want 189"
bad=$(awk -F, 'NR > 1 && $18 != ""' "$csv" | head -n 3)
[[ -z $bad ]] || die "results.csv has unexpected errors:"$'\n'"$bad"
# The oracle is the Bayes predictor: no pipeline may beat its mean R².
beaten=$(awk -F, 'NR > 1 && $16 == "r2" { s[$10 FS $15] += $17; n[$10 FS $15]++; mech[$10] = 1 }
	END { for (m in mech) { o = s[m FS "bayes/oracle"] / n[m FS "bayes/oracle"]
		if (n[m FS "bayes/oracle"] != 3) print m ": oracle has " n[m FS "bayes/oracle"] " scores"
		for (k in s) { split(k, f, FS); if (f[1] == m && f[2] != "bayes/oracle" && s[k] / n[k] >= o) print m ": " f[2] " " s[k] / n[k] " >= oracle " o } } }' "$csv")
[[ -z $beaten ]] || die "the Bayes oracle is not the best predictor:"$'\n'"$beaten"

rep=$tmp/qs/report/quickstart
[[ -f $rep/index.html ]] || die "no report in $rep"
! grep -q 'id="banner"' "$rep/index.html" || die "the report says the sweep is incomplete"
grep -q 'No failures were reported.' "$rep/index.html" || die "the report lists failures"
! grep -q 'not available' "$rep/index.html" || die "the report marks a result not available"
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
