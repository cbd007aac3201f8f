#!/usr/bin/env bash
# Gives every fuzz target of the module (each `func FuzzX(f *testing.F)` in a
# _test.go file, found here, not listed by hand) a short run of its fuzzer,
# what `go test -run '^$' -fuzz '^FuzzX$' -fuzztime FUZZTIME ./pkg` does, with
# the package's instrumented test binary built once for all its targets.
# FUZZTIME is 3s unless set. Each target's seed corpus is its f.Add calls and the
# files under the package's testdata/fuzz/FuzzX/; the fuzzer's own corpus
# stays in go's cache ($(go env GOCACHE)/fuzz), so each run goes on from
# where the last one stopped.
#
# An input that fails is written by go to testdata/fuzz/FuzzX/ in the
# package: fix the bug, keep the file (commit it beside the fix) so that
# every later go test runs it as a seed.
#
#   scripts/fuzz.sh            every target
#   scripts/fuzz.sh -l         list the targets (package and name), run none
#   scripts/fuzz.sh PATTERN    only the targets whose package/name matches PATTERN (grep -E)
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime="${FUZZTIME:-3s}"

# list prints "./pkg FuzzX" for every fuzz target, sorted.
list() {
	find . -name '*_test.go' -not -path './.git/*' -not -path '*/testdata/*' -print0 |
		xargs -0 grep -HoE '^func Fuzz[A-Za-z0-9_]*\(f \*testing\.F\)' |
		sed -E 's#^(.*)/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\(.*#./\1 \2#; s#^\./\./#./#' |
		sort -u
}

# fuzz_one runs one target's fuzzer in its package's folder (where
# testdata/fuzz is), with go test's own corpus.
fuzz_one() {
	(cd "$1" && "$bin/pkg.test" -test.run='^$' -test.fuzz="^${2}\$" -test.fuzztime="$fuzztime" -test.fuzzcachedir="$cache/$importpath" 2>&1)
}

# inputs lists the failing inputs go wrote for target $2 of package $1.
inputs() {
	ls -1 "$1/testdata/fuzz/$2" 2>/dev/null || true
}

# coordinator_race says whether a failed run's output is only the
# coordinator's deadline: no panic, no t.Error line, no failing input.
coordinator_race() {
	grep -q '^    context deadline exceeded$' <<<"$1" &&
		! grep -qE 'panic:|Failing input written|_test\.go:[0-9]+:' <<<"$1"
}

if [ "${1:-}" = "-l" ]; then
	list
	exit 0
fi
pattern="${1:-.}"
cache="$(go env GOCACHE)/fuzz"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT

n=0
failed=()
start=$SECONDS
built="" # the package whose test binary $bin/pkg.test is
while read -r pkg name; do
	if ! grep -qE -- "$pattern" <<<"$pkg/$name"; then
		continue
	fi
	n=$((n + 1))
	t0=$SECONDS
	# One instrumented test binary per package, run once per target in the
	# package's folder (where testdata/fuzz is), with go test's own corpus.
	if [ "$built" != "$pkg" ]; then
		if ! out=$(go test -c -vet=off -fuzz=. -o "$bin/pkg.test" "$pkg" 2>&1); then
			printf '  FAIL  %-44s %-26s (build)\n' "$pkg" "$name"
			echo "$out" | sed 's/^/        /'
			failed+=("$pkg $name")
			built=""
			continue
		fi
		built=$pkg
		importpath=$(go list "$pkg")
	fi
	# Go's fuzz coordinator (up to Go 1.26) may fail a target at the end of
	# -fuzztime with a bare "context deadline exceeded", having found and
	# written nothing (go.dev/issue/75804, fixed in Go 1.27): such a failure
	# is run again, twice at most; a failing input is always written to
	# testdata/fuzz, and that fails the target at once.
	tries=0
	while :; do
		tries=$((tries + 1))
		before=$(inputs "$pkg" "$name")
		if out=$(fuzz_one "$pkg" "$name"); then
			ok=1
			break
		fi
		ok=0
		if [ "$tries" -ge 3 ] || [ "$(inputs "$pkg" "$name")" != "$before" ] || ! coordinator_race "$out"; then
			break
		fi
		echo "        $pkg $name: \"context deadline exceeded\" with no failing input written (Go's fuzz coordinator, go.dev/issue/75804): run again"
	done
	if [ "$ok" = 1 ]; then
		printf '  ok    %-44s %-26s %3ds\n' "$pkg" "$name" $((SECONDS - t0))
	else
		printf '  FAIL  %-44s %-26s %3ds\n' "$pkg" "$name" $((SECONDS - t0))
		echo "$out" | sed 's/^/        /'
		failed+=("$pkg $name")
	fi
done < <(list)

if [ "$n" -eq 0 ]; then
	echo "no fuzz target matches $pattern"; exit 1
fi
if [ "${#failed[@]}" -gt 0 ]; then
	echo "${#failed[@]} of $n fuzz targets failed (a failing input is under the package's testdata/fuzz/: fix the bug and commit it):"
	printf '  %s\n' "${failed[@]}"
	exit 1
fi
echo "$n fuzz targets, $fuzztime each: no failure ($((SECONDS - start))s)"
