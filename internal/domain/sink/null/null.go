// Package null is the null sink: it acknowledges every item as stored the
// moment it is given, sends it nowhere, and counts what it was given. A
// migration into it (remodel migrate --to null:) reads, renders and checks
// the keys of every row as a migration into a table does, and measures
// remodel's own cost without a store's.
package null

import (
	"context"
	"sync/atomic"

	"github.com/remodel-dev/remodel/internal/domain/sink"
)

// Sink is the null sink. It is safe for concurrent use.
type Sink struct {
	acks                  sink.Acks
	items, bytes, deletes atomic.Int64
}

var _ sink.Sink = (*Sink)(nil)

// New is a null sink that tells acks of every item it is given.
func New(acks sink.Acks) *Sink { return &Sink{acks: acks} }

// Write counts the batch's items and acknowledges them all as stored; once
// ctx is done it takes nothing.
func (s *Sink) Write(ctx context.Context, b sink.Batch) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	var items, bytes, deletes int64
	for i := range b.Len() {
		it := b.Item(i)
		if it.Delete {
			deletes++
			continue
		}
		items++
		bytes += int64(it.Size)
	}
	s.items.Add(items)
	s.bytes.Add(bytes)
	s.deletes.Add(deletes)
	s.acks.Stored(b, 0, b.Len())
	return nil
}

// Close holds nothing to store: every item was acknowledged by its Write.
func (s *Sink) Close(context.Context, bool) error { return nil }

// Stats are what a null sink was given.
type Stats struct {
	// Items are the items it was given to store, Bytes their bytes as
	// DynamoDB counts them, Deletes the keys it was given to delete.
	Items, Bytes, Deletes int64
}

// Stats says what the sink was given so far.
func (s *Sink) Stats() Stats {
	return Stats{Items: s.items.Load(), Bytes: s.bytes.Load(), Deletes: s.deletes.Load()}
}
