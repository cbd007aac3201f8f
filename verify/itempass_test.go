package verify_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/backoff"
	"github.com/remodel-dev/remodel/internal/testsupport/faultproxy"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/verify"
)

const numbersSQL = `
CREATE TABLE things (id int PRIMARY KEY, v text);
INSERT INTO things SELECT i, 'v' || i FROM generate_series(1, 1000) i;
`

var numbersMapping = thingsMapping[:strings.Index(thingsMapping, "    attributes:")]

// migrateNumbers migrates a 1000-row table on PostgreSQL.
func migrateNumbers(t *testing.T) verify.Options {
	t.Helper()
	eng := testenv.Engines[0]
	return migrateThings(t, eng.Name, eng.Fresh, eng.Exec, numbersSQL, numbersMapping)
}

// throughProxy points the options' DynamoDB client at a fault proxy in
// front of the test's DynamoDB Local.
func throughProxy(t *testing.T, o *verify.Options, rules ...faultproxy.Rule) *faultproxy.Proxy {
	t.Helper()
	p, err := faultproxy.New(testenv.DynamoDB(t), 1, rules...)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	t.Cleanup(func() { srv.Close(); p.Close() })
	o.DB = testenv.DynamoDBClient(srv.URL)
	return p
}

func missingRows(rep *verify.Report) []string {
	var out []string
	for _, p := range rep.Items[0].Problems.List {
		if p.Kind == verify.KindMissing {
			out = append(out, p.SourceKey)
		}
	}
	return out
}

// TestItemSample: a sample rate compares a deterministic share of the rows,
// the same rows on every run, and says how many.
func TestItemSample(t *testing.T) {
	ctx := context.Background()
	o := migrateNumbers(t)
	o.SampleRate = 0.1
	o.MaxProblems = 1000
	a, b := run(t, o), run(t, o)
	ic := a.Items[0]
	if !a.OK || ic.Rows != 1000 || ic.SampleRate != 0.1 || ic.Sampled < 50 || ic.Sampled > 150 || ic.Compared != ic.Sampled {
		t.Fatalf("item check at rate 0.1: %+v\n%s", ic, text(a))
	}
	if b.Items[0].Sampled != ic.Sampled {
		t.Fatalf("two runs sampled %d and %d rows", ic.Sampled, b.Items[0].Sampled)
	}

	// Delete the items of rows 1 to 100: the sample finds the ones it
	// checks, the same ones every run; the whole check finds all.
	for id := 1; id <= 100; id += 25 {
		var reqs []types.WriteRequest
		for i := id; i < id+25; i++ {
			reqs = append(reqs, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: key("THING#"+strconv.Itoa(i), "THING#")}})
		}
		if _, err := o.DB.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{o.Table: reqs}}); err != nil {
			t.Fatal(err)
		}
	}
	a, b = run(t, o), run(t, o)
	miss := missingRows(a)
	if len(miss) == 0 || len(miss) > 30 || !slices.Equal(miss, missingRows(b)) || a.Items[0].Missing != int64(len(miss)) {
		t.Fatalf("at rate 0.1 the deleted rows found missing were %v, then %v", miss, missingRows(b))
	}
	for _, k := range miss {
		id, err := strconv.Atoi(strings.TrimPrefix(k, "id="))
		if err != nil || id < 1 || id > 100 {
			t.Errorf("row %s is reported missing but was not deleted", k)
		}
	}
	o.SampleRate = 0
	o.MaxProblems = 30
	rep := run(t, o)
	if ic := rep.Items[0]; ic.Missing != 100 || ic.Compared != 1000 || ic.SampleRate != 1 || ic.Problems.Total != 100 || len(ic.Problems.List) != 30 {
		t.Fatalf("the whole check: %+v", rep.Items[0])
	}
	// Whatever order the workers finish in, the problems kept are the first
	// in Problem order: by item key.
	keys := map[string]string{}
	var sorted []string
	for i := 1; i <= 100; i++ {
		k := "PK=THING#" + strconv.Itoa(i) + " SK=THING#"
		keys[k] = "id=" + strconv.Itoa(i)
		sorted = append(sorted, k)
	}
	slices.Sort(sorted)
	var want []string
	for _, k := range sorted[:30] {
		want = append(want, keys[k])
	}
	if got := missingRows(rep); !slices.Equal(got, want) {
		t.Errorf("missing rows listed: %v, want %v", got, want)
	}

	o.SampleRate = 1.5
	if _, err := verify.Run(ctx, o); err == nil || err.Error() != "verify: the sample rate must be more than 0 and at most 1, got 1.5" {
		t.Errorf("sample rate 1.5: %v", err)
	}
}

// TestItemReadsRetry: keys DynamoDB leaves unprocessed and throttled reads
// are read again; keys that stay unread end the run with the keys named,
// and a cancelled run ends at once.
func TestItemReadsRetry(t *testing.T) {
	o := migrateNumbers(t)
	o.Backoff = backoff.Policy{Base: time.Millisecond, Cap: 20 * time.Millisecond, Deadline: 30 * time.Second}
	get := []string{"BatchGetItem"}
	p := throughProxy(t, &o,
		faultproxy.Rule{Fault: faultproxy.Throttle, Ops: get, First: 3},
		faultproxy.Rule{Fault: faultproxy.InternalError, Ops: get, First: 2},
		faultproxy.Rule{Fault: faultproxy.Unprocessed, Ops: get, Prob: 0.5, Keep: 0.3, Random: true},
	)
	rep := run(t, o)
	if !rep.OK || rep.Items[0].Compared != 1000 {
		t.Fatalf("verify through faults: %+v\n%s", rep.Items[0], text(rep))
	}
	s := p.Stats()
	if s.Injected[faultproxy.Throttle] != 3 || s.Injected[faultproxy.InternalError] != 2 || s.Injected[faultproxy.Unprocessed] == 0 || s.UnprocessedKeys == 0 {
		t.Fatalf("the faults were not all injected: %+v", s)
	}

	if err := p.SetRules(faultproxy.Rule{Fault: faultproxy.Unprocessed, Ops: get, Prob: 1}); err != nil {
		t.Fatal(err)
	}
	o.Backoff.Deadline = 300 * time.Millisecond
	o.Workers = 1
	_, err := verify.Run(context.Background(), o)
	want := "verify: comparing items of entity thing: 100 items still not read after retrying for 300ms (PK=THING#1 SK=THING#; PK=THING#2 SK=THING#; PK=THING#3 SK=THING#; and 97 more): left unprocessed"
	if err == nil || err.Error() != want {
		t.Fatalf("keys never read: %v\nwant %s", err, want)
	}

	if err := p.SetRules(faultproxy.Rule{Fault: faultproxy.Delay, Ops: get, Prob: 1, Delay: time.Minute}); err != nil {
		t.Fatal(err)
	}
	o.Workers = 0
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	if _, err := verify.Run(ctx, o); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cancelled run: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("a cancelled run took %s to end", d)
	}
}

// TestGSILag: a global index that lags behind its table for a while is
// queried again within the settle time; one that lags longer fails the
// access patterns on it, naming the items it misses.
func TestGSILag(t *testing.T) {
	eng := testenv.Engines[0]
	o := migrated(t, eng.Name, eng.Fresh, exampleMapping(t))
	o.SkipItems = true
	o.Samples = 3
	lag := faultproxy.Rule{Fault: faultproxy.Lag, First: 3}
	p := throughProxy(t, &o, lag)
	o.Settle = 30 * time.Second
	rep := run(t, o)
	if !rep.OK {
		t.Fatalf("verify failed although the index caught up within the settle time:\n%s", text(rep))
	}
	if s := p.Stats(); s.Injected[faultproxy.Lag] != 3 || s.LaggedItems == 0 {
		t.Fatalf("the index never lagged: %+v", s)
	}

	lag = faultproxy.Rule{Fault: faultproxy.Lag, Prob: 1}
	if err := p.SetRules(lag); err != nil {
		t.Fatal(err)
	}
	o.Settle = time.Second
	rep = run(t, o)
	out := text(rep)
	if rep.OK {
		t.Fatalf("verify passed although an index lagged past the settle time:\n%s", out)
	}
	for _, pc := range rep.Patterns {
		if onGSI := strings.HasPrefix(pc.Target, "index GSI"); pc.OK == onGSI {
			t.Errorf("access pattern %s on %s: ok=%v", pc.Name, pc.Target, pc.OK)
		}
	}
	for _, want := range []string{"the Query misses item PK=SUBSCRIBE#", "the Query misses item PK=USER#"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report does not name the items the lagging index misses (%q):\n%s", want, out)
		}
	}
}
