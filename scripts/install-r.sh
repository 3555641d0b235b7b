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

die() { echo "install-r: $*" >&2; exit 1; }

packages=(r-base-core r-cran-rpart r-cran-ranger r-cran-mlbench r-cran-mice r-cran-vim)
probe='suppressPackageStartupMessages({library(rpart); library(ranger); library(mlbench); library(mice); library(VIM)})'

have_r() {
	command -v Rscript >/dev/null 2>&1 && Rscript -e "$probe" >/dev/null 2>&1
}

if have_r; then
	echo "install-r: R with rpart, ranger, mlbench, mice and VIM is already installed" >&2
	exit 0
fi

sudo=()
if [[ $(id -u) -ne 0 ]]; then
	command -v sudo >/dev/null 2>&1 || die "R packages are missing and neither root nor sudo is available to install them"
	sudo=(sudo -n)
fi
echo "install-r: installing ${packages[*]} with apt-get" >&2
export DEBIAN_FRONTEND=noninteractive
if ! "${sudo[@]}" apt-get install -y --no-install-recommends "${packages[@]}"; then
	"${sudo[@]}" apt-get update
	"${sudo[@]}" apt-get install -y --no-install-recommends "${packages[@]}"
fi
have_r || die "Rscript still cannot load rpart, ranger, mlbench, mice and VIM after apt-get install"
echo "install-r: OK ($(Rscript -e 'cat(R.version.string)' 2>/dev/null))" >&2
