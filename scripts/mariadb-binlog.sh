#!/usr/bin/env bash
# A private MariaDB server with a row binlog, for the change-stream tests
# (migrate --follow). The machine's own MariaDB (3306) is never touched.
#
#   scripts/mariadb-binlog.sh start [port]   # install on first use, start, wait until it answers, print the DSN
#   scripts/mariadb-binlog.sh stop [port]    # shut it down (mariadb-admin shutdown); the data directory stays
#   scripts/mariadb-binlog.sh status [port]  # is it running / answering? (exit 1 if not)
#   scripts/mariadb-binlog.sh clean [port]   # stop it and remove its directory (the next start installs afresh)
#   scripts/mariadb-binlog.sh dir [port]     # print its directory
#
# The server is the machine's mariadbd (Debian's mariadb-server), its data created by
# mariadb-install-db, both with --no-defaults (the machine's my.cnf is not read), on
# 127.0.0.1:port only (default 3340), user root with an empty password, a database test,
# and a binlog of full row images: --log-bin --binlog-format=ROW --binlog-row-image=FULL
# --server-id=77 (utf8mb4 by default, as Debian's server). DSN:
#   mysql://root@127.0.0.1:PORT/test
# Run as root, the server runs as root (--user=root).
#
# Its directory, $XDG_CACHE_HOME/remodel/run/mariadb-binlog-PORT, holds the data
# directory (data/, with the binlogs data/binlog.*), the socket, the pid file and
# the server log (server.log).
#
# Environment:
#   MARIADB_BINLOG_PORT  default port (3340)
#   MARIADB_BINLOG_DIR   the directory (default: see above)
#   XDG_CACHE_HOME       cache root ($HOME/.cache)
set -euo pipefail

START_TIMEOUT=60
STOP_TIMEOUT=60
prog=$(basename "$0")
DEFAULT_PORT="${MARIADB_BINLOG_PORT:-3340}"
OWN_FILES="data|tmp|server.log|install-db.log|mysqld.sock|mysqld.sock.lock|mariadbd.pid"
# shellcheck source=scripts/server-lib.sh
source "$(dirname "$0")/server-lib.sh"

usage() {
	cat <<EOF
usage: $prog start [port] | stop [port] | status [port] | clean [port] | dir [port]

  start [port]   start the server on 127.0.0.1:port (default \${MARIADB_BINLOG_PORT:-3340}),
                 creating its data on first use, and print its DSN
  stop [port]    shut it down (the data directory stays)
  status [port]  report whether it runs and answers
  clean [port]   stop it and remove its directory
  dir [port]     print its directory
EOF
}

base_dir() {
	if [[ -n "${MARIADB_BINLOG_DIR:-}" ]]; then
		printf '%s\n' "$MARIADB_BINLOG_DIR"
	else
		printf '%s/remodel/run/mariadb-binlog-%s\n' "${XDG_CACHE_HOME:-$HOME/.cache}" "$1"
	fi
}

# find_bin NAME...: the first of the names in PATH, /usr/sbin or /usr/bin.
find_bin() {
	local n d
	for n in "$@"; do
		if command -v "$n" >/dev/null 2>&1; then
			command -v "$n"
			return 0
		fi
		for d in /usr/sbin /usr/bin /usr/local/sbin /usr/local/bin; do
			if [[ -x "$d/$n" ]]; then
				printf '%s/%s\n' "$d" "$n"
				return 0
			fi
		done
	done
	return 1
}

bins() {
	local hint="install them (Debian/Ubuntu: apt-get install mariadb-server)"
	MARIADBD=$(find_bin mariadbd mysqld) || die "no mariadbd: $hint"
	INSTALL_DB=$(find_bin mariadb-install-db mysql_install_db) || die "no mariadb-install-db: $hint"
	ADMIN=$(find_bin mariadb-admin mysqladmin) || die "no mariadb-admin: $hint"
	CLIENT=$(find_bin mariadb mysql) || die "no mariadb client: $hint"
}

# The OS user the server runs as: root needs saying so (--user=root).
user_args=()
if ((EUID == 0)); then
	user_args=(--user=root)
fi

# Prints the pid of the server of dir if it is alive and really is that server
# (guards against a reused pid); otherwise nothing.
our_pid() {
	local dir=$1 pid
	[[ -f "$dir/mariadbd.pid" ]] || return 0
	pid=$(tr -dc '0-9' <"$dir/mariadbd.pid")
	alive "$pid" "$dir" && printf '%s\n' "$pid"
	return 0
}

alive() {
	local pid=$1 dir=$2
	[[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null || return 1
	tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null | grep -qxF -- "--datadir=$dir/data"
}

admin() {
	local port=$1
	shift
	"$ADMIN" --no-defaults -h 127.0.0.1 -P "$port" -u root --connect-timeout=2 "$@"
}

answers() {
	admin "$1" ping >/dev/null 2>&1
}

dsn() { printf 'mysql://root@127.0.0.1:%s/test\n' "$1"; }

create() {
	local dir=$1
	# A temporary directory of its own: a MariaDB server that starts removes
	# every #sql* file of its tmpdir, and in /tmp those are the machine's
	# server's temporary tables (its queries then fail, or it crashes).
	mkdir -p "$dir" "$dir/tmp"
	[[ -d "$dir/data/mysql" ]] && return 0
	rm -rf "$dir/data"
	echo "creating a MariaDB data directory in $dir/data ($INSTALL_DB)" >&2
	if ! "$INSTALL_DB" --no-defaults --datadir="$dir/data" --tmpdir="$dir/tmp" ${user_args[@]+"${user_args[@]}"} \
		--auth-root-authentication-method=normal --skip-test-db >"$dir/install-db.log" 2>&1; then
		cat "$dir/install-db.log" >&2
		rm -rf "$dir/data"
		die "mariadb-install-db failed"
	fi
}

start() {
	local port dir pid
	port=$(port_arg "${1:-}")
	bins
	dir=$(base_dir "$port")
	# A Unix socket path has at most 107 bytes.
	((${#dir} <= 90)) || die "the directory's path is too long for a socket: $dir (set MARIADB_BINLOG_DIR)"

	pid=$(our_pid "$dir")
	if [[ -n "$pid" ]]; then
		if wait_up "$port" "$pid" "$dir"; then
			echo "MariaDB (binlog) is already running on port $port (pid $pid, $dir)"
			dsn "$port"
			return 0
		fi
		die "MariaDB (pid $pid) in $dir runs but does not answer on port $port; see $dir/server.log (or: $prog stop $port)"
	fi
	if port_busy "$port"; then
		die "port $port is taken by another program; stop it or use another port"
	fi
	create "$dir"
	rm -f "$dir/mariadbd.pid"

	local launcher=()
	command -v setsid >/dev/null 2>&1 && launcher=(setsid)
	# --no-defaults must come first. setsid: the server leaves this script's
	# session, so the end of the calling shell does not take it along.
	nohup ${launcher[@]+"${launcher[@]}"} "$MARIADBD" --no-defaults --datadir="$dir/data" --tmpdir="$dir/tmp" \
		--port="$port" --bind-address=127.0.0.1 --socket="$dir/mysqld.sock" \
		--pid-file="$dir/mariadbd.pid" ${user_args[@]+"${user_args[@]}"} \
		--log-bin="$dir/data/binlog" --binlog-format=ROW --binlog-row-image=FULL --server-id=77 \
		--character-set-server=utf8mb4 --collation-server=utf8mb4_general_ci \
		--innodb-flush-log-at-trx-commit=0 \
		</dev/null >>"$dir/server.log" 2>&1 &
	pid=$!

	local rc=0
	wait_up "$port" "$pid" "$dir" || rc=$?
	if ((rc != 0)); then
		if ((rc == 2)); then
			echo "MariaDB did not answer on 127.0.0.1:$port within ${START_TIMEOUT}s; stopping it. Last lines of $dir/server.log:" >&2
		else
			echo "MariaDB (pid $pid) exited before answering on port $port. Last lines of $dir/server.log:" >&2
		fi
		tail -n 20 "$dir/server.log" >&2 || true
		stop_pid "$port" "$pid" "$dir" >/dev/null 2>&1 || true
		exit 1
	fi
	local err
	if ! err=$("$CLIENT" --no-defaults -h 127.0.0.1 -P "$port" -u root --connect-timeout=5 \
		-e 'CREATE DATABASE IF NOT EXISTS test CHARACTER SET utf8mb4' 2>&1); then
		stop_pid "$port" "$pid" "$dir" >/dev/null 2>&1 || true
		die "MariaDB is up but root cannot create the database test over TCP: $err"
	fi
	echo "MariaDB (row binlog) is up on 127.0.0.1:$port (pid $pid, data $dir/data, log $dir/server.log)"
	dsn "$port"
}

# Shuts the server down (mariadb-admin shutdown, then SIGTERM, then SIGKILL) and
# waits for its process to end.
stop_pid() {
	local port=$1 pid=$2 dir=$3 deadline
	admin "$port" shutdown >/dev/null 2>&1 || kill -TERM "$pid" 2>/dev/null || true
	deadline=$((SECONDS + STOP_TIMEOUT))
	while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do
		sleep 0.2
	done
	if kill -0 "$pid" 2>/dev/null; then
		echo "MariaDB (pid $pid) still running after ${STOP_TIMEOUT}s, sending SIGKILL" >&2
		kill -KILL "$pid" 2>/dev/null || true
		deadline=$((SECONDS + 5))
		while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.1; done
	fi
	echo "MariaDB (binlog) on port $port stopped (data kept in $dir/data)"
}

stop() {
	local port dir pid
	port=$(port_arg "${1:-}")
	bins
	dir=$(base_dir "$port")
	pid=$(our_pid "$dir")
	if [[ -z "$pid" ]]; then
		echo "MariaDB (binlog) is not running on port $port ($dir)"
		return 0
	fi
	stop_pid "$port" "$pid" "$dir"
}

status() {
	local port dir pid
	port=$(port_arg "${1:-}")
	bins
	dir=$(base_dir "$port")
	pid=$(our_pid "$dir")
	if [[ -n "$pid" ]]; then
		if answers "$port"; then
			echo "running: pid $pid, 127.0.0.1:$port, data $dir/data, log $dir/server.log"
			dsn "$port"
			return 0
		fi
		echo "started (pid $pid) but not answering on port $port; log $dir/server.log"
		return 1
	fi
	if [[ -d "$dir/data/mysql" ]]; then
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
