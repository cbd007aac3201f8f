#!/usr/bin/env bash
# make demo: start the local services, load examples/personalization into
# PostgreSQL and into MariaDB, and for each: validate, preview, migrate into
# DynamoDB Local (a fresh in-memory instance on port 8000), verify.
set -euo pipefail
cd "$(dirname "$0")/.."

port="${DEMO_DYNAMODB_PORT:-8000}"
db=remodel_demo
ex=examples/personalization

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "local services"
scripts/check-services.sh --start
scripts/dynamodb-local.sh stop "$port" >/dev/null 2>&1 || true
scripts/dynamodb-local.sh start "$port"

step "building remodel"
go build -o bin/remodel ./cmd/remodel
bin/remodel version

step "loading $ex into PostgreSQL ($db) and MariaDB ($db)"
psql -q -h 127.0.0.1 -U postgres -d postgres -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db"
PGOPTIONS='-c client_min_messages=warning' psql -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -U postgres -d "$db" -f "$ex/schema.postgres.sql" -f "$ex/data.sql"
mariadb -h 127.0.0.1 -u root -e "DROP DATABASE IF EXISTS $db; CREATE DATABASE $db CHARACTER SET utf8mb4"
mariadb -h 127.0.0.1 -u root "$db" <"$ex/schema.mysql.sql"
mariadb -h 127.0.0.1 -u root "$db" <"$ex/data.sql"

export AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local AWS_REGION=us-east-1
endpoint="http://127.0.0.1:$port"
declare -A dsn=(
	[postgres]="postgres://postgres@127.0.0.1:5432/$db?sslmode=disable"
	[mysql]="mysql://root@127.0.0.1:3306/$db"
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
