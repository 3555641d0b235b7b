#!/usr/bin/env bash
# paper-figures.sh [--reps N | --full] [--out DIR] [--grids "figure3 stump ..."]
#
# Runs the paper's experiments, examples/{figure3,figure4,figure5,appendix,
# stump,prop1,prop2}.hcl, each with `coordinator run` into DIR/<grid>/
# (default out/paper), and checks that every sweep's report in
# DIR/<grid>/report/<sweep>/ is complete (no "incomplete sweep" banner)
# and has the figures its grid calls for: box plots of R² and relative
# R², per-scenario timing and p-value maps, learning curves (figure5,
# stump), stump variable selection (stump) and the Proposition 1-2
# figures with simulated points (prop1, prop2). It also runs the shipped
# real tables, examples/realdata.hcl, and checks each table's report and
# the combined one (ranks across tables with the Friedman test and the
# critical-difference diagram, R² against imputation RMSE).
#
# --reps N runs N repetitions of every sweep (default 2, the CI size: the
# whole set takes about 3 minutes on 2 cores); --full runs the files'
# repetitions (days of CPU for the appendix; see examples/README.md).
# All grids share one data directory, DIR/data, so their common jobs are
# computed once and an interrupted or repeated run resumes; a larger
# --reps later reuses every stored repetition.
#
# Environment: GO (default go), COORDINATOR (a prebuilt binary; default:
# built from ./cmd/coordinator).
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}

die() { echo "paper-figures: $*" >&2; exit 1; }

reps=2 out=out/paper grids="figure3 figure4 figure5 appendix stump prop1 prop2 realdata"
while [[ $# -gt 0 ]]; do
	case $1 in
	--reps) reps=${2:?--reps needs a number}; shift 2 ;;
	--full) reps=0; shift ;;
	--out) out=${2:?--out needs a directory}; shift 2 ;;
	--grids) grids=${2:?--grids needs a list}; shift 2 ;;
	-h | --help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument $1 (see --help)" ;;
	esac
done
[[ $reps =~ ^[0-9]+$ ]] || die "--reps must be a whole number"

mkdir -p "$out"
coordinator=${COORDINATOR:-}
if [[ -z $coordinator ]]; then
	coordinator=$out/coordinator
	$GO build -o "$coordinator" ./cmd/coordinator
fi

# expect GRID SWEEP SCENARIOS PATTERN... checks one sweep's report: the
# page, the tables, absolute box plots, one timing figure per scenario,
# and a PNG with its SVG for every pattern (a glob without extension).
# Sweeps comparing strategies within a learner family also name box-rel-1
# (relative R²); a sweep whose families have one pipeline each has none.
expect() {
	local grid=$1 sweep=$2 nscen=$3
	shift 3
	local dir=$out/$grid/report/$sweep
	[[ -f $dir/index.html ]] || die "$grid: no report for sweep $sweep in $dir"
	! grep -q 'id="banner"' "$dir/index.html" ||
		die "$grid/$sweep: the report says the sweep is incomplete: $(grep -o 'id="banner">[^<]*' "$dir/index.html")"
	local f
	for f in results.csv summary.csv ttests.csv; do
		[[ -s $dir/$f ]] || die "$grid/$sweep: $f is missing or empty"
	done
	local pats=(box-r2-1 "timing-$nscen" "$@") pat png
	for pat in "${pats[@]}"; do
		png=$(compgen -G "$dir/$pat.png" | head -n 1) || die "$grid/$sweep: no figure $pat.png"
		[[ -s $png && -s ${png%.png}.svg ]] || die "$grid/$sweep: $png or its SVG is empty or missing"
		grep -q "src=\"$(basename "$png")\"" "$dir/index.html" || die "$grid/$sweep: index.html does not show $(basename "$png")"
	done
	[[ ! -e $dir/timing-$((nscen + 1)).png ]] || die "$grid/$sweep: more timing figures than its $nscen scenarios"
	echo "paper-figures: $grid/$sweep: $(ls "$dir"/*.png | wc -l) figures, all expected ones present"
}

# simulated FILE PROP: theory.csv holds simulated points of a proposition.
simulated() {
	awk -F, -v p="$2" '$1 == p && $5 == "simulated" { n++ } END { exit !(n > 0) }' "$1" ||
		die "$1: no simulated Proposition $2 point"
}

check() {
	local r
	case $1 in
	figure3) expect figure3 figure3 3 box-rel-1 'pvalues-1-*-tree' 'pvalues-3-*-knn' ;;
	figure4) expect figure4 figure4 3 box-rel-1 'pvalues-1-*-tree' 'pvalues-3-*-knn' ;;
	figure5)
		expect figure5 figure5 12 box-rel-1 curves 'pvalues-12-*-boost'
		grep -q ',bayes,' "$out/figure5/report/figure5/curves.csv" || die "figure5: curves.csv has no Bayes rate"
		;;
	appendix)
		expect appendix appendix-rho 9 box-rel-1 'pvalues-9-*-knn'
		expect appendix appendix-rate 9 box-rel-1 'pvalues-9-*-knn'
		;;
	stump)
		for r in stump-x1 stump-both; do
			expect stump $r 20 selection curves
			[[ ! -e $out/stump/report/$r/box-rel-1.png ]] || die "stump/$r: a relative figure of one-pipeline families"
			[[ $(wc -l <"$out/stump/report/$r/selection.csv") -gt 1 ]] || die "stump/$r: selection.csv is empty"
		done
		;;
	prop1)
		expect prop1 prop1 10 box-rel-1 theory-prop1 theory-prop2 'pvalues-10-*-tree'
		simulated "$out/prop1/report/prop1/theory.csv" 1
		;;
	prop2)
		expect prop2 prop2 30 box-rel-1 theory-prop1 theory-prop2 'pvalues-30-*-tree'
		simulated "$out/prop2/report/prop2/theory.csv" 2
		;;
	realdata)
		for r in airquality boys pima sleep; do
			expect realdata $r 3 box-rel-1 ranks-cd impute-r2 'pvalues-3-*-tree'
		done
		expect realdata all-sweeps 12 ranks-cd impute-r2
		grep -q 'Friedman χ²' "$out/realdata/report/all-sweeps/index.html" || die "realdata: the combined report has no Friedman test"
		;;
	*) die "no expectations for grid $1" ;;
	esac
}

repflag=()
size="the files' repetitions"
if [[ $reps -gt 0 ]]; then
	repflag=(--reps "$reps")
	size="$reps repetitions"
fi
start=$SECONDS
for g in $grids; do
	[[ -f examples/$g.hcl ]] || die "no grid examples/$g.hcl"
	t0=$SECONDS
	echo "paper-figures: running examples/$g.hcl at $size into $out/$g"
	"$coordinator" run "examples/$g.hcl" "${repflag[@]}" --data "$out/data" --out "$out/$g" >"$out/$g.log" 2>&1 ||
		{ tail -n 20 "$out/$g.log" >&2; die "coordinator run examples/$g.hcl failed (log: $out/$g.log)"; }
	check "$g"
	echo "paper-figures: $g took $((SECONDS - t0)) s"
done
echo "paper-figures: OK, every report complete with its figures, in $((SECONDS - start)) s ($out)"
