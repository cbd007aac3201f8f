#!/usr/bin/env bash
# Install PostGIS (Debian's postgresql-<major>-postgis-3 package) for the
# tests of PostGIS geometry and geography columns. The tests create the
# extension only in their own databases (postgis_test_…), never in the
# shared postgres database. Nothing of remodel itself needs it.
#
#   scripts/postgis.sh fetch    # apt-get install it when it is missing (quiet, idempotent)
#   scripts/postgis.sh status   # say whether it is installed; exit 1 if not
#
# The PostgreSQL major version is the one of the local server's binaries
# (/usr/lib/postgresql/<major>), or PG_MAJOR. fetch needs root (or sudo
# without a password) and Debian's package lists; on another system install
# PostGIS by hand (or use the postgis/postgis image).
set -euo pipefail

prog=$(basename "$0")
die() {
	printf '%s: %s\n' "$prog" "$*" >&2
	exit 1
}

majors() {
	if [[ -n "${PG_MAJOR:-}" ]]; then
		echo "$PG_MAJOR"
		return
	fi
	local d
	for d in /usr/lib/postgresql/*/bin/postgres; do
		[[ -x "$d" ]] || continue
		d=${d#/usr/lib/postgresql/}
		echo "${d%%/*}"
	done
}

installed() { [[ -f "/usr/share/postgresql/$1/extension/postgis.control" ]]; }

case "${1:-}" in
fetch)
	found=$(majors)
	[[ -n "$found" ]] || die "no PostgreSQL server under /usr/lib/postgresql (set PG_MAJOR, or install PostGIS by hand)"
	missing=()
	for m in $found; do
		installed "$m" || missing+=("postgresql-$m-postgis-3")
	done
	[[ ${#missing[@]} -gt 0 ]] || exit 0
	command -v apt-get >/dev/null 2>&1 || die "PostGIS not found and apt-get is missing: install ${missing[*]} by hand"
	sudo=""
	if [[ $(id -u) -ne 0 ]]; then
		command -v sudo >/dev/null 2>&1 || die "PostGIS not found: run as root, or apt-get install ${missing[*]}"
		sudo="sudo -n"
	fi
	echo "Installing ${missing[*]} (Debian package)..." >&2
	log=$(mktemp)
	if ! { $sudo apt-get install -y --no-install-recommends "${missing[@]}" >"$log" 2>&1 ||
		{ $sudo apt-get update >>"$log" 2>&1 && $sudo apt-get install -y --no-install-recommends "${missing[@]}" >>"$log" 2>&1; }; }; then
		cat "$log" >&2
		die "apt-get install ${missing[*]} failed"
	fi
	rm -f "$log"
	for m in $found; do
		installed "$m" || die "apt-get installed postgresql-$m-postgis-3 but /usr/share/postgresql/$m/extension/postgis.control is missing"
	done
	;;
status)
	found=$(majors)
	[[ -n "$found" ]] || die "no PostgreSQL server under /usr/lib/postgresql"
	status=0
	for m in $found; do
		if installed "$m"; then
			echo "PostGIS: installed for PostgreSQL $m"
		else
			echo "PostGIS: missing for PostgreSQL $m (scripts/postgis.sh fetch)"
			status=1
		fi
	done
	exit "$status"
	;;
*)
	echo "usage: $prog fetch | status" >&2
	exit 2
	;;
esac
