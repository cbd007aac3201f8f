package cli

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/followback"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/testsupport/shopwork"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/mapping"
)

// followBackApplied is the largest count of item changes applied that the
// follow-back progress lines after t report (-1: none yet).
func (s *stampedLines) followBackApplied(t time.Time) int64 {
	n := int64(-1)
	for _, f := range s.follows(t) {
		if c, ok := f["changes"].(float64); ok && int64(c) > n {
			n = int64(c)
		}
	}
	return n
}

// caughtUp says whether a follow-back progress line after t says it is
// caught up: nothing read waits, and its last read found nothing new.
func (s *stampedLines) caughtUp(t time.Time) bool {
	for _, f := range s.follows(t) {
		if f["state"] == "caught up" {
			return true
		}
	}
	return false
}

// TestFollowBackKilledAndResumed: the shop (shopwork: orders with their
// lines embedded, favourites, a join) is migrated by remodel migrate
// --create-table --stream; a real remodel follow-back runs while the
// application writes its seeded workload into the table through the SDK
// (new items, attribute updates, key moves, deletes, embedded list edits);
// it is killed with SIGKILL at a seeded moment while it applies them
// (REMODEL_TEST_SEED repeats a run); the application goes on writing;
// follow-back --resume goes on from the dead run's checkpoint, taking its
// lock over. Once the writes stop, a sentinel change is in the source and a
// progress line after it says it is caught up, SIGINT stops it: exit 0, a
// report saying it was stopped, no dead letter; verify passes: the source
// is exact. On both engines.
func TestFollowBackKilledAndResumed(t *testing.T) {
	awsEnv(t)
	endpoint := testenv.DynamoDB(t)
	bin := buildRemodel(t)
	seed := testSeed(t)
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 4))
			dsn := eng.Fresh(t)
			script, orders := shopwork.Source(eng.Name)
			eng.Exec(t, dsn, script)
			m := writeFile(t, "shop.yaml", shopwork.Mapping)
			db, table := testenv.DynamoDBTable(t)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			if code, out, errs := remodelCtx(t, ctx, "migrate", "--source", dsn, "-m", m, "--endpoint-url", endpoint, "--table", table,
				"--create-table", "--stream", "--checkpoint", filepath.Join(t.TempDir(), "migrate.json"), "--progress", "none"); code != 0 {
				t.Fatalf("migrate exited %d:\n%s\n%s", code, out, errs)
			}
			app := &shopwork.App{Plan: shopPlan(t, dsn), DB: db, Table: table, Orders: orders}

			dir := t.TempDir()
			ck, dead := filepath.Join(dir, "followback.json"), filepath.Join(dir, "dead.jsonl")
			args := []string{"follow-back", "--source", dsn, "-m", m, "--endpoint-url", endpoint, "--table", table,
				"--checkpoint", ck, "--dead-letter", dead, "--progress", "json", "--progress-interval", "100ms", "--output", "json"}

			first := startRemodel(t, bin, args...)
			// Ready once its start point is in its checkpoint.
			for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
				if _, err := os.Stat(ck); err == nil {
					break
				}
				if first.Exited() || time.Now().After(deadline) {
					t.Fatalf("follow-back did not start (exited %v: %v):\n%s\n%s", first.Exited(), first.Err(), first.Stdout.String(), first.stderr.String())
				}
			}
			// Killed at a seeded moment while it applies the workload:
			// once it has applied between 20 and 150 changes, and a few
			// milliseconds more.
			target, extra := int64(20+rng.IntN(130)), time.Duration(rng.IntN(30))*time.Millisecond
			killed := make(chan int64, 1)
			go func() {
				deadline := time.Now().Add(2 * time.Minute)
				for first.stderr.followBackApplied(time.Time{}) < target && !first.Exited() && time.Now().Before(deadline) {
					time.Sleep(5 * time.Millisecond)
				}
				time.Sleep(extra)
				_ = first.Cmd.Process.Signal(syscall.SIGKILL)
				<-first.Done()
				killed <- first.stderr.followBackApplied(time.Time{})
			}()
			app.Workload(t, seed, 0, 40)
			var before int64
			select {
			case before = <-killed:
			case <-time.After(3 * time.Minute):
				t.Fatal("follow-back was not killed")
			}
			if before < target {
				t.Fatalf("follow-back ended before it was killed, having applied %d changes (the kill was due after %d):\n%s\n%s", before, target, first.Stdout.String(), first.stderr.String())
			}
			t.Logf("killed after %d of the application's %d item changes were applied (due after %d, +%s)", before, app.Writes, target, extra)

			// The application goes on while follow-back is down, and after
			// it is started again with --resume.
			app.Workload(t, seed+1, 40, 15)
			resumed := startRemodel(t, bin, append(args, "--resume")...)
			for deadline := time.Now().Add(time.Minute); resumed.stderr.followBackApplied(time.Time{}) < 0; time.Sleep(20 * time.Millisecond) {
				if resumed.Exited() || time.Now().After(deadline) {
					t.Fatalf("follow-back --resume did not start (exited %v: %v):\n%s\n%s", resumed.Exited(), resumed.Err(), resumed.Stdout.String(), resumed.stderr.String())
				}
			}
			app.Workload(t, seed+2, 55, 15)

			// Caught up: the sentinel change, the last, is in the source,
			// and a progress line after that says nothing waits.
			app.Update(t, mapping.Item{"PK": shopwork.Str("CUSTOMER#1"), "SK": shopwork.Str("PROFILE")}, "SET #n = :n", map[string]types.AttributeValue{":n": shopwork.Str("sentinel")})
			sql := connect(t, eng.Name, dsn)
			deadline := time.Now().Add(2 * time.Minute)
			for {
				n, err := sql.Int(ctx, "SELECT count(*) FROM customers WHERE id = 1 AND name = 'sentinel'")
				if err != nil {
					t.Fatal(err)
				}
				if n == 1 {
					break
				}
				if resumed.Exited() || time.Now().After(deadline) {
					t.Fatalf("the sentinel change did not reach the source (exited %v: %v):\n%s\n%s", resumed.Exited(), resumed.Err(), resumed.Stdout.String(), resumed.stderr.String())
				}
				time.Sleep(20 * time.Millisecond)
			}
			// (A line half a second later: the state of a round that began
			// after the sentinel was applied, not of the one before.)
			for seen := time.Now().Add(500 * time.Millisecond); !resumed.stderr.caughtUp(seen); time.Sleep(20 * time.Millisecond) {
				if resumed.Exited() || time.Now().After(deadline) {
					t.Fatalf("no progress line says follow-back caught up (exited %v: %v):\n%s", resumed.Exited(), resumed.Err(), resumed.stderr.String())
				}
			}

			_ = resumed.Cmd.Process.Signal(syscall.SIGINT)
			select {
			case <-resumed.Done():
			case <-time.After(time.Minute):
				t.Fatal("follow-back --resume did not end within a minute of SIGINT")
			}
			if code := exitCode(t, resumed.Err()); code != 0 {
				t.Fatalf("follow-back --resume exited %d after SIGINT:\n%s\n%s", code, resumed.Stdout.String(), resumed.stderr.String())
			}
			var rep followback.Report
			if err := json.Unmarshal(resumed.Stdout.Bytes(), &rep); err != nil {
				t.Fatalf("the report is no JSON: %v\n%s", err, resumed.Stdout.String())
			}
			if !rep.OK || !rep.Stopped || !rep.Resumed || rep.DeadLetters != 0 || rep.Deferred != 0 {
				t.Errorf("the report of follow-back --resume: %s", resumed.Stdout.String())
			}
			// The dead run's lock, taken over by --resume, is released.
			lk := mapping.Item{"PK": shopwork.Str(followback.LockKeyText), "SK": shopwork.Str(followback.LockKeyText)}
			if got, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: lk, ConsistentRead: aws.Bool(true)}); err != nil || got.Item != nil {
				t.Errorf("follow-back's lock item after the stop: %v, %v", got, err)
			}
			t.Logf("the resumed run: %d records, %d applied, %d found applied; the application made %d item changes", rep.Records, rep.Applied, rep.AlreadyApplied, app.Writes)
			if b, err := os.ReadFile(dead); err == nil && len(b) > 0 {
				t.Errorf("dead letters:\n%s", b)
			}

			code, vout, verr := remodelCtx(t, ctx, "verify", "--source", dsn, "-m", m, "--endpoint-url", endpoint, "--table", table, "--seed", "1")
			if code != 0 {
				t.Errorf("verify exited %d:\n%s\n%s", code, vout, verr)
			}
		})
	}
}

// shopPlan is the shop's mapping compiled against the database at dsn.
func shopPlan(t *testing.T, dsn string) *mapping.Plan {
	t.Helper()
	ctx := context.Background()
	src, err := source.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	schema, err := src.Inspect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f, err := mapping.Parse("shop.yaml", []byte(shopwork.Mapping))
	if err != nil {
		t.Fatal(err)
	}
	p, err := mapping.Compile(f, schema)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// connect is a connection to the engine's database at dsn.
func connect(t *testing.T, eng, dsn string) testenv.SQLConn {
	if eng == "mysql" {
		return testenv.ConnectMySQL(t, dsn)
	}
	return testenv.ConnectPostgres(t, dsn)
}
