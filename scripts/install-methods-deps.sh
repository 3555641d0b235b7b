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

packages=(python3-numpy python3-sklearn r-base-core r-cran-rpart)
have() {
	/usr/bin/python3 -c 'import numpy, sklearn' >/dev/null 2>&1 &&
		Rscript -e 'suppressPackageStartupMessages(library(rpart))' >/dev/null 2>&1
}
if have; then
	echo "install-methods-deps: numpy, scikit-learn and rpart already load" >&2
	exit 0
fi
sudo=()
[[ $(id -u) -eq 0 ]] || sudo=(sudo -n)
export DEBIAN_FRONTEND=noninteractive
if ! "${sudo[@]}" apt-get install -y --no-install-recommends "${packages[@]}"; then
	"${sudo[@]}" apt-get update
	"${sudo[@]}" apt-get install -y --no-install-recommends "${packages[@]}"
fi
have || { echo "install-methods-deps: numpy, scikit-learn or rpart still does not load" >&2; exit 1; }
echo "install-methods-deps: OK" >&2
