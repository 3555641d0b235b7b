#!/usr/bin/env bash
# install-methods-deps.sh
#
# Installs, with Debian's apt-get, what the shipped external methods of
# examples/methods/methods.hcl run on: numpy and scikit-learn for
# /usr/bin/python3 (python3-numpy, python3-sklearn) and R with rpart
# (r-base-core, r-cran-rpart). The adapter tests (go test
# ./examples/methods/) skip without them unless MISSLAB_REQUIRE_METHODS=1.
# Safe to rerun: it does nothing when both load.
set -euo pipefail

source "$(dirname "$0")/apt-ensure.sh"
have() {
	/usr/bin/python3 -c 'import numpy, sklearn' >/dev/null 2>&1 &&
		Rscript -e 'suppressPackageStartupMessages(library(rpart))' >/dev/null 2>&1
}
apt_ensure install-methods-deps "numpy, scikit-learn and rpart" have \
	python3-numpy python3-sklearn r-base-core r-cran-rpart
