#!/usr/bin/env bash
# Install headless Chromium (Debian's `chromium` package) for the test that
# opens the modeling document's HTML in a real browser (document package).
# Nothing of remodel itself needs it.
#
#   scripts/chromium.sh fetch   # apt-get install chromium when it is missing
#   scripts/chromium.sh path    # print the browser's path (REMODEL_TEST_CHROMIUM)
#
# fetch needs root (or sudo without a password) and Debian's package lists;
# on another system install Chromium by hand and set REMODEL_TEST_CHROMIUM.
set -euo pipefail

prog=$(basename "$0")
die() {
	printf '%s: %s\n' "$prog" "$*" >&2
	exit 1
}

find_browser() {
	local b
	for b in chromium chromium-browser google-chrome-stable google-chrome; do
		if command -v "$b" >/dev/null 2>&1; then
			command -v "$b"
			return 0
		fi
	done
	return 1
}

case "${1:-}" in
fetch)
	if find_browser >/dev/null; then
		exit 0
	fi
	command -v apt-get >/dev/null 2>&1 || die "chromium not found and apt-get is missing: install Chromium and set REMODEL_TEST_CHROMIUM to its path"
	sudo=""
	if [[ $(id -u) -ne 0 ]]; then
		command -v sudo >/dev/null 2>&1 || die "chromium not found: run as root, or apt-get install chromium"
		sudo="sudo -n"
	fi
	echo "Installing chromium (Debian package, about 300 MB installed)..." >&2
	log=$(mktemp)
	if ! { $sudo apt-get install -y --no-install-recommends chromium >"$log" 2>&1 ||
		{ $sudo apt-get update >>"$log" 2>&1 && $sudo apt-get install -y --no-install-recommends chromium >>"$log" 2>&1; }; }; then
		cat "$log" >&2
		die "apt-get install chromium failed"
	fi
	rm -f "$log"
	find_browser >/dev/null || die "apt-get installed chromium but no browser is on PATH"
	;;
path)
	find_browser || die "chromium not found (scripts/chromium.sh fetch)"
	;;
*)
	echo "usage: $prog fetch | path" >&2
	exit 2
	;;
esac
