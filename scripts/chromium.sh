#!/usr/bin/env bash
# Install headless Chromium (Debian's `chromium` package) for the tests that
# open the modeling document's HTML in a real browser (document package),
# and a Korean font (Debian's `fonts-nanum`, 10 MB) when the system has none
# (fc-list :lang=ko), for the test that checks Korean text is drawn as
# glyphs and not as boxes. Nothing of remodel itself needs them.
#
#   scripts/chromium.sh fetch   # apt-get install chromium, fonts-nanum when missing
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
	want=()
	find_browser >/dev/null || want+=(chromium)
	if ! command -v fc-list >/dev/null 2>&1 || [[ -z $(fc-list :lang=ko family 2>/dev/null) ]]; then
		want+=(fonts-nanum)
	fi
	if [[ ${#want[@]} -eq 0 ]]; then
		exit 0
	fi
	command -v apt-get >/dev/null 2>&1 || die "${want[*]} not found and apt-get is missing: install Chromium (set REMODEL_TEST_CHROMIUM to its path) and a Korean font"
	sudo=""
	if [[ $(id -u) -ne 0 ]]; then
		command -v sudo >/dev/null 2>&1 || die "${want[*]} not found: run as root, or apt-get install ${want[*]}"
		sudo="sudo -n"
	fi
	echo "Installing ${want[*]} (Debian packages; chromium is about 300 MB installed, fonts-nanum 33 MB)..." >&2
	log=$(mktemp)
	if ! { $sudo apt-get install -y --no-install-recommends "${want[@]}" >"$log" 2>&1 ||
		{ $sudo apt-get update >>"$log" 2>&1 && $sudo apt-get install -y --no-install-recommends "${want[@]}" >>"$log" 2>&1; }; }; then
		cat "$log" >&2
		die "apt-get install ${want[*]} failed"
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
