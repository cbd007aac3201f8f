package verify_test

import (
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/backoff"
	"github.com/remodel-dev/remodel/internal/testsupport/faultproxy"
)

// TestItemReadsRetryOnce: under a deadline shorter than one answer, every
// read whose first attempt leaves keys unprocessed is still tried once
// more (the guarantee migrate's writer has, from the one policy in
// internal/backoff), rather than failing with zero retries.
func TestItemReadsRetryOnce(t *testing.T) {
	o := migrateNumbers(t)
	o.Workers = 1 // one read at a time: calls alternate first attempt, retry
	o.Backoff = backoff.Policy{Base: time.Millisecond, Cap: time.Millisecond, Deadline: time.Nanosecond}
	calls := 0
	p := throughProxy(t, &o, faultproxy.Rule{
		Fault: faultproxy.Unprocessed, Ops: []string{faultproxy.BatchGetItem}, Prob: 1, Keep: 0,
		Match: func(string, []byte) bool { calls++; return calls%2 == 1 }, // every first attempt: nothing read
	})
	rep := run(t, o)
	if !rep.OK || rep.Items[0].Compared != 1000 {
		t.Fatalf("verify: %+v\n%s", rep.Items[0], text(rep))
	}
	if s := p.Stats(); s.Injected[faultproxy.Unprocessed] < 10 {
		t.Fatalf("the first attempts were not all left unprocessed: %+v", s)
	}
}
