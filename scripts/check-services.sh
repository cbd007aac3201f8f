#!/usr/bin/env bash
# Checks that the local PostgreSQL and MariaDB/MySQL the tests use answer, and says
# how to start whichever does not.
#
#   scripts/check-services.sh           # check; exit 1 if one is missing
#   scripts/check-services.sh --start   # also try to start missing ones, then re-check
#
# PostgreSQL: ${PGHOST:-127.0.0.1}:${PGPORT:-5432}, user postgres, no password (trust).
# MariaDB:    ${MYSQL_HOST:-127.0.0.1}:${MYSQL_PORT:-3306}, user root, empty password.
# DynamoDB Local is handled by scripts/dynamodb-local.sh.
set -euo pipefail

PG_HOST="${PGHOST:-127.0.0.1}"
PG_PORT="${PGPORT:-5432}"
MY_HOST="${MYSQL_HOST:-127.0.0.1}"
MY_PORT="${MYSQL_PORT:-3306}"
WAIT_SECONDS=30

here=$(cd "$(dirname "$0")" && pwd)
compose_file=$(cd "$here/.." && pwd)/docker-compose.yml
prog=$(basename "$0")

start=0
for arg in "$@"; do
	case "$arg" in
	--start) start=1 ;;
	-h | --help)
		sed -n '2,10s/^# \{0,1\}//p' "$0"
		exit 0
		;;
	*)
		echo "$prog: unknown argument: $arg (usage: $prog [--start])" >&2
		exit 2
		;;
	esac
done

is_local() {
	case "$1" in
	127.0.0.1 | localhost | ::1 | /*) return 0 ;;
	*) return 1 ;;
	esac
}

tcp_open() {
	local host=$1 port=$2
	case "$host" in /*) return 1 ;; esac # a Unix socket dir, not a TCP host
	(exec 3<>"/dev/tcp/$host/$port") 2>/dev/null
}

# ---------------------------------------------------------------- PostgreSQL

pg_reason=""
pg_ok() {
	pg_reason=""
	if command -v psql >/dev/null 2>&1; then
		local err
		if err=$(PGCONNECT_TIMEOUT=3 psql -X -w -h "$PG_HOST" -p "$PG_PORT" -U postgres -d postgres \
			-Atqc 'select 1' 2>&1 >/dev/null); then
			return 0
		fi
		pg_reason=$(printf '%s\n' "$err" | head -n 1)
		return 1
	fi
	if command -v pg_isready >/dev/null 2>&1; then
		pg_isready -q -t 3 -h "$PG_HOST" -p "$PG_PORT" -U postgres && return 0
		pg_reason="pg_isready: no server accepting connections"
		return 1
	fi
	if tcp_open "$PG_HOST" "$PG_PORT"; then
		echo "note: no psql or pg_isready here, only checked that the port is open" >&2
		return 0
	fi
	pg_reason="nothing listens on $PG_HOST:$PG_PORT (and no psql client to say more)"
	return 1
}

pg_version() {
	local v=""
	if [[ -d /etc/postgresql ]]; then
		# shellcheck disable=SC2012 # version folder names, no odd characters
		v=$(ls /etc/postgresql 2>/dev/null | sort -V | tail -n 1)
	fi
	printf '%s\n' "${v:-15}"
}

pg_can_start() {
	is_local "$PG_HOST" && command -v pg_ctlcluster >/dev/null 2>&1 && [[ -d /etc/postgresql ]]
}

pg_start_cmd() {
	printf 'pg_ctlcluster --skip-systemctl-redirect %s main start\n' "$(pg_version)"
}

pg_hint() {
	if pg_can_start; then
		echo "  start it:  $(pg_start_cmd)"
		echo "  (or run:   $0 --start)"
	else
		echo "  start it:  docker compose -f $compose_file up -d postgres"
		echo "  (or point PGHOST/PGPORT at a PostgreSQL 15 with trust auth for user postgres)"
	fi
}

# ---------------------------------------------------------------- MariaDB / MySQL

my_reason=""
my_ok() {
	my_reason=""
	local client="" err
	if command -v mariadb >/dev/null 2>&1; then
		client=mariadb
	elif command -v mysql >/dev/null 2>&1; then
		client=mysql
	fi
	if [[ -n "$client" ]]; then
		# --no-defaults: ignore ~/.my.cnf, so "root with an empty password" is what is tested.
		if err=$("$client" --no-defaults --protocol=TCP -h "$MY_HOST" -P "$MY_PORT" -u root \
			--connect-timeout=3 -e 'select 1' 2>&1 >/dev/null); then
			return 0
		fi
		my_reason=$(printf '%s\n' "$err" | head -n 1)
		return 1
	fi
	if command -v mysqladmin >/dev/null 2>&1; then
		if err=$(mysqladmin --no-defaults --protocol=TCP -h "$MY_HOST" -P "$MY_PORT" -u root \
			--connect-timeout=3 ping 2>&1); then
			return 0
		fi
		my_reason=$(printf '%s\n' "$err" | tail -n 1)
		return 1
	fi
	if tcp_open "$MY_HOST" "$MY_PORT"; then
		echo "note: no mariadb/mysql client here, only checked that the port is open" >&2
		return 0
	fi
	my_reason="nothing listens on $MY_HOST:$MY_PORT (and no mariadb/mysql client to say more)"
	return 1
}

MARIADBD=/usr/sbin/mariadbd

my_can_start() {
	is_local "$MY_HOST" && [[ -x "$MARIADBD" ]] && command -v start-stop-daemon >/dev/null 2>&1
}

my_start_cmd() {
	printf 'start-stop-daemon --start --oknodo --background --exec %s\n' "$MARIADBD"
}

my_hint() {
	if my_can_start; then
		echo "  start it:  $(my_start_cmd)"
		echo "  (or run:   $0 --start)"
	else
		echo "  start it:  docker compose -f $compose_file up -d mysql"
		echo "  (or point MYSQL_HOST/MYSQL_PORT at a MariaDB/MySQL with root and an empty password)"
	fi
}

# ---------------------------------------------------------------- main

check_all() {
	local quiet=${1:-0} missing=0
	if pg_ok; then
		((quiet)) || echo "ok:      PostgreSQL at $PG_HOST:$PG_PORT (user postgres)"
	else
		missing=1
	fi
	if my_ok; then
		((quiet)) || echo "ok:      MariaDB/MySQL at $MY_HOST:$MY_PORT (user root)"
	else
		missing=1
	fi
	return "$missing"
}

report_missing() {
	if ! pg_ok; then
		echo "MISSING: PostgreSQL at $PG_HOST:$PG_PORT (user postgres): $pg_reason"
		pg_hint
	fi
	if ! my_ok; then
		echo "MISSING: MariaDB/MySQL at $MY_HOST:$MY_PORT (user root, empty password): $my_reason"
		my_hint
	fi
}

if ((start)); then
	tried=0
	if ! pg_ok && pg_can_start; then
		echo "starting PostgreSQL: $(pg_start_cmd)"
		pg_ctlcluster --skip-systemctl-redirect "$(pg_version)" main start ||
			echo "  (exit status $?; re-checking anyway)"
		tried=1
	fi
	if ! my_ok && my_can_start; then
		if [[ ! -d /run/mysqld ]] && id mysql >/dev/null 2>&1; then
			# Debian's config puts the socket and pid file there; it is gone after a reboot.
			if mkdir -p /run/mysqld; then
				chown mysql:mysql /run/mysqld || true
			fi
		fi
		echo "starting MariaDB: $(my_start_cmd)"
		start-stop-daemon --start --oknodo --background --exec "$MARIADBD" ||
			echo "  (exit status $?; re-checking anyway)"
		tried=1
	fi
	if ((tried)); then
		deadline=$((SECONDS + WAIT_SECONDS))
		until check_all 1 || ((SECONDS >= deadline)); do
			sleep 1
		done
	fi
fi

if check_all; then
	exit 0
fi
report_missing
exit 1
