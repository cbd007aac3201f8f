#!/usr/bin/env bash
# Fetch the data libraries whose schemas `remodel export` writes (ElectroDB,
# OneTable, with the AWS SDK they use, and TypeScript to check and run the
# ElectroDB module), for the tests that read a migrated table through them
# (internal/domain/export). Nothing of remodel itself needs them.
#
#   scripts/export-libs.sh fetch   # install them into the cache, once
#   scripts/export-libs.sh path    # print the folder (REMODEL_TEST_EXPORT_LIBS)
#
# The versions are pinned by scripts/export-libs/package.json and its
# package-lock.json; `npm ci --ignore-scripts` installs exactly the lock
# file into ${XDG_CACHE_HOME:-$HOME/.cache}/remodel/export-libs-HASH/ (HASH
# of the lock file), outside the clone, so fresh clones and later runs reuse
# it and a changed lock file gets a folder of its own.
set -euo pipefail

SRC="$(cd "$(dirname "$0")" && pwd)/export-libs"
HASH=$(sha256sum "$SRC/package-lock.json" | cut -c1-12)
DIR="${XDG_CACHE_HOME:-$HOME/.cache}/remodel/export-libs-$HASH"

prog=$(basename "$0")
die() {
	printf '%s: %s\n' "$prog" "$*" >&2
	exit 1
}

case "${1:-}" in
fetch)
	if [[ -f "$DIR/node_modules/.remodel-complete" ]]; then
		exit 0
	fi
	command -v npm >/dev/null 2>&1 || die "npm not found: install Node.js with npm (Debian/Ubuntu: apt-get install npm)"
	mkdir -p "$DIR"
	cp "$SRC/package.json" "$SRC/package-lock.json" "$DIR/"
	echo "Fetching ElectroDB, OneTable, the AWS SDK and TypeScript (npm ci, about 50 MB)..." >&2
	if ! (cd "$DIR" && npm ci --silent --ignore-scripts --no-audit --no-fund >"$DIR/npm-install.log" 2>&1); then
		cat "$DIR/npm-install.log" >&2 || true
		die "npm ci in $DIR failed (network? npm registry settings?)"
	fi
	[[ -f "$DIR/node_modules/electrodb/package.json" && -f "$DIR/node_modules/dynamodb-onetable/package.json" ]] || die "npm ci did not install electrodb and dynamodb-onetable into $DIR"
	touch "$DIR/node_modules/.remodel-complete"
	;;
path)
	echo "$DIR"
	;;
*)
	echo "usage: $prog fetch | path" >&2
	exit 2
	;;
esac
