#!/usr/bin/env bash
# make bench: measures remodel against its ceilings in one run and prints the
# figures side by side (see cmd/remodel-bench and docs/performance.md).
#
#   scripts/bench.sh                     # about 100 000 rows, PostgreSQL
#   ROWS=1000000 ENGINE=both scripts/bench.sh
#
# Environment:
#   ROWS                  rows to generate (about; default 100000)
#   ENGINE                postgres (default), mysql or both
#   READERS, WRITERS      remodel --readers (4) and --writers (8), also used by the raw runs
#   BENCH_DYNAMODB_PORT   DynamoDB Local's port (8767), started fresh for each run that stores items
#   DYNAMODB_XMX          its JVM heap (default sized for ROWS)
#   REPEAT                rounds of the measurements; each figure is its median (1)
#   CPUPROFILE            also profile one more null-sink run of remodel into this file
#                         (FILE.postgres and FILE.mysql with ENGINE=both)
#   BENCH_DB              the database to generate (remodel_bench; dropped at the end)
#   CAPACITY=1            after the measurements, per engine: remodel migrate behind the
#                         fault proxy's capacity model of DynamoDB (1 000 WU/s a partition
#                         key, 4 000 WU/s the table, time x0.25) on an even dataset and a
#                         skewed one (a fifth of its rows in one item collection, read first),
#                         each as items/s and the share of what the model allows (target
#                         >= 0.85); CAPACITY_ROWS rows each (default ROWS/5, at least 1000;
#                         1000000 gives the issue's collection of 200 000 items)
#   BENCH_KEEP_DB=1       keep the database after the run
#   BENCH_COPIES=N        PostgreSQL: generate ROWS/N rows and add N-1 copies with shifted
#                         ids in SQL (scripts/bench-copies.sql): 10 million rows in minutes
#   KEY_CHECK=always      run remodel's key collision check although the mapping's keys
#                         are proven distinct on the data (its cost and memory; auto)
#   NULL_ONLY=1           measure only the raw read and the null sink: nothing is
#                         stored in DynamoDB Local (for 10 million rows, which it
#                         would take hours to store), and nothing verified
#   S3_ROUTE=0            skip the S3 import route's rows (migrate --to a local directory,
#                         gzip and zstd, and to an in-process S3, beside the null sink)
#
# Large mode (peak RSS as the rows grow; PostgreSQL):
#   LARGE=1               instead of the above, at each size of LARGE_ROWS: migrate into the
#                         null sink, migrate --to a local directory, verify --files of it;
#                         one table of peak RSS and CPU s/M per size
#   LARGE_ROWS            the sizes, comma-separated (default 1000000,3000000,10000000)
#   LARGE_COPIES          copies of generated rows (BENCH_COPIES' way; default 1 per 500 000 rows)
#
# Kill loop (resume after kill -9, on the bench's data):
#   KILL_LOOP=N           after the measurements, migrate into a fresh table once per
#                         KILL_RANGES value, kill remodel with SIGKILL at N random
#                         points (shares of the job, drawn from a seed), --resume each
#                         time until a run finishes, then prove the table exact (item
#                         count = rows, the last report, remodel verify of every item);
#                         prints a line per kill and a row per job beside the
#                         uninterrupted run. Fails if the table is not exact. Then the
#                         same jobs again with a mapping with embedded rows (KILL_EMBED).
#   KILL_SEED             the seed of the kill points (printed; set it to replay them)
#   KILL_RANGES           the jobs' --ranges values (default 1,4)
#   KILL_ONLY=1           with KILL_LOOP: skip the raw sink, the null sink and the verify row
#   KILL_EMBED            the kill loop's second mapping, run after the main one's jobs,
#                         one job per KILL_RANGES value, with the same proofs: by default
#                         (unset or 1) cmd/remodel-bench/personalization-embed.yaml, the same
#                         rows with each user's settings and subscriptions embedded in
#                         the user's item (so kills fall inside an entity with embedded
#                         rows; each kill line says how many of its key ranges were part
#                         done); a file: that mapping (on the same data); 0: none, the
#                         main mapping's jobs only
#
#   KILL_LOOP=5 ROWS=200000 ENGINE=both scripts/bench.sh
#   KILL_LOOP=3 KILL_ONLY=1 KILL_EMBED=0 scripts/bench.sh   # the main mapping only
#
# Following (migrate --follow; cmd/remodel-bench/follow.go):
#   FOLLOW=1              after the measurements, per engine: the same data loaded into a
#                         private server with logical replication (scripts/pg-logical.sh,
#                         port FOLLOW_PG_PORT, 5441) or a row binlog (scripts/mariadb-binlog.sh,
#                         port FOLLOW_MARIADB_PORT, 3341), never the shared ones; then
#                         migrate --follow --create-table (the copy's items/s), a backlog
#                         of FOLLOW_BACKLOG changed rows made while the follower is stopped
#                         and --follow --resume timed to lag 0 (catch-up changes/s, beside
#                         the copy's; target >= 0.8 x), a workload of FOLLOW_RATE changed
#                         rows/s for FOLLOW_SECONDS with the follower's lag read every second
#                         (p50/p99/max; target p99 < 5 s), then lag 0, SIGINT, remodel verify
#                         (must pass) and follow-cleanup. Prints a table per engine. The
#                         private servers are stopped at the end (their data directories stay).
#   FOLLOW_ONLY=1         with FOLLOW=1: only that (no measurements on the shared servers)
#   CPUPROFILE            with FOLLOW=1 also: the resumed follower (catch-up, steady workload,
#                         stop) runs with a CPU profile into FILE.follow.postgres / .mysql
#                         (its CPU figures then include the profiler's cost); with FOLLOWBACK=1
#                         follow-back's process too, into FILE.follow.ENGINE.followback
#   FOLLOW_BACKLOG        the catch-up's changed rows (default ROWS/2, at least 1000: the lag
#                         lines come once a second, so the catch-up should last seconds)
#   FOLLOW_RATE           the steady workload's changed rows per second (500)
#   FOLLOW_SECONDS        how long it runs (60)
#   FOLLOW_SOAK_SEEDS     then, per engine, the follow soak (cmd/remodel-bench/soak.go; issue 34):
#                         this many seeds (default 50; 0: none) of migrate --follow --create-table
#                         (through migrate.Run in the bench) of a fresh table of 2 000 orders
#                         (CUSTOMER#{customer_id} / ORDER#{created_at}#{order_id}) in the same private
#                         database, the copy slowed by a fault proxy (every BatchWriteItem held 30 ms,
#                         8 % of the copy's held past a --request-timeout of 500 ms and carried out
#                         late), a seeded workload of 200 transactions/s during it (30 % inserts, 30 %
#                         status and amount, 20 % created_at: the item moves, 10 % deletes, 10 % two
#                         statements) and busy goroutines on every core; then caught up, the late
#                         writes landed, the follower stopped as SIGINT does (it must return cleanly),
#                         and remodel verify of every item. Prints seeds, differences (items missing,
#                         extra or different; target 0) and seconds; the bench fails if a seed differs
#   FOLLOW_SOAK_SEED      the soak's first seed (1)
#
#   FOLLOWBACK=1          FOLLOW=1, and after the forward follower's steps, per engine, follow-back
#                         (cmd/remodel-bench/followback.go) on the same private database: migrate
#                         --create-table --stream of cmd/remodel-bench/personalization-embed.yaml
#                         (settings and subscriptions embedded in the user's item) into a fresh
#                         table; follow-back's code (followback.Run, in a process of its own)
#                         started and stopped; FOLLOW_BACKLOG item changes written into the table
#                         through the AWS SDK (names updated, embedded settings edited, users and
#                         contents put, contents moved to another key, deleted), follow-back
#                         resumed and timed to every change applied (catch-up changes/s); then
#                         FOLLOW_RATE item changes/s for FOLLOW_SECONDS, each change's lag the
#                         moment follow-back applied it less the moment the workload wrote it
#                         (p50/p99; target p99 < 5 s, >= 500 changes/s); SIGINT (no dead letter),
#                         remodel verify (must pass). One table beside the forward follower's.
#
#   FOLLOW=1 FOLLOW_ONLY=1 ROWS=20000 ENGINE=both scripts/bench.sh
#   FOLLOWBACK=1 FOLLOW_ONLY=1 FOLLOW_SOAK_SEEDS=0 ROWS=20000 ENGINE=both scripts/bench.sh
#
# The data is the personalization example's generator at -scale ROWS/6820
# (about 6 820 rows per scale step in five tables), loaded into a fresh
# database remodel_bench.
set -euo pipefail
cd "$(dirname "$0")/.."

rows="${ROWS:-100000}"
engine="${ENGINE:-postgres}"
port="${BENCH_DYNAMODB_PORT:-8767}"
db="${BENCH_DB:-remodel_bench}"
ex=examples/personalization

[[ "$rows" =~ ^[1-9][0-9]*$ ]] || { echo "bench: ROWS must be a positive whole number, got '$rows'" >&2; exit 2; }
case "$engine" in
postgres) engines=(postgres) ;;
mysql) engines=(mysql) ;;
both) engines=(postgres mysql) ;;
*) echo "bench: ENGINE must be postgres, mysql or both, got '$engine'" >&2; exit 2 ;;
esac

# gen -scale 1 makes about 6 820 rows (1 000 users, ~3 000 settings, ~2 500
# subscriptions, ~300 contents, 6 services); the count scales linearly.
copies="${BENCH_COPIES:-1}"
[[ "$copies" =~ ^[1-9][0-9]*$ ]] || { echo "bench: BENCH_COPIES must be a positive whole number, got '$copies'" >&2; exit 2; }
if ((copies > 1)) && [[ "$engine" != postgres ]]; then
	echo "bench: BENCH_COPIES works with ENGINE=postgres only" >&2
	exit 2
fi
scale=$(((rows / copies + 3410) / 6820))
((scale >= 1)) || scale=1
# DynamoDB Local's heap: it keeps every item, and the JVM grows with them.
if [[ -z "${DYNAMODB_XMX:-}" && "${NULL_ONLY:-}" == 1 ]]; then
	export DYNAMODB_XMX=1g # it stores nothing
elif [[ -z "${DYNAMODB_XMX:-}" ]]; then
	gb=$((1 + (rows + 499999) / 500000))
	((gb <= 16)) || gb=16
	export DYNAMODB_XMX="${gb}g"
fi

say() { printf 'bench: %s\n' "$*" >&2; }

# kill_args prints the kill loop's flags for bin/remodel-bench (none without KILL_LOOP).
kill_args() {
	[[ -n "${KILL_LOOP:-}" ]] || return 0
	echo "-kill-loop $KILL_LOOP -kill-ranges ${KILL_RANGES:-1,4}"
	[[ -z "${KILL_SEED:-}" ]] || echo "-kill-seed $KILL_SEED"
	[[ "${KILL_ONLY:-}" != 1 ]] || echo "-kill-only"
	case "${KILL_EMBED:-1}" in
	1) ;; # the bench's default -kill-embed
	0) echo "-kill-embed=" ;;
	*) echo "-kill-embed=$KILL_EMBED" ;;
	esac
}
for v in FOLLOW_BACKLOG FOLLOW_RATE FOLLOW_SECONDS FOLLOW_PG_PORT FOLLOW_MARIADB_PORT; do
	[[ -z "${!v:-}" || "${!v}" =~ ^[1-9][0-9]*$ ]] || { echo "bench: $v must be a positive whole number, got '${!v}'" >&2; exit 2; }
done
for v in FOLLOW_SOAK_SEEDS FOLLOW_SOAK_SEED; do
	[[ -z "${!v:-}" || "${!v}" =~ ^[0-9]+$ ]] || { echo "bench: $v must be a whole number, got '${!v}'" >&2; exit 2; }
done
[[ "${FOLLOWBACK:-}" != 1 ]] || FOLLOW=1
soak_seeds="${FOLLOW_SOAK_SEEDS:-50}"
soak_failed=0
follow_pg_port="${FOLLOW_PG_PORT:-5441}"
follow_my_port="${FOLLOW_MARIADB_PORT:-3341}"
[[ "${FOLLOW_ONLY:-}" != 1 || "${FOLLOW:-}" == 1 ]] || { echo "bench: FOLLOW_ONLY=1 needs FOLLOW=1" >&2; exit 2; }
[[ -z "${KILL_LOOP:-}" || "$KILL_LOOP" =~ ^[0-9]+$ ]] || { echo "bench: KILL_LOOP must be a whole number, got '$KILL_LOOP'" >&2; exit 2; }
case "${KILL_EMBED:-1}" in
0 | 1) ;;
*) [[ -f "$KILL_EMBED" && "$KILL_EMBED" != *[[:space:]]* ]] || { echo "bench: KILL_EMBED must be 0, 1 or a mapping file (a path without spaces), got '$KILL_EMBED'" >&2; exit 2; } ;;
esac

scripts/check-services.sh --start >&2
say "building bin/remodel and bin/remodel-bench"
go build -o bin/remodel ./cmd/remodel
go build -o bin/remodel-bench ./cmd/remodel-bench

tmp=$(mktemp -d)
cleanup() {
	scripts/dynamodb-local.sh stop "$port" >/dev/null 2>&1 || true
	if [[ "${BENCH_KEEP_DB:-}" != 1 ]]; then
		psql -q -h 127.0.0.1 -U postgres -d postgres -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
		mariadb -h 127.0.0.1 -u root -e "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true
	fi
	if [[ "${FOLLOW:-}" == 1 ]]; then
		scripts/pg-logical.sh stop "$follow_pg_port" >/dev/null 2>&1 || true
		scripts/mariadb-binlog.sh stop "$follow_my_port" >/dev/null 2>&1 || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

# follow_bench ENGINE: the follow bench on a private server (see FOLLOW above).
follow_bench() {
	local e=$1 dsn backlog=${FOLLOW_BACKLOG:-$((rows / 2))}
	((backlog >= 1000)) || backlog=1000
	say "$e (follow): generating gen -scale $scale and loading it into a private server's fresh database $db"
	go run ./$ex/gen -scale "$scale" -engine "$e" >"$tmp/follow.sql"
	case "$e" in
	postgres)
		scripts/pg-logical.sh start "$follow_pg_port" >&2
		local pg=(psql -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$follow_pg_port" -U postgres)
		# A slot left by an earlier run keeps its database from being dropped.
		"${pg[@]}" -d postgres -c "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE database = '$db'" >/dev/null
		"${pg[@]}" -d postgres -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db"
		PGOPTIONS='-c client_min_messages=warning' "${pg[@]}" -d "$db" -f "$ex/schema.postgres.sql" -f "$tmp/follow.sql"
		"${pg[@]}" -d "$db" -c "VACUUM (FREEZE, ANALYZE)"
		dsn="postgres://postgres@127.0.0.1:$follow_pg_port/$db?sslmode=disable"
		;;
	mysql)
		scripts/mariadb-binlog.sh start "$follow_my_port" >&2
		local my=(mariadb -h 127.0.0.1 -P "$follow_my_port" -u root)
		"${my[@]}" -e "DROP DATABASE IF EXISTS $db; CREATE DATABASE $db CHARACTER SET utf8mb4"
		"${my[@]}" "$db" <"$ex/schema.mysql.sql"
		"${my[@]}" "$db" <"$tmp/follow.sql"
		"${my[@]}" "$db" -e "ANALYZE TABLE users, services, personal, subscribe, subscribe_user" >/dev/null
		dsn="mysql://root@127.0.0.1:$follow_my_port/$db"
		;;
	esac
	rm -f "$tmp/follow.sql"
	echo
	echo "\$ make bench $([[ "${FOLLOWBACK:-}" == 1 ]] && echo FOLLOWBACK || echo FOLLOW)=1 ROWS=$rows ENGINE=$engine${FOLLOW_ONLY:+ FOLLOW_ONLY=$FOLLOW_ONLY}${FOLLOW_BACKLOG:+ FOLLOW_BACKLOG=$FOLLOW_BACKLOG}${FOLLOW_RATE:+ FOLLOW_RATE=$FOLLOW_RATE}${FOLLOW_SECONDS:+ FOLLOW_SECONDS=$FOLLOW_SECONDS}   # $e, following"
	local prof=()
	[[ -z "${CPUPROFILE:-}" ]] || prof=(-cpuprofile "$CPUPROFILE.follow.$e")
	[[ "${FOLLOWBACK:-}" != 1 ]] || prof+=(-follow-back)
	bin/remodel-bench -follow -source "$dsn" -mapping "$ex/mapping.yaml" -remodel bin/remodel -port "$port" \
		-readers "${READERS:-4}" -writers "${WRITERS:-8}" "${prof[@]}" \
		-follow-backlog "$backlog" -follow-rate "${FOLLOW_RATE:-500}" -follow-seconds "${FOLLOW_SECONDS:-60}s" \
		-note "examples/personalization/gen -scale $scale; private server on :${dsn##*127.0.0.1:}; DynamoDB Local -Xmx$DYNAMODB_XMX"
	if ((soak_seeds > 0)); then
		echo
		echo "\$ make bench FOLLOW=1 ENGINE=$engine${FOLLOW_ONLY:+ FOLLOW_ONLY=$FOLLOW_ONLY} FOLLOW_SOAK_SEEDS=$soak_seeds${FOLLOW_SOAK_SEED:+ FOLLOW_SOAK_SEED=$FOLLOW_SOAK_SEED}   # $e, follow soak"
		say "$e (follow soak): $soak_seeds seeds"
		# A seed that differs fails the bench, after the other engine's soak.
		bin/remodel-bench -follow-soak "$soak_seeds" -follow-soak-seed "${FOLLOW_SOAK_SEED:-1}" -source "$dsn" -port "$port" || soak_failed=1
	fi
	scripts/dynamodb-local.sh stop "$port" >/dev/null
	case "$e" in
	postgres)
		[[ "${BENCH_KEEP_DB:-}" == 1 ]] || psql -q -h 127.0.0.1 -p "$follow_pg_port" -U postgres -d postgres -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null
		scripts/pg-logical.sh stop "$follow_pg_port" >&2
		;;
	mysql)
		[[ "${BENCH_KEEP_DB:-}" == 1 ]] || mariadb -h 127.0.0.1 -P "$follow_my_port" -u root -e "DROP DATABASE IF EXISTS $db" >/dev/null
		scripts/mariadb-binlog.sh stop "$follow_my_port" >&2
		;;
	esac
}

# load_source ENGINE: generate gen -scale $scale (×$copies on PostgreSQL) and
# load it into a fresh database $db; sets dsn.
load_source() {
	local e=$1
	say "$e: generating gen -scale $scale and loading it into a fresh database $db"
	go run ./$ex/gen -scale "$scale" -engine "$e" >"$tmp/data.sql"
	case "$e" in
	postgres)
		psql -q -h 127.0.0.1 -U postgres -d postgres -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db"
		PGOPTIONS='-c client_min_messages=warning' psql -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -U postgres -d "$db" \
			-f "$ex/schema.postgres.sql" -f "$tmp/data.sql"
		if ((copies > 1)); then
			say "$e: adding $((copies - 1)) copies of the rows with shifted ids (scripts/bench-copies.sql)"
			psql -q -h 127.0.0.1 -U postgres -d "$db" -v copies="$copies" -f scripts/bench-copies.sql
		fi
		# Set hint bits and statistics now, so the first reader does not pay for them.
		psql -q -h 127.0.0.1 -U postgres -d "$db" -c "VACUUM (FREEZE, ANALYZE)"
		dsn="postgres://postgres@127.0.0.1:5432/$db?sslmode=disable"
		;;
	mysql)
		mariadb -h 127.0.0.1 -u root -e "DROP DATABASE IF EXISTS $db; CREATE DATABASE $db CHARACTER SET utf8mb4"
		mariadb -h 127.0.0.1 -u root "$db" <"$ex/schema.mysql.sql"
		mariadb -h 127.0.0.1 -u root "$db" <"$tmp/data.sql"
		mariadb -h 127.0.0.1 -u root "$db" -e "ANALYZE TABLE users, services, personal, subscribe, subscribe_user" >/dev/null
		dsn="mysql://root@127.0.0.1:3306/$db"
		;;
	esac
	rm -f "$tmp/data.sql"
}

# LARGE=1: the large mode (cmd/remodel-bench/large.go). At each size of
# LARGE_ROWS (default 1000000,3000000,10000000; PostgreSQL, the rows made by
# gen and BENCH_COPIES-style copies: LARGE_COPIES copies, default one per
# 500 000 rows), peak RSS and CPU s/M of migrate into the null sink, migrate
# --to a local directory and verify --files of its objects; one table.
if [[ "${LARGE:-}" == 1 ]]; then
	[[ "$engine" == postgres ]] || { echo "bench: LARGE=1 works with ENGINE=postgres only (it makes its rows with BENCH_COPIES' copies)" >&2; exit 2; }
	sizes="${LARGE_ROWS:-1000000,3000000,10000000}"
	[[ "$sizes" =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || { echo "bench: LARGE_ROWS must be whole numbers separated by commas, got '$sizes'" >&2; exit 2; }
	export DYNAMODB_XMX="${DYNAMODB_XMX_LARGE:-1g}" # the null sink stores nothing
	out="$tmp/large.jsonl"
	for n in ${sizes//,/ }; do
		copies="${LARGE_COPIES:-$(((n + 499999) / 500000))}"
		scale=$(((n / copies + 3410) / 6820))
		((scale >= 1)) || scale=1
		load_source postgres
		scripts/dynamodb-local.sh stop "$port" >/dev/null 2>&1 || true
		scripts/dynamodb-local.sh start "$port" >&2
		say "large mode: $n rows"
		bin/remodel-bench -large "$out" -source "$dsn" -mapping "$ex/mapping.yaml" -remodel bin/remodel -port "$port" \
			-readers "${READERS:-4}" -writers "${WRITERS:-8}" -key-check "${KEY_CHECK:-auto}" \
			-note "gen -scale $scale x$copies (copies with shifted ids)"
		scripts/dynamodb-local.sh stop "$port" >/dev/null
	done
	echo
	echo "\$ make bench LARGE=1 LARGE_ROWS=$sizes   # postgres"
	bin/remodel-bench -large-table "$out"
	exit 0
fi

for e in "${engines[@]}"; do
	if [[ "${FOLLOW_ONLY:-}" == 1 ]]; then
		follow_bench "$e"
		continue
	fi
	load_source "$e"

	say "$e: starting a fresh DynamoDB Local on :$port (-Xmx$DYNAMODB_XMX)"
	scripts/dynamodb-local.sh stop "$port" >/dev/null 2>&1 || true
	scripts/dynamodb-local.sh start "$port" >&2

	args=(-source "$dsn" -mapping "$ex/mapping.yaml" -remodel bin/remodel -port "$port"
		-readers "${READERS:-4}" -writers "${WRITERS:-8}" -repeat "${REPEAT:-1}"
		-note "examples/personalization/gen -scale $scale$( ((copies == 1)) || echo " ×$copies (copies with shifted ids)"); DynamoDB Local -Xmx$DYNAMODB_XMX")
	[[ "${NULL_ONLY:-}" != 1 ]] || args+=(-null-only)
	[[ "${S3_ROUTE:-1}" != 0 ]] || args+=(-s3-route=false)
	args+=(-key-check "${KEY_CHECK:-auto}")
	args+=($(kill_args))
	if [[ -n "${CPUPROFILE:-}" ]]; then
		prof="$CPUPROFILE"
		((${#engines[@]} == 1)) || prof="$CPUPROFILE.$e"
		args+=(-cpuprofile "$prof")
	fi
	echo
	echo "\$ make bench ROWS=$rows ENGINE=$engine${KILL_LOOP:+ KILL_LOOP=$KILL_LOOP}${KILL_EMBED:+ KILL_EMBED=$KILL_EMBED}${KEY_CHECK:+ KEY_CHECK=$KEY_CHECK}   # $e"
	bin/remodel-bench "${args[@]}"
	if [[ "${CAPACITY:-}" == 1 ]]; then
		caprows=${CAPACITY_ROWS:-$((rows / 5))}
		((caprows >= 1000)) || caprows=1000
		echo
		echo "\$ make bench CAPACITY=1 ROWS=$rows ENGINE=$engine${CAPACITY_ROWS:+ CAPACITY_ROWS=$CAPACITY_ROWS}   # $e, capacity model"
		bin/remodel-bench -capacity -capacity-rows "$caprows" -source "$dsn" -remodel bin/remodel -port "$port" \
			-readers "${READERS:-4}" -writers "${WRITERS:-16}"
	fi
	scripts/dynamodb-local.sh stop "$port" >/dev/null
	[[ "${FOLLOW:-}" != 1 ]] || follow_bench "$e"
done
if ((soak_failed)); then
	echo "bench: the follow soak found differences, or could not run (above)" >&2
	exit 1
fi
