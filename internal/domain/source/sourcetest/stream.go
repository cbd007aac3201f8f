package sourcetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/source"
)

// OpenStream opens the stream of o from from, closed when the test ends.
func OpenStream(t *testing.T, ctx context.Context, src source.Source, o source.FollowOptions, from source.Position) source.Stream {
	t.Helper()
	o.From = from
	st, err := src.(source.Follower).OpenStream(ctx, o)
	if err != nil {
		t.Fatalf("OpenStream from %s: %v", from, err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// Next is the stream's next transaction, within 20 s.
func Next(t *testing.T, ctx context.Context, st source.Stream) *source.Txn {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	txn, err := st.Next(ctx)
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	return txn
}

// NoMore checks that the stream has nothing more within a second.
func NoMore(t *testing.T, ctx context.Context, st source.Stream) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if txn, err := st.Next(ctx); err == nil {
		t.Errorf("Next sent a transaction more: %s", DescribeTxn(txn))
	} else if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Next: %v", err)
	}
}

// DescribeTxn is a transaction's changes on one line, for failure
// messages.
func DescribeTxn(txn *source.Txn) string {
	var parts []string
	for _, c := range txn.Changes {
		row := c.New
		if row == nil {
			row = c.Old
		}
		parts = append(parts, fmt.Sprintf("%s %v", c.Kind, row[0]))
	}
	return fmt.Sprintf("[%s] at %s", strings.Join(parts, ", "), txn.End)
}

// NextResult is what one Next returned.
type NextResult struct {
	Txn *source.Txn
	Err error
}

// Follow calls Next in a goroutine, as the follower does, until it fails,
// stop is called, or the test ends (before the stream is closed).
func Follow(t *testing.T, ctx context.Context, st source.Stream) (txns <-chan NextResult, stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	out := make(chan NextResult)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			txn, err := st.Next(ctx)
			select {
			case out <- NextResult{txn, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	stop = func() {
		cancel()
		<-done
	}
	t.Cleanup(stop)
	return out, stop
}

// Received is the next transaction of follow, within 20 s.
func Received(t *testing.T, txns <-chan NextResult) *source.Txn {
	t.Helper()
	select {
	case r := <-txns:
		if r.Err != nil {
			t.Fatalf("Next: %v", r.Err)
		}
		return r.Txn
	case <-time.After(20 * time.Second):
		t.Fatal("Next returned nothing within 20s")
	}
	return nil
}

// Eventually waits until cond holds, checking every 20 ms, and fails the
// test when it does not within d.
func Eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	end := time.After(d)
	for !cond() {
		select {
		case <-tick.C:
		case <-end:
			t.Fatalf("%s: not within %s", what, d)
		}
	}
}
