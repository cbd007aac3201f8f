#!/usr/bin/env bash
# Runs every test against real services: PostgreSQL and MariaDB (system
# services, checked and started if possible), a fresh DynamoDB Local on its
# own port, and, for the change-stream tests, a private PostgreSQL with
# wal_level=logical (scripts/pg-logical.sh, port 5440) and a private MariaDB
# with a row binlog (scripts/mariadb-binlog.sh, port 3340), each created
# afresh; all three are stopped again at the end.
#
# Before the tests: gofmt, go vet, go mod tidy -diff (go.mod and go.sum must
# be tidy) and staticcheck (the version pinned by go.mod's tool directive).
# After them: a short run of every fuzz target's fuzzer (scripts/fuzz.sh).
#
# REMODEL_REQUIRE_SERVICES=1 (set by .ci/run) makes a missing service, and any
# skipped test, fail the run.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== gofmt and go vet"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
	echo "not gofmt-formatted:"; echo "$unformatted"; exit 1
fi
go vet ./...

echo "== go mod tidy -diff"
if ! go mod tidy -diff; then
	echo "go.mod/go.sum are not tidy: run go mod tidy"; exit 1
fi

echo "== staticcheck"
# The version is pinned by the tool directive in go.mod (fetched once through
# the module proxy, then built from the module cache).
go tool staticcheck ./...

port="${REMODEL_TEST_DYNAMODB_PORT:-8766}"
pg_logical_port="${REMODEL_TEST_PG_LOGICAL_PORT:-5440}"
mariadb_binlog_port="${REMODEL_TEST_MARIADB_BINLOG_PORT:-3340}"
scripts/check-services.sh --start
started=() # "script port" of each private server this run started
stop_services() {
	scripts/dynamodb-local.sh stop "$port" >/dev/null 2>&1 || true
	local s
	for s in ${started[@]+"${started[@]}"}; do
		"scripts/${s% *}" stop "${s#* }" >/dev/null 2>&1 || true
	done
}
trap stop_services EXIT
scripts/dynamodb-local.sh stop "$port" >/dev/null 2>&1 || true
DYNAMODB_XMX="${DYNAMODB_XMX:-2g}" scripts/dynamodb-local.sh start "$port"

# The change-stream tests' servers (migrate --follow), never the shared ones:
# created afresh each run (no slot or binlog left by an earlier one), unless
# the variable names a server already.
# private_server SCRIPT PORT VAR: start it, export VAR=its DSN.
private_server() {
	local script=$1 port=$2 var=$3 out
	if [ -n "${!var:-}" ]; then
		echo "$var is set: not starting scripts/$script"
		return 0
	fi
	started+=("$script $port")
	if out=$("scripts/$script" clean "$port" >/dev/null && "scripts/$script" start "$port"); then
		echo "${out%$'\n'*}"
		export "$var=${out##*$'\n'}"
		return 0
	fi
	if [ "${REMODEL_REQUIRE_SERVICES:-}" = "1" ]; then
		echo "scripts/$script start $port failed, and REMODEL_REQUIRE_SERVICES=1 needs it"; exit 1
	fi
	echo "scripts/$script start $port failed: the tests that need $var will be skipped"
}
private_server pg-logical.sh "$pg_logical_port" REMODEL_TEST_POSTGRES_LOGICAL
private_server mariadb-binlog.sh "$mariadb_binlog_port" REMODEL_TEST_MYSQL_BINLOG

# Mermaid's own parser checks the ER diagrams (introspect/erd).
scripts/mermaid.sh fetch
export REMODEL_TEST_MERMAID="$(scripts/mermaid.sh path)"

# Headless Chromium opens the modeling document's HTML (document).
scripts/chromium.sh fetch
export REMODEL_TEST_CHROMIUM="${REMODEL_TEST_CHROMIUM:-$(scripts/chromium.sh path)}"

# ElectroDB and OneTable read a table remodel migrated, through the schemas
# export writes (export).
scripts/export-libs.sh fetch
export REMODEL_TEST_EXPORT_LIBS="${REMODEL_TEST_EXPORT_LIBS:-$(scripts/export-libs.sh path)}"

# PostGIS for the geometry and geography tests (source, verify), which
# create the extension in their own databases only.
if ! scripts/postgis.sh fetch; then
	if [ "${REMODEL_REQUIRE_SERVICES:-}" = "1" ]; then
		echo "PostGIS could not be installed, and REMODEL_REQUIRE_SERVICES=1 needs it"; exit 1
	fi
	echo "PostGIS is not installed: its tests will be skipped"
fi

export REMODEL_TEST_POSTGRES="${REMODEL_TEST_POSTGRES:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}"
export REMODEL_TEST_MYSQL="${REMODEL_TEST_MYSQL:-mysql://root@127.0.0.1:3306/test}"
export REMODEL_TEST_DYNAMODB="http://127.0.0.1:$port"

echo "== go test -race ./..."
log=$(mktemp)
status=0
go test -race -count=1 -v -timeout 20m ./... >"$log" 2>&1 || status=$?
# Show the package results; on failure also what the failing tests said.
if [ "$status" -eq 0 ]; then
	grep -E '^(ok|FAIL|--- SKIP|\s+--- SKIP)' "$log" || true
else
	grep -E '^(ok|FAIL|---|panic:|\s+--- (FAIL|SKIP))|^\s+\S+_test\.go:[0-9]+:|^# ' "$log" | grep -v -- '--- PASS' || true
fi
skips=$(grep -cE -- '--- SKIP' "$log" || true)
if [ "$status" -ne 0 ]; then
	echo "tests failed (full log: $log)"; exit "$status"
fi
if [ "${REMODEL_REQUIRE_SERVICES:-}" = "1" ] && [ "$skips" -gt 0 ]; then
	echo "$skips tests were skipped, and REMODEL_REQUIRE_SERVICES=1 forbids skips (full log: $log)"; exit 1
fi
rm -f "$log"

# Every fuzz target's fuzzer, briefly (a failing input stays in the
# package's testdata/fuzz/ for the fix to commit).
echo "== fuzz (scripts/fuzz.sh, FUZZTIME=${FUZZTIME:-3s} each)"
scripts/fuzz.sh
echo "all tests passed ($skips skipped)"
