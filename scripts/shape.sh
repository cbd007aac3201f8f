#!/usr/bin/env bash
# The shape of remodel's code: the longest and most branching functions and
# the files per engine (internal/tools/shape), then the engine branches the
# type-checked test finds outside the engine folders (go test -run
# TestNoEngineBranches ./introspect/... prints them when there are any).
set -euo pipefail
cd "$(dirname "$0")/.."
go run ./internal/tools/shape "$@" .
