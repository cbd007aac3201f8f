package migrate_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/testsupport/faultproxy"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/migrate"
)

// silentListener accepts connections and never answers; it counts them.
func silentListener(t *testing.T) (url string, conns func() int) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var open []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			open = append(open, c)
			mu.Unlock()
			go func() { _, _ = io.Copy(io.Discard, c) }()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		<-done
		mu.Lock()
		for _, c := range open {
			c.Close()
		}
		mu.Unlock()
	})
	return "http://" + l.Addr().String(), func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(open)
	}
}

// TestSilentWrites: DynamoDB takes the connection and never answers a
// BatchWriteItem. Each attempt times out after --request-timeout and is
// retried; after --retry-for the run fails, naming the items and why,
// instead of hanging.
func TestSilentWrites(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	eng := testenv.Engines[0]
	fx := personalization(t, eng)
	direct := newDB(t, endpoint)
	table := tableName(t, direct)
	var firstWrite time.Time // when the first BatchWriteItem reached the proxy (under its lock)
	p, _, db := proxy(t, endpoint, 1, faultproxy.Rule{Fault: faultproxy.Delay, Ops: bwi, Prob: 1, Delay: time.Hour,
		Match: func(string, []byte) bool {
			if firstWrite.IsZero() {
				firstWrite = time.Now()
			}
			return true
		}})
	o := fx.options(db, table)
	o.CreateTable = true
	o.RequestTimeout = 200 * time.Millisecond
	o.Backoff = migrate.Backoff{Base: time.Millisecond, Cap: 20 * time.Millisecond, Deadline: time.Second}
	rep, err := runWithin(t, testContext(t), o, 2*time.Minute)
	end := time.Now()
	if err == nil {
		t.Fatal("Run succeeded although DynamoDB never answers a write")
	}
	msg := err.Error()
	if !strings.Contains(msg, "still not written after retrying for 1s") || !strings.Contains(msg, "no answer within 200ms (--request-timeout)") || !keyRE.MatchString(msg) {
		t.Errorf("error %q does not name the items, the deadline and the timeout", msg)
	}
	// Counted from the first write (the table check, the lock and the
	// creation come first and take their own time on a loaded machine): one
	// batch is retried for 1s, plus the attempt in flight then. An attempt
	// not cut at 200ms would hang for the proxy's hour.
	calls := p.Stats().Calls["BatchWriteItem"] // after the run: firstWrite is set
	if took := end.Sub(firstWrite); took > 10*time.Second {
		t.Errorf("Run gave up %s after its first write, with --retry-for 1s and --request-timeout 200ms", took)
	}
	// Each writer's batch timed out and was tried again at least once (a
	// retry per 200ms without load: about 5 attempts each).
	if min := o.Writers * 2; calls < min {
		t.Errorf("%d BatchWriteItem attempts, want at least %d: the attempts were not retried after their timeout", calls, min)
	}
	if rep.OK || rep.Interrupted || rep.Error != msg || rep.ItemsWritten != 0 {
		t.Errorf("report: ok %v, interrupted %v, %d items written, error %q", rep.OK, rep.Interrupted, rep.ItemsWritten, rep.Error)
	}
	if n, _ := scan(t, direct, table); n != 0 {
		t.Errorf("the table holds %d items, no write was answered", n)
	}
	checkNoLock(t, direct, fx, table)
}

// TestSilentEndpoint: an endpoint that accepts connections and never
// answers at all. The table check (DescribeTable) and the table creation
// give up after their request timeouts instead of hanging.
func TestSilentEndpoint(t *testing.T) {
	eng := testenv.Engines[0]
	fx := personalization(t, eng)
	url, conns := silentListener(t)
	db := newDB(t, url)
	for _, c := range []struct {
		create bool
		want   *regexp.Regexp
		tries  int
	}{
		{false, regexp.MustCompile(`^migrate: describing table silent: operation error DynamoDB: DescribeTable, exceeded maximum number of attempts, 3, no answer within 200ms$`), 3},
		{true, regexp.MustCompile(`^migrate: creating table silent: no answer within 200ms \(--request-timeout\): the table may or may not have been created$`), 1},
	} {
		before := conns()
		o := fx.options(db, "silent")
		o.CreateTable = c.create
		o.RequestTimeout = 200 * time.Millisecond
		start := time.Now()
		rep, err := runWithin(t, testContext(t), o, time.Minute)
		if err == nil || !c.want.MatchString(err.Error()) {
			t.Errorf("create %v: err %v, want %s", c.create, err, c.want)
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("create %v: Run took %s", c.create, d)
		}
		if rep.OK || rep.Partial {
			t.Errorf("create %v: report: ok %v, partial %v", c.create, rep.OK, rep.Partial)
		}
		// Each attempt that timed out closed its connection: the next one
		// opened another.
		if got := conns() - before; got != c.tries {
			t.Errorf("create %v: %d connections, want one per attempt (%d)", c.create, got, c.tries)
		}
	}
}

// stopCase is a run stopped mid-way: by canceling its context, or by a
// batch that cannot be written.
type stopCase struct {
	name   string
	cancel bool
}

// TestStopExact stops runs mid-way while many writes are in flight (every
// BatchWriteItem answer is held back 150ms after DynamoDB acted on it) and
// holds the report to the table: the items the report counts as written
// are exactly the items a Scan finds, because the writers wait for the
// answers of their requests in flight (within the grace period) and count
// what DynamoDB acknowledged.
func TestStopExact(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	for i, c := range []stopCase{{"cancel", true}, {"fault", false}} {
		eng := testenv.Engines[i%len(testenv.Engines)]
		t.Run(c.name+"/"+eng.Name, func(t *testing.T) {
			t.Parallel()
			fx := personalization(t, eng)
			direct := newDB(t, endpoint)
			table := tableName(t, direct)

			// The batch that cannot be written (fault): every BatchWriteItem
			// holding the partition key of the first item of call 30 has all
			// its items left unprocessed.
			pkRE := regexp.MustCompile(`"PK":\{"S":"([^"]+)"\}`)
			calls := 0
			var stuck []byte
			rule := faultproxy.Rule{Fault: faultproxy.Unprocessed, Prob: 1, Match: func(_ string, body []byte) bool {
				calls++
				if calls == 30 && !c.cancel {
					if m := pkRE.FindSubmatch(body); m != nil {
						stuck = m[0]
					}
				}
				return stuck != nil && strings.Contains(string(body), string(stuck))
			}}
			p, err := faultproxy.New(endpoint, 1, rule)
			if err != nil {
				t.Fatal(err)
			}
			late := faultproxy.NewLate(p, 150*time.Millisecond, faultproxy.BatchWriteItem)
			srv := httptest.NewServer(late)
			t.Cleanup(func() { srv.CloseClientConnections(); srv.Close(); p.Close() })
			db := newDB(t, srv.URL)

			ctx, cancel := context.WithCancel(testContext(t))
			defer cancel()
			o := fx.options(db, table)
			o.CreateTable = true
			o.Writers = 8
			o.Backoff.Deadline = 400 * time.Millisecond
			if c.cancel {
				go func() {
					for p.Stats().Calls["BatchWriteItem"] < 40 {
						select {
						case <-ctx.Done():
							return
						case <-time.After(5 * time.Millisecond):
						}
					}
					cancel()
				}()
			}
			rep, err := runWithin(t, ctx, o, 2*time.Minute)
			switch {
			case c.cancel && !errors.Is(err, context.Canceled):
				t.Fatalf("Run: %v, want context.Canceled", err)
			case !c.cancel && (err == nil || !strings.Contains(err.Error(), "still not written after retrying for 400ms")):
				t.Fatalf("Run: %v, want the stuck batch's error", err)
			}
			if rep.OK || rep.Interrupted != c.cancel || !rep.Partial || rep.Error != err.Error() {
				t.Errorf("report: ok %v, interrupted %v, partial %v, error %q", rep.OK, rep.Interrupted, rep.Partial, rep.Error)
			}
			if rep.ItemsWritten == 0 || rep.ItemsWritten >= fx.total {
				t.Errorf("report: %d items written of %d: the run did not stop mid-way", rep.ItemsWritten, fx.total)
			}
			n, per := scan(t, direct, table)
			if n != rep.ItemsWritten {
				t.Errorf("report: %d items written, the table holds %d", rep.ItemsWritten, n)
			}
			var sum int64
			for _, e := range rep.Entities {
				sum += e.Items
				if per[e.Name] != e.Items {
					t.Errorf("entity %s: report %d items, the table %d", e.Name, e.Items, per[e.Name])
				}
			}
			if sum != rep.ItemsWritten {
				t.Errorf("the entities' items add up to %d, the total is %d", sum, rep.ItemsWritten)
			}
			delivered, abandoned := late.Counts()
			t.Logf("%d items written of %d; %d answers delivered, %d abandoned", rep.ItemsWritten, fx.total, delivered, abandoned)
			if abandoned != 0 {
				t.Errorf("%d answers to requests DynamoDB carried out were abandoned by the writers", abandoned)
			}
			checkNoLock(t, direct, fx, table)
		})
	}
}

// checkNoLock fails the test if the table still holds a lock item.
func checkNoLock(t *testing.T, db dynamo.API, fx *fixture, table string) {
	t.Helper()
	out, err := db.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(table), Key: fx.plan.Table.LockKey(), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatalf("reading the lock item: %v", err)
	}
	if out.Item != nil {
		t.Errorf("the lock item is still in the table: %v", out.Item)
	}
}
