# remodel — the two commands a fresh machine needs:
#   make demo   local services, the personalization example on PostgreSQL and
#               MariaDB: preview, migrate into DynamoDB Local, verify
#   make test   gofmt, vet, go mod tidy -diff, staticcheck, then every test (unit and integration) with the race detector,
#               then every fuzz target's fuzzer for FUZZTIME=3s each (scripts/fuzz.sh)
# and, to measure it:
#   make bench  remodel against its ceilings (raw read, raw sink, null sink), one
#               table of figures; ROWS=1000000, ENGINE=mysql or both, WRITERS=16, REPEAT=3;
#               KILL_LOOP=5 adds the kill -9 loop: migrate killed at 5 seeded points
#               (KILL_SEED), --resume each time, the table proven exact (KILL_RANGES=1,4);
#               FOLLOW=1 adds migrate --follow on private servers (PostgreSQL :5441 with
#               logical replication, MariaDB :3341 with a row binlog): the copy's items/s,
#               the catch-up of a backlog in changes/s beside it, the lag under FOLLOW_RATE=500
#               changes/s for FOLLOW_SECONDS=60, then verify; then the follow soak (issue 34):
#               FOLLOW_SOAK_SEEDS=50 seeds per engine (0: none) of migrate --follow of 2 000
#               orders during a copy slowed by a fault proxy with late copy writes, a seeded
#               workload and busy goroutines, each ending in verify of every item: seeds and
#               differences (target 0; a difference fails the bench); FOLLOW_ONLY=1 runs only that;
#               FOLLOWBACK=1: FOLLOW=1 and follow-back beside it (items changed through the AWS SDK
#               at FOLLOW_RATE, applied back: changes/s, lag p50/p99 per change, then verify);
#               the S3 route (migrate --to a local directory and an in-process S3) beside
#               the null sink (S3_ROUTE=0 skips it); LARGE=1 LARGE_ROWS=1000000,10000000:
#               peak RSS per size of the null sink, --to file:// and verify --files
.PHONY: demo test bench build services-check dynamodb-start dynamodb-stop clean

GO ?= go

build:
	$(GO) build -o bin/remodel ./cmd/remodel

demo:
	scripts/demo.sh

test:
	scripts/test.sh

ROWS ?= 100000
ENGINE ?= postgres
WRITERS ?= 8
READERS ?= 4
REPEAT ?= 1
bench:
	ROWS=$(ROWS) ENGINE=$(ENGINE) WRITERS=$(WRITERS) READERS=$(READERS) REPEAT=$(REPEAT) scripts/bench.sh

services-check:
	scripts/check-services.sh --start

dynamodb-start:
	scripts/dynamodb-local.sh start 8000

dynamodb-stop:
	scripts/dynamodb-local.sh stop 8000

clean:
	rm -rf bin remodel-rejects.jsonl
