package followback_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/followback"
	"github.com/remodel-dev/remodel/mapping"
)

// runUntilReady runs follow-back and stops it as soon as it is ready: the
// error of a run refused before it was ready, or nil.
func runUntilReady(t *testing.T, o followback.Options) (*followback.Report, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	o.Ready = cancel
	rep, err := followback.Run(ctx, o)
	if ctx.Err() == context.DeadlineExceeded {
		t.Fatal("follow-back neither refused nor ready within a minute")
	}
	return rep, err
}

// putForwardLock puts the lock item of a migrate run into the table, as
// migrate writes it (migrate/lock.go), held by a run on another host whose
// last heartbeat was age ago.
func (s *shop) putForwardLock(t *testing.T, age time.Duration) {
	t.Helper()
	it := s.Plan.Table.LockKey()
	for k, v := range map[string]types.AttributeValue{
		"remodel_owner":     str("0123456789abcdef"),
		"remodel_host":      str("another-host"),
		"remodel_pid":       &types.AttributeValueMemberN{Value: "4242"},
		"remodel_started":   str(time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)),
		"remodel_heartbeat": &types.AttributeValueMemberN{Value: strconv.FormatInt(time.Now().Add(-age).UnixMilli(), 10)},
	} {
		it[k] = v
	}
	if _, err := s.DB.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(s.Table), Item: it}); err != nil {
		t.Fatal(err)
	}
}

func (s *shop) dropForwardLock(t *testing.T) {
	t.Helper()
	if _, err := s.DB.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{TableName: aws.String(s.Table), Key: s.Plan.Table.LockKey()}); err != nil {
		t.Fatal(err)
	}
}

// lateTable is the table as DescribeTable tells it, created an hour before
// it really was: its stream looks enabled an hour after the table.
type lateTable struct{ followback.TableAPI }

func (l lateTable) DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, opts ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	out, err := l.TableAPI.DescribeTable(ctx, in, opts...)
	if err == nil && out.Table.CreationDateTime != nil {
		c := *out.Table
		c.CreationDateTime = aws.Time(c.CreationDateTime.Add(-time.Hour))
		out = &dynamodb.DescribeTableOutput{Table: &c}
	}
	return out, err
}

// TestFollowBackRefusals: follow-back refuses to start while a migrate run
// holds the table's lock (a lock whose heartbeat is stale is no run: it
// starts, and says so), and stops when a migrate run takes the lock while
// it runs, the changes after it not applied; it refuses a stream enabled
// later than the table was created unless --enable-stream says the
// application has not written yet; and --resume refuses a checkpoint older
// than the stream's 24 hours as lost changes. Each refusal leaves the
// source as it is. On PostgreSQL: none depends on the engine.
func TestFollowBackRefusals(t *testing.T) {
	eng := engines()[0]
	s := newShop(t, eng.Name, eng.Fresh, eng.Exec)
	dir := t.TempDir()
	customer := func(id string) mapping.Item {
		return mapping.Item{"PK": str("CUSTOMER#" + id), "SK": str("PROFILE")}
	}
	rename := func(id, name string) {
		s.Update(t, customer(id), "SET #n = :n", map[string]types.AttributeValue{":n": str(name)})
	}

	t.Run("forward lock held at the start", func(t *testing.T) {
		ck := filepath.Join(dir, "lock.json")
		defer s.dropForwardLock(t)
		s.putForwardLock(t, 5*time.Second)
		_, err := runUntilReady(t, s.options(t, ck, filepath.Join(dir, "dead.jsonl")))
		if err == nil || !strings.Contains(err.Error(), "a migrate run holds the lock of table "+s.Table) || !strings.Contains(err.Error(), "another-host") {
			t.Fatalf("follow-back started while a migrate run holds the lock: %v", err)
		}
		if _, err := os.Stat(ck); err == nil {
			t.Error("a refused run wrote its checkpoint")
		}
		// A migrate run whose heartbeat is stale is gone: follow-back
		// starts, and its report says what it found.
		s.putForwardLock(t, time.Hour)
		rep, err := runUntilReady(t, s.options(t, ck, filepath.Join(dir, "dead.jsonl")))
		if err != nil || !strings.Contains(strings.Join(rep.Notes, "\n"), "the lock item of a migrate run that is gone") {
			t.Fatalf("follow-back with a stale forward lock: %v, %q", err, rep.Notes)
		}
	})

	t.Run("forward lock taken while it runs", func(t *testing.T) {
		defer s.dropForwardLock(t)
		f := start(t, s.options(t, filepath.Join(dir, "midrun.json"), filepath.Join(dir, "dead.jsonl")))
		rename("2", "before the lock")
		f.waitFor(t, 1)
		s.putForwardLock(t, 0)
		rename("3", "after the lock")
		select {
		case <-f.done:
		case <-time.After(time.Minute):
			t.Fatal("follow-back did not stop when a migrate run took the table's lock")
		}
		if f.err == nil || !strings.Contains(f.err.Error(), "a migrate run took the table's lock while follow-back runs") {
			t.Fatalf("follow-back did not stop on the forward lock: %v", f.err)
		}
		if n := count(t, s, "SELECT count(*) FROM customers WHERE id = 2 AND name = 'before the lock'"); n != 1 {
			t.Error("the change before the lock was not applied")
		}
		if n := count(t, s, "SELECT count(*) FROM customers WHERE name = 'after the lock'"); n != 0 {
			t.Error("a change after the forward lock was applied")
		}
	})

	t.Run("stream enabled late", func(t *testing.T) {
		ck := filepath.Join(dir, "late.json")
		o := s.options(t, ck, filepath.Join(dir, "dead.jsonl"))
		o.DB = lateTable{s.DB}
		_, err := runUntilReady(t, o)
		if err == nil || !strings.Contains(err.Error(), "writes before it are not in it") || !strings.Contains(err.Error(), "give --enable-stream") {
			t.Fatalf("follow-back started on a stream enabled an hour after the table was created: %v", err)
		}
		if _, err := os.Stat(ck); err == nil {
			t.Error("a refused run wrote its checkpoint")
		}
		// --enable-stream: the user says the application has not written
		// to the table yet.
		o.EnableStream = true
		if _, err := runUntilReady(t, o); err != nil {
			t.Fatalf("follow-back --enable-stream on a stream enabled late: %v", err)
		}
	})

	t.Run("checkpoint older than the stream keeps records", func(t *testing.T) {
		ck, dead := filepath.Join(dir, "old.json"), filepath.Join(dir, "dead.jsonl")
		f := start(t, s.options(t, ck, dead))
		f.stop()
		if f.err != nil {
			t.Fatal(f.err)
		}
		rename("4", "while it was stopped")
		saved := func(at time.Time) {
			b, err := os.ReadFile(ck)
			if err != nil {
				t.Fatal(err)
			}
			var doc map[string]any
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatal(err)
			}
			doc["saved"] = at.UTC().Format(time.RFC3339Nano)
			if b, err = json.Marshal(doc); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(ck, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		saved(time.Now().Add(-25 * time.Hour))
		o := s.options(t, ck, dead)
		o.Resume = true
		_, err := runUntilReady(t, o)
		if err == nil || !strings.Contains(err.Error(), "longer than the stream keeps records (24 hours): changes since are lost") || !strings.Contains(err.Error(), "start again without --resume") {
			t.Fatalf("--resume from a checkpoint saved 25 hours ago: %v", err)
		}
		if n := count(t, s, "SELECT count(*) FROM customers WHERE name = 'while it was stopped'"); n != 0 {
			t.Error("a refused --resume applied a change")
		}
		// The same checkpoint saved 23 hours ago is within the stream's
		// retention: --resume goes on, and applies the change.
		saved(time.Now().Add(-23 * time.Hour))
		g := start(t, o)
		g.waitFor(t, 1)
		g.stop()
		if g.err != nil {
			t.Fatal(g.err)
		}
		if n := count(t, s, "SELECT count(*) FROM customers WHERE id = 4 AND name = 'while it was stopped'"); n != 1 {
			t.Error("--resume within the retention did not apply the change made while it was stopped")
		}
	})
}
