package null_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/sink"
	"github.com/remodel-dev/remodel/internal/domain/sink/null"
	"github.com/remodel-dev/remodel/mapping"
)

// batch is a test's batch: its items as they are.
type batch []sink.Item

func (b batch) Len() int             { return len(b) }
func (b batch) Item(i int) sink.Item { return b[i] }

// acks records the items acknowledged, by their PK.
type acks struct {
	mu     sync.Mutex
	stored []string
}

func (a *acks) Stored(b sink.Batch, from, to int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for i := from; i < to; i++ {
		a.stored = append(a.stored, b.Item(i).Value["PK"].(*types.AttributeValueMemberS).Value)
	}
}

func (a *acks) Rejected(sink.Batch, int, string) error {
	return errors.New("the null sink rejects nothing")
}

func item(pk string, size int, del bool) sink.Item {
	return sink.Item{Value: mapping.Item{"PK": &types.AttributeValueMemberS{Value: pk}}, Entity: "e", Delete: del, Size: size}
}

// TestNullSink: every item of every batch is acknowledged at once, in
// order, and counted with its bytes; deletes are counted apart; a done
// context takes nothing.
func TestNullSink(t *testing.T) {
	for _, tc := range []struct {
		name    string
		batches []batch
		stored  []string
		stats   null.Stats
	}{
		{name: "none", stats: null.Stats{}},
		{name: "one batch", batches: []batch{{item("a", 10, false), item("b", 20, false)}},
			stored: []string{"a", "b"}, stats: null.Stats{Items: 2, Bytes: 30}},
		{name: "batches and a delete", batches: []batch{{item("a", 10, false)}, {}, {item("b", 5, true), item("c", 7, false)}},
			stored: []string{"a", "b", "c"}, stats: null.Stats{Items: 2, Bytes: 17, Deletes: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &acks{}
			s := null.New(a)
			for _, b := range tc.batches {
				if err := s.Write(t.Context(), b); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Close(t.Context(), true); err != nil {
				t.Fatal(err)
			}
			if got := s.Stats(); got != tc.stats {
				t.Errorf("stats %+v, want %+v", got, tc.stats)
			}
			if len(a.stored) != len(tc.stored) {
				t.Fatalf("acknowledged %v, want %v", a.stored, tc.stored)
			}
			for i := range a.stored {
				if a.stored[i] != tc.stored[i] {
					t.Errorf("acknowledged %v, want %v", a.stored, tc.stored)
				}
			}
		})
	}
}

// TestNullSinkStopped: once the run stops, a write is refused with the
// context's error and nothing is acknowledged or counted.
func TestNullSinkStopped(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	a := &acks{}
	s := null.New(a)
	if err := s.Write(ctx, batch{item("a", 1, false)}); !errors.Is(err, context.Canceled) {
		t.Fatalf("write after the stop: %v, want context.Canceled", err)
	}
	if len(a.stored) != 0 || s.Stats() != (null.Stats{}) {
		t.Errorf("acknowledged %v, stats %+v after the stop; want none", a.stored, s.Stats())
	}
}
