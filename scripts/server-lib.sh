# Shared by the scripts that run a private server for the tests
# (scripts/pg-logical.sh, scripts/mariadb-binlog.sh): sourced, not run.
# The sourcing script sets prog, START_TIMEOUT, DEFAULT_PORT and OWN_FILES,
# and defines answers PORT, base_dir PORT, stop PORT, start, status and usage.

die() {
	printf '%s: %s\n' "$prog" "$*" >&2
	exit 1
}

# The port given, or DEFAULT_PORT; a bad one is fatal.
port_arg() {
	local port="${1:-$DEFAULT_PORT}"
	if ! [[ "$port" =~ ^[1-9][0-9]{0,4}$ ]] || ((port > 65535)); then
		die "bad port: $port"
	fi
	printf '%s\n' "$port"
}

# Whether something listens on the port.
port_busy() {
	(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# Waits until the server answers: 0 when it does, 1 at once if the process
# PID (when given) dies, 2 after START_TIMEOUT seconds.
wait_up() {
	local port=$1 pid=${2:-} deadline=$((SECONDS + START_TIMEOUT))
	while ((SECONDS < deadline)); do
		answers "$port" && return 0
		if [[ -n "$pid" ]] && ! kill -0 "$pid" 2>/dev/null; then
			return 1
		fi
		sleep 0.2
	done
	answers "$port" && return 0
	return 2
}

# Stops the server and removes its directory, if the directory holds only
# files the script makes (OWN_FILES: globs separated by |): an environment
# variable may name another directory, which is never removed.
clean() {
	local port dir f
	port=$(port_arg "${1:-}")
	stop "$port" >/dev/null
	dir=$(base_dir "$port")
	[[ -d "$dir" ]] || return 0
	local -a own
	IFS='|' read -ra own <<<"$OWN_FILES"
	for f in "$dir"/* "$dir"/.[!.]*; do
		[[ -e "$f" || -L "$f" ]] || continue
		local mine=false pat
		for pat in "${own[@]}"; do
			# shellcheck disable=SC2053 # pat is a glob on purpose
			[[ "${f##*/}" == $pat ]] && mine=true
		done
		$mine || die "$dir holds ${f##*/}, which this script did not make: not removing it"
	done
	rm -rf "$dir"
	echo "removed $dir"
}

# Runs the command the script was given.
dispatch() {
	local cmd="${1:-}"
	[[ $# -gt 0 ]] && shift
	[[ $# -le 1 ]] || {
		usage >&2
		exit 2
	}
	case "$cmd" in
	start) start "$@" ;;
	stop) stop "$@" ;;
	status) status "$@" ;;
	clean) clean "$@" ;;
	dir) base_dir "$(port_arg "${1:-}")" ;;
	-h | --help | help) usage ;;
	*)
		usage >&2
		exit 2
		;;
	esac
}
