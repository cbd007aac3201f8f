package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/migrate"
)

// TestExitStatuses drives every exit status through Run with real
// services: 0 passed, 1 checks failed, 3 could not run (2 is
// TestUsageErrors, 130 TestInterrupted).
func TestExitStatuses(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	awsEnv(t)
	dsn, m := tiny(t, "postgres")
	db, table := testenv.DynamoDBTable(t)
	ctx := context.Background()
	dyn := []string{"--source", dsn, "-m", m, "--endpoint-url", endpoint, "--table", table}

	type want struct {
		code   int
		stderr string // exact; "~x" means it contains x
	}
	check := func(t *testing.T, w want, args ...string) string {
		t.Helper()
		code, out, errOut := remodel(t, args...)
		ok := code == w.code
		if s, found := strings.CutPrefix(w.stderr, "~"); found {
			ok = ok && strings.Contains(errOut, s)
		} else {
			ok = ok && errOut == w.stderr
		}
		if !ok {
			t.Fatalf("remodel %q: exit %d, stderr:\n%s\nwant exit %d and stderr %q\nstdout:\n%s", args, code, errOut, w.code, w.stderr, out)
		}
		return out
	}

	t.Run("3 the table does not exist", func(t *testing.T) {
		check(t, want{exitError, "remodel: migrate: table " + table + " does not exist (add --create-table to create it)\n"}, append([]string{"migrate"}, dyn...)...)
		check(t, want{exitError, "~remodel: verify: table " + table + " does not exist at " + endpoint + " (region us-east-1); "}, append([]string{"verify"}, dyn...)...)
	})
	t.Run("0 migrate, verify", func(t *testing.T) {
		check(t, want{exitOK, ""}, append([]string{"migrate", "--create-table"}, dyn...)...)
		out := check(t, want{exitOK, ""}, append([]string{"verify"}, dyn...)...)
		if !strings.HasPrefix(out, "verify PASS") {
			t.Fatalf("verify:\n%s", out)
		}
	})
	t.Run("1 verify finds an item of no entity", func(t *testing.T) {
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: "STRAY#1"},
		}})
		if err != nil {
			t.Fatal(err)
		}
		out := check(t, want{exitFailed, "remodel: verify: 1 of 4 checks failed (the report names them)\n"}, append([]string{"verify"}, dyn...)...)
		if !strings.Contains(out, "item PK=STRAY#1 belongs to no entity of the mapping") {
			t.Fatalf("the report does not name the stray item:\n%s", out)
		}
	})
	t.Run("1 migrate stops on a rejected row", func(t *testing.T) {
		dsn, m := tiny(t, "postgres")
		testenv.ExecPostgres(t, dsn, "INSERT INTO items VALUES (4, NULL)")
		_, table := testenv.DynamoDBTable(t)
		rejects := writeFile(t, "rejects.jsonl", "")
		args := []string{"migrate", "--source", dsn, "-m", m, "--endpoint", endpoint, "--table", table, "--create-table", "--rejects", rejects}
		// The run stopped on its rejects, not on the source it was reading.
		check(t, want{exitFailed, "remodel: migrate: stopped: rejected rows exceeded --max-rejects 0 (1 rejected; the last: entity item, row id=4: rendering PK: {k}: column k is NULL (add |default:X to the placeholder to allow it))\n"}, args...)
		// Within --max-rejects the run passes.
		args = append(args[:len(args)-5], "--table", table, "--allow-non-empty", "--max-rejects", "1", "--rejects", rejects)
		check(t, want{exitOK, ""}, args...)
	})
	t.Run("3 the source is unreachable", func(t *testing.T) {
		check(t, want{exitError, "~remodel: source: connecting to PostgreSQL at 127.0.0.1:1 as postgres: "}, "introspect", "--source", "postgres://postgres@127.0.0.1:1/x?connect_timeout=2")
		check(t, want{exitError, "remodel: source: the DSN is not a postgres://, mysql:// or user:pass@tcp(host:port)/db DSN\n"}, "introspect", "--source", "scott/tiger@orcl")
	})
	t.Run("3 DynamoDB is unreachable", func(t *testing.T) {
		args := []string{"verify", "--source", dsn, "-m", m, "--endpoint-url", "http://127.0.0.1:1", "--table", table}
		check(t, want{exitError, "remodel: DynamoDB at http://127.0.0.1:1 refuses connections (dial tcp 127.0.0.1:1: connect: connection refused): is DynamoDB Local running?\n"}, args...)
	})
	t.Run("3 and 1 a mapping with problems", func(t *testing.T) {
		bad := writeFile(t, "bad.yaml", strings.Replace(tinyMapping, "ITEM#{k}", "ITEM#{kk}", 1))
		msg := bad + `:8:9: entities.item.pk: table items has no column "kk" (columns: id, k)` + "\n"
		// preview, migrate and verify cannot run with it ...
		check(t, want{exitError, "remodel: " + msg}, "preview", "--source", dsn, "-m", bad)
		check(t, want{exitError, "remodel: " + msg}, "migrate", "--source", dsn, "-m", bad, "--endpoint-url", endpoint, "--table", table)
		// ... and for validate, whose checks they are, they are failed checks.
		check(t, want{exitFailed, "remodel: " + msg}, "validate", "--source", dsn, "-m", bad)
		unreadable := writeFile(t, "unreadable.yaml", "version: [1")
		msg = "remodel: " + unreadable + ":2:1: did not find expected ',' or ']'\n"
		check(t, want{exitError, msg}, "preview", "--source", dsn, "-m", unreadable)
		check(t, want{exitFailed, msg}, "validate", "-m", unreadable)
		check(t, want{exitError, "remodel: mapping: reading /nonexistent.yaml: open /nonexistent.yaml: no such file or directory\n"}, "validate", "-m", "/nonexistent.yaml")
	})
	t.Run("3 the table's keys do not match the mapping", func(t *testing.T) {
		_, other := testenv.DynamoDBTable(t)
		_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName:            aws.String(other),
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeN}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}},
			BillingMode:          types.BillingModePayPerRequest,
		})
		if err != nil {
			t.Fatal(err)
		}
		check(t, want{exitError, fmt.Sprintf("remodel: migrate: key attribute PK of table %s has type N but the mapping says S\n", other)},
			"migrate", "--source", dsn, "-m", m, "--endpoint-url", endpoint, "--table", other)
	})
	t.Run("2 preview of an entity the mapping lacks", func(t *testing.T) {
		check(t, want{exitUsage, "remodel: --entity itme: the mapping has no entity \"itme\" (entities: item)\n"}, "preview", "--source", dsn, "-m", m, "--entity", "itme")
	})
}

// TestInterrupted: canceling Run's context (what main does on SIGINT and
// SIGTERM) while a command waits for DynamoDB ends it with status 130; the
// cause, when the context has one, is named.
func TestInterrupted(t *testing.T) {
	awsEnv(t)
	dsn, m := tiny(t, "postgres")
	for _, cause := range []error{nil, errors.New("interrupt signal received")} {
		addr, seen := hangingServer(t)
		ctx, cancel := context.WithCancelCause(context.Background())
		go func() {
			select {
			case <-seen:
			case <-time.After(time.Minute):
			}
			cancel(cause)
		}()
		start := time.Now()
		code, _, errOut := remodelCtx(t, ctx, "migrate", "--source", dsn, "-m", m, "--endpoint-url", "http://"+addr, "--table", "tiny_interrupted")
		want := "remodel: interrupted\n"
		if cause != nil {
			want = "remodel: interrupted (interrupt signal received)\n"
		}
		if code != exitInterrupted || errOut != want {
			t.Errorf("exit %d, stderr %q; want %d and %q", code, errOut, exitInterrupted, want)
		}
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("the interrupted command took %s to end", d)
		}
	}
}

// TestMigrateFailed: the runs of migrate whose checks failed exit 1 (too
// many rejected rows; fewer items in the table than the job counts as
// written, as a forged checkpoint leaves), any other error 3.
func TestMigrateFailed(t *testing.T) {
	missing := fmt.Errorf("migrate: %w: table t holds 12100 items, and the job counts 200000 as written", migrate.ErrItemsMissing)
	for _, c := range []struct {
		name string
		err  error
		rep  *migrate.Report
		want int
	}{
		{"ok", nil, &migrate.Report{}, exitOK},
		{"items missing", missing, &migrate.Report{}, exitFailed},
		{"too many rejects", errors.New("migrate: 3 rows rejected"), &migrate.Report{Rejected: 3}, exitFailed},
		{"rejects within the limit", errors.New("migrate: DynamoDB unreachable"), &migrate.Report{Rejected: 2}, exitError},
		{"no report", errors.New("migrate: refused"), nil, exitError},
	} {
		err := migrateFailed(c.err, c.rep, 2)
		if got := exitStatus(context.Background(), err, io.Discard); got != c.want {
			t.Errorf("%s: exit %d, want %d", c.name, got, c.want)
		}
	}
}
