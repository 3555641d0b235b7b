#!/usr/bin/env bash
# install-references.sh
#
# Installs, with Debian's apt-get, every reference package the project's
# fixture scripts (internal/*/testdata/*.R, *.py) and side-by-side
# benchmarks use: the R packages of scripts/install-r.sh (run first),
# then r-cran-e1071, r-cran-caret, r-cran-partykit and r-cran-mass (svm,
# knn, ctree fixtures) and python3-numpy, -scipy, -pandas, -xgboost and
# -sklearn (boost, Gaussian-EM, iterative and KNN imputer fixtures;
# pandas' read_csv is timed beside misslab's reader by
# BenchmarkReadCSVReferences, scikit-learn's imputers beside impute's by
# BenchmarkIterative and BenchmarkKNNImpute). Benchmarks skip a
# reference that is missing, with a note; misslab and its tests never
# need any of this. Safe to rerun: it does nothing when all load.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-r.sh
source scripts/apt-ensure.sh
have() {
	Rscript -e 'suppressPackageStartupMessages({library(e1071); library(caret); library(partykit); library(MASS)})' >/dev/null 2>&1 &&
		/usr/bin/python3 -c 'import numpy, scipy, pandas, xgboost, sklearn' >/dev/null 2>&1
}
apt_ensure install-references "every reference package" have \
	r-cran-e1071 r-cran-caret r-cran-partykit r-cran-mass \
	python3-numpy python3-scipy python3-pandas python3-xgboost python3-sklearn
