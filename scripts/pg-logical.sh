#!/usr/bin/env bash
# A private PostgreSQL cluster with logical decoding on, for the change-stream
# tests (migrate --follow). The machine's own PostgreSQL (5432) is never touched.
#
#   scripts/pg-logical.sh start [port]   # initdb on first use, start, wait until it answers, print the DSN
#   scripts/pg-logical.sh stop [port]    # stop it (pg_ctl stop -m fast); the data directory stays
#   scripts/pg-logical.sh status [port]  # is it running / answering? (exit 1 if not)
#   scripts/pg-logical.sh clean [port]   # stop it and remove its directory (the next start is a fresh initdb)
#   scripts/pg-logical.sh dir [port]     # print its directory
#
# The cluster is PostgreSQL's own initdb + pg_ctl (default /usr/lib/postgresql/15/bin,
# Debian's postgresql-15), on 127.0.0.1:port only (default 5440), trust authentication,
# superuser postgres, started with wal_level=logical, max_replication_slots=20,
# max_wal_senders=20 and fsync=off (a test server). DSN:
#   postgres://postgres@127.0.0.1:PORT/postgres?sslmode=disable
#
# PostgreSQL refuses to run as root: run as root, the cluster runs as the OS user
# postgres (runuser), and its directory must be one postgres can reach. That is
# $XDG_CACHE_HOME/remodel/run/pg-logical-PORT when it can, else (a /root that
# postgres cannot enter) /var/tmp/remodel-pg-logical-PORT. The directory holds the
# data directory (data/), the server log (server.log) and the Unix socket.
#
# Environment:
#   PG_LOGICAL_PORT  default port (5440)
#   PG_LOGICAL_DIR   the directory (default: see above)
#   PG_LOGICAL_BIN   the directory of initdb and pg_ctl (default /usr/lib/postgresql/15/bin,
#                    else the newest /usr/lib/postgresql/*/bin, else initdb's in PATH)
#   XDG_CACHE_HOME   cache root ($HOME/.cache)
set -euo pipefail

START_TIMEOUT=60
STOP_TIMEOUT=60
prog=$(basename "$0")
DEFAULT_PORT="${PG_LOGICAL_PORT:-5440}"
OWN_FILES="data|server.log|initdb.log|.s.PGSQL.*"
# shellcheck source=scripts/server-lib.sh
source "$(dirname "$0")/server-lib.sh"

usage() {
	cat <<EOF
usage: $prog start [port] | stop [port] | status [port] | clean [port] | dir [port]

  start [port]   start the cluster on 127.0.0.1:port (default \${PG_LOGICAL_PORT:-5440}),
                 creating it on first use, and print its DSN
  stop [port]    stop it (the data directory stays)
  status [port]  report whether it runs and answers
  clean [port]   stop it and remove its directory
  dir [port]     print its directory
EOF
}

pg_bin() {
	local d
	if [[ -n "${PG_LOGICAL_BIN:-}" ]]; then
		[[ -x "$PG_LOGICAL_BIN/initdb" ]] || die "PG_LOGICAL_BIN=$PG_LOGICAL_BIN has no initdb"
		printf '%s\n' "$PG_LOGICAL_BIN"
		return
	fi
	if [[ -x /usr/lib/postgresql/15/bin/initdb ]]; then
		echo /usr/lib/postgresql/15/bin
		return
	fi
	d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k4,4n | tail -n 1) || true
	if [[ -n "$d" && -x "$d/initdb" ]]; then
		printf '%s\n' "$d"
		return
	fi
	if d=$(command -v initdb 2>/dev/null); then
		dirname "$d"
		return
	fi
	die "no PostgreSQL server binaries (initdb, pg_ctl): install them (Debian/Ubuntu: apt-get install postgresql-15) or set PG_LOGICAL_BIN"
}

# The OS user the cluster runs as: postgres when this script runs as root, else
# the current user. as_owner runs a command as that user, from the directory.
owner() {
	if ((EUID == 0)); then
		id -u postgres >/dev/null 2>&1 ||
			die "running as root, and there is no OS user postgres to run PostgreSQL as (PostgreSQL refuses root)"
		echo postgres
	else
		id -un
	fi
}

as_owner() {
	if ((EUID == 0)); then
		(cd / && runuser -u postgres -- "$@")
	else
		(cd / && "$@")
	fi
}

base_dir() {
	local port=$1 state
	if [[ -n "${PG_LOGICAL_DIR:-}" ]]; then
		printf '%s\n' "$PG_LOGICAL_DIR"
		return
	fi
	state="${XDG_CACHE_HOME:-$HOME/.cache}/remodel/run"
	if ((EUID != 0)); then
		printf '%s/pg-logical-%s\n' "$state" "$port"
		return
	fi
	# As root: the cache is used if postgres can reach it (it may not exist yet:
	# then its nearest existing parent decides).
	local probe=$state
	while [[ ! -d "$probe" ]]; do probe=$(dirname "$probe"); done
	if runuser -u postgres -- test -x "$probe" 2>/dev/null; then
		printf '%s/pg-logical-%s\n' "$state" "$port"
	else
		printf '/var/tmp/remodel-pg-logical-%s\n' "$port"
	fi
}

# Is the cluster in dir running (pg_ctl status: its postmaster.pid names a live server)?
running() {
	local dir=$1
	[[ -f "$dir/data/postmaster.pid" ]] || return 1
	as_owner "$BIN/pg_ctl" status -D "$dir/data" >/dev/null 2>&1
}

answers() {
	local port=$1
	"$BIN/pg_isready" -q -h 127.0.0.1 -p "$port" -U postgres -d postgres -t 2 >/dev/null 2>&1
}

dsn() { printf 'postgres://postgres@127.0.0.1:%s/postgres?sslmode=disable\n' "$1"; }

# Creates the directory, owned by the server's user, and the cluster in it.
create() {
	local dir=$1 user=$2
	if [[ -e "$dir" ]]; then
		[[ -d "$dir" ]] || die "$dir is not a directory"
		[[ "$(stat -c %U "$dir")" == "$user" ]] ||
			die "$dir belongs to $(stat -c %U "$dir"), not $user: remove it or set PG_LOGICAL_DIR"
	else
		mkdir -p "$(dirname "$dir")"
		mkdir -m 700 "$dir"
		chown "$user:" "$dir" 2>/dev/null || chown "$user" "$dir"
	fi
	as_owner test -w "$dir" -a -x "$dir" ||
		die "$user cannot enter $dir (a parent it cannot traverse?): set PG_LOGICAL_DIR"
	[[ -f "$dir/data/PG_VERSION" ]] && return 0
	rm -rf "$dir/data"
	echo "creating a PostgreSQL cluster in $dir/data ($BIN/initdb)" >&2
	if ! as_owner "$BIN/initdb" -D "$dir/data" --auth=trust -U postgres -E UTF8 --locale=C \
		--no-sync >"$dir/initdb.log" 2>&1; then
		cat "$dir/initdb.log" >&2
		rm -rf "$dir/data"
		die "initdb failed"
	fi
}

start() {
	local port dir user
	port=$(port_arg "${1:-}")
	BIN=$(pg_bin)
	user=$(owner)
	dir=$(base_dir "$port")
	[[ "$dir" != *[[:space:],\'\"]* ]] || die "the directory may not hold blanks, commas or quotes: $dir (set PG_LOGICAL_DIR)"

	if running "$dir"; then
		if wait_up "$port"; then
			echo "PostgreSQL (logical) is already running on port $port ($dir)"
			dsn "$port"
			return 0
		fi
		die "PostgreSQL in $dir runs but does not answer on port $port; see $dir/server.log (or: $prog stop $port)"
	fi
	if port_busy "$port"; then
		die "port $port is taken by another program; stop it or use another port"
	fi
	create "$dir" "$user"

	# pg_ctl -w waits for the server itself; pg_isready below checks it answers on TCP.
	if ! as_owner "$BIN/pg_ctl" start -D "$dir/data" -l "$dir/server.log" -w -t "$START_TIMEOUT" -s \
		-o "-p $port -c listen_addresses=127.0.0.1 -c unix_socket_directories=$dir -c wal_level=logical -c max_replication_slots=20 -c max_wal_senders=20 -c fsync=off"; then
		echo "PostgreSQL did not start on port $port. Last lines of $dir/server.log:" >&2
		tail -n 20 "$dir/server.log" >&2 || true
		as_owner "$BIN/pg_ctl" stop -D "$dir/data" -m immediate -s >/dev/null 2>&1 || true
		exit 1
	fi
	if ! wait_up "$port"; then
		echo "PostgreSQL did not answer on 127.0.0.1:$port within ${START_TIMEOUT}s; stopping it. Last lines of $dir/server.log:" >&2
		tail -n 20 "$dir/server.log" >&2 || true
		as_owner "$BIN/pg_ctl" stop -D "$dir/data" -m immediate -s >/dev/null 2>&1 || true
		exit 1
	fi
	echo "PostgreSQL (wal_level=logical) is up on 127.0.0.1:$port (data $dir/data, log $dir/server.log)"
	dsn "$port"
}

stop() {
	local port dir
	port=$(port_arg "${1:-}")
	BIN=$(pg_bin)
	owner >/dev/null
	dir=$(base_dir "$port")
	if ! running "$dir"; then
		echo "PostgreSQL (logical) is not running on port $port ($dir)"
		return 0
	fi
	as_owner "$BIN/pg_ctl" stop -D "$dir/data" -m fast -w -t "$STOP_TIMEOUT" -s ||
		die "pg_ctl stop failed; see $dir/server.log"
	echo "PostgreSQL (logical) on port $port stopped (data kept in $dir/data)"
}

status() {
	local port dir
	port=$(port_arg "${1:-}")
	BIN=$(pg_bin)
	owner >/dev/null
	dir=$(base_dir "$port")
	if running "$dir"; then
		if answers "$port"; then
			echo "running: 127.0.0.1:$port, data $dir/data, log $dir/server.log"
			dsn "$port"
			return 0
		fi
		echo "started but not answering on port $port; log $dir/server.log"
		return 1
	fi
	if [[ -f "$dir/data/PG_VERSION" ]]; then
		echo "stopped: data $dir/data"
	fi
	if port_busy "$port"; then
		echo "not running; port $port is taken by another program"
	else
		echo "not running on port $port"
	fi
	return 1
}

dispatch "$@"
