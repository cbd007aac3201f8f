#!/usr/bin/env bash
# Fetch Mermaid (the npm package) for the tests that check remodel's ER
# diagrams with Mermaid's own parser (introspect/erd). Nothing of remodel
# itself needs it.
#
#   scripts/mermaid.sh fetch   # install mermaid into the cache, once
#   scripts/mermaid.sh path    # print the package's folder (REMODEL_TEST_MERMAID)
#
# The package is installed with --ignore-scripts into
# ${XDG_CACHE_HOME:-$HOME/.cache}/remodel/mermaid-VERSION/, outside the clone,
# so fresh clones and later runs reuse it.
set -euo pipefail

MERMAID_VERSION=11.17.2
DIR="${XDG_CACHE_HOME:-$HOME/.cache}/remodel/mermaid-$MERMAID_VERSION"
PKG="$DIR/node_modules/mermaid"

prog=$(basename "$0")
die() {
	printf '%s: %s\n' "$prog" "$*" >&2
	exit 1
}

case "${1:-}" in
fetch)
	if [[ -f "$PKG/package.json" ]]; then
		exit 0
	fi
	command -v npm >/dev/null 2>&1 || die "npm not found: install Node.js with npm (Debian/Ubuntu: apt-get install npm)"
	mkdir -p "$DIR"
	echo "Fetching mermaid $MERMAID_VERSION (npm, about 150 MB installed)..." >&2
	[[ -f "$DIR/package.json" ]] || printf '{"name":"remodel-mermaid-check","private":true}\n' >"$DIR/package.json"
	if ! (cd "$DIR" && npm install --silent --ignore-scripts --no-audit --no-fund --no-save "mermaid@$MERMAID_VERSION" >"$DIR/npm-install.log" 2>&1); then
		cat "$DIR/npm-install.log" >&2 || true
		die "npm install mermaid@$MERMAID_VERSION failed (network? npm registry settings?)"
	fi
	[[ -f "$PKG/package.json" ]] || die "npm install did not produce $PKG"
	;;
path)
	echo "$PKG"
	;;
*)
	echo "usage: $prog fetch | path" >&2
	exit 2
	;;
esac
