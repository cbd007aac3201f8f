# remodel — the two commands a fresh machine needs:
#   make demo   local services, the personalization example on PostgreSQL and
#               MariaDB: preview, migrate into DynamoDB Local, verify
#   make test   gofmt, vet, go mod tidy -diff, staticcheck, then every test (unit and integration) with the race detector
.PHONY: demo test build services-check dynamodb-start dynamodb-stop clean

GO ?= go

build:
	$(GO) build -o bin/remodel ./cmd/remodel

demo:
	scripts/demo.sh

test:
	scripts/test.sh

services-check:
	scripts/check-services.sh --start

dynamodb-start:
	scripts/dynamodb-local.sh start 8000

dynamodb-stop:
	scripts/dynamodb-local.sh stop 8000

clean:
	rm -rf bin remodel-rejects.jsonl
