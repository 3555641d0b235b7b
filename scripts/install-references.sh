#!/usr/bin/env bash
# install-references.sh
#
# Installs, with Debian's apt-get, what the side-by-side reference
# measurements of `make bench` run besides the R packages of
# scripts/install-r.sh (which it runs first): python3-pandas, whose
# read_csv BenchmarkReadCSVReferences (internal/table) times on the same
# file as misslab's reader. Benchmarks skip a reference that is missing,
# with a note; misslab and its tests never need any of this.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-r.sh
if /usr/bin/python3 -c 'import pandas' >/dev/null 2>&1; then
	echo "install-references: pandas is already installed" >&2
	exit 0
fi
sudo=()
[[ $(id -u) -eq 0 ]] || sudo=(sudo -n)
export DEBIAN_FRONTEND=noninteractive
if ! "${sudo[@]}" apt-get install -y --no-install-recommends python3-pandas; then
	"${sudo[@]}" apt-get update
	"${sudo[@]}" apt-get install -y --no-install-recommends python3-pandas
fi
/usr/bin/python3 -c 'import pandas' || { echo "install-references: pandas still missing" >&2; exit 1; }
