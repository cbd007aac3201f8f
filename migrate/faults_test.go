package migrate_test

import (
	"context"
	"errors"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/progress"
	"github.com/remodel-dev/remodel/internal/testsupport/faultproxy"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/migrate"
)

var bwi = []string{faultproxy.BatchWriteItem}

// TestFaults migrates the example through a proxy that leaves items
// unprocessed on most batches, throttles, answers 500 and 503 and drops
// connections before and after DynamoDB acted. Every item must still land,
// each fault must cost exactly one retry, and each throttle must be counted.
func TestFaults(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			t.Parallel()
			endpoint := testenv.DynamoDB(t)
			fx := personalization(t, eng)
			direct := newDB(t, endpoint)
			table := tableName(t, direct)
			p, _, db := proxy(t, endpoint, 20240601,
				faultproxy.Rule{Fault: faultproxy.Throttle, Ops: bwi, First: 3, Prob: 0.03},
				faultproxy.Rule{Fault: faultproxy.Throttling, Ops: bwi, Prob: 0.03},
				faultproxy.Rule{Fault: faultproxy.InternalError, Ops: bwi, Prob: 0.03},
				faultproxy.Rule{Fault: faultproxy.Unavailable, Ops: bwi, Prob: 0.02},
				faultproxy.Rule{Fault: faultproxy.DropBefore, Ops: bwi, Prob: 0.02},
				faultproxy.Rule{Fault: faultproxy.DropAfter, Ops: bwi, Prob: 0.02},
				faultproxy.Rule{Fault: faultproxy.Unprocessed, Prob: 0.8, Keep: 0.5, Random: true},
			)
			o := fx.options(db, table)
			o.CreateTable = true
			tracker := progress.New("migrate")
			o.Progress = tracker
			rep, err := migrate.Run(testContext(t), o)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			checkLanded(t, fx, rep, direct, table)

			s := p.Stats()
			t.Logf("%d BatchWriteItem calls; injected %v, %d items left unprocessed; report: %d retries, %d throttled",
				s.Calls["BatchWriteItem"], s.Injected, s.UnprocessedItems, rep.Retries, rep.Throttled)
			for f := faultproxy.Unprocessed; f <= faultproxy.DropAfter; f++ {
				if s.Injected[f] == 0 {
					t.Errorf("the proxy never injected %s: the test does not exercise it", f)
				}
			}
			if s.Injected[faultproxy.Unprocessed] < s.Calls["BatchWriteItem"]/2 {
				t.Errorf("only %d of %d batches had unprocessed items", s.Injected[faultproxy.Unprocessed], s.Calls["BatchWriteItem"])
			}
			// Every injected fault makes the writer send that batch (or
			// what is left of it) once more, and nothing else does.
			if rep.Retries != int64(s.Total()) {
				t.Errorf("report: %d retries, the proxy injected %d faults", rep.Retries, s.Total())
			}
			if want := s.Injected[faultproxy.Throttle] + s.Injected[faultproxy.Throttling]; rep.Throttled != int64(want) {
				t.Errorf("report: %d throttled, the proxy throttled %d times", rep.Throttled, want)
			}
			// The writers' calls went without the SDK's stack
			// (dynamo.Client.WriteBatch) but the first ones, which make its
			// request template: the classification above is of its errors.
			n, calls := db.DirectCalls(), s.Calls["BatchWriteItem"]
			t.Logf("%d of %d BatchWriteItem calls sent directly", n, calls)
			if n < int64(calls)*9/10 {
				t.Errorf("only %d of %d BatchWriteItem calls sent directly", n, calls)
			}
			if copied := tracker.Snapshot().Phases[0].Sum(); copied.Done != rep.RowsRead || copied.Total != rep.RowsRead {
				t.Errorf("progress ends at %d of %d rows, the report read %d", copied.Done, copied.Total, rep.RowsRead)
			}
			tl := tracker.Snapshot().Phases[0].Tallies
			if len(tl) != 4 || tl[1] != (progress.TallyState{Name: "retries", Count: rep.Retries}) || rep.Retries == 0 {
				t.Errorf("progress ends with tallies %+v, the report has %d retries", tl, rep.Retries)
			}
			if c := rep.Concurrency; c == nil || len(tl) != 4 || tl[2] != (progress.TallyState{Name: "requests in flight", Count: 0}) ||
				tl[3] != (progress.TallyState{Name: "s paused by throttling", Count: int64(c.Paused)}) || c.Pauses == 0 || c.Cuts == 0 {
				t.Errorf("progress ends with tallies %+v; the report's adaptive concurrency %+v (throttled: it paused and was cut)", tl, c)
			}
		})
	}
}

var keyRE = regexp.MustCompile(`PK=(USER|SERVICE|SUBSCRIBE)#\S* SK=`)

// TestRetryDeadline: when DynamoDB never takes the items, Run gives up
// after the deadline and names the items it could not write.
func TestRetryDeadline(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	for i, c := range []struct {
		name   string
		rule   faultproxy.Rule
		reason string
		// doubt: the fault leaves the client unable to know whether
		// DynamoDB wrote the items (no answer, a 5xx, a cut connection).
		doubt bool
	}{
		{"nothing-processed", faultproxy.Rule{Fault: faultproxy.Unprocessed, Prob: 1}, "left unprocessed", false},
		{"half-processed", faultproxy.Rule{Fault: faultproxy.Unprocessed, Prob: 1, Keep: 0.5}, "left unprocessed", false},
		{"throttled", faultproxy.Rule{Fault: faultproxy.Throttle, Ops: bwi, Prob: 1}, "ProvisionedThroughputExceededException", false},
		{"500", faultproxy.Rule{Fault: faultproxy.InternalError, Ops: bwi, Prob: 1}, "InternalServerError", true},
		{"dropped", faultproxy.Rule{Fault: faultproxy.DropBefore, Ops: bwi, Prob: 1}, "EOF", true},
		{"dropped-after-writing", faultproxy.Rule{Fault: faultproxy.DropAfter, Ops: bwi, Prob: 1}, "EOF", true},
	} {
		eng := testenv.Engines[i%len(testenv.Engines)] // both engines, each case once
		t.Run(c.name+"/"+eng.Name, func(t *testing.T) {
			t.Parallel()
			fx := personalization(t, eng)
			direct := newDB(t, endpoint)
			table := tableName(t, direct)
			p, _, db := proxy(t, endpoint, 1, c.rule)
			o := fx.options(db, table)
			o.CreateTable = true
			o.Backoff = migrate.Backoff{Base: time.Millisecond, Cap: 20 * time.Millisecond, Deadline: 300 * time.Millisecond}
			start := time.Now()
			rep, err := runWithin(t, testContext(t), o, 30*time.Second)
			took := time.Since(start)
			if err == nil {
				t.Fatal("Run succeeded although no batch can be written")
			}
			if took > 20*time.Second {
				t.Errorf("Run took %s to give up with a 300ms deadline", took)
			}
			msg := err.Error()
			if !strings.Contains(msg, "still not written after retrying for 300ms") || !strings.Contains(msg, c.reason) || !keyRE.MatchString(msg) {
				t.Errorf("error %q does not name the items, the deadline and the reason %q", msg, c.reason)
			}
			if rep.Retries == 0 {
				t.Error("no retry before giving up")
			}
			// The report never says more was written than was, and what it
			// cannot know it counts apart: the table holds the items
			// acknowledged and at most the unknown ones besides (a connection
			// dropped after DynamoDB wrote lands items unacknowledged). A fault
			// that refuses the request before any write leaves none unknown.
			n, _ := scan(t, direct, table)
			if n < rep.ItemsWritten || n > rep.ItemsWritten+rep.ItemsUnknown {
				t.Errorf("report: %d items written and %d unknown; the table holds %d", rep.ItemsWritten, rep.ItemsUnknown, n)
			}
			if !c.doubt && rep.ItemsUnknown != 0 {
				t.Errorf("report: %d items unknown after a fault that refuses before writing", rep.ItemsUnknown)
			}
			if c.doubt && rep.ItemsUnknown == 0 {
				t.Error("report: no item unknown although no request was answered")
			}
			if rep.OK || rep.Error != msg {
				t.Errorf("report: ok %v, error %q", rep.OK, rep.Error)
			}
			if c.rule.Keep == 0 && c.rule.Fault != faultproxy.DropAfter && p.Stats().Forwarded["BatchWriteItem"] != 0 {
				t.Error("a BatchWriteItem reached DynamoDB")
			}
		})
	}
}

// TestCancel cancels a run whose writes hang and checks Run returns the
// context's error promptly (once the grace for the writes in flight is
// over) and leaves no goroutine of the pipeline behind.
// It does not run in parallel: it inspects every goroutine of the process.
func TestCancel(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			endpoint := testenv.DynamoDB(t)
			fx := personalization(t, eng)
			direct := newDB(t, endpoint)
			table := tableName(t, direct)
			const fine = 20 // batches written before the writes hang
			calls := 0
			p, srv, db := proxy(t, endpoint, 1, faultproxy.Rule{
				Fault: faultproxy.Delay, Ops: bwi, Prob: 1, Delay: time.Hour,
				Match: func(string, []byte) bool { calls++; return calls > fine },
			})
			ctx, cancel := context.WithCancel(testContext(t))
			defer cancel()
			o := fx.options(db, table)
			o.CreateTable = true
			o.StopGrace = 500 * time.Millisecond // the hanging writes get no answer in it
			canceledAt := make(chan time.Time, 1)
			go func() {
				// Cancel once every writer waits on a hanging write.
				for p.Stats().Calls["BatchWriteItem"] < fine+o.Writers {
					select {
					case <-ctx.Done():
						return
					case <-time.After(5 * time.Millisecond):
					}
				}
				canceledAt <- time.Now()
				cancel()
			}()
			rep, err := runWithin(t, ctx, o, 30*time.Second)
			back := time.Now()
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Run: %v, want context.Canceled", err)
			}
			select {
			case at := <-canceledAt:
				if d := back.Sub(at); d > o.StopGrace+3*time.Second {
					t.Errorf("Run returned %s after the cancellation, with a grace of %s for the writes in flight", d, o.StopGrace)
				}
			default:
				t.Fatal("Run returned before the test canceled it")
			}
			if rep.ItemsWritten != fine*migrate.MaxBatch {
				t.Errorf("report: %d items written, want the %d of the first %d batches", rep.ItemsWritten, fine*migrate.MaxBatch, fine)
			}
			if rep.RowsRead >= fx.total {
				t.Errorf("every row (%d) was read before the cancellation: the run was not canceled mid-way", rep.RowsRead)
			}

			// Wait for the pipeline's goroutines to end.
			srv.CloseClientConnections()
			var stacks string
			for deadline := time.Now().Add(5 * time.Second); ; {
				buf := make([]byte, 1<<20)
				stacks = string(buf[:runtime.Stack(buf, true)])
				if !strings.Contains(stacks, "remodel-dev/remodel/migrate.") && !strings.Contains(stacks, "remodel-dev/remodel/source.") {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("goroutines of the pipeline still run 5s after Run returned:\n%s", stacks)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// runWithin runs a migration and fails the test, showing every goroutine,
// if Run does not return within d.
func runWithin(t *testing.T, ctx context.Context, o migrate.Options, d time.Duration) (*migrate.Report, error) {
	t.Helper()
	type result struct {
		rep *migrate.Report
		err error
	}
	done := make(chan result, 1)
	go func() {
		rep, err := migrate.Run(ctx, o)
		done <- result{rep, err}
	}()
	select {
	case r := <-done:
		return r.rep, r.err
	case <-time.After(d):
		buf := make([]byte, 1<<20)
		t.Fatalf("Run did not return within %s:\n%s", d, buf[:runtime.Stack(buf, true)])
		return nil, nil
	}
}
