#!/bin/sh
# Cross-check fixture from libsvm-tools 3.24 (Debian) itself: svm-train
# and svm-predict on the unscaled raw_p4 case written by make_golden.R.
# Run from this directory after make_golden.R. Writes
#   raw_p4_libsvm.csv        cost, gamma, epsilon, tolerance as svm-train
#                            used them, total_sv, rho (from the model file)
#   raw_p4_libsvm_pred.csv   pred: svm-predict's output per test row
#
# Debian's svm-train parses numeric options with strtof, so -p 0.1 and
# -e 0.001 become the float32 values 0.10000000149011612 and
# 0.0010000000474974513 (1 and 0.25 are exact); the CSV records those.
# svm-predict reads the support vectors back from the model file, where
# they are printed with 8 significant digits.
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# CSV (y, x1..xp / x1..xp) to libsvm's sparse text format, exact digits.
tail -n +2 raw_p4_train.csv | awk -F, '{ printf "%s", $1; for (i = 2; i <= NF; i++) printf " %d:%s", i - 1, $i; print "" }' > "$tmp/train"
p=$(head -1 raw_p4_train.csv | awk -F, '{ print NF - 1 }')
test "$p" = 4
tail -n +2 raw_p4_test.csv | awk -F, -v p="$p" '{ printf "0"; for (i = 1; i <= p; i++) printf " %d:%s", i, $i; print "" }' > "$tmp/test"
svm-train -q -s 3 -t 2 -g 0.25 -c 1 -p 0.1 -e 0.001 -m 40 -h 1 "$tmp/train" "$tmp/model"
svm-predict -q "$tmp/test" "$tmp/model" "$tmp/pred"
{
	echo "cost,gamma,epsilon,tolerance,nsv,rho"
	awk '/^total_sv/ { n = $2 } /^rho/ { r = $2 }
		END { print "1,0.25,0.10000000149011612,0.0010000000474974513," n "," r }' "$tmp/model"
} > raw_p4_libsvm.csv
{ echo "pred"; cat "$tmp/pred"; } > raw_p4_libsvm_pred.csv
