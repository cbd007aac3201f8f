#!/usr/bin/env bash
# The shape of remodel's code: the longest and most branching functions and
# the files per engine (internal/tools/shape), then the engine branches the
# type-checked test finds outside the engine folders (go test -run
# TestNoEngineBranches ./introspect/... prints them when there are any).
set -euo pipefail
cd "$(dirname "$0")/.."
go run ./internal/tools/shape "$@" .
echo
echo "engine branches (TestNoEngineBranches, type-checked: where code still asks which engine it runs on, and why it may):"
out=$(go test -count=1 -run '^TestNoEngineBranches$' -v ./introspect/ 2>&1) || true
grep -E 'allowed:|packages checked|^\s+\S+\.go:[0-9]+: |engineBranchAllowed:|^(ok|FAIL|--- FAIL)' <<<"$out" | sed -E 's/^\s*enginebranch_test\.go:[0-9]+: /  /'
