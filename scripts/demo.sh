#!/usr/bin/env bash
# make demo: start the local services, load examples/personalization into
# PostgreSQL and into MariaDB, and for each: validate, preview, migrate into
# DynamoDB Local (a fresh in-memory instance on port 8000), verify.
#
# Settings (environment or make variables):
#   DEMO_DB=remodel_demo        the database made on both engines
#   PGPORT=5432                 PostgreSQL on 127.0.0.1 (user postgres, trust)
#   MYSQL_PORT=3306             MariaDB/MySQL on 127.0.0.1 (user root, no password)
#   DEMO_DYNAMODB_PORT=8000     the DynamoDB Local the demo starts (and leaves running)
#
# The demo marks the databases it creates (a comment on the database) and
# drops a database of that name only when it carries the mark: a database
# of the same name that it did not create is left alone, and the demo stops
# and says so (choose another DEMO_DB).
set -euo pipefail
cd "$(dirname "$0")/.."

port="${DEMO_DYNAMODB_PORT:-8000}"
db="${DEMO_DB:-remodel_demo}"
pg_port="${PGPORT:-5432}"
my_port="${MYSQL_PORT:-3306}"
export PGPORT="$pg_port" MYSQL_PORT="$my_port"
ex=examples/personalization
mark="created by remodel make demo"

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

case "$db" in
*[!a-zA-Z0-9_]* | "" | [0-9]*)
	echo "demo: DEMO_DB=$db: give a name of letters, digits and _ (not starting with a digit)" >&2
	exit 2
	;;
esac

pg() { psql -X -q -t -A -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$pg_port" -U postgres "$@"; }
my() { mariadb -h 127.0.0.1 -P "$my_port" -u root "$@"; }

step "local services"
scripts/check-services.sh --start

# A database of this name that the demo did not create is not dropped.
pg_exists=$(pg -d postgres -c "SELECT 1 FROM pg_database WHERE datname = '$db'")
pg_mark=$(pg -d postgres -c "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = '$db'")
my_exists=$(my -N -B -e "SELECT 1 FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = '$db'")
my_mark=$(my -N -B -e "SELECT SCHEMA_COMMENT FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = '$db'")
refuse=
if [ -n "$pg_exists" ] && [ "$pg_mark" != "$mark" ]; then
	refuse+="  PostgreSQL on port $pg_port has a database $db that make demo did not create"$'\n'
fi
if [ -n "$my_exists" ] && [ "$my_mark" != "$mark" ]; then
	refuse+="  MariaDB on port $my_port has a database $db that make demo did not create"$'\n'
fi
if [ -n "$refuse" ]; then
	printf 'demo: refusing to drop a database it did not create:\n%sdemo: choose another name: make demo DEMO_DB=remodel_demo2\n' "$refuse" >&2
	exit 1
fi

scripts/dynamodb-local.sh stop "$port" >/dev/null 2>&1 || true
scripts/dynamodb-local.sh start "$port"

step "building remodel"
go build -o bin/remodel ./cmd/remodel
bin/remodel version

step "loading $ex into PostgreSQL ($db, port $pg_port) and MariaDB ($db, port $my_port)"
pg -d postgres -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db" -c "COMMENT ON DATABASE $db IS '$mark'"
PGOPTIONS='-c client_min_messages=warning' psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$pg_port" -U postgres -d "$db" -f "$ex/schema.postgres.sql" -f "$ex/data.sql"
my -e "DROP DATABASE IF EXISTS $db; CREATE DATABASE $db CHARACTER SET utf8mb4 COMMENT '$mark'"
my "$db" <"$ex/schema.mysql.sql"
my "$db" <"$ex/data.sql"

export AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local AWS_REGION=us-east-1
endpoint="http://127.0.0.1:$port"
declare -A dsn=(
	[postgres]="postgres://postgres@127.0.0.1:$pg_port/$db?sslmode=disable"
	[mysql]="mysql://root@127.0.0.1:$my_port/$db"
)
declare -A result
for engine in postgres mysql; do
	table="personalization_$engine"
	src="${dsn[$engine]}"
	step "$engine: validate"
	bin/remodel validate --source "$src" -m "$ex/mapping.yaml"
	step "$engine: preview (2 rows per entity, nothing written)"
	bin/remodel preview --source "$src" -m "$ex/mapping.yaml" --rows 2
	step "$engine: migrate into DynamoDB table $table"
	bin/remodel migrate --source "$src" -m "$ex/mapping.yaml" --endpoint-url "$endpoint" --table "$table" --create-table
	step "$engine: verify"
	if bin/remodel verify --source "$src" -m "$ex/mapping.yaml" --endpoint-url "$endpoint" --table "$table"; then
		result[$engine]=PASS
	else
		result[$engine]=FAIL
	fi
done

step "result"
for engine in postgres mysql; do
	echo "  $engine → DynamoDB table personalization_$engine: verify ${result[$engine]}"
done
echo
echo "DynamoDB Local keeps running at $endpoint (in memory); stop it with: scripts/dynamodb-local.sh stop $port"
[ "${result[postgres]}" = PASS ] && [ "${result[mysql]}" = PASS ]
