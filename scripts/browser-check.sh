#!/usr/bin/env bash
# browser-check.sh REPORT_DIR
#
# Renders REPORT_DIR/index.html (written by internal/report) in headless
# Chromium and fails unless every <img> of the loaded page is a decodable
# PNG/SVG file of the report, every local link resolves, and the page's
# screenshot is not blank. Installs Debian's chromium with apt-get when
# it is missing (as root, or through sudo when available).
#
# Environment: CHROMIUM (browser binary, default: chromium found on PATH),
# WINDOW (window size, default 1400,2400), KEEP=1 keeps the work directory.
set -euo pipefail

die() { echo "browser-check: $*" >&2; exit 1; }

[[ $# -eq 1 ]] || die "usage: $0 REPORT_DIR"
report=$(cd "$1" 2>/dev/null && pwd) || die "no such directory: $1"
[[ -f $report/index.html ]] || die "$report/index.html does not exist"
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

install_chromium() {
	local sudo=()
	if [[ $(id -u) -ne 0 ]]; then
		command -v sudo >/dev/null 2>&1 || die "chromium is missing and neither root nor sudo is available to install it"
		sudo=(sudo -n)
	fi
	echo "browser-check: installing chromium with apt-get" >&2
	export DEBIAN_FRONTEND=noninteractive
	if ! "${sudo[@]}" apt-get install -y --no-install-recommends chromium; then
		"${sudo[@]}" apt-get update
		"${sudo[@]}" apt-get install -y --no-install-recommends chromium
	fi
}

browser=${CHROMIUM:-}
if [[ -z $browser ]]; then
	browser=$(command -v chromium || true)
	if [[ -z $browser ]]; then
		install_chromium
		browser=$(command -v chromium) || die "chromium still missing after apt-get install"
	fi
fi

work=$(mktemp -d)
if [[ ${KEEP:-0} != 1 ]]; then
	trap 'rm -rf "$work"' EXIT
else
	echo "browser-check: keeping $work" >&2
fi

flags=(--headless --disable-gpu --no-sandbox --disable-dev-shm-usage --hide-scrollbars
	--no-first-run --no-default-browser-check --user-data-dir="$work/profile"
	--window-size="${WINDOW:-1400,2400}" --virtual-time-budget=10000)
url="file://$report/index.html"

# Chromium's own chatter (dbus, fontconfig) goes to a log shown on failure.
"$browser" "${flags[@]}" --dump-dom "$url" >"$work/dom.html" 2>"$work/chromium.log" ||
	{ cat "$work/chromium.log" >&2; die "chromium --dump-dom failed"; }
"$browser" "${flags[@]}" --screenshot="$work/shot.png" "$url" >>"$work/chromium.log" 2>&1 ||
	{ cat "$work/chromium.log" >&2; die "chromium --screenshot failed"; }
[[ -s $work/dom.html ]] || { cat "$work/chromium.log" >&2; die "chromium dumped an empty DOM"; }
[[ -s $work/shot.png ]] || { cat "$work/chromium.log" >&2; die "chromium wrote no screenshot"; }

# The dumped DOM must hold as many images as the page itself: the page
# was really parsed, not replaced by an error page.
want=$(grep -o '<img ' "$report/index.html" | wc -l)
got=$(grep -o '<img ' "$work/dom.html" | wc -l)
[[ $want -gt 0 && $got -eq $want ]] || die "the page has $want <img>, the loaded DOM $got"

cd "$repo"
go run ./internal/report/cmd/reportcheck -dir "$report" -dom "$work/dom.html" -screenshot "$work/shot.png"
echo "browser-check: OK ($report)"
