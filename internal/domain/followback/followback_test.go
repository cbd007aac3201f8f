package followback_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"

	"github.com/remodel-dev/remodel/internal/domain/followback"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/testsupport/shopwork"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/migrate"
	"github.com/remodel-dev/remodel/verify"
)

// shop is the migrated shop (shopwork: customers, their orders with the
// order lines embedded, favourites, a join of customers and products, and
// titles, an entity read from a view, which follow-back cannot write back)
// and its table, with the clients follow-back and the application use.
type shop struct {
	*shopwork.App
	eng  string
	dsn  string
	exec func(testing.TB, string, string)
	src  source.Source
	st   *dynamodbstreams.Client
}

func newShop(t *testing.T, eng string, fresh func(testing.TB) string, exec func(testing.TB, string, string)) *shop {
	t.Helper()
	endpoint := testenv.DynamoDB(t)
	dsn := fresh(t)
	script, orders := shopwork.Source(eng)
	exec(t, dsn, script)
	s := &shop{App: &shopwork.App{Orders: orders}, eng: eng, dsn: dsn, exec: exec}

	ctx := context.Background()
	src, err := source.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	schema, err := src.Inspect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f, err := mapping.Parse("mapping.yaml", []byte(shopwork.Mapping))
	if err != nil {
		t.Fatal(err)
	}
	if s.Plan, err = mapping.Compile(f, schema); err != nil {
		t.Fatal(err)
	}
	s.src = src
	s.DB, s.Table = testenv.DynamoDBTable(t)
	s.st = dynamodbstreams.New(dynamodbstreams.Options{Region: "us-east-1", BaseEndpoint: aws.String(endpoint), Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")})
	rep, err := migrate.Run(ctx, migrate.Options{Plan: s.Plan, Source: src, DB: s.DB, Table: s.Table, CreateTable: true, Stream: true, Writers: 4,
		Backoff: migrate.Backoff{Base: time.Millisecond, Cap: 20 * time.Millisecond, Deadline: 30 * time.Second}, RejectsPath: filepath.Join(t.TempDir(), "rejects.jsonl")})
	if err != nil || !rep.OK {
		t.Fatalf("migrate: %v", err)
	}
	return s
}

// following is a follow-back run in the background.
type following struct {
	cancel context.CancelFunc
	done   chan struct{}
	rep    *followback.Report
	err    error
	status chan followback.Status
}

func (s *shop) options(t *testing.T, ck, dead string) followback.Options {
	return followback.Options{Plan: s.Plan, Source: s.src, DB: s.DB, Streams: s.st, Table: s.Table, CheckpointPath: ck,
		DeadLetterPath: dead, Poll: 20 * time.Millisecond, DeferFor: 20 * time.Second}
}

// start runs follow-back until stop, and waits until it is ready.
func start(t *testing.T, o followback.Options) *following {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	f := &following{cancel: cancel, done: make(chan struct{}), status: make(chan followback.Status, 1)}
	ready := make(chan struct{})
	o.Ready = func() { close(ready) }
	o.Watch = func(st followback.Status) {
		select {
		case <-f.status:
		default:
		}
		f.status <- st
	}
	go func() {
		defer close(f.done)
		f.rep, f.err = followback.Run(ctx, o)
	}()
	select {
	case <-ready:
	case <-f.done:
		t.Fatalf("follow-back ended before it was ready: %v", f.err)
	case <-time.After(time.Minute):
		t.Fatal("follow-back not ready after a minute")
	}
	t.Cleanup(f.stop)
	return f
}

// waitFor waits until follow-back has dealt with n item changes (applied
// or dead-lettered) and has nothing more to read.
func (f *following) waitFor(t *testing.T, n int) {
	t.Helper()
	deadline := time.After(2 * time.Minute)
	var last followback.Status
	for {
		select {
		case st := <-f.status:
			last = st
			if st.CaughtUp && st.Applied+st.DeadLetters >= int64(n) {
				return
			}
		case <-f.done:
			t.Fatalf("follow-back ended: %v", f.err)
		case <-deadline:
			t.Fatalf("follow-back has not dealt with %d changes after 2 minutes: %+v", n, last)
		}
	}
}

func (f *following) stop() {
	f.cancel()
	<-f.done
}

var str = shopwork.Str

// checkExact: verify passes: the source equals the table.
func (s *shop) checkExact(t *testing.T) {
	t.Helper()
	rep, err := verify.Run(context.Background(), verify.Options{Plan: s.Plan, Source: s.src, DB: s.DB, Table: s.Table, Samples: 3, Seed: 1, Settle: 10 * time.Second})
	if err != nil || !rep.OK {
		b, _ := json.MarshalIndent(rep, "", " ")
		t.Fatalf("verify: %v\n%s", err, b)
	}
}

func engines() []struct {
	Name  string
	Fresh func(testing.TB) string
	Exec  func(testing.TB, string, string)
} {
	return testenv.Engines
}

// TestFollowBack: after the switch, an application's writes into the
// table (new items, attribute updates, key moves, deletes, embedded list
// edits, rows that depend on each other by foreign key) flow back into the
// source, and verify passes. On both engines.
func TestFollowBack(t *testing.T) {
	for _, eng := range engines() {
		t.Run(eng.Name, func(t *testing.T) {
			s := newShop(t, eng.Name, eng.Fresh, eng.Exec)
			dir := t.TempDir()
			f := start(t, s.options(t, filepath.Join(dir, "ck.json"), filepath.Join(dir, "dead.jsonl")))
			s.Workload(t, 1, 0, 60)
			f.waitFor(t, s.Writes)
			f.stop()
			if f.err != nil || !f.rep.OK || f.rep.DeadLetters != 0 {
				t.Fatalf("follow-back: %v, %+v", f.err, f.rep)
			}
			if f.rep.Applied < int64(s.Writes) {
				t.Errorf("applied %d item changes, the application made %d", f.rep.Applied, s.Writes)
			}
			s.checkExact(t)
		})
	}
}

// TestFollowBackResume: a run stopped while the application goes on
// writing goes on with --resume from its checkpoint: the changes made while
// it was down are applied, none twice, and the source is exact.
func TestFollowBackResume(t *testing.T) {
	for _, eng := range engines() {
		t.Run(eng.Name, func(t *testing.T) {
			s := newShop(t, eng.Name, eng.Fresh, eng.Exec)
			dir := t.TempDir()
			ck, dead := filepath.Join(dir, "ck.json"), filepath.Join(dir, "dead.jsonl")
			f := start(t, s.options(t, ck, dead))
			s.Workload(t, 2, 0, 15)
			f.waitFor(t, s.Writes)
			f.stop()
			if f.err != nil {
				t.Fatal(f.err)
			}
			first := s.Writes
			s.Workload(t, 3, 15, 30)
			o := s.options(t, ck, dead)
			o.Resume = true
			g := start(t, o)
			g.waitFor(t, s.Writes-first)
			g.stop()
			if g.err != nil || !g.rep.OK || g.rep.DeadLetters != 0 {
				t.Fatalf("follow-back --resume: %v, %+v", g.err, g.rep)
			}
			if g.rep.Applied != int64(s.Writes-first) {
				t.Errorf("--resume applied %d item changes, the application made %d while it was down", g.rep.Applied, s.Writes-first)
			}
			s.checkExact(t)
		})
	}
}

// TestFollowBackDeadLetters: a change to an item of an entity read from a
// view, an item of no entity and a conflict (the source row changed after
// the switch) each end as a dead letter with its reason, their rows
// untouched; the first past --max-dead-letters stops the run.
func TestFollowBackDeadLetters(t *testing.T) {
	for _, eng := range engines() {
		t.Run(eng.Name, func(t *testing.T) {
			s := newShop(t, eng.Name, eng.Fresh, eng.Exec)
			dir := t.TempDir()
			ck, dead := filepath.Join(dir, "ck.json"), filepath.Join(dir, "dead.jsonl")
			o := s.options(t, ck, dead)
			o.MaxDeadLetters = 3
			f := start(t, o)
			// The source's customer 1 changes after the switch.
			s.exec(t, s.dsn, "UPDATE customers SET name = 'changed in the source' WHERE id = 1")
			s.Update(t, mapping.Item{"PK": str("CUSTOMER#1"), "SK": str("PROFILE")}, "SET #n = :n", map[string]types.AttributeValue{":n": str("changed in DynamoDB")})
			s.Update(t, mapping.Item{"PK": str("TITLE#P1"), "SK": str("TITLE")}, "SET #i = :n", map[string]types.AttributeValue{":n": str("new title")})
			s.Put(t, mapping.Item{"PK": str("NOTHING#1"), "SK": str("X"), "a": str("b")})
			f.waitFor(t, 3)
			f.stop()
			if f.err != nil || f.rep.DeadLetters != 3 || f.rep.Applied != 0 {
				t.Fatalf("follow-back: %v, %+v", f.err, f.rep)
			}
			reasons := deadReasons(t, dead)
			for _, want := range []string{
				"customer: conflict: update customer id=1: the source row no longer holds the item's old image",
				"entity title cannot be followed back: it reads view",
				": the item PK=NOTHING#1 SK=X matches no entity's key templates",
			} {
				if !containsLine(reasons, want) {
					t.Errorf("no dead letter %q among:\n%s", want, strings.Join(reasons, "\n"))
				}
			}
			if n := count(t, s, "SELECT count(*) FROM customers WHERE id = 1 AND name = 'changed in the source'"); n != 1 {
				t.Errorf("the conflicting row was overwritten")
			}
			if n := count(t, s, "SELECT count(*) FROM products WHERE title = 'new title'"); n != 0 {
				t.Errorf("the view's change was written")
			}
			// With --max-dead-letters 0 (the default), the first dead letter
			// stops the run (exit status 1).
			o.Resume, o.MaxDeadLetters = true, 0
			g := start(t, o)
			s.Put(t, mapping.Item{"PK": str("NOTHING#2"), "SK": str("X")})
			select {
			case <-g.done:
			case <-time.After(2 * time.Minute):
				t.Fatal("the first dead letter past --max-dead-letters 0 did not stop the run")
			}
			if _, ok := g.err.(*followback.TooManyError); !ok {
				t.Fatalf("the 4th dead letter did not stop the run: %v", g.err)
			}
		})
	}
}

func deadReasons(t *testing.T, path string) []string {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var out []string
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		var d followback.DeadLetter
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatal(err)
		}
		if d.Keys == nil || d.Sequence == "" {
			t.Errorf("dead letter without its record: %s", sc.Text())
		}
		out = append(out, d.Entity+": "+d.Reason)
	}
	return out
}

func containsLine(lines []string, want string) bool {
	for _, l := range lines {
		if strings.Contains(l, want) {
			return true
		}
	}
	return false
}

func count(t *testing.T, s *shop, q string) int64 {
	t.Helper()
	conn := testenv.ConnectPostgres
	if s.eng == "mysql" {
		conn = testenv.ConnectMySQL
	}
	n, err := conn(t, s.dsn).Int(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
