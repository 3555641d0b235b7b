#!/usr/bin/env bash
# install-r.sh
#
# Installs, with Debian's apt-get, the R packages the project's R fixture
# scripts load (examples/data/make.R, internal/experiment/testdata/
# rpart_table/make.R, internal/learn/tree/testdata/*.R,
# internal/learn/forest/testdata/*.R): r-base-core r-cran-rpart
# r-cran-ranger r-cran-mlbench r-cran-mice r-cran-vim. It runs apt-get as
# root, or through sudo -n otherwise, and runs apt-get update only when
# the first install attempt fails. It does nothing when Rscript can
# already load rpart, ranger, mlbench, mice and VIM, so it is safe to
# rerun.
#
# R is needed only to regenerate fixtures: misslab and its tests never
# run R.
set -euo pipefail

source "$(dirname "$0")/apt-ensure.sh"
probe='suppressPackageStartupMessages({library(rpart); library(ranger); library(mlbench); library(mice); library(VIM)})'
have_r() {
	command -v Rscript >/dev/null 2>&1 && Rscript -e "$probe" >/dev/null 2>&1
}
apt_ensure install-r "R with rpart, ranger, mlbench, mice and VIM" have_r \
	r-base-core r-cran-rpart r-cran-ranger r-cran-mlbench r-cran-mice r-cran-vim
